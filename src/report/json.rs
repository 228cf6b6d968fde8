//! The `--json` form of a [`Report`]: one document with the verdict, the counts and, per section,
//! every finding with all its fields (no grouping).

use super::{Report, Severity};
use serde_json::{Value, json};

/// The `verify --json` document: the verdict, its exit code, the counts, the ids of the failing
/// findings, and every section with all its findings.
pub fn to_value(report: &Report) -> Value {
    let c = report.counts();
    let sections: Vec<Value> = report
        .sections
        .iter()
        .map(|s| {
            let sc = s.counts();
            let mut v = json!({
                "system": s.system,
                "name": s.name,
                "path": s.path,
                "verdict": if s.failed() { "NOT CONFORMANT" } else if s.is_unverified() { "UNVERIFIED" } else { "CONFORMANT" },
                "counts": sc,
                "findings": s.findings,
            });
            if let Some(why) = &s.unverified {
                v["unverified"] = Value::String(why.clone());
            }
            v
        })
        .collect();
    json!({
        "verdict": report.verdict(),
        "exit_code": report.verdict().exit_code().code(),
        "counts": c,
        "failing": report.sections.iter().flat_map(|s| s.findings.iter()).filter(|f| f.severity == Severity::Fail).map(|f| f.id.as_str()).collect::<Vec<_>>(),
        "sections": sections,
    })
}

/// A report serialised as [`to_value`] builds it, for an outcome that carries one:
/// `#[serde(flatten, serialize_with = "json::serialize")]` puts the report's fields first and the
/// outcome's own after them.
pub fn serialize<S: serde::Serializer>(report: &Report, serializer: S) -> Result<S::Ok, S::Error> {
    serde::Serialize::serialize(&to_value(report), serializer)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::{Finding, Section, System};

    #[test]
    fn every_field_is_present() {
        let mut s = Section::new(System::Dwp, "PLAN_x", ".dwp/plans/PLAN_x");
        s.push(
            Finding::fail("task-file-missing", "task file 2 is missing")
                .plan("PLAN_x")
                .task(2)
                .file("2.task_b.md")
                .hint("restore it"),
        );
        let v = to_value(&Report { sections: vec![s] });
        assert_eq!(v["verdict"], "NOT CONFORMANT");
        assert_eq!(v["exit_code"], 1);
        let f = &v["sections"][0]["findings"][0];
        assert_eq!(f["id"], "task-file-missing");
        assert_eq!(f["severity"], "fail");
        assert_eq!(f["task"], 2);
        assert_eq!(f["file"], "2.task_b.md");
        assert_eq!(f["hint"], "restore it");
        assert_eq!(v["failing"][0], "task-file-missing");
    }
}
