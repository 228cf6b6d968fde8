//! Findings, verdicts and their printers. Every check in every format produces [`Finding`]s; the
//! text and JSON output, the verdict and the exit code are all derived from the list.

pub mod error;
pub mod exit;
pub mod json;
pub mod redact;
pub mod refusal;
pub mod text;

pub use error::HintedError;
pub use exit::ExitCode;
pub use refusal::{LockOwnerState, Refusal, RefusalKind};

use serde::Serialize;

/// How much a finding weighs in the verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// A check that held.
    Pass,
    /// A SHOULD that did not hold; never changes the verdict.
    Advisory,
    /// A MUST that did not hold.
    Fail,
}

/// One result of one check, or one refusal.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// Stable kebab-case id (each system's docs/ page lists its ids); scripts branch on it.
    pub id: String,
    pub severity: Severity,
    /// The plan (or file, for the other systems) the finding belongs to.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub plan: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub task: Option<u64>,
    /// Path relative to the plan (or system) folder, when one file is concerned.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
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
    pub fn new(id: impl Into<String>, severity: Severity, message: impl Into<String>) -> Self {
        Self {
            id: id.into(),
            severity,
            plan: None,
            task: None,
            file: None,
            message: message.into(),
            hint: None,
            group: None,
        }
    }
    pub fn pass(id: impl Into<String>, message: impl Into<String>) -> Self {
        Self::new(id, Severity::Pass, message)
    }
    pub fn advisory(id: impl Into<String>, message: impl Into<String>) -> Self {
        Self::new(id, Severity::Advisory, message)
    }
    pub fn fail(id: impl Into<String>, message: impl Into<String>) -> Self {
        Self::new(id, Severity::Fail, message)
    }
    pub fn plan(mut self, plan: impl Into<String>) -> Self {
        self.plan = Some(plan.into());
        self
    }
    pub fn task(mut self, task: u64) -> Self {
        self.task = Some(task);
        self
    }
    pub fn file(mut self, file: impl Into<String>) -> Self {
        self.file = Some(file.into());
        self
    }
    pub fn hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }
    pub fn group(mut self, key: impl Into<String>) -> Self {
        self.group = Some(key.into());
        self
    }
}

/// Which system a section of the report speaks about; it names the section header.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum System {
    Dwp,
    Gsd,
    Reversa,
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
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Section {
    pub system: System,
    /// Plan name, or the path of the file for the other systems.
    pub name: String,
    /// Folder or file the section was read from.
    pub path: String,
    pub findings: Vec<Finding>,
    /// Set when the section could not be checked (I/O error, permission denied): why.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unverified: Option<String>,
}

impl Section {
    pub fn new(system: System, name: impl Into<String>, path: impl Into<String>) -> Self {
        Self {
            system,
            name: name.into(),
            path: path.into(),
            findings: Vec::new(),
            unverified: None,
        }
    }
    pub fn push(&mut self, f: Finding) {
        self.findings.push(f);
    }
    pub fn counts(&self) -> Counts {
        let mut c = Counts::default();
        for f in &self.findings {
            match f.severity {
                Severity::Pass => c.passed += 1,
                Severity::Advisory => c.advisory += 1,
                Severity::Fail => c.failed += 1,
            }
        }
        c
    }
    pub fn failed(&self) -> bool {
        self.findings.iter().any(|f| f.severity == Severity::Fail)
    }
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Counts {
    pub passed: usize,
    pub failed: usize,
    pub advisory: usize,
}

/// The overall answer of a check run. Precedence: any failure ⇒ NOT CONFORMANT; otherwise
/// anything that could not be read ⇒ UNVERIFIED; otherwise CONFORMANT.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Verdict {
    #[serde(rename = "CONFORMANT")]
    Conformant,
    #[serde(rename = "NOT CONFORMANT")]
    NotConformant,
    #[serde(rename = "UNVERIFIED")]
    Unverified,
}

impl Verdict {
    pub fn exit_code(self) -> ExitCode {
        match self {
            Verdict::Conformant => ExitCode::Ok,
            Verdict::NotConformant => ExitCode::Failed,
            Verdict::Unverified => ExitCode::UsageOrUnverified,
        }
    }
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Conformant => "CONFORMANT",
            Verdict::NotConformant => "NOT CONFORMANT",
            Verdict::Unverified => "UNVERIFIED",
        }
    }
}

/// Every section of one `verify` run.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Report {
    pub sections: Vec<Section>,
}

impl Report {
    pub fn counts(&self) -> Counts {
        let mut c = Counts::default();
        for s in &self.sections {
            let sc = s.counts();
            c.passed += sc.passed;
            c.failed += sc.failed;
            c.advisory += sc.advisory;
        }
        c
    }
    /// Any failure ⇒ NOT CONFORMANT; else anything unreadable ⇒ UNVERIFIED; else CONFORMANT.
    pub fn verdict(&self) -> Verdict {
        if self.sections.iter().any(Section::failed) {
            Verdict::NotConformant
        } else if self.sections.iter().any(|s| s.unverified.is_some()) {
            Verdict::Unverified
        } else {
            Verdict::Conformant
        }
    }
    pub fn unverified_count(&self) -> usize {
        self.sections
            .iter()
            .filter(|s| s.unverified.is_some())
            .count()
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
            sections: vec![unreadable, bad, ok],
        };
        assert_eq!(r.verdict(), Verdict::NotConformant);
        assert_eq!(
            r.counts(),
            Counts {
                passed: 1,
                failed: 1,
                advisory: 1
            }
        );
        assert_eq!(r.verdict().exit_code(), ExitCode::Failed);
    }
}
