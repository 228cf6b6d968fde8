//! What the transaction reads around its writes: the plan folder, state.json, optional files
//! and the lock's owner. Every write goes through [`crate::write`].

use super::FinalizeError;
use crate::clock::Clock;
use crate::dwp::layout;
use crate::report::{LockOwnerState, Refusal, RefusalKind};

use crate::dwp::read::{read_plan_file, read_plan_path};
use crate::write::{JournalEntry, WriteError, Writer, lock_owner_state, refusal_of};
use planseal_recovery::read::ReadError;
use planseal_recovery::store::{self, LockStyle, StoreError};
use std::path::{Path, PathBuf};

/// The plan folder for a path given as the folder or as its state.json, canonicalised (so a
/// run from inside the plan folder sees the real folder name).
pub(crate) fn plan_dir_of(given: &Path) -> Result<PathBuf, FinalizeError> {
    let dir = if given.file_name().is_some_and(|n| n == layout::STATE_FILE) {
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
        RefusalKind::PlanNotFound,
        format!("{}: no such plan folder", given.display()),
    )
    .hint("pass the plan folder, e.g. .dwp/plans/PLAN_name")
    .into()
}

pub(crate) fn read_state(state_path: &Path) -> Result<Vec<u8>, FinalizeError> {
    read_state_before(state_path, false)
}

/// [`read_state`], except that with `missing_is_empty` a missing state.json reads as no bytes:
/// the "before" of a publication that restores a lost state (`rebuild`).
pub(crate) fn read_state_before(
    state_path: &Path,
    missing_is_empty: bool,
) -> Result<Vec<u8>, FinalizeError> {
    match read_plan_path(state_path).map_err(read_error)? {
        Some(bytes) => Ok(bytes),
        None if missing_is_empty => Ok(Vec::new()),
        None => Err(Refusal::new(
            RefusalKind::StateMissing,
            format!("{}: state.json not found", state_path.display()),
        )
        .hint(format!(
            "create the state layer first, or run `planseal rebuild {} --write`",
            state_path.parent().unwrap_or(Path::new(".")).display()
        ))
        .into()),
    }
}

/// The bytes of `rel` in the plan folder, `None` when it does not exist; a FIFO, a folder, a
/// file too large or a symlink out of the plan is refused (`docs/reading.md`).
pub(crate) fn read_optional(plan_dir: &Path, rel: &str) -> Result<Option<Vec<u8>>, FinalizeError> {
    read_plan_file(plan_dir, rel).map_err(read_error)
}

/// A file that could not be read: its refusal, or the I/O error naming it.
pub(crate) fn read_error(e: ReadError) -> FinalizeError {
    WriteError::read(e).into()
}

/// A lock found next to the state.
#[derive(Debug, Clone)]
pub struct LockInfo {
    /// The lock folder (`state.json.lock/`).
    pub path: PathBuf,
    /// Its owner record and that owner's status, as one line of text (`<holder> (<status>)`).
    pub owner: String,
    /// Whether the owner is alive, gone or unknown: only a gone owner's lock is removed.
    pub owner_state: LockOwnerState,
}

/// The lock next to `state_path`, if any, with what is known of its owner.
pub(crate) fn lock_info(state_path: &Path) -> Result<Option<LockInfo>, FinalizeError> {
    let plan_dir = state_path.parent().unwrap_or(Path::new("."));
    let target = layout::state_target(plan_dir);
    let Some(holder) = store::inspect(state_path, target.lock_style())
        .map_err(|e| FinalizeError::from(refusal_of(e, &target)))?
    else {
        return Ok(None);
    };
    let status = store::owner_status(&holder);
    Ok(Some(LockInfo {
        path: target.lock_path(),
        owner: format!("{holder} ({status})"),
        owner_state: lock_owner_state(&status),
    }))
}

/// Removes a lock whose owner is provably dead (journaled); refuses for a live or unknown owner.
/// Returns whether a lock was removed, and what of its removal was not confirmed (its journal
/// line).
pub(crate) fn clear_stale_lock(
    state_path: &Path,
    info: Option<&LockInfo>,
    clock: &mut Clock,
) -> Result<(bool, crate::write::Confirmation), FinalizeError> {
    use crate::write::{Confirmation, Unconfirmed, UnconfirmedStep};
    if info.is_none() {
        return Ok((false, Confirmation::Confirmed));
    }
    let plan_dir = state_path.parent().unwrap_or(Path::new("."));
    let target = layout::state_target(plan_dir);
    match store::unlock(state_path, &LockStyle::Directory, false) {
        Ok(outcome) => {
            let entry = JournalEntry::for_plan(
                clock.now_iso(),
                "recover: remove stale lock",
                &layout::plan_name(plan_dir),
            )
            .with(
                "holder",
                serde_json::to_value(&outcome.holder).unwrap_or_default(),
            )
            .with("status", outcome.status.to_string());
            // The lock is gone either way; a journal line that cannot be written does not bring
            // it back, and is reported as not confirmed.
            let mut confirmation = Confirmation::Confirmed;
            if let Some(left) = &outcome.left_behind {
                confirmation.push(
                    Unconfirmed::new(UnconfirmedStep::LockRelease, &left.path, &left.reason).hint(
                        format!(
                            "`planseal unlock {}` removes what is left of the stale lock",
                            state_path.display()
                        ),
                    ),
                );
            }
            if let Err(e) = Writer::from_env().journal_only(&target, &entry) {
                confirmation.push(Unconfirmed::new(
                    UnconfirmedStep::JournalLine,
                    target.journal().path(),
                    e.to_string(),
                ));
            }
            Ok((true, confirmation))
        }
        Err(StoreError::NotLocked { .. }) => Ok((false, Confirmation::Confirmed)),
        Err(e) => Err(refusal_of(e, &target).into()),
    }
}
