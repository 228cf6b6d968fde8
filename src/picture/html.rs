//! The HTML page: one self-contained document — inline CSS and SVG, no script, no font or image
//! from anywhere, a Content-Security-Policy that forbids both — with a section per plan that
//! prints on a page of its own. Every string from a plan passes through the [`Escaper`].

use super::escape::Escaper;
use super::gather::{
    CheckpointPicture, Detail, DwpPicture, GsdPicture, Picture, PlanPicture, ReversaPicture,
};
use super::svg::{self, Frame};
use super::timeline::Timeline;
use crate::report::{Finding, Severity, System, Verdict};
use jiff::Timestamp;
use std::fmt::Write;

const PAGE_CSS: &str = include_str!("page.css");
/// The timeline's rules: in the page's style sheet, and in a standalone SVG's own.
pub const TIMELINE_CSS: &str = include_str!("timeline.css");

/// How a section's kicker names its format.
fn system_word(system: System) -> &'static str {
    match system {
        System::Dwp => "Deep Work Plan",
        System::Gsd => "GSD state",
        System::Reversa => "Reversa state",
        System::Checkpoint => "Checkpoint",
    }
}

fn verdict_class(v: Verdict) -> &'static str {
    match v {
        Verdict::Conformant => "verdict-conformant",
        Verdict::NotConformant => "verdict-not-conformant",
        Verdict::Unverified => "verdict-unverified",
    }
}

/// A small icon: a shape for each meaning, so that colour is never the only signal.
pub fn icon(kind: &str) -> &'static str {
    match kind {
        "pass" => {
            "<svg class=\"icon-pass\" viewBox=\"0 0 16 16\" aria-hidden=\"true\"><circle cx=\"8\" cy=\"8\" r=\"6.5\"/><path d=\"M4.8 8.2l2.2 2.3 4.2-4.8\"/></svg>"
        }
        "fail" => {
            "<svg class=\"icon-fail\" viewBox=\"0 0 16 16\" aria-hidden=\"true\"><rect x=\"1.5\" y=\"1.5\" width=\"13\" height=\"13\" rx=\"1\"/><path d=\"M5 5l6 6M11 5l-6 6\"/></svg>"
        }
        "advisory" => {
            "<svg class=\"icon-advisory\" viewBox=\"0 0 16 16\" aria-hidden=\"true\"><path d=\"M8 1.5l7 13H1z\"/><rect x=\"7.2\" y=\"6\" width=\"1.6\" height=\"4.5\"/><rect x=\"7.2\" y=\"11.5\" width=\"1.6\" height=\"1.6\"/></svg>"
        }
        "current" => {
            "<svg class=\"icon-current\" viewBox=\"0 0 16 16\" aria-hidden=\"true\"><path d=\"M3 2l10 6-10 6z\"/></svg>"
        }
        "pending" => {
            "<svg class=\"icon-pending\" viewBox=\"0 0 16 16\" aria-hidden=\"true\"><circle cx=\"8\" cy=\"8\" r=\"5.5\"/></svg>"
        }
        _ => {
            "<svg class=\"icon-unverified\" viewBox=\"0 0 16 16\" aria-hidden=\"true\"><circle cx=\"8\" cy=\"8\" r=\"7\"/><text x=\"5\" y=\"12\">?</text></svg>"
        }
    }
}

fn verdict_icon(v: Verdict) -> &'static str {
    match v {
        Verdict::Conformant => icon("pass"),
        Verdict::NotConformant => icon("fail"),
        Verdict::Unverified => icon("unverified"),
    }
}

fn verdict_badge(v: Verdict) -> String {
    format!(
        "<p class=\"verdict {}\" data-verdict=\"{}\">{}<span class=\"verdict-text\">{}</span></p>",
        verdict_class(v),
        v.as_str(),
        verdict_icon(v),
        v.as_str()
    )
}

