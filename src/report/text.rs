//! The human text form of a [`Report`] (`docs/verify.md`): a header per section, one line per
//! check, a `hint:` line under each failure that has one, and one verdict line.

use super::{Finding, Report, Section, Severity, Verdict};
use std::fmt::Write;

/// Colour choice, resolved by the binary (terminal, `NO_COLOR`, `--color`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Style {
    /// Whether to paint with ANSI colours (`true` only for a terminal that wants them).
    pub color: bool,
}

impl Style {
    fn paint(self, code: &str, s: &str) -> String {
        if self.color {
            format!("\x1b[{code}m{s}\x1b[0m")
        } else {
            s.to_string()
        }
    }
}

/// `s` with every control character but newline and tab written as `\u{…}`: messages quote
/// file contents, and a file must not be able to move the cursor or recolour the terminal.
pub fn printable(s: &str) -> std::borrow::Cow<'_, str> {
    if !s.chars().any(is_hostile) {
        return std::borrow::Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if is_hostile(c) {
            let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
        } else {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
}

fn is_hostile(c: char) -> bool {
    c.is_control() && c != '\n' && c != '\t'
}

/// A unified diff with two lines of context, headed `a/NAME` / `b/NAME`.
pub fn unified_diff(old: &str, new: &str, name: &str) -> String {
    similar::TextDiff::from_lines(old, new)
        .unified_diff()
        .context_radius(2)
        .header(&format!("a/{name}"), &format!("b/{name}"))
        .to_string()
}

/// Renders every section and the final verdict line, ending with a newline.
pub fn render(report: &Report, style: Style) -> String {
    let mut out = String::new();
    for (i, section) in report.sections.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        render_section(&mut out, section, style);
    }
    if !report.sections.is_empty() {
        out.push('\n');
    }
    out.push_str(&verdict_line(report, style));
    out.push('\n');
    out
}

/// One section: header, check lines, hints.
pub fn render_section(out: &mut String, section: &Section, style: Style) {
    let _ = writeln!(
        out,
        "{}",
        style.paint(
            "1",
            &format!("{}: {}", section.system.header(), printable(&section.name))
        )
    );
    if let Some(why) = &section.unverified {
        let _ = writeln!(
            out,
            "  {} could not be checked: {}",
            style.paint("35", "[?]"),
            printable(why)
        );
    }
    for (finding, text) in lines(&section.findings) {
        let (mark, code) = match finding.severity {
            Severity::Pass => ("[x]", "32"),
            Severity::Fail => ("[ ]", "31"),
            Severity::Advisory => ("[~]", "33"),
            Severity::Unverified => ("[?]", "35"),
        };
        let mut line = text;
        if finding.severity == Severity::Advisory {
            line.push_str(" (SHOULD)");
        }
        let _ = writeln!(out, "  {} {line}", style.paint(code, mark));
        if finding.severity != Severity::Pass
            && let Some(hint) = &finding.hint
        {
            let _ = writeln!(
                out,
                "      {} {}",
                style.paint("2", "hint:"),
                printable(hint)
            );
        }
    }
}

/// `  [~] MESSAGE` per advisory (no `(SHOULD)`, no hint): the diagnostics `finalize` prints on
/// stderr, with per-task advisories of one id summed up as in the report.
pub fn advisory_lines(advisories: &[Finding]) -> String {
    let mut out = String::new();
    for (_, text) in lines(advisories) {
        let _ = writeln!(out, "  [~] {text}");
    }
    out
}

/// From this many advisories of one id about tasks of one section, they print as one summary
/// line (`ID on N tasks (1..12): FIRST MESSAGE`) instead of one line each; `--json` keeps each.
/// Fewer still print one by one: each names its own commit or file, and a few lines are no flood.
pub const PER_TASK_SUMMARY_FROM: usize = 4;

/// How many task ids (or runs of consecutive ids) a summary line names before `…`.
const SUMMARY_TASK_RUNS: usize = 5;

