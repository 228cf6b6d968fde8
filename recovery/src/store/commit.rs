//! The guarded write of one file: lock → re-check the bytes under the lock (compare-and-swap) →
//! atomic replace → journal line → release.
//!
//! The rename is the commit point. Everything before it that fails is an error and leaves the
//! target as it was; everything after it (the folder sync, the journal line, the lock release)
//! is still done, and what of it fails is reported in [`Committed::confirmation`], never as an
//! error: the change is in place, and a caller that retried would apply it twice.
//!
//! [`commit`] does it all; [`place`] and [`Placed::finish`] are its two halves, for a caller
//! that computes the journal line while the first half waits for the disk (the line carries
//! the new bytes' hash, which is pure work).

use super::atomic::{Durability, replace_atomic};
use super::confirm::{Confirmation, Unconfirmed, UnconfirmedStep};
use super::journal::Journal;
use super::lock::{LockGuard, LockStyle, acquire_at};
use super::{StoreError, failpoint::crash_point};
use crate::hash::sha256_hex;
use std::path::{Path, PathBuf};

/// One single-file write.
#[derive(Debug, Clone)]
pub struct CommitRequest<'a> {
    /// The file to replace (or create); its folder must exist.
    pub target: &'a Path,
    /// How the target is locked while the bytes are compared and replaced.
    pub lock: LockStyle,
    /// What the writer does, for the owner record (`update task 3 → completed`).
    pub operation: &'a str,
    /// Tool name and version, for the owner record.
    pub tool: &'a str,
    /// When the lock is taken, for the owner record (`None`: the system clock).
    pub acquired_at: Option<&'a str>,
    /// The bytes the caller read and validated; `None` when the file must not exist yet. If the
    /// file holds anything else once the lock is taken, the write is refused (`state-changed`).
    pub expected_bytes: Option<&'a [u8]>,
    /// The file's complete new content.
    pub new_bytes: &'a [u8],
    /// The SHA-256 (hex) of `expected_bytes` and of `new_bytes` when the caller has them
    /// already (they are then not computed again; `None`: computed here). Only the reported
    /// hashes come from them: the re-check under the lock compares the bytes themselves.
    pub known_sha256: Option<KnownHashes<'a>>,
    /// The journal the line goes to, after the rename and before the lock is released (the
    /// line itself is given to [`commit`] or [`Placed::finish`]).
    pub journal: Option<&'a Journal>,
    /// Whether the new bytes and the rename are fsynced before the lock is released.
    pub durability: Durability,
}

/// The hashes a caller computed already of the bytes it hands to [`commit`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KnownHashes<'a> {
    /// SHA-256 (hex) of [`CommitRequest::expected_bytes`] (ignored when those are `None`).
    pub expected: &'a str,
    /// SHA-256 (hex) of [`CommitRequest::new_bytes`].
    pub new: &'a str,
}

/// What a successful write changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Committed {
    /// SHA-256 of the bytes replaced (`None` when the file was created).
    pub before_sha256: Option<String>,
    /// SHA-256 of the bytes now in the file (the request's `new_bytes`).
    pub after_sha256: String,
    /// What after the rename could not be confirmed: the folder sync, the journal line (it is
    /// always attempted after the rename), the lock release.
    pub confirmation: Confirmation,
}

/// Performs the write, journaling `line` (when the request names a journal). On any error the
/// target holds the bytes it had (a crash point may leave the lock behind, which is what a
/// killed writer does); once the bytes are in place the result is `Ok`, with what could not be
/// confirmed.
pub fn commit(
    req: &CommitRequest<'_>,
    line: Option<&serde_json::Value>,
) -> Result<Committed, StoreError> {
    let confirmation = place(req)?.finish(line);
    // The bytes replaced are the expected ones (compared under the lock): their known hash is
    // theirs.
    let (before_sha256, after_sha256) = match req.known_sha256 {
        Some(k) => (
            req.expected_bytes.map(|_| k.expected.to_string()),
            k.new.to_string(),
        ),
        // The file held exactly the expected bytes.
        None => (
            req.expected_bytes.map(sha256_hex),
            sha256_hex(req.new_bytes),
        ),
    };
    Ok(Committed {
        before_sha256,
        after_sha256,
        confirmation,
    })
}

/// A write whose new bytes are in place (the rename happened) and whose journal line and lock
/// release are still to come: [`Placed::finish`] does them. Dropped without `finish`, it
/// releases the lock and journals nothing.
#[derive(Debug)]
pub struct Placed {
    guard: LockGuard,
    lock_path: PathBuf,
    journal: Option<Journal>,
    durability: super::atomic::Durability,
    confirmation: Confirmation,
}

