//! The `--json` form of a [`Report`]: one document with the verdict, the counts and, per section,
//! every finding with all its fields (no grouping).

use super::{Counts, Finding, Report, Severity, System, Verdict};
use serde::Serialize;
use serde_json::Value;

/// The `verify --json` document: the verdict, its exit code, the counts, the ids of the failing
/// findings, and every section with all its findings. Typed, so `planseal schema` describes
/// exactly what is printed.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct ReportDocument<'a> {
    /// The verdict over every section.
    pub verdict: Verdict,
    /// The exit code the verdict ends the run with (0, 1 or 2).
    pub exit_code: u8,
    /// The counts of every section added up.
    pub counts: Counts,
    /// The ids of the failing findings, in report order.
    pub failing: Vec<&'a str>,
    /// One entry per plan or file checked.
    pub sections: Vec<SectionDocument<'a>>,
}

/// One section of a [`ReportDocument`].
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct SectionDocument<'a> {
    /// Which system's files the section checked.
    pub system: System,
    /// The plan's or file's name.
    pub name: &'a str,
    /// Where it is.
    pub path: &'a str,
    /// The section's own verdict.
    pub verdict: Verdict,
    /// The section's counts.
    pub counts: Counts,
    /// Every finding, with all its fields.
    pub findings: &'a [Finding],
    /// Why the section could not be checked, when it could not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unverified: Option<&'a str>,
}

impl<'a> ReportDocument<'a> {
    /// The document of `report`.
    pub fn of(report: &'a Report) -> Self {
        let verdict = report.verdict();
        ReportDocument {
            verdict,
            exit_code: verdict.exit_code().code(),
            counts: report.counts(),
            failing: report
                .sections
                .iter()
                .flat_map(|s| s.findings.iter())
                .filter(|f| f.severity == Severity::Fail)
                .map(|f| f.id.as_str())
                .collect(),
            sections: report
                .sections
                .iter()
                .map(|s| SectionDocument {
                    system: s.system,
                    name: &s.name,
                    path: &s.path,
                    verdict: if s.failed() {
                        Verdict::NotConformant
                    } else if s.is_unverified() {
                        Verdict::Unverified
                    } else {
                        Verdict::Conformant
                    },
                    counts: s.counts(),
                    findings: &s.findings,
                    unverified: s.unverified.as_deref(),
                })
                .collect(),
        }
    }
}

/// The `verify --json` document as a JSON value.
pub fn to_value(report: &Report) -> Value {
    serde_json::to_value(ReportDocument::of(report)).unwrap_or_default()
}

/// A report serialised as [`to_value`] builds it, for an outcome that carries one:
/// `#[serde(flatten, serialize_with = "json::serialize")]` puts the report's fields first and the
/// outcome's own after them (with `#[schemars(with = "ReportDocument<'static>")]` beside it, so
/// the schema says the same).
pub fn serialize<S: serde::Serializer>(report: &Report, serializer: S) -> Result<S::Ok, S::Error> {
    ReportDocument::of(report).serialize(serializer)
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
