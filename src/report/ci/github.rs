//! `verify --format github`: one GitHub Actions workflow command per finding that did not hold
//! (`::error` for a failure or a check that could not be made, `::warning` for an advisory), then
//! the verdict line as plain log text. The runner turns each command into an annotation on the
//! file and line it names.

use super::{Locator, message_with_hint, reported, section_title};
use crate::report::{Report, Severity, text};
use std::fmt::Write as _;

/// Every annotation of `report`, one line each, then `Verdict: …`.
pub fn render(report: &Report, locator: &Locator) -> String {
    let mut out = String::new();
    for section in &report.sections {
        if let Some(why) = &section.unverified {
            let location = locator.locate(section, None);
            let message = format!(
                "{}: could not be checked: {}",
                section_title(section),
                text::printable(why)
            );
            push(
                &mut out,
                "error",
                location.as_ref(),
                "section-unreadable",
                &message,
            );
        }
        for f in reported(section) {
            let level = match f.severity {
                Severity::Advisory => "warning",
                _ => "error",
            };
            let title = match f.severity {
                Severity::Unverified => format!("{} (could not be checked)", f.id),
                _ => f.id.clone(),
            };
            let message = format!("{}: {}", section_title(section), message_with_hint(f));
            push(
                &mut out,
                level,
                locator.locate(section, Some(f)).as_ref(),
                &title,
                &message,
            );
        }
    }
    out.push_str(&text::verdict_line(report, text::Style { color: false }));
    out.push('\n');
    out
}

fn push(
    out: &mut String,
    level: &str,
    location: Option<&super::Location>,
    title: &str,
    message: &str,
) {
    let mut properties = Vec::new();
    if let Some(at) = location {
        properties.push(format!("file={}", escape_property(&at.file)));
        if let Some(line) = at.line {
            properties.push(format!("line={line}"));
        }
    }
    properties.push(format!("title={}", escape_property(title)));
    let _ = writeln!(
        out,
        "::{level} {}::{}",
        properties.join(","),
        escape_data(message)
    );
}

/// A command's message: `%`, CR and LF percent-encoded (the runner decodes them; a raw newline
/// would end the command, and the next line could be read as a command of its own).
pub fn escape_data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// A property value (`file=`, `title=`): as [`escape_data`], and `:` and `,`, which end a
/// property.
pub fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::{Finding, Section, System};

    #[test]
    fn escapes_follow_the_runner_rules() {
        assert_eq!(escape_data("50% done\r\nnext"), "50%25 done%0D%0Anext");
        assert_eq!(escape_property("a:b,c%\n"), "a%3Ab%2Cc%25%0A");
        // a message that tries to start a command of its own stays on its line
        assert_eq!(escape_data("x\n::error::boom"), "x%0A::error::boom");
    }

    #[test]
    fn one_command_per_finding_that_did_not_hold() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = Section::new(System::Dwp, "PLAN_x", ".dwp/plans/PLAN_x");
        s.push(Finding::pass("ok", "fine"));
        s.push(
            Finding::fail("task-file-missing", "task 2: file, missing")
                .file("2.task_b.md")
                .hint("restore it"),
        );
        s.push(
            Finding::advisory("readme-checkbox-elsewhere-contradicts", "line 9")
                .file("README.md")
                .line(9),
        );
        let report = Report { sections: vec![s] };
        let out = render(&report, &Locator::new(dir.path(), dir.path()));
        assert_eq!(
            out,
            "::error file=.dwp/plans/PLAN_x/2.task_b.md,title=task-file-missing::Plan: PLAN_x: task 2: file, missing%0Ahint: restore it\n\
             ::warning file=.dwp/plans/PLAN_x/README.md,line=9,title=readme-checkbox-elsewhere-contradicts::Plan: PLAN_x: line 9\n\
             Verdict: NOT CONFORMANT — 1 issue(s) (1 passed, 1 advisory)\n"
        );
    }
}
