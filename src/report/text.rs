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
    for (finding, alike) in group(&section.findings) {
        let (mark, code) = match finding.severity {
            Severity::Pass => ("[x]", "32"),
            Severity::Fail => ("[ ]", "31"),
            Severity::Advisory => ("[~]", "33"),
            Severity::Unverified => ("[?]", "35"),
        };
        let mut line = printable(&finding.message).into_owned();
        if alike > 0 {
            let _ = write!(line, " (and {alike} more record(s) alike)");
        }
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

/// Groups findings that share id and group key, keeping the first one's position.
fn group(findings: &[Finding]) -> Vec<(&Finding, usize)> {
    let mut out: Vec<(&Finding, usize)> = Vec::with_capacity(findings.len());
    let mut index: std::collections::HashMap<(&str, &str), usize> = Default::default();
    for f in findings {
        if let Some(key) = f.group.as_deref() {
            if let Some(&at) = index.get(&(f.id.as_str(), key)) {
                out[at].1 += 1;
                continue;
            }
            index.insert((f.id.as_str(), key), out.len());
        }
        out.push((f, 0));
    }
    out
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

    #[test]
    fn colour_only_when_asked() {
        let mut s = Section::new(System::Gsd, ".planning/STATE.md", ".planning/STATE.md");
        s.push(Finding::pass("x", "ok"));
        let r = Report { sections: vec![s] };
        assert!(!render(&r, Style { color: false }).contains('\x1b'));
        assert!(render(&r, Style { color: true }).contains("\x1b[32m[x]\x1b[0m"));
    }
}
