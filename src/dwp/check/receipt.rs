//! The publication receipt check (`analysis_results/FINALIZATION.json`): the artifact
//! fingerprint and the state hash, computed from the bytes already read by the same code that
//! sealed them ([`crate::dwp::model::fingerprint`]), compared with the receipt read by the same
//! model finalize wrote it with ([`crate::dwp::model::receipt`]).

use crate::dwp::model::State;
use crate::dwp::model::fingerprint::{self, FileHashes, Fingerprint};
use crate::dwp::model::receipt::{RECEIPT_FILE, Receipt, compare_file_hashes};
use crate::dwp::read::{FileRead, PlanFiles, read_inside};
use planseal_recovery::hash::sha256_hex;

/// The fingerprinted names of a plan whose state is the JSON value `state`.
pub fn fingerprint_names(state: &serde_json::Value) -> Vec<String> {
    fingerprint::artifact_names_of(state)
}

/// `artifacts_sha256` over `names`, taking each file's bytes from `files` (absent ⇒ `<absent>`).
pub fn fingerprint(files: &PlanFiles, names: &[String]) -> String {
    current_fingerprint(files, names, false).hex
}

/// The per-file hash of one fingerprinted name as planseal's receipt extension records it
/// (`<absent>` for a missing file).
pub fn file_hash(files: &PlanFiles, name: &str) -> String {
    if files.is_streamed(name) {
        return match read_inside(&files.dir, name) {
            FileRead::Bytes(b) => sha256_hex(&b),
            _ => crate::dwp::model::receipt::ABSENT.to_string(),
        };
    }
    match files.get(name) {
        FileRead::Bytes(b) => sha256_hex(b),
        _ => crate::dwp::model::receipt::ABSENT.to_string(),
    }
}

/// The current fingerprint of the plan from the bytes already read; the per-file hashes only
/// when asked for (a receipt with planseal's `files` map), since they double the hashing. A
/// file the fingerprint cannot read counts as absent here: verify has already reported the
/// plan unverified when one of its files is unreadable.
pub fn current_fingerprint(files: &PlanFiles, names: &[String], per_file: bool) -> Fingerprint {
    if let Some(streamed) = super::stream::streamed_fingerprint(files, names, per_file) {
        return streamed;
    }
    fingerprint::fingerprint(files, names, per_file).unwrap_or_else(|_| Fingerprint {
        hex: String::new(),
        files: Vec::new(),
        refused: Vec::new(),
    })
}

/// What comparing the receipt with the plan gave.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReceiptCheck {
    /// No receipt bytes were read: the file is absent (or unreadable or outside the plan, which
    /// the check reports on its own).
    Missing,
    /// The receipt cannot be used (not a JSON object, a hash that is not SHA-256 hex, a newer
    /// receipt version, …) or lacks `state_sha256` / `artifacts_sha256`; the text says why.
    Unparseable(String),
    /// The recorded state hash and artifact fingerprint equal the current ones.
    Matches,
    /// What differs, as human phrases (`state.json changed`, `README.md changed`, …).
    Mismatch(Vec<String>),
}

/// Compares the receipt with the state bytes and the plan's files. With planseal's per-file
/// maps the changed files are named: `files` for the fingerprinted ones, `evidence_files` for
/// the others it covers (gate logs, PLAN_ANALYSIS.md), read here for that purpose only.
pub fn check_receipt(files: &PlanFiles, state_bytes: &[u8], state: &State) -> ReceiptCheck {
    check_receipt_hashed(files, &sha256_hex(state_bytes), state)
}

/// [`check_receipt`] given the SHA-256 of state.json's bytes.
pub(crate) fn check_receipt_hashed(
    files: &PlanFiles,
    state_sha256: &str,
    state: &State,
) -> ReceiptCheck {
    let Some(bytes) = files.bytes(RECEIPT_FILE) else {
        return ReceiptCheck::Missing;
    };
    let receipt = match Receipt::read(bytes) {
        Ok(r) => r,
        Err(e) => return ReceiptCheck::Unparseable(e.to_string()),
    };
    if receipt.state_sha256.is_empty() || receipt.artifacts_sha256.is_empty() {
        return ReceiptCheck::Unparseable("state_sha256 or artifacts_sha256 missing".into());
    }
    let names = fingerprint::artifact_names(state);
    let current = current_fingerprint(files, &names, receipt.files().is_some());
    let cmp = receipt.compare(state_sha256, &current);
    let mut diffs = Vec::new();
    if !cmp.result_verified {
        diffs.push("result is not \"verified\"".to_string());
    }
    if !cmp.state_matches {
        diffs.push("state.json changed".to_string());
    }
    diffs.extend(cmp.changed.iter().map(|n| format!("{n} changed")));
    diffs.extend(cmp.appeared.iter().map(|n| format!("{n} appeared")));
    diffs.extend(cmp.vanished.iter().map(|n| format!("{n} vanished")));
    if !cmp.artifacts_match && receipt.files().is_none() {
        diffs.push(
            "the fingerprinted plan files changed (README.md, PROGRESS.md, PROMPTS.md, manifest.json, SECURITY_REVIEW.md, SKILLS_CANDIDATES.md or a task file)"
                .to_string(),
        );
    } else if !cmp.artifacts_match
        && cmp.changed.is_empty()
        && cmp.appeared.is_empty()
        && cmp.vanished.is_empty()
    {
        diffs.push("the fingerprinted plan files changed".to_string());
    }
    if let Some(recorded) = receipt.evidence_files() {
        let now: FileHashes = recorded
            .keys()
            .map(|name| {
                let digest = match read_inside(&files.dir, name) {
                    FileRead::Bytes(b) => Some(sha256_hex(&b)),
                    _ => None,
                };
                (name.clone(), digest)
            })
            .collect();
        let changes = compare_file_hashes(recorded, &now);
        diffs.extend(changes.changed.iter().map(|n| format!("{n} changed")));
        diffs.extend(changes.appeared.iter().map(|n| format!("{n} appeared")));
        diffs.extend(changes.vanished.iter().map(|n| format!("{n} vanished")));
    }
    if diffs.is_empty() {
        ReceiptCheck::Matches
    } else {
        ReceiptCheck::Mismatch(diffs)
    }
}
