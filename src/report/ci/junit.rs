//! `verify --format junit`: the report as JUnit XML (the dialect of Jenkins' `junit-10.xsd`,
//! which GitLab, Jenkins and most CI test tabs read). A `<testsuite>` per section (plan or file),
//! a `<testcase>` per check; a failure is a `<failure>`, a check that could not be made an
//! `<error>`. An advisory is a check that ran, so its test case passes; the suite lists it as a
//! `<property name="advisory: ID">` with the message (JUnit has no "passed with a warning", and
//! `<skipped>` would claim the check did not run).

use super::{Locator, reported, section_title};
use crate::report::{Finding, Report, Section, Severity, text};
use std::fmt::Write as _;

/// The JUnit document of `report`.
pub fn render(report: &Report, locator: &Locator) -> String {
    let mut suites = String::new();
    let (mut tests, mut failures, mut errors) = (0, 0, 0);
    for section in &report.sections {
        let counts = suite(&mut suites, section, locator);
        tests += counts.0;
        failures += counts.1;
        errors += counts.2;
    }
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"planseal verify\" tests=\"{tests}\" failures=\"{failures}\" errors=\"{errors}\">\n{suites}</testsuites>\n"
    )
}

/// Appends one section's suite; returns its (tests, failures, errors).
fn suite(out: &mut String, section: &Section, locator: &Locator) -> (usize, usize, usize) {
    let mut cases = String::new();
    let (mut tests, mut failures, mut errors) = (0, 0, 0);
    let classname = format!(
        "{}.{}",
        section.system.header().to_lowercase(),
        section.name
    );
    if let Some(why) = &section.unverified {
        tests += 1;
        errors += 1;
        let _ = writeln!(
            cases,
            "    <testcase name=\"section-readable\" classname=\"{}\">\n      <error type=\"section-unreadable\" message=\"{}\"/>\n    </testcase>",
            attr(&classname),
            attr(&format!("could not be checked: {why}"))
        );
    }
    for f in &section.findings {
        tests += 1;
        let name = match f.task {
            Some(task) => format!("{} (task {task})", f.id),
            None => f.id.clone(),
        };
        let _ = write!(
            cases,
            "    <testcase name=\"{}\" classname=\"{}\"",
            attr(&name),
            attr(&classname)
        );
        let element = match f.severity {
            Severity::Fail => Some("failure"),
            Severity::Unverified => Some("error"),
            Severity::Pass | Severity::Advisory => None,
        };
        let Some(element) = element else {
            cases.push_str("/>\n");
            continue;
        };
        if element == "failure" {
            failures += 1;
        } else {
            errors += 1;
        }
        let _ = writeln!(
            cases,
            ">\n      <{element} type=\"{}\" message=\"{}\">{}</{element}>\n    </testcase>",
            attr(&f.id),
            attr(&f.message),
            body(f, section, locator)
        );
    }
    let advisories: Vec<&Finding> = reported(section)
        .filter(|f| f.severity == Severity::Advisory)
        .collect();
    let verdict = if section.failed() {
        "NOT CONFORMANT"
    } else if section.is_unverified() {
        "UNVERIFIED"
    } else {
        "CONFORMANT"
    };
    let file = locator
        .locate(section, None)
        .map(|at| format!(" file=\"{}\"", attr(&at.file)))
        .unwrap_or_default();
    let _ = writeln!(
        out,
        "  <testsuite name=\"{}\" tests=\"{tests}\" failures=\"{failures}\" errors=\"{errors}\" skipped=\"0\"{file}>",
        attr(&section_title(section))
    );
    let _ = writeln!(
        out,
        "    <properties>\n      <property name=\"verdict\" value=\"{verdict}\"/>"
    );
    for f in advisories {
        let _ = writeln!(
            out,
            "      <property name=\"{}\" value=\"{}\"/>",
            attr(&format!("advisory: {}", f.id)),
            attr(&super::message_with_hint(f))
        );
    }
    out.push_str("    </properties>\n");
    out.push_str(&cases);
    out.push_str("  </testsuite>\n");
    (tests, failures, errors)
}

/// A failure's text: the hint and where, each on its own line.
fn body(f: &Finding, section: &Section, locator: &Locator) -> String {
    let mut lines = Vec::new();
    if let Some(hint) = &f.hint {
        lines.push(format!("hint: {hint}"));
    }
    if let Some(at) = locator.locate(section, Some(f)) {
        lines.push(match at.line {
            Some(line) => format!("at: {}:{line}", at.file),
            None => format!("at: {}", at.file),
        });
    }
    escape(&lines.join("\n"))
}

/// Text in an attribute: as [`escape`], quotes and line breaks too.
fn attr(s: &str) -> String {
    escape(s)
        .replace('"', "&quot;")
        .replace('\n', "&#10;")
        .replace('\t', "&#9;")
}

/// Element text: `&`, `<`, `>` escaped; control characters (which XML 1.0 cannot hold, even
/// escaped) and the two non-characters written out as `\u{…}`.
fn escape(s: &str) -> String {
    let s = text::printable(s);
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '\u{fffe}' | '\u{ffff}' => {
                let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::System;

    #[test]
    fn markup_and_control_characters_are_escaped() {
        assert_eq!(
            escape("a<b & c>\u{1b}[2J\u{ffff}"),
            "a&lt;b &amp; c&gt;\\u{1b}[2J\\u{ffff}"
        );
        assert_eq!(attr("say \"x\"\nnext"), "say &quot;x&quot;&#10;next");
    }

    #[test]
    fn a_suite_per_section_a_case_per_check() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = Section::new(System::Dwp, "PLAN_x", ".dwp/plans/PLAN_x");
        s.push(Finding::pass("ok", "fine"));
        s.push(
            Finding::fail("gate", "missing <gate>")
                .task(2)
                .hint("add it"),
        );
        s.push(Finding::advisory("review", "look"));
        let out = render(
            &Report { sections: vec![s] },
            &Locator::new(dir.path(), dir.path()),
        );
        assert!(
            out.contains(
                "<testsuites name=\"planseal verify\" tests=\"3\" failures=\"1\" errors=\"0\">"
            ),
            "{out}"
        );
        assert!(out.contains("<testsuite name=\"Plan: PLAN_x\" tests=\"3\" failures=\"1\" errors=\"0\" skipped=\"0\" file=\".dwp/plans/PLAN_x/README.md\">"), "{out}");
        assert!(
            out.contains("<property name=\"advisory: review\" value=\"look\"/>"),
            "{out}"
        );
        assert!(out.contains("<testcase name=\"gate (task 2)\" classname=\"plan.PLAN_x\">\n      <failure type=\"gate\" message=\"missing &lt;gate&gt;\">hint: add it\nat: .dwp/plans/PLAN_x/README.md</failure>"), "{out}");
        assert!(
            out.contains("<testcase name=\"review\" classname=\"plan.PLAN_x\"/>"),
            "{out}"
        );
    }
}
