//! The receipt `analysis_results/FINALIZATION.json`: the one model of it, written by finalize
//! and read by verify and recover, so a receipt one of them writes is a receipt the others read.
//!
//! The helper's three keys come first, in its layout (2-space indent, trailing newline):
//! `state_sha256`, `artifacts_sha256`, `result: "verified"`. planseal's keys follow at the same
//! level: `receipt_version`, `tool_version`, `files` (every fingerprinted file → SHA-256, or
//! `<absent>`; `verify` reads it to name what changed), `evidence_files` (the gate logs cited by
//! `log=` and `PLAN_ANALYSIS.md`), `git` (HEAD / branch / clean, `null` outside a repository),
//! `checks_passed` and `exceptions` (accepted with their reason). No timestamp: the same plan
//! sealed twice gives the same bytes.
//!
//! [`Receipt::read`] is lenient about which keys are there (the helper's receipt has no
//! extension; a hand-edited one may lack keys, and verify then says what is missing) and strict
//! about what a value is (a hash is 64 hex digits, a per-file entry a hash or `<absent>`).
//! [`Receipt::parse`] additionally requires a complete, verified receipt.

use super::fingerprint::{FileHashes, Fingerprint};
use crate::dwp::layout;
use planseal_recovery::hash::is_sha256_hex;
use serde::{Deserialize, Serialize, Serializer};
use serde_json::{Map, Value};

/// Path of the receipt inside the plan folder.
pub const RECEIPT_FILE: &str = layout::RECEIPT_FILE;

/// The per-file hash written for a file that does not exist.
pub const ABSENT: &str = "<absent>";

/// Version of planseal's extension of the receipt; a newer one is never rewritten.
pub const RECEIPT_VERSION: u64 = 1;

/// What a receipt says.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Receipt {
    /// SHA-256 of the published state.json bytes (empty when a receipt read lacks it).
    pub state_sha256: String,
    /// The artifact fingerprint at publication (empty when a receipt read lacks it).
    pub artifacts_sha256: String,
    /// `verified` in every receipt a finalizer writes.
    pub result: String,
    /// planseal's part; absent in a receipt written by the original helper.
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub planseal: Option<ReceiptExtension>,
}

/// What planseal checked in addition to the helper.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct ReceiptExtension {
    /// The extension's version, [`RECEIPT_VERSION`] when planseal writes it (0 when a receipt
    /// read lacks it); a receipt with a newer one is refused.
    pub receipt_version: u64,
    /// The planseal that wrote the receipt (`planseal X.Y.Z`); empty when a receipt read lacks
    /// it.
    pub tool_version: String,
    /// Every fingerprinted file (path relative to the plan folder) → SHA-256, `None` for an
    /// absent file (written `<absent>`). Sorted by byte order of the path.
    #[serde(
        serialize_with = "write_hashes",
        skip_serializing_if = "Option::is_none"
    )]
    #[schemars(with = "Option<std::collections::BTreeMap<String, String>>")]
    pub files: Option<FileHashes>,
    /// The other covered files: gate logs cited by `log=` and `PLAN_ANALYSIS.md` (present ones).
    #[serde(
        serialize_with = "write_hashes",
        skip_serializing_if = "Option::is_none"
    )]
    #[schemars(with = "Option<std::collections::BTreeMap<String, String>>")]
    pub evidence_files: Option<FileHashes>,
    /// The repository the plan lives in; `null` when there is none (git checks not applicable).
    pub git: Option<GitSeal>,
    /// Ids of the checks that passed, sorted, each once.
    pub checks_passed: Vec<String>,
    /// Exceptions the user accepted (e.g. `--allow-dirty --reason`).
    pub exceptions: Vec<AcceptedException>,
}

/// A per-file map as the receipt spells it: an absent file's hash is `<absent>`.
fn write_hashes<S: Serializer>(map: &Option<FileHashes>, s: S) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeMap;
    let empty = FileHashes::new();
    let map = map.as_ref().unwrap_or(&empty);
    let mut out = s.serialize_map(Some(map.len()))?;
    for (name, digest) in map {
        out.serialize_entry(name, digest.as_deref().unwrap_or(ABSENT))?;
    }
    out.end()
}