/// The text lines of `findings`, in the order of the first finding of each: per-task advisories
/// of one id summed up (from [`PER_TASK_SUMMARY_FROM`] on), then findings that share id and
/// group key printed once with `(and N more record(s) alike)`, the rest one line each. Each line
/// comes with the finding whose severity and hint it shows.
fn lines(findings: &[Finding]) -> Vec<(&Finding, String)> {
    let per_task = |f: &Finding| f.severity == Severity::Advisory && f.task.is_some();
    let mut tasks_by_id: std::collections::HashMap<&str, Vec<u64>> = Default::default();
    for f in findings.iter().filter(|f| per_task(f)) {
        tasks_by_id.entry(f.id.as_str()).or_default().extend(f.task);
    }
    tasks_by_id.retain(|_, tasks| tasks.len() >= PER_TASK_SUMMARY_FROM);

    let mut out: Vec<(&Finding, usize)> = Vec::with_capacity(findings.len());
    let mut summaries: Vec<Option<&Vec<u64>>> = Vec::new();
    let mut index: std::collections::HashMap<(&str, &str), usize> = Default::default();
    let mut summarised: std::collections::HashSet<&str> = Default::default();
    for f in findings {
        if per_task(f)
            && let Some(tasks) = tasks_by_id.get(f.id.as_str())
        {
            if summarised.insert(f.id.as_str()) {
                out.push((f, 0));
                summaries.push(Some(tasks));
            }
            continue;
        }
        if let Some(key) = f.group.as_deref() {
            if let Some(&at) = index.get(&(f.id.as_str(), key)) {
                out[at].1 += 1;
                continue;
            }
            index.insert((f.id.as_str(), key), out.len());
        }
        out.push((f, 0));
        summaries.push(None);
    }
    out.into_iter()
        .zip(summaries)
        .map(|((f, alike), summary)| {
            let message = printable(&f.message);
            let text = match summary {
                Some(tasks) => format!("{}: {message}", task_summary(&f.id, tasks)),
                None if alike > 0 => format!("{message} (and {alike} more record(s) alike)"),
                None => message.into_owned(),
            };
            (f, text)
        })
        .collect()
}

/// `ID on N tasks (1..3, 7, 9..12, …)`; `ID K times on N tasks (…)` when a task has several.
fn task_summary(id: &str, tasks: &[u64]) -> String {
    let mut ids = tasks.to_vec();
    ids.sort_unstable();
    ids.dedup();
    let mut runs: Vec<(u64, u64)> = Vec::new();
    for &t in &ids {
        match runs.last_mut() {
            Some((_, end)) if *end + 1 == t => *end = t,
            _ => runs.push((t, t)),
        }
    }
    let mut named: Vec<String> = runs
        .iter()
        .take(SUMMARY_TASK_RUNS)
        .map(|&(start, end)| match end - start {
            0 => start.to_string(),
            1 => format!("{start}, {end}"),
            _ => format!("{start}..{end}"),
        })
        .collect();
    if runs.len() > SUMMARY_TASK_RUNS {
        named.push("…".to_string());
    }
    let times = if tasks.len() == ids.len() {
        String::new()
    } else {
        format!(" {} times", tasks.len())
    };
    let plural = if ids.len() == 1 { "" } else { "s" };
    format!(
        "{id}{times} on {} task{plural} ({})",
        ids.len(),
        named.join(", ")
    )
}

