//! The file operations of the transaction, on top of the store of `planseal-recovery`: read,
//! atomic durable write, durable removal, the lock directory with its owner record, the journal.
//! Thin wrappers that turn store errors into refusals with hints.

use super::FinalizeError;
use crate::report::Refusal;
use planseal_recovery::store::{
    self, Durability, Journal, LockGuard, LockHolder, LockStyle, OwnerStatus, StoreError,
};
use std::path::{Path, PathBuf};

/// Where the DWP journal lives inside the plan folder (SPEC §1.8).
pub const JOURNAL_FILE: &str = "analysis_results/STATE_JOURNAL.ndjson";

/// The plan folder for a path given as the folder or as its state.json, canonicalised (so a
/// run from inside the plan folder sees the real folder name).
pub(crate) fn plan_dir_of(given: &Path) -> Result<PathBuf, FinalizeError> {
    let dir = if given.file_name().is_some_and(|n| n == "state.json") {
        given.parent().map(Path::to_path_buf).unwrap_or_default()
    } else {
        given.to_path_buf()
    };
    let dir = if dir.as_os_str().is_empty() {
        PathBuf::from(".")
    } else {
        dir
    };
    match dir.canonicalize() {
        Ok(d) if d.is_dir() => Ok(d),
        Ok(_) => Err(not_a_plan(given)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(not_a_plan(given)),
        Err(e) => Err(FinalizeError::io(given, e)),
    }
}

fn not_a_plan(given: &Path) -> FinalizeError {
    Refusal::new(
        "plan-not-found",
        format!("{}: no such plan folder", given.display()),
    )
    .hint("pass the plan folder, e.g. .dwp/plans/PLAN_name")
    .into()
}

pub(crate) fn read_state(state_path: &Path) -> Result<Vec<u8>, FinalizeError> {
    std::fs::read(state_path).map_err(|e| {
        if e.kind() == std::io::ErrorKind::NotFound {
            Refusal::new(
                "state-missing",
                format!("{}: state.json not found", state_path.display()),
            )
            .hint("create the state layer first, or run `planseal rebuild --write`")
            .into()
        } else {
            FinalizeError::io(state_path, e)
        }
    })
}

pub(crate) fn read_optional(path: &Path) -> Result<Option<Vec<u8>>, FinalizeError> {
    match std::fs::read(path) {
        Ok(b) => Ok(Some(b)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) if e.kind() == std::io::ErrorKind::IsADirectory => Ok(None),
        Err(e) => Err(FinalizeError::io(path, e)),
    }
}

/// Atomic, durable replace (temp file, fsync, rename, fsync the folder; permission bits kept).
pub(crate) fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), FinalizeError> {
    store::write_atomic(path, bytes, Durability::Full).map_err(from_store)
}

/// Removes a file and makes the removal durable.
pub(crate) fn remove_file(path: &Path) -> Result<(), FinalizeError> {
    store::remove_durable(path, Durability::Full)
        .map(|_| ())
        .map_err(from_store)
}

fn from_store(e: StoreError) -> FinalizeError {
    match e {
        StoreError::Io { path, source, .. } => FinalizeError::Io { path, source },
        other => {
            let kind = other.kind();
            Refusal::new(kind, other.to_string()).into()
        }
    }
}

/// The lock directory `<state.json>.lock/` held for the whole transaction.
pub(crate) struct Lock {
    guard: LockGuard,
}

impl Lock {
    pub(crate) fn acquire(state_path: &Path, operation: &str) -> Result<Self, FinalizeError> {
        match store::acquire(
            state_path,
            &LockStyle::Directory,
            operation,
            crate::TOOL_VERSION,
        ) {
            Ok(guard) => Ok(Self { guard }),
            Err(StoreError::LockPresent { lock_path, holder }) => {
                let status = store::owner_status(&holder);
                Err(lock_refusal(state_path, &lock_path, &holder, &status))
            }
            Err(e) => Err(from_store(e)),
        }
    }

    pub(crate) fn release(self) -> Result<(), FinalizeError> {
        self.guard.release().map(|_| ()).map_err(from_store)
    }