/// The repository state at publication. Only recorded; `verify` never compares it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct GitSeal {
    /// The full id of the commit HEAD pointed at; empty on an unborn branch.
    pub head: String,
    /// `null` on a detached HEAD.
    pub branch: Option<String>,
    /// The git checks found no uncommitted change (`worktree-dirty`); `false` also when such a
    /// change was accepted with `--allow-dirty`.
    pub clean: bool,
}

/// One exception accepted by the user, with the reason they gave.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct AcceptedException {
    /// The finding id that was accepted (e.g. `worktree-dirty`).
    pub kind: String,
    /// The reason the user gave (`--reason`).
    pub reason: String,
    /// What exactly was accepted (e.g. the dirty paths).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub subjects: Vec<String>,
}

/// Why a receipt could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReceiptError {
    /// Not strict JSON, not an object, a value of the wrong type, or (for
    /// [`Receipt::parse`]) a hash missing; the text says which.
    #[error("{RECEIPT_FILE}: {0}")]
    Malformed(String),
    /// Where a hash is not 64 hex digits: the key (`state_sha256`), or `files.<name>` /
    /// `evidence_files.<name>` for a per-file entry that is neither a hash nor `<absent>`.
    #[error("{RECEIPT_FILE}: `{0}` is not a 64-digit hex SHA-256")]
    BadHash(String),
    /// [`Receipt::parse`] only: the `result` value found instead of `verified`.
    #[error("{RECEIPT_FILE}: the result is `{0}`, not `verified`")]
    NotVerified(String),
    /// The receipt's `receipt_version`, newer than [`RECEIPT_VERSION`].
    #[error("{RECEIPT_FILE}: written by a newer planseal (receipt version {0})")]
    NewerVersion(u64),
}

/// The keys of planseal's extension; any of them makes a read receipt carry one.
const EXTENSION_KEYS: [&str; 7] = [
    "receipt_version",
    "tool_version",
    "files",
    "evidence_files",
    "git",
    "checks_passed",
    "exceptions",
];

impl Receipt {
    /// The receipt's bytes: 2-space indent, keys in declaration order, trailing newline.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut bytes = serde_json::to_vec_pretty(self)
            .expect("a receipt holds only strings, maps and lists, so it always serialises");
        bytes.push(b'\n');
        bytes
    }

    /// Reads a receipt written by either tool, or a partial one: a missing key reads as empty;
    /// a present one must have its shape.
    pub fn read(bytes: &[u8]) -> Result<Self, ReceiptError> {
        let raw = super::parse_json(bytes).map_err(|e| ReceiptError::Malformed(e.to_string()))?;
        let Value::Object(obj) = raw else {
            return Err(ReceiptError::Malformed("expected a JSON object".into()));
        };
        let hash = |key: &str| -> Result<String, ReceiptError> {
            match obj.get(key) {
                None => Ok(String::new()),
                Some(Value::String(s)) if is_sha256_hex(s) => Ok(s.clone()),
                Some(_) => Err(ReceiptError::BadHash(key.into())),
            }
        };
        let state_sha256 = hash("state_sha256")?;
        let artifacts_sha256 = hash("artifacts_sha256")?;
        let result = match obj.get("result") {
            None => String::new(),
            Some(Value::String(s)) => s.clone(),
            Some(other) => other.to_string(),
        };
        let planseal = if EXTENSION_KEYS.iter().any(|k| obj.contains_key(*k)) {
            Some(read_extension(&obj)?)
        } else {
            None
        };
        Ok(Receipt {
            state_sha256,
            artifacts_sha256,
            result,
            planseal,
        })
    }

    /// Reads a complete receipt of a verified publication: both hashes present and
    /// `result: "verified"`.
    pub fn parse(bytes: &[u8]) -> Result<Self, ReceiptError> {
        let receipt = Self::read(bytes)?;
        for (key, value) in [
            ("state_sha256", &receipt.state_sha256),
            ("artifacts_sha256", &receipt.artifacts_sha256),
        ] {
            if value.is_empty() {
                return Err(ReceiptError::Malformed(format!("`{key}` is missing")));
            }
        }
        if receipt.result != "verified" {
            return Err(ReceiptError::NotVerified(receipt.result));
        }
        Ok(receipt)
    }

    /// planseal's per-file hashes of the fingerprinted files, when the receipt has them.
    pub fn files(&self) -> Option<&FileHashes> {
        self.planseal.as_ref().and_then(|e| e.files.as_ref())
    }

    /// planseal's hashes of the other covered files (gate logs, `PLAN_ANALYSIS.md`).
    pub fn evidence_files(&self) -> Option<&FileHashes> {
        self.planseal
            .as_ref()
            .and_then(|e| e.evidence_files.as_ref())
    }

    /// How this receipt compares with the plan now: the state's hash and its fingerprint. File
    /// level detail only when the receipt has per-file hashes and `current` was computed with
    /// them.
    pub fn compare(&self, state_sha256: &str, current: &Fingerprint) -> ReceiptComparison {
        let mut cmp = ReceiptComparison {
            state_matches: self.state_sha256 == state_sha256,
            artifacts_match: self.artifacts_sha256 == current.hex,
            result_verified: self.result == "verified",
            ..Default::default()
        };
        if let Some(recorded) = self.files() {
            let changes = compare_file_hashes(recorded, &current.files_map());
            cmp.changed = changes.changed;
            cmp.appeared = changes.appeared;
            cmp.vanished = changes.vanished;
        }
        cmp
    }
}

