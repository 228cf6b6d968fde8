//! Step 4 of the transaction: the candidate against every artifact of the plan — strict state
//! rules, the conformance check with the candidate in place of state.json (skipping only the
//! marker and the receipt checks), every task record's Completion & Log, and git (SPEC §1.9,
//! §1.11). Also the fingerprint and the covered-file list of the receipt.

use super::FinalizeError;
use super::receipt::{AcceptedException, GitSeal, RECEIPT_VERSION, Receipt, ReceiptExtension};
use crate::report::{Finding, Severity};
use planseal_recovery::hash::{Sha256Stream, sha256_hex};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;

/// What the validation looks at.
pub struct ValidationInput<'a> {
    pub plan_dir: &'a Path,
    /// The state bytes about to be published.
    pub candidate: &'a [u8],
    /// `--allow-dirty --reason TEXT`.
    pub allow_dirty_reason: Option<&'a str>,
}

/// Everything the validation found, and what the receipt will record.
#[derive(Debug, Clone, Default)]
pub struct Validation {
    /// MUST failures; the candidate is publishable only when this is empty.
    pub failures: Vec<Finding>,
    pub advisories: Vec<Finding>,
    /// Ids of the checks that passed, sorted, each once.
    pub checks_passed: Vec<String>,
    pub artifacts_sha256: String,
    /// Covered files → SHA-256 (`None` = absent fingerprinted file).
    pub files: BTreeMap<String, Option<String>>,
    pub git: Option<GitSeal>,
    pub exceptions: Vec<AcceptedException>,
}

impl Validation {
    /// The receipt for `state_sha256` with what this validation established.
    pub fn receipt(&self, state_sha256: &str) -> Receipt {
        Receipt {
            state_sha256: state_sha256.to_string(),
            artifacts_sha256: self.artifacts_sha256.clone(),
            result: "verified".into(),
            planseal: Some(ReceiptExtension {
                receipt_version: RECEIPT_VERSION,
                tool_version: crate::TOOL_VERSION.to_string(),
                files: self.files.clone(),
                git: self.git.clone(),
                checks_passed: self.checks_passed.clone(),
                exceptions: self.exceptions.clone(),
            }),
        }
    }

    fn absorb(&mut self, findings: Vec<Finding>) {
        for f in findings {
            match f.severity {
                Severity::Pass => self.checks_passed.push(f.id),
                Severity::Advisory => self.advisories.push(f),
                Severity::Fail => self.failures.push(f),
            }
        }
    }
}

/// The artifact fingerprint of SPEC §1.9 for the candidate's task list.
pub struct Fingerprint {
    pub artifacts_sha256: String,
    /// Name → SHA-256 of each fingerprinted file (`None` when absent), in hash order.
    pub entries: Vec<(String, Option<String>)>,
}

const FIXED_NAMES: [&str; 6] = [
    "README.md",
    "PROGRESS.md",
    "PROMPTS.md",
    "manifest.json",
    "analysis_results/SECURITY_REVIEW.md",
    "analysis_results/SKILLS_CANDIDATES.md",
];

/// The fingerprinted names: the six fixed ones plus every file locator (v2/v5) or v1 `file`.
pub fn fingerprint_names(candidate: &Value) -> Vec<String> {
    let mut names: Vec<String> = FIXED_NAMES.iter().map(|s| s.to_string()).collect();
    if let Some(tasks) = candidate.get("tasks").and_then(Value::as_array) {
        for task in tasks {
            let file = match task.get("locator") {
                Some(loc) => (loc.get("kind").and_then(Value::as_str) == Some("file"))
                    .then(|| loc.get("value").and_then(Value::as_str))
                    .flatten(),
                None => task.get("file").and_then(Value::as_str),
            };
            if let Some(f) = file {
                names.push(f.to_string());
            }
        }
    }
    names.sort();
    names.dedup();
    names
}

