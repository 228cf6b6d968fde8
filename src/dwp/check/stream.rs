//! Verify's streamed read of a plan: the fixed files are read whole (they are few and small),
//! the task files one at a time: read, keep what the checks need of it ([`StreamedTask`]: its
//! text problem and markdown facts), feed the artifact fingerprint, drop the bytes. Memory then
//! grows with the number of tasks by a few hundred bytes each, not by the size of their files.
//!
//! The fingerprint is computed in the same pass for the names a state normally gives (the six
//! fixed names and every task file of the listing). When the state names other files, the
//! receipt check fingerprints from disk instead ([`crate::dwp::model::fingerprint`]).
//!
//! The checks see the same [`PlanFiles`] as the in-memory read gives (finalize's), apart from
//! the task files' bytes: a streamed file's entry is an empty placeholder, and every check
//! asks [`task_facts`] and [`super::utf8_check`] for what it needs of it.

use super::md;
use super::state_doc::StateDoc;
use crate::dwp::layout;
use crate::dwp::model::fingerprint::{ABSENT, FIXED_ARTIFACTS, Fingerprint};
use crate::dwp::model::receipt::Receipt;
use crate::dwp::read::{FileRead, PlanFiles, StreamedFiles, is_task_file_name, read_inside};
use planseal_recovery::hash::{Sha256Stream, sha256_hex};
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::path::Path;

/// What the streamed read kept of one task file.
#[derive(Debug, Clone)]
pub(crate) struct StreamedTask {
    /// Not UTF-8, or a NUL byte: the finding the text check reports.
    pub(crate) problem: Option<super::TextProblem>,
    /// Every fact the checks read from a task body (current and legacy eras).
    pub(crate) facts: md::TaskFacts,
}

/// What the streamed read kept of a plan's task files.
#[derive(Debug, Default)]
pub(crate) struct StreamedTasks {
    /// Each task file read, by name.
    tasks: BTreeMap<String, StreamedTask>,
    /// The fingerprint computed while reading, for `names`; `None` when a file was unreadable.
    fingerprint: Option<Fingerprint>,
    /// The names that fingerprint covers, in hash order.
    names: Vec<String>,
    /// state.json as read (or why it does not parse) and the SHA-256 of its bytes, which were
    /// dropped: for a plan outside a git work tree (the git drift check reads the bytes again).
    state: Option<(Result<StateDoc, String>, String)>,
}

impl StreamedFiles for StreamedTasks {
    fn contains(&self, rel: &str) -> bool {
        self.tasks.contains_key(rel)
    }
}

/// What the streamed read kept, when `files` was read by it.
pub(crate) fn streamed(files: &PlanFiles) -> Option<&StreamedTasks> {
    let kept: &dyn std::any::Any = files.streamed.as_deref()?;
    kept.downcast_ref()
}

/// What the streamed read kept of the task file `rel`.
pub(crate) fn streamed_task<'a>(files: &'a PlanFiles, rel: &str) -> Option<&'a StreamedTask> {
    streamed(files)?.tasks.get(rel)
}

