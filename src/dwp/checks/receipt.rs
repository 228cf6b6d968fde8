//! The publication receipt `analysis_results/FINALIZATION.json` (SPEC §1.9, §1.10 item 16):
//! recompute the artifact fingerprint and the state hash from the bytes already read and compare.
//!
//! The fingerprint byte layout is pinned by `fixtures/vectors/dwp/*/fingerprint/`.

use super::load::{FileRead, PlanFiles};
use planseal_recovery::hash::{Sha256Stream, sha256_hex};
use serde_json::Value;
use std::collections::BTreeMap;

/// The six names every fingerprint covers.
pub const FIXED_FINGERPRINT_NAMES: [&str; 6] = [
    "README.md",
    "PROGRESS.md",
    "PROMPTS.md",
    "manifest.json",
    "analysis_results/SECURITY_REVIEW.md",
    "analysis_results/SKILLS_CANDIDATES.md",
];

/// The fingerprinted names of a plan whose state is `state`: the six fixed names plus every
/// `file` locator (v2/v5) or v1 `file` entry, sorted by their bytes.
pub fn fingerprint_names(state: &Value) -> Vec<String> {
    let mut names: Vec<String> = FIXED_FINGERPRINT_NAMES
        .iter()
        .map(|s| s.to_string())
        .collect();
    for t in state
        .get("tasks")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        match t.get("locator") {
            Some(loc) => {
                if loc.get("kind").and_then(Value::as_str) == Some("file")
                    && let Some(v) = loc.get("value").and_then(Value::as_str)
                {
                    names.push(v.to_string());
                }
            }
            None => {
                if let Some(f) = t.get("file").and_then(Value::as_str) {
                    names.push(f.to_string());
                }
            }
        }
    }
    names.sort();
    names.dedup();
    names
}

/// `artifacts_sha256` over `names`, taking each file's bytes from `files` (absent ⇒ `<absent>`).
pub fn fingerprint(files: &PlanFiles, names: &[String]) -> String {
    let mut h = Sha256Stream::new();
    for name in names {
        h.update(name.as_bytes());
        h.update(&[0]);
        match files.get(name) {
            FileRead::Bytes(b) => h.update(b),
            _ => h.update(b"<absent>"),
        }
    }
    h.finish_hex()
}

/// The per-file hash of one fingerprinted name as planseal's receipt extension records it
/// (`<absent>` for a missing file).
pub fn file_hash(files: &PlanFiles, name: &str) -> String {
    match files.get(name) {
        FileRead::Bytes(b) => sha256_hex(b),
        _ => "<absent>".to_string(),
    }
}

/// What comparing the receipt with the plan gave.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReceiptCheck {
    Missing,
    Unparseable(String),
    Matches,
    /// What differs, as human phrases (`state.json changed`, `README.md changed`, …).
    Mismatch(Vec<String>),
}

/// Compares the receipt bytes with the state bytes and the plan's files.
pub fn check_receipt(files: &PlanFiles, state_bytes: &[u8], state: &Value) -> ReceiptCheck {
    let Some(bytes) = files.bytes("analysis_results/FINALIZATION.json") else {
        return ReceiptCheck::Missing;
    };
    let receipt: Value = match serde_json::from_slice(bytes) {
        Ok(v @ Value::Object(_)) => v,
        Ok(_) => return ReceiptCheck::Unparseable("not a JSON object".into()),
        Err(e) => return ReceiptCheck::Unparseable(e.to_string()),
    };
    let field = |k: &str| receipt.get(k).and_then(Value::as_str);
    let (Some(state_sha), Some(artifacts_sha)) = (field("state_sha256"), field("artifacts_sha256"))
    else {
        return ReceiptCheck::Unparseable("state_sha256 or artifacts_sha256 missing".into());
    };
    let mut diffs = Vec::new();
    if field("result") != Some("verified") {
        diffs.push("result is not \"verified\"".to_string());
    }
    if sha256_hex(state_bytes) != state_sha {
        diffs.push("state.json changed".to_string());
    }
    let names = fingerprint_names(state);
    if fingerprint(files, &names) != artifacts_sha {
        match receipt.get("files").and_then(Value::as_object) {
            Some(recorded) => {
                let recorded: BTreeMap<&str, &str> = recorded
                    .iter()
                    .filter_map(|(k, v)| v.as_str().map(|v| (k.as_str(), v)))
                    .collect();
                for name in &names {
                    let now = file_hash(files, name);
                    match recorded.get(name.as_str()) {
                        Some(was) if *was == now => {}
                        Some(&"<absent>") => diffs.push(format!("{name} appeared")),
                        Some(_) if now == "<absent>" => diffs.push(format!("{name} vanished")),
                        Some(_) => diffs.push(format!("{name} changed")),
                        None if now == "<absent>" => {}
                        None => diffs.push(format!("{name} appeared")),
                    }
                }
                for name in recorded.keys() {
                    if !names.iter().any(|n| n == name) && *recorded.get(name).unwrap_or(&"") != "<absent>" {
                        diffs.push(format!("{name} is no longer part of the plan"));
                    }
                }
                if diffs.is_empty() {
                    diffs.push("the fingerprinted plan files changed".to_string());
                }
            }
            None => diffs.push(
                "the fingerprinted plan files changed (README.md, PROGRESS.md, PROMPTS.md, manifest.json, SECURITY_REVIEW.md, SKILLS_CANDIDATES.md or a task file)"
                    .to_string(),
            ),
        }
    }
    if diffs.is_empty() {
        ReceiptCheck::Matches
    } else {
        ReceiptCheck::Mismatch(diffs)
    }
}
