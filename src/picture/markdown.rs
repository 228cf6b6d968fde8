//! The markdown summary for a CI comment: the verdict, a table with one row per plan, the checks
//! that failed (with their hints) and the path of the timeline SVG written beside it. Plan text is
//! HTML-escaped (a comment renders HTML) and kept on one table line.

use super::escape::Escaper;
use super::gather::{Detail, Picture};
use crate::report::{Severity, System};
use std::fmt::Write;

fn system_name(s: System) -> &'static str {
    match s {
        System::Dwp => "DWP",
        System::Gsd => "GSD",
        System::Reversa => "Reversa",
        System::Checkpoint => "checkpoint",
    }
}

/// A table cell: escaped, pipes escaped, on one line.
fn cell(esc: &Escaper, s: &str) -> String {
    esc.text(s).replace('|', "\\|").replace(['\n', '\r'], " ")
}

/// The summary; `svg` is the timeline file's name as the markdown should link it.
pub fn summary(picture: &Picture, esc: &Escaper, svg: &str) -> String {
    let verdict = picture.verdict();
    let mut out = format!(
        "## planseal report: {}\n\n| Plan | Format | Verdict | Tasks | Failed | Advisory | Receipt |\n|---|---|---|---|---|---|---|\n",
        verdict.as_str()
    );
    for p in &picture.plans {
        let c = p.section.counts();
        let (tasks, receipt) = match &p.detail {
            Detail::Dwp(d) => (
                format!(
                    "{}/{} completed",
                    d.view.counts.completed, d.view.counts.total
                ),
                match d.view.receipt {
                    "changed" => {
                        format!("changed: {}", cell(esc, &d.view.receipt_changes.join("; ")))
                    }
                    other => other.to_string(),
                },
            ),
            _ => ("—".to_string(), "—".to_string()),
        };
        let _ = writeln!(
            out,
            "| {} | {} | {} | {tasks} | {} | {} | {receipt} |",
            cell(esc, &p.name),
            system_name(p.system),
            p.verdict().as_str(),
            c.failed,
            c.advisory
        );
    }
    let failed: Vec<_> = picture
        .plans
        .iter()
        .flat_map(|p| {
            p.section
                .findings
                .iter()
                .filter(|f| matches!(f.severity, Severity::Fail | Severity::Unverified))
                .map(move |f| (p, f))
        })
        .collect();
    if !failed.is_empty() {
        out.push_str("\n### What failed\n\n");
        for (p, f) in failed {
            let _ = write!(
                out,
                "- **{}** `{}`{}: {}",
                cell(esc, &p.name),
                cell(esc, &f.id),
                f.task.map(|t| format!(" (task {t})")).unwrap_or_default(),
                cell(esc, &f.message)
            );
            if let Some(h) = &f.hint {
                let _ = write!(out, " — hint: {}", cell(esc, h));
            }
            out.push('\n');
        }
    }
    if picture.plans.iter().any(|p| p.system == System::Dwp) {
        let _ = write!(out, "\nTimeline: ![timeline of the plans]({svg})\n");
    }
    out
}