fn read_extension(obj: &Map<String, Value>) -> Result<ReceiptExtension, ReceiptError> {
    let receipt_version = obj
        .get("receipt_version")
        .and_then(Value::as_u64)
        .unwrap_or(0);
    if receipt_version > RECEIPT_VERSION {
        return Err(ReceiptError::NewerVersion(receipt_version));
    }
    let field = |key: &str| obj.get(key).cloned().unwrap_or(Value::Null);
    let typed = |key: &str, e: serde_json::Error| ReceiptError::Malformed(format!("`{key}`: {e}"));
    Ok(ReceiptExtension {
        receipt_version,
        tool_version: obj
            .get("tool_version")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string(),
        files: read_hashes(obj.get("files"), "files")?,
        evidence_files: read_hashes(obj.get("evidence_files"), "evidence_files")?,
        git: serde_json::from_value(field("git")).map_err(|e| typed("git", e))?,
        checks_passed: match obj.get("checks_passed") {
            None => Vec::new(),
            Some(v) => serde_json::from_value(v.clone()).map_err(|e| typed("checks_passed", e))?,
        },
        exceptions: match obj.get("exceptions") {
            None => Vec::new(),
            Some(v) => serde_json::from_value(v.clone()).map_err(|e| typed("exceptions", e))?,
        },
    })
}

/// A per-file map: each value a hash, or `<absent>` / `null` for an absent file.
fn read_hashes(value: Option<&Value>, field: &str) -> Result<Option<FileHashes>, ReceiptError> {
    let Some(map) = value.and_then(Value::as_object) else {
        return Ok(None);
    };
    let mut out = FileHashes::new();
    for (name, v) in map {
        let digest = match v {
            Value::Null => None,
            Value::String(s) if s == ABSENT => None,
            Value::String(s) if is_sha256_hex(s) => Some(s.clone()),
            _ => return Err(ReceiptError::BadHash(format!("{field}.{name}"))),
        };
        out.insert(name.clone(), digest);
    }
    Ok(Some(out))
}

/// Which files differ between two per-file hash maps.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FileChanges {
    /// Present in both with different content.
    pub changed: Vec<String>,
    /// Present now; absent (or not listed) in the record.
    pub appeared: Vec<String>,
    /// Recorded with a hash; absent now (or no longer listed).
    pub vanished: Vec<String>,
}

impl FileChanges {
    /// No file changed, appeared or vanished.
    pub fn is_empty(&self) -> bool {
        self.changed.is_empty() && self.appeared.is_empty() && self.vanished.is_empty()
    }
}

/// Compares recorded per-file hashes with the current ones (each list in name order).
pub fn compare_file_hashes(recorded: &FileHashes, current: &FileHashes) -> FileChanges {
    let mut out = FileChanges::default();
    for (name, digest) in current {
        match (recorded.get(name), digest) {
            (Some(Some(old)), Some(new)) if old != new => out.changed.push(name.clone()),
            (Some(Some(_)), None) => out.vanished.push(name.clone()),
            (Some(None) | None, Some(_)) => out.appeared.push(name.clone()),
            _ => {}
        }
    }
    for (name, digest) in recorded {
        if digest.is_some() && !current.contains_key(name) {
            out.vanished.push(name.clone());
        }
    }
    out.vanished.sort();
    out
}

