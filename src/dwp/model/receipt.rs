//! The receipt `analysis_results/FINALIZATION.json` (SPEC §1.9 step 10).
//!
//! The helper's three keys come first, in its layout (2-space indent, trailing newline):
//! `state_sha256`, `artifacts_sha256`, `result: "verified"`. planseal's keys follow at the same
//! level: `receipt_version`, `tool_version`, `files` (every fingerprinted file → SHA-256, or
//! `<absent>`; `verify` reads it to name what changed), `evidence_files` (the gate logs cited by
//! `log=` and `PLAN_ANALYSIS.md`), `git` (HEAD / branch / clean, `null` outside a repository),
//! `checks_passed` and `exceptions` (accepted with their reason). No timestamp: the same plan
//! sealed twice gives the same bytes.

use planseal_recovery::hash::is_sha256_hex;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Path of the receipt inside the plan folder.
pub const RECEIPT_FILE: &str = "analysis_results/FINALIZATION.json";

/// The hash written for a fingerprinted file that does not exist.
pub const ABSENT: &str = "<absent>";

/// Version of planseal's extension of the receipt; a newer one is never rewritten.
pub const RECEIPT_VERSION: u64 = 1;

/// What a receipt says.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Receipt {
    /// SHA-256 of the published state.json bytes.
    pub state_sha256: String,
    /// The artifact fingerprint at publication.
    pub artifacts_sha256: String,
    /// Always `verified`.
    pub result: String,
    /// planseal's part; absent in a receipt written by the original helper.
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub planseal: Option<ReceiptExtension>,
}

/// What planseal checked in addition to the helper.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReceiptExtension {
    pub receipt_version: u64,
    pub tool_version: String,
    /// Every fingerprinted file (path relative to the plan folder) → SHA-256, or [`ABSENT`].
    /// Sorted by byte order of the path.
    pub files: BTreeMap<String, String>,
    /// The other covered files: gate logs cited by `log=` and `PLAN_ANALYSIS.md` (present ones).
    pub evidence_files: BTreeMap<String, String>,
    /// The repository the plan lives in; `null` when there is none (git checks not applicable).
    pub git: Option<GitSeal>,
    /// Ids of the checks that passed, sorted, each once.
    pub checks_passed: Vec<String>,
    /// Exceptions the user accepted (e.g. `--allow-dirty --reason`).
    pub exceptions: Vec<AcceptedException>,
}

/// The repository state at publication. Only recorded; `verify` never compares it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GitSeal {
    pub head: String,
    /// `null` on a detached HEAD.
    pub branch: Option<String>,
    pub clean: bool,
}

/// One exception accepted by the user, with the reason they gave.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AcceptedException {
    /// The finding id that was accepted (e.g. `git-worktree-dirty`).
    pub kind: String,
    pub reason: String,
    /// What exactly was accepted (e.g. the dirty paths).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub subjects: Vec<String>,
}

/// Why a receipt could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReceiptError {
    #[error("the receipt is not valid JSON of the expected shape: {0}")]
    Malformed(String),
    #[error("the receipt's `{0}` is not 64 hex digits")]
    BadHash(&'static str),
    #[error("the receipt's result is `{0}`, not `verified`")]
    NotVerified(String),
    #[error("the receipt was written by a newer planseal (receipt version {0})")]
    NewerVersion(u64),
}

impl Receipt {
    /// The receipt's bytes: 2-space indent, keys in declaration order, trailing newline.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut bytes = serde_json::to_vec_pretty(self)
            .expect("a receipt holds only strings, maps and lists, so it always serialises");
        bytes.push(b'\n');
        bytes
    }

    /// Reads a receipt written by either tool.
    pub fn parse(bytes: &[u8]) -> Result<Self, ReceiptError> {
        let receipt: Receipt =
            serde_json::from_slice(bytes).map_err(|e| ReceiptError::Malformed(e.to_string()))?;
        if !is_sha256_hex(&receipt.state_sha256) {
            return Err(ReceiptError::BadHash("state_sha256"));
        }
        if !is_sha256_hex(&receipt.artifacts_sha256) {
            return Err(ReceiptError::BadHash("artifacts_sha256"));
        }
        if receipt.result != "verified" {
            return Err(ReceiptError::NotVerified(receipt.result));
        }
        if let Some(ext) = &receipt.planseal
            && ext.receipt_version > RECEIPT_VERSION
        {
            return Err(ReceiptError::NewerVersion(ext.receipt_version));
        }
        Ok(receipt)
    }

    /// Covered files whose hash differs between this receipt and `now` (path → SHA-256 or
    /// [`ABSENT`]): `changed`, `appeared` (absent at publication) or `vanished`. Only the files
    /// named in `now` are compared. Empty when the receipt has no per-file hashes.
    pub fn changed_files(&self, now: &BTreeMap<String, String>) -> Vec<(String, FileChange)> {
        let Some(ext) = &self.planseal else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for (path, current) in now {
            let sealed = ext
                .files
                .get(path)
                .or_else(|| ext.evidence_files.get(path))
                .map(String::as_str)
                .unwrap_or(ABSENT);
            let change = match (sealed == ABSENT, current == ABSENT) {
                (true, true) => continue,
                (true, false) => FileChange::Appeared,
                (false, true) => FileChange::Vanished,
                (false, false) if sealed == current => continue,
                (false, false) => FileChange::Changed,
            };
            out.push((path.clone(), change));
        }
        out
    }
}