/// The whole page. `now` is `PLANSEAL_FAKE_NOW` (the page never reads the real clock).
pub fn page(picture: &Picture, esc: &Escaper, now: Option<Timestamp>) -> String {
    let verdict = picture.verdict();
    let mut out = String::with_capacity(64 * 1024);
    out.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    out.push_str("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:\">\n");
    out.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
    out.push_str("<meta name=\"generator\" content=\"");
    out.push_str(crate::TOOL_VERSION);
    out.push_str("\">\n");
    let _ = writeln!(
        out,
        "<title>planseal report — {} — {}</title>",
        plan_count(picture.plans.len()),
        verdict.as_str()
    );
    out.push_str("<style>\n");
    out.push_str(PAGE_CSS);
    out.push_str(TIMELINE_CSS);
    out.push_str("</style>\n</head>\n<body>\n<main>\n");
    page_head(&mut out, picture, esc, now);
    for (i, plan) in picture.plans.iter().enumerate() {
        plan_section(&mut out, plan, i, picture.plans.len(), esc, now);
    }
    out.push_str("</main>\n</body>\n</html>\n");
    out
}

fn plan_count(n: usize) -> String {
    if n == 1 {
        "1 plan".to_string()
    } else {
        format!("{n} plans")
    }
}

fn page_head(out: &mut String, picture: &Picture, esc: &Escaper, now: Option<Timestamp>) {
    let verdict = picture.verdict();
    out.push_str("<header class=\"page-head\">\n<h1>planseal report</h1>\n");
    out.push_str(&verdict_badge(verdict));
    let _ = write!(
        out,
        "\n<p>{} · made by {}{}</p>\n<nav class=\"toc\" aria-label=\"Plans\"><ol>",
        plan_count(picture.plans.len()),
        crate::TOOL_VERSION,
        now.map(|n| format!(" · as of {} (PLANSEAL_FAKE_NOW)", svg::minute(n)))
            .unwrap_or_default()
    );
    for (i, p) in picture.plans.iter().enumerate() {
        let _ = writeln!(
            out,
            "<li><a href=\"#plan-{}\">{}</a> — {}: {}</li>",
            i + 1,
            esc.text(&p.name),
            system_word(p.system),
            p.verdict().as_str()
        );
    }
    out.push_str("</ol></nav>\n</header>\n");
}

fn plan_section(
    out: &mut String,
    plan: &PlanPicture,
    index: usize,
    total: usize,
    esc: &Escaper,
    now: Option<Timestamp>,
) {
    let verdict = plan.verdict();
    let system = match plan.system {
        System::Dwp => "dwp",
        System::Gsd => "gsd",
        System::Reversa => "reversa",
        System::Checkpoint => "checkpoint",
    };
    let _ = write!(
        out,
        "<section class=\"plan system-{system}\" id=\"plan-{}\" data-system=\"{system}\" data-plan=\"{}\">\n<header class=\"plan-head\">\n<p class=\"kicker\">{} · {} of {total}</p>\n<h2>{}",
        index + 1,
        esc.text(&plan.name),
        system_word(plan.system),
        index + 1,
        esc.text(&plan.name)
    );
    if let Detail::Dwp(d) = &plan.detail
        && let Some(title) = &d.title
    {
        let _ = write!(
            out,
            " <span class=\"plan-title\">— {}</span>",
            esc.text(title)
        );
    }
    out.push_str("</h2>\n");
    out.push_str(&verdict_badge(verdict));
    if plan.path != plan.name {
        let _ = write!(out, "\n<p class=\"path mono\">{}</p>", esc.text(&plan.path));
    }
    out.push_str("\n</header>\n");
    match &plan.detail {
        Detail::Dwp(d) => dwp(out, plan, d, index, esc, now),
        Detail::Gsd(g) => gsd(out, plan, g, esc),
        Detail::Reversa(r) => reversa(out, plan, r, esc),
        Detail::Checkpoint(c) => checkpoint(out, plan, c, esc),
    }
    findings(out, plan, esc);
    out.push_str("<p class=\"notes print-only\">Printed summary: the first lines of each list. The HTML page holds every finding and row.</p>\n");
    out.push_str("</section>\n");
}

/// `<div><dt>NAME</dt><dd>VALUE</dd></div>`; `value` is markup already.
fn fact(out: &mut String, name: &str, value: &str) {
    let _ = write!(out, "<div><dt>{name}</dt><dd>{value}</dd></div>");
}

