//! Findings, verdicts and their printers. Every check in every format produces [`Finding`]s; the
//! text and JSON output, the verdict and the exit code are all derived from the list.

pub mod applied;
pub mod ci;
pub mod envelope;
pub mod error;
pub mod exit;
pub mod json;
pub mod redact;
pub mod refusal;
pub mod text;

pub use error::HintedError;
pub use exit::ExitCode;
pub use refusal::{LockOwnerState, Refusal, RefusalKind, read_refusal};

use serde::Serialize;

/// How much a finding weighs in the verdict.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// A check that held.
    Pass,
    /// A SHOULD that did not hold; never changes the verdict.
    Advisory,
    /// A MUST that did not hold.
    Fail,
    /// A check whose answer rests on something that could not be read (a git object, the
    /// repository itself): neither held nor failed, so the verdict is at best UNVERIFIED.
    Unverified,
}

/// One result of one check, or one refusal.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Finding {
    /// Stable kebab-case id (each system's docs/ page lists its ids); scripts branch on it.
    pub id: String,
    /// Whether the check held, and whether a miss changes the verdict.
    pub severity: Severity,
    /// The plan (or file, for the other systems) the finding belongs to.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub plan: Option<String>,
    /// The DWP task the finding is about, by its id in state.json.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub task: Option<u64>,
    /// Path relative to the plan (or system) folder, when one file is concerned.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// The 1-based line of that file (of the section's own file when no file is named), when
    /// the check knows it: CI annotations point at it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    /// One sentence for the user: what was checked and what was found.
    pub message: String,
    /// What to do about it, where that is known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
    /// Findings with the same id and group key are printed as one text line with
    /// `(and N more record(s) alike)`; JSON lists each.
    #[serde(skip)]
    pub group: Option<String>,
}

impl Finding {
    /// A finding with no plan, task, file, hint or group; the builder methods below add them.
    pub fn new(id: impl Into<String>, severity: Severity, message: impl Into<String>) -> Self {
        Self {
            id: id.into(),
            severity,
            plan: None,
            task: None,
            file: None,
            line: None,
            message: message.into(),
            hint: None,
            group: None,
        }
    }
    /// A check that held.
    pub fn pass(id: impl Into<String>, message: impl Into<String>) -> Self {
        Self::new(id, Severity::Pass, message)
    }
    /// A recommendation that did not hold; it never changes the verdict.
    pub fn advisory(id: impl Into<String>, message: impl Into<String>) -> Self {
        Self::new(id, Severity::Advisory, message)
    }
    /// A requirement that did not hold: the verdict becomes NOT CONFORMANT.
    pub fn fail(id: impl Into<String>, message: impl Into<String>) -> Self {
        Self::new(id, Severity::Fail, message)
    }
    /// A check that could not be made: unless something failed, the verdict is UNVERIFIED.
    pub fn unverified(id: impl Into<String>, message: impl Into<String>) -> Self {
        Self::new(id, Severity::Unverified, message)
    }
    /// Names the plan (or file) the finding belongs to.
    pub fn plan(mut self, plan: impl Into<String>) -> Self {
        self.plan = Some(plan.into());
        self
    }
    /// Names the task, by its id in state.json.
    pub fn task(mut self, task: u64) -> Self {
        self.task = Some(task);
        self
    }
    /// Names the file, relative to the plan (or system) folder.
    pub fn file(mut self, file: impl Into<String>) -> Self {
        self.file = Some(file.into());
        self
    }
    /// Names the 1-based line the finding is about.
    pub fn line(mut self, line: usize) -> Self {
        self.line = Some(line);
        self
    }
    /// Adds what the user can do about it.
    pub fn hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }
    /// Prints it on one text line with every other finding of the same id and `key`.
    pub fn group(mut self, key: impl Into<String>) -> Self {
        self.group = Some(key.into());
        self
    }
}

/// Which system a section of the report speaks about; it names the section header.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum System {
    /// A Deep Work Plan (`.dwp/plans/PLAN_*`).
    Dwp,
    /// A GSD `.planning/STATE.md`.
    Gsd,
    /// A Reversa `.reversa/state.json`.
    Reversa,
    /// A checkpoint protocol file (`PROJECT-CHECKPOINT.md`).
    Checkpoint,
}

impl System {
    /// The header word of a text section (`Plan: NAME`, `GSD: PATH`, …).
    pub fn header(self) -> &'static str {
        match self {
            System::Dwp => "Plan",
            System::Gsd => "GSD",
            System::Reversa => "Reversa",
            System::Checkpoint => "Checkpoint",
        }
    }
}

/// The findings of one plan (or one file of another system).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Section {
    /// The format the section's file or folder belongs to.
    pub system: System,
    /// Plan name, or the path of the file for the other systems.
    pub name: String,
    /// Folder or file the section was read from.
    pub path: String,
    /// Every finding of the section, in the order the checks ran.
    pub findings: Vec<Finding>,
    /// Set when the section could not be checked (I/O error, permission denied): why.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unverified: Option<String>,
}