/// How a covered file differs from the receipt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileChange {
    Changed,
    Appeared,
    Vanished,
}

impl FileChange {
    pub fn as_str(self) -> &'static str {
        match self {
            FileChange::Changed => "changed",
            FileChange::Appeared => "appeared",
            FileChange::Vanished => "vanished",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const H1: &str = "800c06975704feddfc170048662d68038c48704611dc728c075b8240f84ba056";
    const H2: &str = "cbc2a4a46459cae00f049b1ec5d928f8653aecddd670ba297ce4d3c86c3a4717";

    #[test]
    fn helper_layout_is_203_bytes() {
        let r = Receipt {
            state_sha256: H1.into(),
            artifacts_sha256: H2.into(),
            result: "verified".into(),
            planseal: None,
        };
        let bytes = r.to_bytes();
        assert_eq!(bytes.len(), 203);
        assert_eq!(
            String::from_utf8(bytes.clone()).unwrap(),
            format!(
                "{{\n  \"state_sha256\": \"{H1}\",\n  \"artifacts_sha256\": \"{H2}\",\n  \"result\": \"verified\"\n}}\n"
            )
        );
        assert_eq!(Receipt::parse(&bytes).unwrap(), r);
    }

    fn extended() -> Receipt {
        let mut files = BTreeMap::new();
        files.insert("README.md".to_string(), H1.to_string());
        files.insert(
            "analysis_results/SKILLS_CANDIDATES.md".to_string(),
            ABSENT.to_string(),
        );
        let mut evidence_files = BTreeMap::new();
        evidence_files.insert("analysis_results/gates/t1.log".to_string(), H2.to_string());
        Receipt {
            state_sha256: H1.into(),
            artifacts_sha256: H2.into(),
            result: "verified".into(),
            planseal: Some(ReceiptExtension {
                receipt_version: RECEIPT_VERSION,
                tool_version: "planseal 0.1.0".into(),
                files,
                evidence_files,
                git: Some(GitSeal {
                    head: "a".repeat(40),
                    branch: Some("main".into()),
                    clean: false,
                }),
                checks_passed: vec!["plan-identity".into()],
                exceptions: vec![AcceptedException {
                    kind: "git-worktree-dirty".into(),
                    reason: "generated file — ✅".into(),
                    subjects: vec!["src/x.rs".into()],
                }],
            }),
        }
    }

    #[test]
    fn extension_follows_the_helper_keys_and_round_trips() {
        let r = extended();
        let bytes = r.to_bytes();
        let text = String::from_utf8(bytes.clone()).unwrap();
        assert!(text.starts_with(&format!(
            "{{\n  \"state_sha256\": \"{H1}\",\n  \"artifacts_sha256\": \"{H2}\",\n  \"result\": \"verified\",\n  \"receipt_version\": 1,\n"
        )));
        assert!(text.ends_with("}\n"));
        assert!(text.contains("— ✅"), "non-ASCII is written raw");
        assert_eq!(Receipt::parse(&bytes).unwrap(), r);
    }

    #[test]
    fn changed_files_names_each_difference() {
        let r = extended();
        let mut now = BTreeMap::new();
        now.insert("README.md".to_string(), H2.to_string());
        now.insert(
            "analysis_results/SKILLS_CANDIDATES.md".to_string(),
            H1.to_string(),
        );
        now.insert(
            "analysis_results/gates/t1.log".to_string(),
            ABSENT.to_string(),
        );
        now.insert("analysis_results/gates/new.log".to_string(), H1.to_string());
        let changes = r.changed_files(&now);
        assert_eq!(
            changes,
            vec![
                ("README.md".to_string(), FileChange::Changed),
                (
                    "analysis_results/SKILLS_CANDIDATES.md".to_string(),
                    FileChange::Appeared
                ),
                (
                    "analysis_results/gates/new.log".to_string(),
                    FileChange::Appeared
                ),
                (
                    "analysis_results/gates/t1.log".to_string(),
                    FileChange::Vanished
                ),
            ]
        );
    }

    #[test]
    fn bad_receipts_are_refused() {
        assert!(matches!(
            Receipt::parse(b"{}"),
            Err(ReceiptError::Malformed(_))
        ));
        let text = format!(
            "{{\"state_sha256\": \"{H1}\", \"artifacts_sha256\": \"{H2}\", \"result\": \"maybe\"}}"
        );
        assert!(matches!(
            Receipt::parse(text.as_bytes()),
            Err(ReceiptError::NotVerified(_))
        ));
    }
}
