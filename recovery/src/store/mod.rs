//! The transactional file store every planseal writer goes through.
//!
//! It knows nothing about plans. It offers the pieces of a durable, exclusive write:
//!
//! - [`lock`]: an exclusive lock taken through a per-format adapter ([`LockStyle`]): a lock
//!   directory `<file>.lock/` holding an owner record (DWP, Reversa, checkpoint) or GSD's O_EXCL pid
//!   file; owner liveness (same host, pid alive, process start time unchanged); removal only of a
//!   provably dead owner's lock unless forced.
//! - [`atomic`]: atomic replace (temp file in the same folder, fsync, rename, fsync the folder,
//!   permission bits kept) and durable removal. The rename is the commit point: an error before
//!   it leaves the target untouched (and no temp file); what fails after it is a
//!   [`Confirmation::Unconfirmed`], never an error.
//! - [`confirm`]: what an applied write could not confirm (folder sync, journal line, lock
//!   release, the rest of a transaction).
//! - [`journal`]: the append-only ndjson transition journal; a torn last line is tolerated.
//! - [`failpoint`]: named crash points (feature `failpoints`) that end the process like `kill -9`,
//!   and fault points that make one system call of the store fail with a chosen errno.
//! - [`commit()`]: the whole guarded write of one file — lock, re-check the bytes under the lock,
//!   atomic replace, journal line, release — for writers that change a single file. Its result
//!   says whether everything after the rename was confirmed. [`place`] and [`Placed::finish`]
//!   are its two halves (the rename between them).
//!
//! Writers that change several files under one lock (the finalization transaction) take a
//! [`LockGuard`] themselves and call [`replace_atomic`] / [`remove_atomic`] / [`Journal::append`]
//! in their own order, with their own [`crash_point`]s.
//!
//! ```
//! use planseal_recovery::store::{commit, CommitRequest, Durability, LockStyle};
//! let dir = tempfile::tempdir().unwrap();
//! let target = dir.path().join("state.json");
//! std::fs::write(&target, b"{}\n").unwrap();
//! let before = std::fs::read(&target).unwrap();
//! let done = commit(&CommitRequest {
//!     target: &target,
//!     lock: LockStyle::Directory,
//!     operation: "demo",
//!     tool: "planseal test",
//!     acquired_at: None,
//!     expected_bytes: Some(&before),
//!     new_bytes: b"{\"a\": 1}\n",
//!     journal: None,
//!     durability: Durability::Full,
//!     known_sha256: None,
//! }, None)
//! .unwrap();
//! assert_eq!(std::fs::read(&target).unwrap(), b"{\"a\": 1}\n");
//! assert!(!dir.path().join("state.json.lock").exists());
//! assert_eq!(done.after_sha256.len(), 64);
//! ```
//!
//! ## Limitations
//! - Liveness of a lock owner is decided from `/proc/<pid>/stat` (Linux). Elsewhere the start time
//!   is unknown and a lock whose pid is alive is never considered dead.
//! - The host name check compares `gethostname()`; two machines sharing a folder over a network
//!   file system with the same host name are indistinguishable.

// A refusal carries the lock owner's record so it can be shown; errors are rare and never on a
// hot path, so their size does not matter.
#![allow(clippy::result_large_err)]

pub mod atomic;
pub mod commit;
pub mod confirm;
pub mod debris;
pub mod failpoint;
pub mod journal;
pub mod lock;
pub mod process;

pub use atomic::{
    Durability, fsync_dir, remove_atomic, remove_durable, replace_atomic, replace_atomic_with_mode,
    write_atomic,
};
pub use commit::{CommitRequest, Committed, KnownHashes, Placed, commit, place};
pub use confirm::{Confirmation, Unconfirmed, UnconfirmedStep};
pub use failpoint::{crash_point, io_fault};
pub use journal::{Journal, JournalRead, read_journal};
pub use lock::{
    LockGuard, LockHolder, LockOwner, LockStyle, OwnerStatus, UnlockOutcome, acquire, acquire_at,
    inspect, owner_status, unlock,
};

use std::path::PathBuf;

/// Why a store operation did not happen. Every variant leaves the target file as it was.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// Somebody else holds the lock (or a crashed writer left it behind).
    #[error("{} is locked: {holder}", lock_path.display())]
    LockPresent {
        /// The lock that is in the way: `<target>.lock`.
        lock_path: PathBuf,
        /// Who holds it, as far as the lock tells.
        holder: LockHolder,
    },
    /// The file changed between the caller's read and the re-read under the lock.
    #[error("{} changed since it was read (sha256 {expected} expected, {actual} found)", path.display())]
    StateChanged {
        /// The file that changed.
        path: PathBuf,
        /// SHA-256 of the bytes the caller read, or `<absent>` when it expected no file.
        expected: String,
        /// SHA-256 of the bytes found under the lock, or `<absent>` when the file is gone.
        actual: String,
    },
    /// `unlock` without `--force`: the owner is alive or cannot be proven dead.
    #[error("{} is held by an owner that is not provably dead: {holder} ({status})", lock_path.display())]
    OwnerNotProvablyDead {
        /// The lock that was left in place.
        lock_path: PathBuf,
        /// Who holds it, as far as the lock tells.
        holder: LockHolder,
        /// Why the owner is not known to be dead (alive, or undecidable and why).
        status: OwnerStatus,
    },
    /// There is no lock to remove.
    #[error("{} is not locked", lock_path.display())]
    NotLocked {
        /// Where the lock would be.
        lock_path: PathBuf,
    },
    /// The lock directory holds entries planseal never writes there: nothing was removed.
    #[error("{} holds unexpected entries ({entries}); nothing was removed", lock_path.display())]
    LockUnexpectedContent {
        /// The lock directory that was left in place.
        lock_path: PathBuf,
        /// The unexpected entries' names, comma-separated.
        entries: String,
    },
    /// The target is (or lies under) a symlink that leads out of the folder it belongs to: it is
    /// never written through.
    #[error("{} leads out of {} (to {}); refusing to write through a symlink", path.display(), root.display(), target.display())]
    SymlinkEscape {
        /// The file that would have been written (a target or its journal).
        path: PathBuf,
        /// The folder it must stay inside.
        root: PathBuf,
        /// Where the symlink leads.
        target: PathBuf,
    },
    /// A file the store reads (the target under the lock, an owner record, the journal) is not
    /// a regular file, is too large or leads out of its folder; or reading it failed.
    #[error(transparent)]
    Read(#[from] crate::read::ReadError),
    /// A file-system call failed.
    #[error("{op} {}: {source}", path.display())]
    Io {
        /// What the store was doing, in words (`re-read under the lock`, `create journal folder`).
        op: &'static str,
        /// The file or folder the call was about.
        path: PathBuf,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },
}

impl StoreError {
    pub(crate) fn io(op: &'static str, path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        StoreError::Io {
            op,
            path: path.into(),
            source,
        }
    }

    /// The stable refusal kind of this error (`docs/refusals.md`), when it is a refusal.
    pub fn kind(&self) -> &'static str {
        match self {
            StoreError::LockPresent { .. } => "lock-present",
            StoreError::StateChanged { .. } => "state-changed",
            StoreError::OwnerNotProvablyDead { .. } => "lock-owner-alive",
            StoreError::NotLocked { .. } => "not-locked",
            StoreError::LockUnexpectedContent { .. } => "lock-unexpected-content",
            StoreError::SymlinkEscape { .. } => "symlink-escape",
            StoreError::Read(e) => e.kind(),
            StoreError::Io { .. } => "io-error",
        }
    }
}