fn checks_fact(out: &mut String, plan: &PlanPicture) {
    let c = plan.section.counts();
    let mut text = format!(
        "{} passed · {} failed · {} advisory",
        c.passed, c.failed, c.advisory
    );
    if c.unverified > 0 {
        let _ = write!(text, " · {} unverified", c.unverified);
    }
    fact(out, "Checks", &text);
}

fn dwp(
    out: &mut String,
    plan: &PlanPicture,
    d: &DwpPicture,
    index: usize,
    esc: &Escaper,
    now: Option<Timestamp>,
) {
    let v = &d.view;
    let timeline = Timeline::of(d, now);
    out.push_str("<dl class=\"facts\">");
    let status = match v.state {
        "ok" => esc.text(v.status.as_deref().unwrap_or("(none)")),
        other => format!("<span class=\"state-bad\">state.json is {other}</span>"),
    };
    fact(out, "Status", &status);
    let c = &v.counts;
    fact(
        out,
        "Tasks",
        &format!(
            "{}/{} completed · {} in progress · {} blocked · {} skipped · {} pending",
            c.completed, c.total, c.in_progress, c.blocked, c.skipped, c.pending
        ),
    );
    checks_fact(out, plan);
    fact(
        out,
        "Approval",
        &esc.text(v.approval.as_deref().unwrap_or("(not recorded)")),
    );
    fact(out, "Receipt", &receipt(v, esc));
    fact(
        out,
        "Marker",
        if v.marker {
            "<span class=\"state-bad\">.finalizing.json is there: a publication was interrupted (run planseal recover)</span>"
        } else {
            "none"
        },
    );
    let lock = match &v.lock {
        None => "none".to_string(),
        Some(l) => {
            let class = if l.owner == crate::report::LockOwnerState::Alive {
                "state-good"
            } else {
                "state-bad"
            };
            format!(
                "<span class=\"{class}\">{} — {}</span>",
                esc.text(&l.path),
                esc.text(&l.detail)
            )
        }
    };
    fact(out, "Lock", &lock);
    let gates: usize = timeline.lanes.iter().map(|l| l.gates.len()).sum();
    fact(
        out,
        "Gate runs",
        &format!("{gates} ({} failed)", timeline.failed_gates()),
    );
    let commits = match &d.log {
        Some(Ok(log)) if log.repository.is_some() => {
            format!("{} naming a task", timeline.commits.len())
        }
        Some(Ok(_)) | None => "not in a git repository".to_string(),
        Some(Err(e)) => format!("git could not be read: {}", esc.text(e)),
    };
    fact(out, "Commits", &commits);
    out.push_str("</dl>\n");
    if !v.attention.is_empty() {
        out.push_str("<ul class=\"attention\">");
        for a in &v.attention {
            let _ = writeln!(out, "<li>needs action: {}</li>", esc.text(a));
        }
        out.push_str("</ul>\n");
    }
    out.push_str("<h3>Timeline</h3>\n<figure class=\"timeline-figure\">");
    let prefix = format!("p{}", index + 1);
    let frame = Frame {
        id_prefix: &prefix,
        standalone: false,
        y_offset: 0.0,
    };
    let h = svg::height(&timeline, false);
    let _ = write!(
        out,
        "<svg class=\"timeline\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 1000 {h:.0}\" role=\"img\" aria-labelledby=\"{prefix}-desc\"><desc id=\"{prefix}-desc\">Timeline of {}: {} lane(s), {} gate run(s), {} commit(s), {} plan event(s)</desc>",
        esc.text(&plan.name),
        timeline.lanes.len(),
        gates,
        timeline.commits.len(),
        timeline.events.len()
    );
    out.push_str(&svg::drawing(&timeline, &plan.name, esc, frame));
    out.push_str("</svg>");
    if timeline.tasks_per_lane > 1 || !timeline.notes.is_empty() || d.journal_error.is_some() {
        out.push_str("<figcaption class=\"notes\">");
        if timeline.tasks_per_lane > 1 {
            let _ = write!(
                out,
                "{} tasks: each lane holds {} consecutive tasks. ",
                v.counts.total, timeline.tasks_per_lane
            );
        }
        for n in &timeline.notes {
            let _ = write!(out, "{}. ", esc.text(n));
        }
        if let Some(e) = &d.journal_error {
            let _ = write!(out, "The journal could not be read: {}.", esc.text(e));
        }
        out.push_str("</figcaption>");
    }
    out.push_str("</figure>\n");
    drift(out, d, esc);
}