    /// Appends the journal entry of a publication. Best effort: the receipt is the evidence, and
    /// a journal that cannot be written must not undo a publication.
    pub(crate) fn journal(&self, plan_dir: &Path, operation: &str, before: &str, after: &str) {
        let entry = serde_json::json!({
            "time": super::now_iso(),
            "tool": crate::TOOL_VERSION,
            "operation": operation,
            "to": "completed",
            "before_sha256": before,
            "after_sha256": after,
        });
        self.append_journal(plan_dir, entry);
    }

    /// Appends `entry` with the receipt's name added. Best effort, as [`Self::journal`].
    pub(crate) fn append_journal(&self, plan_dir: &Path, mut entry: serde_json::Value) {
        if let Some(map) = entry.as_object_mut() {
            map.insert("receipt".into(), super::RECEIPT_FILE.into());
        }
        let _ = Journal::new(plan_dir.join(JOURNAL_FILE)).append(&entry, Durability::Full);
    }
}

/// `lock-present` (unknown or foreign owner) or `lock-owner-alive`, with the owner and the way out.
fn lock_refusal(
    state_path: &Path,
    lock_path: &Path,
    holder: &LockHolder,
    status: &OwnerStatus,
) -> FinalizeError {
    let (kind, hint) = match status {
        OwnerStatus::Alive => (
            "lock-owner-alive",
            "another planseal or the DWP helper is writing this plan; wait for it to finish"
                .to_string(),
        ),
        OwnerStatus::Dead(_) => (
            "lock-present",
            format!(
                "the owner is gone: `planseal unlock {}` removes the lock (or `planseal recover` when a publication was interrupted)",
                state_path.display()
            ),
        ),
        OwnerStatus::Unknown(_) => (
            "lock-present",
            format!(
                "make sure no writer is running, then `planseal unlock {} --force --reason TEXT`",
                state_path.display()
            ),
        ),
    };
    Refusal::new(
        kind,
        format!("{}: {holder} ({status})", lock_path.display()),
    )
    .hint(hint)
    .into()
}

/// The lock next to `state_path`, if any, with what is known of its owner.
pub(crate) fn lock_info(
    state_path: &Path,
) -> Result<Option<crate::dwp::recover::LockInfo>, FinalizeError> {
    use crate::dwp::recover::{LockInfo, OwnerState};
    let Some(holder) = store::inspect(state_path, &LockStyle::Directory).map_err(from_store)?
    else {
        return Ok(None);
    };
    let status = store::owner_status(&holder);
    let owner_state = match &status {
        OwnerStatus::Alive => OwnerState::Alive,
        OwnerStatus::Dead(_) => OwnerState::ProvablyDead,
        OwnerStatus::Unknown(_) => OwnerState::Unknown,
    };
    Ok(Some(LockInfo {
        path: LockStyle::Directory.lock_path(state_path),
        owner: format!("{holder} ({status})"),
        owner_state,
    }))
}

/// Removes a lock whose owner is provably dead (journaled); refuses for a live or unknown owner.
/// Returns whether a lock was removed.
pub(crate) fn clear_stale_lock(
    state_path: &Path,
    info: Option<&crate::dwp::recover::LockInfo>,
) -> Result<bool, FinalizeError> {
    if info.is_none() {
        return Ok(false);
    }
    match store::unlock(state_path, &LockStyle::Directory, false) {
        Ok(outcome) => {
            if let Some(plan_dir) = state_path.parent() {
                let entry = serde_json::json!({
                    "time": super::now_iso(),
                    "tool": crate::TOOL_VERSION,
                    "operation": "recover: remove stale lock",
                    "holder": outcome.holder,
                    "status": outcome.status.to_string(),
                });
                let _ = Journal::new(plan_dir.join(JOURNAL_FILE)).append(&entry, Durability::Full);
            }
            Ok(true)
        }
        Err(StoreError::NotLocked { .. }) => Ok(false),
        Err(StoreError::OwnerNotProvablyDead {
            lock_path,
            holder,
            status,
        }) => Err(lock_refusal(state_path, &lock_path, &holder, &status)),
        Err(e) => Err(from_store(e)),
    }
}