/// How a receipt compares with the plan as it is now.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReceiptComparison {
    /// `state_sha256` equals the SHA-256 of the current state.json bytes.
    pub state_matches: bool,
    /// `artifacts_sha256` equals the current fingerprint.
    pub artifacts_match: bool,
    /// `result` is `"verified"`.
    pub result_verified: bool,
    /// With planseal's `files` map: which fingerprinted files changed, appeared or vanished
    /// (empty without the map).
    pub changed: Vec<String>,
    /// With the `files` map: fingerprinted files present now that the receipt records as
    /// absent or does not list.
    pub appeared: Vec<String>,
    /// With the `files` map: files the receipt records with a hash that are absent now or no
    /// longer fingerprinted.
    pub vanished: Vec<String>,
}

impl ReceiptComparison {
    /// The receipt still seals the plan: both hashes equal and the result is `verified`
    /// (per-file detail is not needed for this).
    pub fn matches(&self) -> bool {
        self.state_matches && self.artifacts_match && self.result_verified
    }
}

/// [`Receipt::read`].
pub fn parse_receipt(bytes: &[u8]) -> Result<Receipt, ReceiptError> {
    Receipt::read(bytes)
}

/// [`Receipt::compare`].
pub fn receipt_matches(
    receipt: &Receipt,
    state_sha256: &str,
    current: &Fingerprint,
) -> ReceiptComparison {
    receipt.compare(state_sha256, current)
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
        let mut files = FileHashes::new();
        files.insert(layout::README_FILE.to_string(), Some(H1.to_string()));
        files.insert(layout::SKILLS_CANDIDATES_FILE.to_string(), None);
        let mut evidence_files = FileHashes::new();
        evidence_files.insert(
            "analysis_results/gates/t1.log".to_string(),
            Some(H2.to_string()),
        );
        Receipt {
            state_sha256: H1.into(),
            artifacts_sha256: H2.into(),
            result: "verified".into(),
            planseal: Some(ReceiptExtension {
                receipt_version: RECEIPT_VERSION,
                tool_version: "planseal 0.1.0".into(),
                files: Some(files),
                evidence_files: Some(evidence_files),
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
        assert!(text.contains("\"analysis_results/SKILLS_CANDIDATES.md\": \"<absent>\""));
        assert_eq!(Receipt::parse(&bytes).unwrap(), r);
    }

    #[test]
    fn changed_files_names_each_difference() {
        let r = extended();
        let mut files_now = FileHashes::new();
        files_now.insert(layout::README_FILE.to_string(), Some(H2.to_string()));
        files_now.insert(
            layout::SKILLS_CANDIDATES_FILE.to_string(),
            Some(H1.to_string()),
        );
        let mut evidence_now = FileHashes::new();
        evidence_now.insert("analysis_results/gates/t1.log".to_string(), None);
        evidence_now.insert(
            "analysis_results/gates/new.log".to_string(),
            Some(H1.to_string()),
        );
        let files = compare_file_hashes(r.files().unwrap(), &files_now);
        assert_eq!(files.changed, [layout::README_FILE]);
        assert_eq!(files.appeared, [layout::SKILLS_CANDIDATES_FILE]);
        let evidence = compare_file_hashes(r.evidence_files().unwrap(), &evidence_now);
        assert_eq!(evidence.appeared, ["analysis_results/gates/new.log"]);
        assert_eq!(evidence.vanished, ["analysis_results/gates/t1.log"]);
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
        // `read` takes the same receipt and leaves the verdict to the caller.
        assert_eq!(Receipt::read(text.as_bytes()).unwrap().result, "maybe");
        let newer = format!(
            "{{\"state_sha256\": \"{H1}\", \"artifacts_sha256\": \"{H2}\", \"result\": \"verified\", \"receipt_version\": 9}}"
        );
        assert_eq!(
            Receipt::read(newer.as_bytes()),
            Err(ReceiptError::NewerVersion(9))
        );
    }
}