fn receipt(v: &crate::dwp::ops::status::PlanView, esc: &Escaper) -> String {
    match v.receipt {
        "none" => "none (not published)".to_string(),
        "matches" => {
            "<span class=\"state-good\">sealed — every covered file matches</span>".to_string()
        }
        "changed" => format!(
            "<span class=\"state-bad\">changed since publication: {}</span>",
            v.receipt_changes
                .iter()
                .map(|c| esc.text(c))
                .collect::<Vec<_>>()
                .join("; ")
        ),
        other => format!(
            "<span class=\"state-bad\">{}: {}</span>",
            esc.text(other),
            v.receipt_changes
                .iter()
                .map(|c| esc.text(c))
                .collect::<Vec<_>>()
                .join("; ")
        ),
    }
}

/// A finding's hint as its own line under the message (nothing without one).
fn hint(esc: &Escaper, hint: Option<&str>) -> String {
    hint.map(|h| format!("<p class=\"hint\"><b>hint:</b> {}</p>", esc.text(h)))
        .unwrap_or_default()
}

/// A table's weight cell: the icon and the word.
fn weight(severity: Severity) -> String {
    if severity == Severity::Fail {
        format!("{}fail", icon("fail"))
    } else {
        format!("{}advisory", icon("advisory"))
    }
}

fn cell(esc: &Escaper, s: Option<&str>) -> String {
    s.map(|s| esc.text(s)).unwrap_or_else(|| "—".into())
}

/// diff's drift: state.json against the markdown, then git against the plan.
fn drift(out: &mut String, d: &DwpPicture, esc: &Escaper) {
    out.push_str("<h3>Drift (planseal diff)</h3>\n");
    let diff = match &d.diff {
        Ok(diff) => diff,
        Err(e) => {
            let _ = writeln!(
                out,
                "<p class=\"notes\">The drift could not be computed: {}</p>",
                esc.text(e)
            );
            return;
        }
    };
    if diff.disagreements.is_empty() && diff.git.is_empty() {
        out.push_str(
            "<p class=\"state-good\">state.json, the markdown and git agree: no drift.</p>\n",
        );
    }
    if !diff.disagreements.is_empty() {
        out.push_str("<table class=\"drift\"><thead><tr><th>Task</th><th>What</th><th>state.json</th><th>markdown</th><th>Which is ahead</th></tr></thead><tbody>");
        for row in &diff.disagreements {
            let _ = writeln!(
                out,
                "<tr class=\"row\"><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                row.task
                    .map(|t| t.to_string())
                    .unwrap_or_else(|| "plan".into()),
                row.field,
                cell(esc, row.state.as_deref()),
                cell(esc, row.markdown.as_deref()),
                row.direction
            );
        }
        out.push_str("</tbody></table>\n");
    }
    if !diff.git.is_empty() {
        out.push_str("<table class=\"drift-git\"><thead><tr><th>Git</th><th>Task</th><th>What</th><th>Weight</th></tr></thead><tbody>");
        for g in &diff.git {
            let weight = weight(g.severity);
            let _ = writeln!(
                out,
                "<tr class=\"row\"><td><code>{}</code></td><td>{}</td><td>{}{}</td><td>{weight}</td></tr>",
                esc.text(&g.id),
                g.task.map(|t| t.to_string()).unwrap_or_else(|| "—".into()),
                esc.text(&g.message),
                hint(esc, g.hint.as_deref())
            );
        }
        out.push_str("</tbody></table>\n");
    }
    for n in &diff.notes {
        let _ = writeln!(out, "<p class=\"notes\">note: {}</p>", esc.text(n));
    }
}

