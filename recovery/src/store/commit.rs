//! The guarded write of one file: lock → re-check the bytes under the lock (compare-and-swap) →
//! atomic replace → journal line → release.

use super::atomic::{Durability, write_atomic};
use super::journal::Journal;
use super::lock::{LockStyle, acquire_at};
use super::{StoreError, failpoint::crash_point};
use crate::hash::sha256_hex;
use std::path::Path;

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
    /// The journal line to append after the rename, before the lock is released.
    pub journal: Option<(&'a Journal, &'a serde_json::Value)>,
    /// Whether the new bytes and the rename are fsynced before the lock is released.
    pub durability: Durability,
}

/// What a successful write changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Committed {
    /// SHA-256 of the bytes replaced (`None` when the file was created).
    pub before_sha256: Option<String>,
    /// SHA-256 of the bytes now in the file (the request's `new_bytes`).
    pub after_sha256: String,
    /// Why the journal line could not be appended (the write itself happened).
    pub journal_error: Option<String>,
}

/// Performs the write. On any error the target holds the bytes it had (a crash point may leave
/// the lock behind, which is what a killed writer does).
pub fn commit(req: &CommitRequest<'_>) -> Result<Committed, StoreError> {
    // A journal that would be written through a symlink refuses the whole write up front.
    if let Some((journal, _)) = req.journal {
        journal.check_target()?;
    }
    let guard = acquire_at(
        req.target,
        &req.lock,
        req.operation,
        req.tool,
        req.acquired_at,
    )?;
    let current = crate::read::read(req.target, crate::read::Kind::Document)?;
    if current.as_deref() != req.expected_bytes {
        let hash = |b: Option<&[u8]>| b.map(sha256_hex).unwrap_or_else(|| "<absent>".into());
        return Err(StoreError::StateChanged {
            path: req.target.to_path_buf(),
            expected: hash(req.expected_bytes),
            actual: hash(current.as_deref()),
        });
    }
    crash_point("store.after_recheck");
    write_atomic(req.target, req.new_bytes, req.durability)?;
    // The new bytes are in place: a journal that cannot be written is reported, never turned
    // into a failed write (the caller would retry a change that already happened).
    let journal_error = req
        .journal
        .and_then(|(journal, entry)| journal.append(entry, req.durability).err())
        .map(|e| e.to_string());
    crash_point("store.before_release");
    guard.release()?;
    Ok(Committed {
        before_sha256: current.as_deref().map(sha256_hex),
        after_sha256: sha256_hex(req.new_bytes),
        journal_error,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn refuses_when_bytes_changed_and_leaves_no_lock() {
        let dir = tempfile::tempdir().unwrap();
        let t = dir.path().join("s.json");
        std::fs::write(&t, b"now").unwrap();
        let err = commit(&CommitRequest {
            target: &t,
            lock: LockStyle::Directory,
            operation: "x",
            tool: "t",
            acquired_at: None,
            expected_bytes: Some(b"before"),
            new_bytes: b"after",
            journal: None,
            durability: Durability::Full,
        })
        .unwrap_err();
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
        let done = commit(&CommitRequest {
            target: &t,
            lock: LockStyle::Directory,
            operation: "x",
            tool: "t",
            acquired_at: None,
            expected_bytes: None,
            new_bytes: b"new",
            journal: Some((&j, &entry)),
            durability: Durability::Full,
        })
        .unwrap();
        assert_eq!(done.before_sha256, None);
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
        let done = commit(&CommitRequest {
            target: &t,
            lock: LockStyle::Directory,
            operation: "x",
            tool: "t",
            acquired_at: None,
            expected_bytes: Some(b"old"),
            new_bytes: b"new",
            journal: Some((&j, &entry)),
            durability: Durability::Full,
        })
        .unwrap();
        assert!(done.journal_error.is_some());
        assert_eq!(std::fs::read(&t).unwrap(), b"new");
        assert!(!dir.path().join("s.json.lock").exists());
    }
}