/// Hashes the fingerprinted files of the plan as the candidate names them.
pub fn fingerprint(plan_dir: &Path, candidate: &[u8]) -> Result<Fingerprint, FinalizeError> {
    let value: Value = serde_json::from_slice(candidate).unwrap_or(Value::Null);
    let mut stream = Sha256Stream::new();
    let mut entries = Vec::new();
    for name in fingerprint_names(&value) {
        stream.update(name.as_bytes());
        stream.update(&[0]);
        let content = if planseal_recovery::paths::check_relative(&name).is_ok() {
            super::store::read_optional(&plan_dir.join(&name))?
        } else {
            None
        };
        match &content {
            Some(bytes) => stream.update(bytes),
            None => stream.update(b"<absent>"),
        }
        entries.push((name, content.as_deref().map(sha256_hex)));
    }
    Ok(Fingerprint {
        artifacts_sha256: stream.finish_hex(),
        entries,
    })
}

/// Every file the receipt covers: the fingerprinted set, `PLAN_ANALYSIS.md` and every gate log
/// cited by a `log=` pointer that resolves inside the plan folder.
pub fn covered_files(
    plan_dir: &Path,
    candidate: &[u8],
) -> Result<(String, BTreeMap<String, Option<String>>), FinalizeError> {
    let fp = fingerprint(plan_dir, candidate)?;
    let mut files: BTreeMap<String, Option<String>> = fp.entries.into_iter().collect();
    let analysis = "analysis_results/PLAN_ANALYSIS.md";
    if let Some(bytes) = super::store::read_optional(&plan_dir.join(analysis))? {
        files.insert(analysis.to_string(), Some(sha256_hex(&bytes)));
    }
    let value: Value = serde_json::from_slice(candidate).unwrap_or(Value::Null);
    for log in log_pointers(&value) {
        if let Ok(path) = planseal_recovery::paths::resolve_inside(plan_dir, &log, true)
            && let Some(bytes) = super::store::read_optional(&path)?
        {
            files.insert(log, Some(sha256_hex(&bytes)));
        }
    }
    Ok((fp.artifacts_sha256, files))
}

/// Every `log=` pointer in the gate evidence of the candidate (SPEC §1.5: `\blog=([^\s;]+)`).
fn log_pointers(candidate: &Value) -> Vec<String> {
    let re = regex::Regex::new(r"\blog=([^\s;]+)")
        .expect("the log pointer pattern is a valid regex because it is a constant");
    let mut out = Vec::new();
    for task in candidate
        .get("tasks")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        for gate in task
            .get("gates")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if let Some(ev) = gate.get("evidence").and_then(Value::as_str) {
                for cap in re.captures_iter(ev) {
                    out.push(cap[1].to_string());
                }
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

/// Step 4: every check of the candidate. Failures are collected, not thrown: the caller refuses
/// with all of them.
pub fn validate_candidate(input: &ValidationInput<'_>) -> Result<Validation, FinalizeError> {
    let mut v = Validation::default();
    let (artifacts_sha256, files) = covered_files(input.plan_dir, input.candidate)?;
    v.artifacts_sha256 = artifacts_sha256;
    v.files = files;

    v.absorb(candidate_state_rules(input.candidate));

    v.checks_passed.sort();
    v.checks_passed.dedup();
    Ok(v)
}

/// The candidate as a terminal state: parses, is completed, carries the `done` checkpoint.
fn candidate_state_rules(candidate: &[u8]) -> Vec<Finding> {
    let value: Value = match serde_json::from_slice(candidate) {
        Ok(v) => v,
        Err(e) => {
            return vec![Finding::fail(
                "candidate-unparseable",
                format!("the candidate is not valid JSON ({e})"),
            )];
        }
    };
    let mut out = Vec::new();
    if value.get("status").and_then(Value::as_str) != Some("completed") {
        out.push(
            Finding::fail(
                "candidate-not-completed",
                "the candidate's status is not `completed`: only a completed state can be published",
            )
            .hint("complete the last task with `planseal update … --status completed`"),
        );
        return out;
    }
    out.push(Finding::pass(
        "candidate-completed",
        "candidate status is completed",
    ));
    out
}