/// A progress bar drawn as SVG (no inline style) with its words beside it.
fn meter(out: &mut String, label: &str, done: u64, total: u64, words: &str) {
    let ratio = if total == 0 {
        0.0
    } else {
        (done as f64 / total as f64).clamp(0.0, 1.0)
    };
    let _ = write!(
        out,
        "<div class=\"meter-row\"><span>{label}</span><svg class=\"meter\" viewBox=\"0 0 100 8\" preserveAspectRatio=\"none\" role=\"img\" aria-label=\"{label}: {done} of {total}\"><rect class=\"track\" width=\"100\" height=\"8\"/><rect class=\"fill\" width=\"{:.1}\" height=\"8\"/></svg><span>{words}</span></div>",
        ratio * 100.0
    );
}

fn other_facts(
    out: &mut String,
    plan: &PlanPicture,
    view: &crate::dwp::ops::status::OtherView,
    esc: &Escaper,
) {
    checks_fact(out, plan);
    let lock = match &view.lock {
        None => "none".to_string(),
        Some(l) => format!("{} — {}", esc.text(&l.path), esc.text(&l.detail)),
    };
    fact(out, "Lock", &lock);
}

fn gsd(out: &mut String, plan: &PlanPicture, g: &GsdPicture, esc: &Escaper) {
    out.push_str("<dl class=\"facts\">");
    other_facts(out, plan, &g.view, esc);
    let status = match &g.status {
        Ok(s) => s,
        Err(e) => {
            out.push_str("</dl>\n");
            let _ = writeln!(
                out,
                "<p class=\"notes\">gsd status could not read the file: {}</p>",
                esc.text(e)
            );
            return;
        }
    };
    fact(out, "Status", &esc.text(&status.status.normalized));
    out.push_str("</dl>\n<h3>Statusline</h3>\n");
    let _ = writeln!(
        out,
        "<p><code class=\"statusline\">{}</code></p><p class=\"notes\">compact: <code>{}</code></p>",
        esc.text(if status.statusline.full.is_empty() {
            "(the statusline shows nothing for this file)"
        } else {
            &status.statusline.full
        }),
        esc.text(&status.statusline.compact)
    );
    out.push_str("<h3>Progress</h3>\n");
    let progress = status.frontmatter.get("progress");
    let n = |k: &str| {
        progress
            .and_then(|p| p.get(k))
            .and_then(|v| v.as_str()?.parse::<u64>().ok())
    };
    match (n("completed_phases"), n("total_phases")) {
        (Some(done), Some(total)) => meter(
            out,
            "Phases",
            done,
            total,
            &format!("{done} of {total} completed"),
        ),
        _ => out.push_str("<p class=\"notes\">The frontmatter records no phase counters.</p>"),
    }
    if let (Some(done), Some(total)) = (n("completed_plans"), n("total_plans")) {
        meter(
            out,
            "Plans",
            done,
            total,
            &format!("{done} of {total} completed"),
        );
    }
    let percent = |p: Option<u64>| p.map(|p| format!("{p}%")).unwrap_or_else(|| "—".into());
    let _ = writeln!(
        out,
        "<p>Percent as written: {} · from the counters: {} · from the phase folders: {}</p>",
        esc.text(status.percent.frontmatter.as_deref().unwrap_or("—")),
        percent(status.percent.from_counters),
        percent(status.percent.from_phase_folders)
    );
    if let Some(ph) = &status.phases {
        meter(
            out,
            "Phase folders",
            ph.completed_phases,
            ph.total_phases,
            &format!(
                "{} of {} phases, {} of {} plans summarised",
                ph.completed_phases, ph.total_phases, ph.completed_plans, ph.total_plans
            ),
        );
    }
    if !status.disagreements.is_empty() {
        out.push_str("<h3>Frontmatter against the body</h3>\n<table><thead><tr><th>Key</th><th>Frontmatter</th><th>Derived</th><th>From</th></tr></thead><tbody>");
        for d in &status.disagreements {
            let _ = writeln!(
                out,
                "<tr class=\"row\"><td><code>{}</code></td><td>{}</td><td>{}</td><td>{}</td></tr>",
                esc.text(&d.key),
                cell(esc, d.frontmatter.as_deref()),
                esc.text(&d.derived),
                esc.text(&d.source)
            );
        }
        out.push_str("</tbody></table>\n");
    }
}

