//! The artifact fingerprint `artifacts_sha256`: the one implementation, used by the writer
//! (finalize seals it into the receipt and the marker) and by the verifier (verify compares it
//! with the receipt), so the two can never disagree on what a plan's fingerprint is.
//!
//! One SHA-256 fed, for each name in byte order, with `UTF-8(name) + 0x00 + content`, where the
//! content is the file's raw bytes or the 8 ASCII bytes `<absent>`. No separators, no length
//! prefixes — the DWP helper's layout, pinned by `fixtures/vectors/dwp/*/fingerprint/`. The
//! names are six fixed ones plus every `file` locator (Full) or v1 `file` entry, taken from the
//! state's task list, not from the folder listing.
//!
//! The bytes come from an [`ArtifactSource`]: the plan as [`read`](crate::dwp::read) already
//! read it ([`PlanFiles`]), or the plan folder on disk ([`PlanDir`], for the re-checks a
//! publication makes after its first look). Both read through the same function, which never
//! leaves the plan: a name that is absolute, has a `..` component or leaves the plan through a
//! symlink is hashed as `<absent>` and listed in [`Fingerprint::refused`], so a hostile locator
//! cannot make planseal read (or leak a hash of) a file elsewhere.
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

use crate::dwp::layout;
use crate::dwp::model::State;
use crate::dwp::read::{FileRead, PlanDir, PlanFiles};
use planseal_recovery::hash::{Sha256Stream, sha256_hex};
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::io;
use std::path::Path;

/// The six names every fingerprint covers, whatever the plan's format.
pub const FIXED_ARTIFACTS: [&str; 6] = [
    layout::README_FILE,
    layout::PROGRESS_FILE,
    layout::PROMPTS_FILE,
    layout::MANIFEST_FILE,
    layout::SECURITY_REVIEW_FILE,
    layout::SKILLS_CANDIDATES_FILE,
];

/// The content hashed for a file that does not exist (also its per-file hash in a receipt).
pub const ABSENT: &[u8] = b"<absent>";

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

/// The names for a state given as a JSON value (a candidate not parsed into a [`State`] yet).
pub fn artifact_names_of(state: &serde_json::Value) -> Vec<String> {
    artifact_names(&State::from_value(state))
}

/// What a source gives for one name.
#[derive(Debug)]
pub enum Artifact<'a> {
    /// The file's content, hashed as it is.
    Bytes(Cow<'a, [u8]>),
    /// Nothing there: hashed as `<absent>`.
    Absent,
    /// Reading it would leave the plan: hashed as `<absent>`, and reported.
    Refused(String),
}

/// Where the fingerprint takes each file's bytes from.
pub trait ArtifactSource {
    /// The bytes of `name`; an error when the file exists but cannot be read (the plan cannot
    /// be fingerprinted then).
    fn artifact(&self, name: &str) -> io::Result<Artifact<'_>>;
}

fn from_read(name: &str, read: FileRead) -> io::Result<Artifact<'static>> {
    match read {
        FileRead::Bytes(b) => Ok(Artifact::Bytes(Cow::Owned(b))),
        FileRead::Missing => Ok(Artifact::Absent),
        FileRead::Outside(why) => Ok(Artifact::Refused(why)),
        FileRead::Unreadable(why) => Err(io::Error::other(format!("{name}: {why}"))),
    }
}

/// The plan as already read: no file is read again. A name the read did not cover (a task file
/// named only by a locator) is read now, through the same function.
impl ArtifactSource for PlanFiles {
    fn artifact(&self, name: &str) -> io::Result<Artifact<'_>> {
        match self.files.get(name) {
            // A streamed task file's bytes were dropped after its checks: read it again.
            Some(FileRead::Bytes(_)) if self.is_streamed(name) => self.plan_dir().artifact(name),
            Some(FileRead::Bytes(b)) => Ok(Artifact::Bytes(Cow::Borrowed(b))),
            Some(other) => from_read(name, other.clone()),
            None => self.plan_dir().artifact(name),
        }
    }
}

/// The plan folder on disk, read now.
impl ArtifactSource for PlanDir {
    fn artifact(&self, name: &str) -> io::Result<Artifact<'_>> {
        if name.contains('\0') {
            return Ok(Artifact::Refused("name holds a NUL byte".into()));
        }
        from_read(name, self.read(name))
    }
}

/// The result of fingerprinting a plan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fingerprint {
    /// `artifacts_sha256`: 64 lower-case hex digits.
    pub hex: String,
    /// Each name in hash order with the SHA-256 of its content, `None` when hashed as absent.
    /// Empty when the per-file hashes were not asked for.
    pub files: FileDigests,
    /// Names hashed as absent because reading them would leave the plan folder, with why.
    pub refused: RefusedNames,
}

impl Fingerprint {
    /// The per-file hashes as a receipt stores them (`name → sha256`, `None` when absent).
    pub fn files_map(&self) -> FileHashes {
        self.files.iter().cloned().collect()
    }
}

/// File name → SHA-256 hex, `None` when the file is absent.
pub type FileHashes = BTreeMap<String, Option<String>>;

/// Each name with the SHA-256 of its content (`None`: hashed as absent).
type FileDigests = Vec<(String, Option<String>)>;
/// Names hashed as absent because reading them would leave the plan, with why.
type RefusedNames = Vec<(String, String)>;

/// Feeds the framed content of every name to `sink`; per-file hashes only when asked for
/// (they double the hashing).
fn walk(
    source: &dyn ArtifactSource,
    names: &[String],
    per_file: bool,
    sink: &mut dyn FnMut(&[u8]),
) -> io::Result<(FileDigests, RefusedNames)> {
    let mut files = Vec::with_capacity(if per_file { names.len() } else { 0 });
    let mut refused = Vec::new();
    for name in names {
        sink(name.as_bytes());
        sink(&[0]);
        let digest = match source.artifact(name)? {
            Artifact::Bytes(bytes) => {
                sink(&bytes);
                per_file.then(|| sha256_hex(&bytes))
            }
            Artifact::Absent => {
                sink(ABSENT);
                None
            }
            Artifact::Refused(why) => {
                sink(ABSENT);
                refused.push((name.clone(), why));
                None
            }
        };
        if per_file {
            files.push((name.clone(), digest));
        }
    }
    Ok((files, refused))
}

/// `artifacts_sha256` of `names` as `source` gives them, with the per-file hashes when
/// `per_file`.
pub fn fingerprint(
    source: &dyn ArtifactSource,
    names: &[String],
    per_file: bool,
) -> io::Result<Fingerprint> {
    let mut hasher = Sha256Stream::new();
    let (files, refused) = walk(source, names, per_file, &mut |b| hasher.update(b))?;
    Ok(Fingerprint {
        hex: hasher.finish_hex(),
        files,
        refused,
    })
}

/// The exact bytes that are hashed (for tests and for explaining a mismatch).
pub fn preimage(plan_dir: &Path, names: &[String]) -> io::Result<Vec<u8>> {
    let mut out = Vec::new();
    walk(&PlanDir::new(plan_dir), names, false, &mut |b| {
        out.extend_from_slice(b)
    })?;
    Ok(out)
}

/// `artifacts_sha256` of the plan folder on disk for these names (use [`artifact_names`]), with
/// the per-file hashes. An I/O error other than "not found" (permissions, a directory where a
/// file should be) is returned: the plan cannot be fingerprinted.
pub fn artifacts_sha256(plan_dir: &Path, names: &[String]) -> io::Result<Fingerprint> {
    fingerprint(&PlanDir::new(plan_dir), names, true)
}
