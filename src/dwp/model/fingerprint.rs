//! The artifact fingerprint `artifacts_sha256` (SPEC §1.9, vectors README §9) and the receipt
//! `analysis_results/FINALIZATION.json` it is recorded in.
//!
//! One SHA-256 fed, for each name in byte order, with `UTF-8(name) + 0x00 + content`, where the
//! content is the file's raw bytes or the 8 ASCII bytes `<absent>`. No separators, no length
//! prefixes. The names are six fixed ones plus every `file` locator (Full) or v1 `file` entry,
//! taken from the state's task list, not from the folder listing.
//!
//! planseal reads only inside the plan: a name from the state that is absolute, has a `..`
//! component or leaves the plan through a symlink is hashed as `<absent>` and listed in
//! [`Fingerprint::refused`], so a hostile locator cannot make it read (or leak a hash of) a file
//! elsewhere.
//!
//! ```no_run
//! use planseal::dwp::model::fingerprint::{artifact_names, artifacts_sha256};
//! use planseal::dwp::model::{parse_json, State};
//! let dir = std::path::Path::new(".dwp/plans/PLAN_x");
//! let state = State::from_value(&parse_json(&std::fs::read(dir.join("state.json"))?)?);
//! let fp = artifacts_sha256(dir, &artifact_names(&state))?;
//! println!("{}", fp.hex);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use crate::dwp::check::gates::{PlanDir, Resolved};
use crate::dwp::model::State;
use planseal_recovery::hash::{Sha256Stream, is_sha256_hex};
use planseal_recovery::paths::PathError;
use serde_json::Value;
use std::collections::BTreeMap;
use std::io::{self, Read};
use std::path::Path;

/// The six names every fingerprint covers, whatever the plan's format.
pub const FIXED_ARTIFACTS: [&str; 6] = [
    "README.md",
    "PROGRESS.md",
    "PROMPTS.md",
    "manifest.json",
    "analysis_results/SECURITY_REVIEW.md",
    "analysis_results/SKILLS_CANDIDATES.md",
];

/// The content hashed for a file that does not exist.
pub const ABSENT: &[u8] = b"<absent>";

/// The receipt's path inside the plan folder.
pub const RECEIPT_PATH: &str = "analysis_results/FINALIZATION.json";

/// The names to hash for this state: the six fixed names ∪ the `file` locators ∪ the `file` of
/// v1 tasks without a locator, sorted by byte order, without repetitions.
pub fn artifact_names(state: &State) -> Vec<String> {
    let mut names: Vec<String> = FIXED_ARTIFACTS.iter().map(|s| s.to_string()).collect();
    names.extend(
        state
            .tasks
            .iter()
            .filter_map(|t| t.artifact_file())
            .map(str::to_owned),
    );
    names.sort_unstable();
    names.dedup();
    names
}

/// The result of fingerprinting a plan folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fingerprint {
    /// `artifacts_sha256`: 64 lower-case hex digits.
    pub hex: String,
    /// Each name in hash order with the SHA-256 of its content, `None` when hashed as absent.
    pub files: Vec<(String, Option<String>)>,
    /// Names that were hashed as absent because reading them would leave the plan folder.
    pub refused: Vec<(String, PathError)>,
}

impl Fingerprint {
    /// The per-file hashes as the receipt extension stores them (`name → sha256 or null`).
    pub fn files_map(&self) -> FileHashes {
        self.files.iter().cloned().collect()
    }
}

/// Opens a name inside the plan, or says why it is hashed as absent.
enum Source {
    File(std::fs::File),
    Absent,
    Refused(PathError),
}