fn reversa(out: &mut String, plan: &PlanPicture, r: &ReversaPicture, esc: &Escaper) {
    out.push_str("<dl class=\"facts\">");
    other_facts(out, plan, &r.view, esc);
    let Some(s) = &r.summary else {
        out.push_str(
            "</dl>\n<p class=\"notes\">The state file does not parse: no phases to show.</p>\n",
        );
        reversa_history(out, r, esc);
        return;
    };
    fact(
        out,
        "Project",
        &esc.text(s.project.as_deref().unwrap_or("(unnamed)")),
    );
    fact(
        out,
        "Reversa",
        &esc.text(s.version.as_deref().unwrap_or("(no version)")),
    );
    fact(out, "Progress", s.progress.label());
    out.push_str("</dl>\n<h3>Phases</h3>\n<ol class=\"phases\">");
    let names: Vec<String> = match s.vocabulary {
        Some(v) => v.names().iter().map(|n| n.to_string()).collect(),
        None => s
            .phases
            .completed
            .iter()
            .chain(s.phases.phase.iter())
            .chain(s.phases.pending.iter())
            .cloned()
            .collect(),
    };
    let mut shown = std::collections::BTreeSet::new();
    for name in names {
        if !shown.insert(name.clone()) {
            continue;
        }
        let (class, mark, word) = if s.phases.completed.contains(&name) {
            ("phase-completed", icon("pass"), "completed")
        } else if s.phases.phase.as_deref() == Some(name.as_str()) {
            ("phase-current", icon("current"), "current")
        } else {
            ("phase-pending", icon("pending"), "pending")
        };
        let _ = writeln!(
            out,
            "<li class=\"{class}\">{mark}<span>{}</span> <span class=\"notes\">{word}</span></li>",
            esc.text(&name)
        );
    }
    out.push_str("</ol>\n");
    reversa_history(out, r, esc);
}

fn reversa_history(out: &mut String, r: &ReversaPicture, esc: &Escaper) {
    out.push_str("<h3>Never-remove history (reversa history)</h3>\n");
    match &r.history {
        Err(e) => {
            let _ = writeln!(out, "<p class=\"notes\">{}</p>", esc.text(e));
        }
        Ok(h) if h.flagged.is_empty() => {
            let _ = writeln!(
                out,
                "<p class=\"state-good\">{} committed version(s) compared: nothing was removed.</p>",
                h.versions
            );
        }
        Ok(h) => {
            let _ = write!(
                out,
                "<p>{} committed version(s) compared.</p><table><thead><tr><th>Commit</th><th>Subject</th><th>What was removed</th><th>Weight</th></tr></thead><tbody>",
                h.versions
            );
            for f in &h.flagged {
                let weight = weight(f.violation.severity);
                let _ = writeln!(
                    out,
                    "<tr class=\"row\"><td><code>{}</code></td><td>{}</td><td>{}</td><td>{weight}</td></tr>",
                    esc.text(&f.commit),
                    esc.text(&f.subject),
                    esc.text(&f.violation.describe())
                );
            }
            out.push_str("</tbody></table>\n");
        }
    }
}