/// Lists `dir`, reads its fixed files, then streams its task files (see the module docs).
pub(crate) fn load_streamed(dir: &Path, name: &str) -> Result<PlanFiles, String> {
    let mut files = PlanFiles::load_fixed(dir, name)?;
    // The per-file hashes double the hashing: only for a receipt that records them.
    let per_file = files
        .bytes(layout::RECEIPT_FILE)
        .and_then(|b| Receipt::read(b).ok())
        .is_some_and(|r| r.files().is_some());
    let mut names: Vec<String> = FIXED_ARTIFACTS.iter().map(|s| s.to_string()).collect();
    names.extend(
        files
            .listing
            .iter()
            .filter(|n| is_task_file_name(n))
            .cloned(),
    );
    names.sort_unstable();
    names.dedup();
    let mut hasher = Sha256Stream::new();
    let mut digests = Vec::new();
    let mut refused = Vec::new();
    // An unreadable file leaves the plan unverified: no fingerprint is needed then.
    let mut complete = true;
    let mut kept = StreamedTasks::default();
    // Outside a work tree state.json is parsed before the task files are read and its bytes
    // dropped (the git drift check, in a work tree, reads them again later): the largest file
    // of a plan, which the fingerprint does not cover, is then never held next to everything
    // kept of the task files.
    if !files.in_git_work_tree
        && matches!(files.get(layout::STATE_FILE), FileRead::Bytes(_))
        && let Some(FileRead::Bytes(bytes)) = files
            .files
            .insert(layout::STATE_FILE.to_string(), FileRead::Bytes(Vec::new()))
    {
        kept.state = Some((StateDoc::read(&bytes), sha256_hex(&bytes)));
    }
    for rel in &names {
        hasher.update(rel.as_bytes());
        hasher.update(&[0]);
        let fixed = FIXED_ARTIFACTS.contains(&rel.as_str());
        let read = if fixed {
            Cow::Borrowed(files.get(rel))
        } else {
            Cow::Owned(read_inside(dir, rel))
        };
        let digest = match read.as_ref() {
            FileRead::Bytes(bytes) => {
                hasher.update(bytes);
                per_file.then(|| sha256_hex(bytes))
            }
            FileRead::Missing => {
                hasher.update(ABSENT);
                None
            }
            FileRead::Outside(why) => {
                hasher.update(ABSENT);
                refused.push((rel.clone(), why.clone()));
                None
            }
            FileRead::Unreadable(_) => {
                complete = false;
                None
            }
        };
        if per_file {
            digests.push((rel.clone(), digest));
        }
        if fixed {
            continue;
        }
        match read.into_owned() {
            FileRead::Bytes(bytes) => {
                let text = text_of(&bytes);
                let streamed = StreamedTask {
                    problem: super::text_problem(&bytes),
                    facts: md::TaskFacts::read(&text, md::Needs::ALL),
                };
                kept.tasks.insert(rel.clone(), streamed);
                files.files.insert(rel.clone(), FileRead::Bytes(Vec::new()));
            }
            other => {
                files.files.insert(rel.clone(), other);
            }
        }
    }
    if complete {
        kept.fingerprint = Some(Fingerprint {
            hex: hasher.finish_hex(),
            files: digests,
            refused,
        });
        kept.names = names;
    }
    files.streamed = Some(std::rc::Rc::new(kept));
    Ok(files)
}

/// state.json as the streamed read parsed it, and the SHA-256 of its dropped bytes.
pub(crate) fn parsed_state(files: &PlanFiles) -> Option<(&Result<StateDoc, String>, &str)> {
    let (doc, sha) = streamed(files)?.state.as_ref()?;
    Some((doc, sha.as_str()))
}

/// The fingerprint the streamed read computed, when it covers exactly `names` (and has the
/// per-file hashes when they are asked for).
pub(crate) fn streamed_fingerprint(
    files: &PlanFiles,
    names: &[String],
    per_file: bool,
) -> Option<Fingerprint> {
    let kept = streamed(files)?;
    let fp = kept.fingerprint.as_ref()?;
    if kept.names != names || (per_file && fp.files.is_empty()) {
        return None;
    }
    let mut fp = fp.clone();
    if !per_file {
        fp.files.clear();
    }
    Some(fp)
}

/// The facts of the task file `rel`: as the streamed read kept them, or read now from the bytes
/// in memory (an absent or unreadable file gives the facts of an empty body).
pub(crate) fn task_facts<'a>(
    files: &'a PlanFiles,
    rel: &str,
    needs: md::Needs,
) -> Cow<'a, md::TaskFacts> {
    match streamed_task(files, rel) {
        Some(streamed) => Cow::Borrowed(&streamed.facts),
        None => Cow::Owned(md::TaskFacts::read(
            &files.text(rel).unwrap_or_default(),
            needs,
        )),
    }
}

/// The bytes as text, invalid UTF-8 replaced (as [`PlanFiles::text`] gives them).
fn text_of(bytes: &[u8]) -> Cow<'_, str> {
    match std::str::from_utf8(bytes) {
        Ok(text) => Cow::Borrowed(text),
        Err(_) => String::from_utf8_lossy(bytes),
    }
}
