//! `verify --format sarif`: the report as a SARIF 2.1.0 log — one run of the tool `planseal`,
//! a rule per finding id that occurs, a result per finding that did not hold (level `error` for a
//! failure, `warning` for an advisory, `note` for a check that could not be made), each with the
//! file it is about. Code-scanning services (GitHub's `upload-sarif`) read it.

use super::{Locator, message_with_hint, reported, section_title};
use crate::report::{Finding, Report, Section, Severity, Verdict};
use serde_json::{Value, json};

/// Where the vendored schema comes from; also the log's `$schema`.
pub const SCHEMA_URI: &str =
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json";

/// The SARIF log of `report`.
pub fn to_value(report: &Report, locator: &Locator) -> Value {
    let mut rules: Vec<Value> = Vec::new();
    let mut rule_ids: Vec<String> = Vec::new();
    let mut results = Vec::new();
    let mut rule_index = |id: &str, section: &Section| -> usize {
        if let Some(i) = rule_ids.iter().position(|r| r == id) {
            return i;
        }
        rule_ids.push(id.to_string());
        rules.push(rule(id, section));
        rule_ids.len() - 1
    };
    let mut notifications = Vec::new();
    for section in &report.sections {
        if let Some(why) = &section.unverified {
            notifications.push(json!({
                "level": "error",
                "message": { "text": format!("{}: could not be checked: {why}", section_title(section)) },
                "locations": locations(locator, section, None),
            }));
        }
        for f in reported(section) {
            let index = rule_index(&f.id, section);
            results.push(result(f, index, section, locator));
        }
    }
    let verdict = report.verdict();
    json!({
        "$schema": SCHEMA_URI,
        "version": "2.1.0",
        "runs": [{
            "tool": { "driver": {
                "name": "planseal",
                "version": env!("CARGO_PKG_VERSION"),
                "rules": rules,
            }},
            "invocations": [{
                // a check that could not be made: the run did not finish its work
                "executionSuccessful": verdict != Verdict::Unverified,
                "exitCode": verdict.exit_code().code(),
                "toolExecutionNotifications": notifications,
                "properties": { "verdict": verdict.as_str() },
            }],
            "results": results,
        }],
    })
}

/// A rule: the id, and where the project documents it.
fn rule(id: &str, section: &Section) -> Value {
    let page = match section.system {
        crate::report::System::Dwp => "docs/verify.md",
        crate::report::System::Gsd => "docs/gsd.md",
        crate::report::System::Reversa => "docs/reversa.md",
        crate::report::System::Checkpoint => "docs/checkpoint.md",
    };
    json!({
        "id": id,
        "name": id,
        "shortDescription": { "text": format!("planseal check `{id}` ({page} lists it)") },
        "properties": { "system": section.system },
    })
}

fn result(f: &Finding, rule_index: usize, section: &Section, locator: &Locator) -> Value {
    let level = match f.severity {
        Severity::Fail => "error",
        Severity::Advisory => "warning",
        _ => "note",
    };
    let mut properties = json!({
        "section": section_title(section),
        "severity": f.severity,
    });
    if let Some(task) = f.task {
        properties["task"] = task.into();
    }
    if let Some(hint) = &f.hint {
        properties["hint"] = hint.as_str().into();
    }
    json!({
        "ruleId": f.id,
        "ruleIndex": rule_index,
        "level": level,
        "message": { "text": format!("{}: {}", section_title(section), message_with_hint(f)) },
        "locations": locations(locator, section, Some(f)),
        "properties": properties,
    })
}

/// The finding's file as a SARIF location (none when it is outside the repository).
fn locations(locator: &Locator, section: &Section, f: Option<&Finding>) -> Vec<Value> {
    let Some(at) = locator.locate(section, f) else {
        return Vec::new();
    };
    let mut physical = json!({
        "artifactLocation": { "uri": uri_path(&at.file), "uriBaseId": "%SRCROOT%" },
    });
    if let Some(line) = at.line {
        physical["region"] = json!({ "startLine": line });
    }
    vec![json!({ "physicalLocation": physical })]
}

/// A relative path as a URI reference: every byte outside the unreserved set and `/`
/// percent-encoded (a space, `%`, `#` and non-ASCII names included).
fn uri_path(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for b in path.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/".contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::System;

    #[test]
    fn uri_paths_are_percent_encoded() {
        assert_eq!(
            uri_path(".dwp/plans/PLAN_x/README.md"),
            ".dwp/plans/PLAN_x/README.md"
        );
        assert_eq!(uri_path("a b/ç#%.md"), "a%20b/%C3%A7%23%25.md");
    }

    #[test]
    fn a_rule_per_id_and_a_result_per_finding() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = Section::new(System::Dwp, "PLAN_x", ".dwp/plans/PLAN_x");
        s.push(Finding::pass("ok", "fine"));
        s.push(Finding::fail("gate", "task 1").task(1).file("state.json"));
        s.push(Finding::fail("gate", "task 2").task(2).file("state.json"));
        s.push(Finding::advisory("review", "look").hint("read it"));
        let v = to_value(
            &Report { sections: vec![s] },
            &Locator::new(dir.path(), dir.path()),
        );
        let run = &v["runs"][0];
        let ids: Vec<&str> = run["tool"]["driver"]["rules"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["id"].as_str().unwrap())
            .collect();
        assert_eq!(ids, ["gate", "review"]);
        let results = run["results"].as_array().unwrap();
        assert_eq!(results.len(), 3);
        assert_eq!(results[1]["ruleIndex"], 0);
        assert_eq!(results[1]["level"], "error");
        assert_eq!(results[1]["properties"]["task"], 2);
        assert_eq!(
            results[1]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
            ".dwp/plans/PLAN_x/state.json"
        );
        assert_eq!(results[2]["level"], "warning");
        assert_eq!(
            results[2]["message"]["text"],
            "Plan: PLAN_x: look\nhint: read it"
        );
        assert_eq!(run["invocations"][0]["exitCode"], 1);
        assert_eq!(run["invocations"][0]["executionSuccessful"], true);
    }
}