fn checkpoint(out: &mut String, plan: &PlanPicture, c: &CheckpointPicture, esc: &Escaper) {
    out.push_str("<dl class=\"facts\">");
    other_facts(out, plan, &c.view, esc);
    let mode = match &c.project {
        Some(p) => format!("project {}", esc.text(p)),
        None => "legacy (docs/)".to_string(),
    };
    fact(out, "Mode", &mode);
    fact(out, "Story files", &c.story_files.to_string());
    out.push_str("</dl>\n");
    if !c.view.summary.is_empty() {
        out.push_str("<ul class=\"notes\">");
        for s in &c.view.summary {
            let _ = writeln!(out, "<li>{}</li>", esc.text(s));
        }
        out.push_str("</ul>\n");
    }
    out.push_str("<h3>Sessions</h3>\n");
    if c.sessions.is_empty() {
        out.push_str("<p class=\"notes\">No session entry in the last-work section.</p>\n");
    }
    for (heading, lines) in &c.sessions {
        let _ = write!(out, "<div class=\"session\"><h4>{}</h4>", esc.text(heading));
        for l in lines.iter().take(8) {
            let _ = write!(out, "<p>{}</p>", esc.text(l));
        }
        if lines.len() > 8 {
            let _ = write!(
                out,
                "<p class=\"notes\">… {} more line(s)</p>",
                lines.len() - 8
            );
        }
        out.push_str("</div>\n");
    }
    out.push_str("<h3>Stories</h3>\n");
    match &c.story_table {
        None => out.push_str("<p class=\"notes\">No story table in the stories section.</p>\n"),
        Some((header, rows)) => {
            out.push_str("<table class=\"stories\"><thead><tr>");
            for h in header {
                let _ = write!(out, "<th>{}</th>", esc.text(h));
            }
            out.push_str("</tr></thead><tbody>");
            for row in rows {
                out.push_str("<tr class=\"row\">");
                for cell in row {
                    let _ = write!(out, "<td>{}</td>", esc.text(cell));
                }
                out.push_str("</tr>\n");
            }
            out.push_str("</tbody></table>\n");
        }
    }
}

/// verify's findings, grouped by weight (failures first), each with its hint; the checks that
/// held folded, counted per id.
fn findings(out: &mut String, plan: &PlanPicture, esc: &Escaper) {
    out.push_str("<h3>Findings (planseal verify)</h3>\n<div class=\"findings\">");
    if let Some(why) = &plan.section.unverified {
        let _ = write!(
            out,
            "<p class=\"state-bad\">{}could not be checked: {}</p>",
            icon("unverified"),
            esc.text(why)
        );
    }
    let groups = [
        (Severity::Fail, "sev-fail", "fail", "Failed"),
        (
            Severity::Unverified,
            "sev-unverified",
            "unverified",
            "Could not be checked",
        ),
        (
            Severity::Advisory,
            "sev-advisory",
            "advisory",
            "Advisory (SHOULD)",
        ),
    ];
    for (severity, class, kind, title) in groups {
        let list: Vec<&Finding> = plan
            .section
            .findings
            .iter()
            .filter(|f| f.severity == severity)
            .collect();
        if list.is_empty() {
            continue;
        }
        let _ = write!(
            out,
            "<section class=\"sev {class}\"><h4>{title} ({})</h4><ul>",
            list.len()
        );
        for f in list {
            let _ = writeln!(
                out,
                "<li>{}<code class=\"id\">{}</code> {}{}{}</li>",
                icon(kind),
                esc.text(&f.id),
                f.task
                    .map(|t| format!("<span class=\"task\">task {t}:</span> "))
                    .unwrap_or_default(),
                esc.text(&f.message),
                hint(esc, f.hint.as_deref())
            );
        }
        out.push_str("</ul></section>");
    }
    let passed: Vec<&Finding> = plan
        .section
        .findings
        .iter()
        .filter(|f| f.severity == Severity::Pass)
        .collect();
    if !passed.is_empty() {
        // One line per id: a 5,000-task plan passes the same check thousands of times.
        let mut by_id: Vec<(&str, &str, usize)> = Vec::new();
        for f in &passed {
            match by_id.iter_mut().find(|(id, _, _)| *id == f.id) {
                Some((_, _, n)) => *n += 1,
                None => by_id.push((&f.id, &f.message, 1)),
            }
        }
        let _ = write!(
            out,
            "<details class=\"sev sev-pass\"><summary>Passed ({})</summary><ul>",
            passed.len()
        );
        for (id, message, n) in by_id {
            let times = if n > 1 {
                format!(" <span class=\"notes\">(×{n}, the first shown)</span>")
            } else {
                String::new()
            };
            let _ = writeln!(
                out,
                "<li>{}<code class=\"id\">{}</code> {}{times}</li>",
                icon("pass"),
                esc.text(id),
                esc.text(message)
            );
        }
        out.push_str("</ul></details>");
    }
    if plan.section.findings.is_empty() && plan.section.unverified.is_none() {
        out.push_str("<p class=\"notes\">No findings.</p>");
    }
    out.push_str("</div>\n");
}