impl Section {
    /// An empty section: no findings yet, and not marked unverified.
    pub fn new(system: System, name: impl Into<String>, path: impl Into<String>) -> Self {
        Self {
            system,
            name: name.into(),
            path: path.into(),
            findings: Vec::new(),
            unverified: None,
        }
    }
    /// Adds a finding at the end.
    pub fn push(&mut self, f: Finding) {
        self.findings.push(f);
    }
    /// How many findings passed, failed and were advisory.
    pub fn counts(&self) -> Counts {
        let mut c = Counts::default();
        for f in &self.findings {
            match f.severity {
                Severity::Pass => c.passed += 1,
                Severity::Advisory => c.advisory += 1,
                Severity::Fail => c.failed += 1,
                Severity::Unverified => c.unverified += 1,
            }
        }
        c
    }
    /// Whether any finding failed: the section alone makes the verdict NOT CONFORMANT.
    pub fn failed(&self) -> bool {
        self.findings.iter().any(|f| f.severity == Severity::Fail)
    }
    /// Whether the section could not be read, or one of its checks could not be made.
    pub fn is_unverified(&self) -> bool {
        self.unverified.is_some()
            || self
                .findings
                .iter()
                .any(|f| f.severity == Severity::Unverified)
    }
    /// Why the section is unverified: its own reason, then each unverified finding's message.
    pub fn unverified_reasons(&self) -> Vec<String> {
        self.unverified
            .iter()
            .cloned()
            .chain(
                self.findings
                    .iter()
                    .filter(|f| f.severity == Severity::Unverified)
                    .map(|f| f.message.clone()),
            )
            .collect()
    }
}

/// How many findings of each severity, over a section or a whole report.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Counts {
    /// Findings that held.
    pub passed: usize,
    /// Findings that failed (each makes the verdict NOT CONFORMANT).
    pub failed: usize,
    /// Advisory findings (they never change the verdict).
    pub advisory: usize,
    /// Checks that could not be made (each makes the verdict at best UNVERIFIED); left out of
    /// the JSON when there are none.
    #[serde(skip_serializing_if = "is_zero")]
    pub unverified: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// The overall answer of a check run. Precedence: any failure ⇒ NOT CONFORMANT; otherwise
/// anything that could not be read ⇒ UNVERIFIED; otherwise CONFORMANT.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub enum Verdict {
    /// No finding failed and every section could be read (advisories allowed); exit 0.
    #[serde(rename = "CONFORMANT")]
    Conformant,
    /// At least one finding failed; exit 1.
    #[serde(rename = "NOT CONFORMANT")]
    NotConformant,
    /// Nothing failed, but some section could not be read or checked; exit 2.
    #[serde(rename = "UNVERIFIED")]
    Unverified,
}

impl Verdict {
    /// The process exit code this verdict ends a check run with (0, 1 or 2).
    pub fn exit_code(self) -> ExitCode {
        match self {
            Verdict::Conformant => ExitCode::Ok,
            Verdict::NotConformant => ExitCode::Failed,
            Verdict::Unverified => ExitCode::UsageOrUnverified,
        }
    }
    /// The verdict as printed and as written in JSON (`CONFORMANT`, `NOT CONFORMANT`,
    /// `UNVERIFIED`).
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Conformant => "CONFORMANT",
            Verdict::NotConformant => "NOT CONFORMANT",
            Verdict::Unverified => "UNVERIFIED",
        }
    }
}

/// Every section of one `verify` run.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Report {
    /// One section per plan or file checked, in the order they were found.
    pub sections: Vec<Section>,
}

impl Report {
    /// The counts of every section added up.
    pub fn counts(&self) -> Counts {
        let mut c = Counts::default();
        for s in &self.sections {
            let sc = s.counts();
            c.passed += sc.passed;
            c.failed += sc.failed;
            c.advisory += sc.advisory;
            c.unverified += sc.unverified;
        }
        c
    }
    /// Any failure ⇒ NOT CONFORMANT; else anything unreadable ⇒ UNVERIFIED; else CONFORMANT.
    pub fn verdict(&self) -> Verdict {
        if self.sections.iter().any(Section::failed) {
            Verdict::NotConformant
        } else if self.sections.iter().any(Section::is_unverified) {
            Verdict::Unverified
        } else {
            Verdict::Conformant
        }
    }
    /// How many sections could not be read or checked.
    pub fn unverified_count(&self) -> usize {
        self.sections.iter().filter(|s| s.is_unverified()).count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn section(findings: Vec<Finding>) -> Section {
        let mut s = Section::new(System::Dwp, "PLAN_x", ".dwp/plans/PLAN_x");
        s.findings = findings;
        s
    }

    #[test]
    fn verdict_precedence() {
        let ok = section(vec![Finding::pass("a", "ok"), Finding::advisory("b", "hm")]);
        let bad = section(vec![Finding::fail("c", "no")]);
        let mut unreadable = section(vec![]);
        unreadable.unverified = Some("permission denied".into());

        let r = Report {
            sections: vec![ok.clone()],
        };
        assert_eq!(r.verdict(), Verdict::Conformant);
        let r = Report {
            sections: vec![ok.clone(), unreadable.clone()],
        };
        assert_eq!(r.verdict(), Verdict::Unverified);
        let r = Report {
            sections: vec![unreadable, bad, ok.clone()],
        };
        assert_eq!(r.verdict(), Verdict::NotConformant);
        assert_eq!(
            r.counts(),
            Counts {
                passed: 1,
                failed: 1,
                advisory: 1,
                unverified: 0
            }
        );
        assert_eq!(r.verdict().exit_code(), ExitCode::Failed);

        // A check that could not be made is no failure and no advisory: UNVERIFIED.
        let unmade = section(vec![
            Finding::pass("a", "ok"),
            Finding::unverified("git-unreadable", "object x"),
        ]);
        let r = Report {
            sections: vec![ok, unmade],
        };
        assert_eq!(r.verdict(), Verdict::Unverified);
        assert_eq!(r.unverified_count(), 1);
        assert_eq!(r.counts().unverified, 1);
    }
}