/// The first half of [`commit`]: lock, re-check the bytes under the lock, atomic replace. An
/// error leaves the target as it was and the lock released.
pub fn place(req: &CommitRequest<'_>) -> Result<Placed, StoreError> {
    // A journal that would be written through a symlink refuses the whole write up front.
    if let Some(journal) = req.journal {
        journal.check_target()?;
    }
    let guard = acquire_at(
        req.target,
        &req.lock,
        req.operation,
        req.tool,
        req.acquired_at,
    )?;
    // Under the lock: a dead writer's temp files in the journal's own folder go too (the lock's
    // folder was swept by `acquire_at`).
    if let Some(journal) = req.journal {
        sweep_journal_folder(req.target, journal.path());
    }
    // Hashes the caller says it has must be those of its bytes (checked in debug builds).
    debug_assert!(req.known_sha256.is_none_or(|k| {
        k.new == sha256_hex(req.new_bytes)
            && req
                .expected_bytes
                .is_none_or(|b| k.expected == sha256_hex(b))
    }));
    // The compare-and-swap is on the bytes: equal bytes, not equal hashes (compared in pieces;
    // only a refusal reads them whole, to name what is there).
    let kind = crate::read::Kind::Document;
    if !crate::read::holds(req.target, kind, req.expected_bytes)? {
        let current = crate::read::read(req.target, kind)?;
        let hash = |b: Option<&[u8]>| b.map(sha256_hex).unwrap_or_else(|| "<absent>".into());
        return Err(StoreError::StateChanged {
            path: req.target.to_path_buf(),
            expected: hash(req.expected_bytes),
            actual: hash(current.as_deref()),
        });
    }
    crash_point("store.after_recheck");
    let confirmation = replace_atomic(req.target, req.new_bytes, req.durability)?;
    Ok(Placed {
        guard,
        lock_path: req.lock.lock_path(req.target),
        journal: req.journal.cloned(),
        durability: req.durability,
        confirmation,
    })
}

impl Placed {
    /// The second half of [`commit`]: appends `line` to the request's journal (when both are
    /// there) and releases the lock. What of it fails is added to what the replace could not
    /// confirm, never turned into an error: the new bytes are in place.
    pub fn finish(self, line: Option<&serde_json::Value>) -> Confirmation {
        let Placed {
            guard,
            lock_path,
            journal,
            durability,
            mut confirmation,
        } = self;
        // The journal line is appended whatever the folder sync said.
        if let (Some(journal), Some(line)) = (&journal, line)
            && let Err(e) = journal.append(line, durability)
        {
            confirmation.push(Unconfirmed::new(
                UnconfirmedStep::JournalLine,
                journal.path(),
                e.to_string(),
            ));
        }
        crash_point("store.before_release");
        if let Err(e) = guard.release() {
            confirmation.push(Unconfirmed::new(
                UnconfirmedStep::LockRelease,
                lock_path,
                e.to_string(),
            ));
        }
        confirmation
    }
}

/// Sweeps the folder of `journal` for leftovers of provably dead writers when it is not the
/// folder of `target` (a DWP plan's `analysis_results/`: journal and receipt temps); returns
/// what it removed and kept.
pub fn sweep_journal_folder(
    target: &std::path::Path,
    journal: &std::path::Path,
) -> super::debris::Sweep {
    let folder = |p: &std::path::Path| super::atomic::parent_dir(p);
    let journal_folder = folder(journal);
    if journal_folder == folder(target) || !journal_folder.is_dir() {
        return super::debris::Sweep::default();
    }
    super::lock::sweep_folder(&journal_folder)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A directory-locked, durable request to replace `target` (holding `expected`) by `new`.
    fn request<'a>(
        target: &'a Path,
        expected: Option<&'a [u8]>,
        new: &'a [u8],
        journal: Option<&'a Journal>,
    ) -> CommitRequest<'a> {
        CommitRequest {
            target,
            lock: LockStyle::Directory,
            operation: "x",
            tool: "t",
            acquired_at: None,
            expected_bytes: expected,
            new_bytes: new,
            journal,
            durability: Durability::Full,
            known_sha256: None,
        }
    }

    #[test]
    fn refuses_when_bytes_changed_and_leaves_no_lock() {
        let dir = tempfile::tempdir().unwrap();
        let t = dir.path().join("s.json");
        std::fs::write(&t, b"now").unwrap();
        let err = commit(&request(&t, Some(b"before"), b"after", None), None).unwrap_err();
        assert_eq!(err.kind(), "state-changed");
        assert_eq!(std::fs::read(&t).unwrap(), b"now");
        assert!(!dir.path().join("s.json.lock").exists());
    }

    #[test]
    fn writes_and_journals() {
        let dir = tempfile::tempdir().unwrap();
        let t = dir.path().join("s.json");
        let j = Journal::new(dir.path().join("s.json.journal.ndjson"));
        let entry = json!({"op": "create"});
        let done = commit(&request(&t, None, b"new", Some(&j)), Some(&entry)).unwrap();
        assert_eq!(done.before_sha256, None);
        assert!(done.confirmation.is_confirmed());
        assert_eq!(std::fs::read(&t).unwrap(), b"new");
        assert_eq!(j.read().unwrap().entries, vec![entry]);
    }

    #[test]
    fn an_unwritable_journal_does_not_undo_the_write() {
        let dir = tempfile::tempdir().unwrap();
        let t = dir.path().join("s.json");
        std::fs::write(&t, b"old").unwrap();
        // The journal's folder is a file: the append fails.
        std::fs::write(dir.path().join("blocked"), b"").unwrap();
        let j = Journal::new(dir.path().join("blocked/j.ndjson"));
        let entry = json!({"op": "x"});
        let done = commit(&request(&t, Some(b"old"), b"new", Some(&j)), Some(&entry)).unwrap();
        let kinds: Vec<_> = done
            .confirmation
            .unconfirmed()
            .iter()
            .map(|u| u.step)
            .collect();
        assert_eq!(kinds, [UnconfirmedStep::JournalLine]);
        assert_eq!(std::fs::read(&t).unwrap(), b"new");
        assert!(!dir.path().join("s.json.lock").exists());
    }
}
