//! The one mapping from a store error to what the user is told: a refusal with its kind and the
//! way out, or an I/O error naming the file.

use super::Target;
use crate::recovery::read::ReadError;
use crate::recovery::store::{self, LockHolder, LockStyle, OwnerStatus, StoreError};
use crate::report::{LockOwnerState, Refusal, RefusalKind};
use std::path::PathBuf;

/// Why a write did not happen. Either way the target holds the bytes it had.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    /// A rule of the store said no (locked, changed under us, a symlink out of the folder).
    #[error(transparent)]
    Refused(#[from] Refusal),
    /// A file-system call failed before anything was applied.
    #[error("{op} {}: {source}; nothing was written", path.display())]
    Io {
        /// What the writer was doing, in words (`read lock file`, `create journal folder`).
        op: &'static str,
        /// The file or folder the failed call was about.
        path: PathBuf,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },
}

impl WriteError {
    /// A file that could not be read: a refusal under the reading discipline (`docs/reading.md`),
    /// or the operating system's error.
    pub fn read(e: ReadError) -> Self {
        if let Some(refusal) = crate::report::read_refusal(&e) {
            return WriteError::Refused(refusal);
        }
        let path = e.path().to_path_buf();
        let source = match e {
            ReadError::Io { source, .. } => source,
            other => std::io::Error::other(other.to_string()),
        };
        WriteError::Io {
            op: "read",
            path,
            source,
        }
    }

    /// An input a writer could not read before its commit point (EIO on state.json, a README,
    /// `.git/HEAD` …): exit 3, nothing applied — never a usage error, never "not found", never a
    /// guess in its place. For reads that do not go through [`crate::recovery::read`].
    pub fn reading(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        WriteError::Io {
            op: "read",
            path: path.into(),
            source,
        }
    }

    /// The refusal, when this is one.
    pub fn refusal(&self) -> Option<&Refusal> {
        match self {
            WriteError::Refused(r) => Some(r),
            WriteError::Io { .. } => None,
        }
    }
}

/// What a lock owner's status means for the user.
pub fn lock_owner_state(status: &OwnerStatus) -> LockOwnerState {
    match status {
        OwnerStatus::Alive => LockOwnerState::Alive,
        OwnerStatus::Dead(_) => LockOwnerState::Dead,
        OwnerStatus::Unknown(_) => LockOwnerState::Unknown,
    }
}

/// The refusal (or I/O error) a store error is, with the hint that names `target`.
pub fn refusal_of(err: StoreError, target: &Target) -> WriteError {
    let refusal = match err {
        StoreError::Io { op, path, source } => return WriteError::Io { op, path, source },
        StoreError::Read(e) => return WriteError::read(e),
        StoreError::LockPresent { lock_path, holder } => {
            let status = store::owner_status(&holder);
            lock_refusal(
                target,
                format!(
                    "{} is locked: {holder} ({status}); nothing was written",
                    lock_path.display()
                ),
                &holder,
                &status,
            )
        }
        StoreError::OwnerNotProvablyDead {
            lock_path,
            holder,
            status,
        } => {
            let who = match &holder {
                LockHolder::Unknown => {
                    "nothing records who made it (the DWP helper leaves its lock empty)".to_string()
                }
                other => other.to_string(),
            };
            // Only `unlock` and `recover` judge an owner: the way out is to wait, or to force.
            Refusal::new(
                RefusalKind::LockPresent,
                format!(
                    "{}: {who} — {status}; the lock was left in place",
                    lock_path.display()
                ),
            )
            .owner(lock_owner_state(&status))
            .hint(format!(
                "wait for the owner to finish; if you are sure no writer runs, `planseal unlock {} --force --reason TEXT`",
                target.shown()
            ))
        }
        StoreError::StateChanged {
            path,
            expected,
            actual,
        } => Refusal::new(
            RefusalKind::StateChanged,
            format!(
                "{} changed since it was read (sha256 {expected} expected, {actual} found); nothing was written",
                path.display()
            ),
        )
        .hint("another writer got there first: read the file again, then retry"),
        StoreError::NotLocked { lock_path } => Refusal::new(
            RefusalKind::NotLocked,
            format!("{} is not locked", lock_path.display()),
        ),
        StoreError::LockUnexpectedContent { lock_path, entries } => Refusal::new(
            RefusalKind::LockUnexpectedContent,
            format!(
                "{} holds entries planseal never writes there ({entries}); nothing was removed",
                lock_path.display()
            ),
        )
        .hint("check what they are and remove them by hand, then run `planseal unlock` again"),
        e @ StoreError::SymlinkEscape { .. } => {
            let folder = match target.root() {
                Some(_) => "the plan folder",
                None => "its folder",
            };
            Refusal::new(
                RefusalKind::SymlinkEscape,
                format!("{e}; nothing was written"),
            )
            .hint(format!(
                "replace the symlink by a regular file (or folder) inside {folder}, then retry"
            ))
        }
    };
    WriteError::Refused(refusal)
}

/// `lock-present`, with the owner's state as a field and the way out that state allows.
fn lock_refusal(
    target: &Target,
    message: String,
    holder: &LockHolder,
    status: &OwnerStatus,
) -> Refusal {
    let shown = target.shown();
    let hint = match (target.lock_style(), status) {
        (LockStyle::PidFile { .. }, _) => format!(
            "another writer holds {}; retry when it is done (a dead writer's pid-file lock is taken over automatically)",
            target.lock_path().display()
        ),
        (_, OwnerStatus::Alive) => {
            "another writer is working: wait for it to finish, then retry".to_string()
        }
        (_, OwnerStatus::Dead(_)) => format!(
            "the writer that took the lock is gone (killed?): `planseal unlock {shown}` removes it, then retry"
        ),
        (_, OwnerStatus::Unknown(_)) => match holder {
            LockHolder::Unknown => format!(
                "if no writer is running (check with ps), `planseal unlock {shown} --force --reason TEXT` removes it"
            ),
            _ => format!(
                "make sure no writer is running, then `planseal unlock {shown} --force --reason TEXT`"
            ),
        },
    };
    Refusal::new(RefusalKind::LockPresent, message)
        .owner(lock_owner_state(status))
        .hint(hint)
}