/// `Verdict: …` without a trailing newline.
pub fn verdict_line(report: &Report, style: Style) -> String {
    let c = report.counts();
    let v = report.verdict();
    let body = match v {
        Verdict::Conformant => {
            format!("CONFORMANT ({} passed, {} advisory)", c.passed, c.advisory)
        }
        Verdict::NotConformant => format!(
            "NOT CONFORMANT — {} issue(s) ({} passed, {} advisory)",
            c.failed, c.passed, c.advisory
        ),
        Verdict::Unverified => {
            let why: Vec<String> = report
                .sections
                .iter()
                .filter(|s| s.is_unverified())
                .map(|s| format!("{}: {}", s.name, s.unverified_reasons().join("; ")))
                .collect();
            format!(
                "UNVERIFIED — {} plan(s) could not be checked ({})",
                report.unverified_count(),
                why.join("; ")
            )
        }
    };
    let code = match v {
        Verdict::Conformant => "1;32",
        Verdict::NotConformant => "1;31",
        Verdict::Unverified => "1;35",
    };
    format!("Verdict: {}", style.paint(code, &body))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_of_a_file_never_reach_the_terminal() {
        assert_eq!(
            printable("status \u{1b}[2Jgone\r\u{7}\tok\n"),
            "status \\u{1b}[2Jgone\\u{d}\\u{7}\tok\n"
        );
        assert!(matches!(
            printable("plain é"),
            std::borrow::Cow::Borrowed(_)
        ));
        let mut section = Section::new(System::Gsd, "x", "x");
        section.push(Finding::fail("id", "value `\u{1b}]0;title\u{7}`").hint("\u{1b}[31m"));
        let out = render(
            &Report {
                sections: vec![section],
            },
            Style { color: false },
        );
        assert!(!out.contains('\u{1b}') && !out.contains('\u{7}'), "{out:?}");
    }
    use crate::report::{Finding, Report, Section, System};

    #[test]
    fn plain_layout_with_hint_and_grouping() {
        let mut s = Section::new(System::Dwp, "PLAN_x", "p");
        s.push(Finding::pass("identity", "plan identity matches"));
        s.push(
            Finding::fail("state-shape-error", "$.tasks[0].gates[0]: missing command")
                .group("missing command")
                .hint("add the field"),
        );
        s.push(
            Finding::fail("state-shape-error", "$.tasks[1].gates[0]: missing command")
                .group("missing command"),
        );
        s.push(Finding::advisory(
            "approval-pending",
            "valid proposal awaiting approval",
        ));
        let out = render(&Report { sections: vec![s] }, Style { color: false });
        assert_eq!(
            out,
            "Plan: PLAN_x\n  [x] plan identity matches\n  [ ] $.tasks[0].gates[0]: missing command (and 1 more record(s) alike)\n      hint: add the field\n  [~] valid proposal awaiting approval (SHOULD)\n\nVerdict: NOT CONFORMANT — 2 issue(s) (1 passed, 1 advisory)\n"
        );
    }

    fn outcome_missing(task: u64) -> Finding {
        Finding::advisory(
            "outcome-missing",
            format!("task {task} is completed without an outcome record"),
        )
        .task(task)
        .hint("record --worked/--notes when completing a task")
    }

    #[test]
    fn per_task_advisories_of_one_id_print_as_one_summary_line() {
        let mut s = Section::new(System::Dwp, "PLAN_x", "p");
        s.push(Finding::pass("identity", "plan identity matches"));
        for task in 1..=12 {
            s.push(outcome_missing(task));
        }
        s.push(Finding::advisory(
            "semantic-review-required",
            "semantic review required",
        ));
        let out = render(&Report { sections: vec![s] }, Style { color: false });
        assert_eq!(
            out,
            "Plan: PLAN_x\n  [x] plan identity matches\n  [~] outcome-missing on 12 tasks (1..12): task 1 is completed without an outcome record (SHOULD)\n      hint: record --worked/--notes when completing a task\n  [~] semantic review required (SHOULD)\n\nVerdict: CONFORMANT (1 passed, 13 advisory)\n"
        );
    }

    #[test]
    fn a_few_per_task_advisories_still_print_one_line_each() {
        let mut s = Section::new(System::Dwp, "PLAN_x", "p");
        for task in 1..PER_TASK_SUMMARY_FROM as u64 {
            s.push(outcome_missing(task));
        }
        let out = render(&Report { sections: vec![s] }, Style { color: false });
        for task in 1..PER_TASK_SUMMARY_FROM as u64 {
            assert!(
                out.contains(&format!(
                    "  [~] task {task} is completed without an outcome record (SHOULD)\n      hint: "
                )),
                "{out}"
            );
        }
        assert!(!out.contains("outcome-missing on"), "{out}");
    }

    #[test]
    fn summary_names_runs_of_task_ids_and_stops_after_a_few() {
        assert_eq!(
            task_summary("x", &[1, 2, 3, 5, 6, 9]),
            "x on 6 tasks (1..3, 5, 6, 9)"
        );
        assert_eq!(
            task_summary("x", &[1, 3, 5, 7, 9, 11, 13]),
            "x on 7 tasks (1, 3, 5, 7, 9, …)"
        );
        assert_eq!(
            task_summary("x", &[4, 4, 2, 2]),
            "x 4 times on 2 tasks (2, 4)"
        );
    }

    #[test]
    fn finalize_advisory_lines_sum_up_per_task_advisories_too() {
        let mut advisories: Vec<Finding> = (1..=5).map(outcome_missing).collect();
        advisories.push(Finding::advisory(
            "git-not-applicable",
            "not in a git repository",
        ));
        assert_eq!(
            advisory_lines(&advisories),
            "  [~] outcome-missing on 5 tasks (1..5): task 1 is completed without an outcome record\n  [~] not in a git repository\n"
        );
        assert_eq!(
            advisory_lines(&advisories[..1]),
            "  [~] task 1 is completed without an outcome record\n"
        );
    }

    #[test]
    fn colour_only_when_asked() {
        let mut s = Section::new(System::Gsd, ".planning/STATE.md", ".planning/STATE.md");
        s.push(Finding::pass("x", "ok"));
        let r = Report { sections: vec![s] };
        assert!(!render(&r, Style { color: false }).contains('\x1b'));
        assert!(render(&r, Style { color: true }).contains("\x1b[32m[x]\x1b[0m"));
    }
}