fn open_artifact(plan: &PlanDir, name: &str) -> io::Result<Source> {
    if name.contains('\0') {
        return Ok(Source::Refused(PathError::Io(
            "name holds a NUL byte".into(),
        )));
    }
    let path = match plan.resolve(name) {
        Ok(Resolved::Inside(path)) => path,
        Ok(Resolved::Missing) | Err(PathError::Missing) => return Ok(Source::Absent),
        Err(PathError::Io(e)) => return Err(io::Error::other(format!("{name}: {e}"))),
        Err(e) => return Ok(Source::Refused(e)),
    };
    match std::fs::File::open(&path) {
        Ok(file) => {
            if file.metadata()?.is_dir() {
                return Err(io::Error::other(format!(
                    "{name}: is a directory, not a file"
                )));
            }
            Ok(Source::File(file))
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(Source::Absent),
        Err(e) => Err(io::Error::new(e.kind(), format!("{name}: {e}"))),
    }
}

/// Each name with the SHA-256 of its content (`None`: hashed as absent).
type FileDigests = Vec<(String, Option<String>)>;
/// Names hashed as absent because reading them would leave the plan.
type RefusedNames = Vec<(String, PathError)>;

/// Streams every name's framed content into `sink`, returning per-file hashes and refusals.
fn walk(
    plan_dir: &Path,
    names: &[String],
    sink: &mut dyn FnMut(&[u8]),
) -> io::Result<(FileDigests, RefusedNames)> {
    let mut files = Vec::with_capacity(names.len());
    let mut refused = Vec::new();
    let mut buf = vec![0u8; 64 * 1024];
    let plan = PlanDir::new(plan_dir);
    for name in names {
        sink(name.as_bytes());
        sink(&[0]);
        match open_artifact(&plan, name)? {
            Source::File(mut file) => {
                let mut own = Sha256Stream::new();
                loop {
                    let n = match file.read(&mut buf) {
                        Ok(0) => break,
                        Ok(n) => n,
                        Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                        Err(e) => return Err(io::Error::new(e.kind(), format!("{name}: {e}"))),
                    };
                    sink(&buf[..n]);
                    own.update(&buf[..n]);
                }
                files.push((name.clone(), Some(own.finish_hex())));
            }
            Source::Absent => {
                sink(ABSENT);
                files.push((name.clone(), None));
            }
            Source::Refused(e) => {
                sink(ABSENT);
                files.push((name.clone(), None));
                refused.push((name.clone(), e));
            }
        }
    }
    Ok((files, refused))
}

/// The exact bytes that are hashed (for tests and for explaining a mismatch).
pub fn preimage(plan_dir: &Path, names: &[String]) -> io::Result<Vec<u8>> {
    let mut out = Vec::new();
    walk(plan_dir, names, &mut |bytes| out.extend_from_slice(bytes))?;
    Ok(out)
}

/// `artifacts_sha256` of the plan folder for these names (use [`artifact_names`]), streamed.
/// An I/O error other than "not found" (permissions, a directory where a file should be) is
/// returned: the plan cannot be fingerprinted.
pub fn artifacts_sha256(plan_dir: &Path, names: &[String]) -> io::Result<Fingerprint> {
    let mut hasher = Sha256Stream::new();
    let (files, refused) = walk(plan_dir, names, &mut |bytes| hasher.update(bytes))?;
    Ok(Fingerprint {
        hex: hasher.finish_hex(),
        files,
        refused,
    })
}

/// `analysis_results/FINALIZATION.json` as read. The three leading keys are the helper's; the
/// rest is planseal's extension (defined by the finalize command), of which the per-file maps
/// `files` (fingerprinted files) and `evidence_files` (gate logs, PLAN_ANALYSIS.md) are read here.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Receipt {
    pub state_sha256: Option<String>,
    pub artifacts_sha256: Option<String>,
    pub result: Option<String>,
    /// planseal's per-file hashes, `name → sha256`, `None` for a file recorded as absent
    /// (written `"<absent>"` or `null`).
    pub files: Option<FileHashes>,
    /// planseal's hashes of the other covered files, same form.
    pub evidence_files: Option<FileHashes>,
    /// The whole document, for the fields this model does not name.
    pub raw: Value,
}

/// File name → SHA-256 hex, `None` when the file is absent.
pub type FileHashes = BTreeMap<String, Option<String>>;

/// Why a receipt cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReceiptError {
    #[error("{RECEIPT_PATH}: {0}")]
    Json(#[from] crate::dwp::model::JsonError),
    #[error("{RECEIPT_PATH}: expected a JSON object")]
    NotAnObject,
    #[error("{RECEIPT_PATH}: `{field}` is not a 64-digit hex SHA-256")]
    BadHash { field: String },
}

/// Parses a receipt; hashes must be 64 hex digits where present (`"<absent>"` or `null` for an
/// absent file in the per-file maps).
pub fn parse_receipt(bytes: &[u8]) -> Result<Receipt, ReceiptError> {
    let raw = crate::dwp::model::parse_json(bytes)?;
    let obj = raw.as_object().ok_or(ReceiptError::NotAnObject)?;
    let hash = |key: &str| -> Result<Option<String>, ReceiptError> {
        match obj.get(key) {
            None => Ok(None),
            Some(Value::String(s)) if is_sha256_hex(s) => Ok(Some(s.clone())),
            Some(_) => Err(ReceiptError::BadHash { field: key.into() }),
        }
    };
    let state_sha256 = hash("state_sha256")?;
    let artifacts_sha256 = hash("artifacts_sha256")?;
    let files = file_map(obj.get("files"), "files")?;
    let evidence_files = file_map(obj.get("evidence_files"), "evidence_files")?;
    Ok(Receipt {
        state_sha256,
        artifacts_sha256,
        result: obj.get("result").and_then(Value::as_str).map(str::to_owned),
        files,
        evidence_files,
        raw,
    })
}

fn file_map(value: Option<&Value>, field: &str) -> Result<Option<FileHashes>, ReceiptError> {
    let Some(map) = value.and_then(Value::as_object) else {
        return Ok(None);
    };
    let mut out = BTreeMap::new();
    for (name, v) in map {
        let digest = match v {
            Value::Null => None,
            Value::String(s) if s.as_bytes() == ABSENT => None,
            Value::String(s) if is_sha256_hex(s) => Some(s.clone()),
            _ => {
                return Err(ReceiptError::BadHash {
                    field: format!("{field}.{name}"),
                });
            }
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
    pub appeared: Vec<String>,
    pub vanished: Vec<String>,
}

impl ReceiptComparison {
    pub fn matches(&self) -> bool {
        self.state_matches && self.artifacts_match && self.result_verified
    }
}

/// Compares a receipt with the current state bytes' hash and fingerprint. File-level detail is
/// available only when the receipt carries planseal's `files` map (compare `evidence_files`
/// with [`compare_file_hashes`] and the caller's own hashes of those files).
pub fn receipt_matches(
    receipt: &Receipt,
    state_sha256: &str,
    current: &Fingerprint,
) -> ReceiptComparison {
    let mut cmp = ReceiptComparison {
        state_matches: receipt.state_sha256.as_deref() == Some(state_sha256),
        artifacts_match: receipt.artifacts_sha256.as_deref() == Some(current.hex.as_str()),
        result_verified: receipt.result.as_deref() == Some("verified"),
        ..Default::default()
    };
    if let Some(recorded) = &receipt.files {
        let changes = compare_file_hashes(recorded, &current.files_map());
        cmp.changed = changes.changed;
        cmp.appeared = changes.appeared;
        cmp.vanished = changes.vanished;
    }
    cmp
}
