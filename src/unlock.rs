//! `unlock` as a library call: which lock a PATH names, who holds it, and its removal when the
//! owner is provably dead (same host, and the pid is not alive or its process start time differs
//! from the recorded one). A live or unknown owner — an empty lock folder, as the DWP helper
//! leaves it — needs `force` with a reason. Every removal is journaled. Leftovers of provably
//! dead writers beside the lock and its journal (temp files, lock staging folders, released
//! locks) go too, locked or not; those whose owner cannot be proven dead stay and are listed.

use crate::clock::Clock;
use crate::dwp::layout;
use crate::recovery::store::debris::{KeptDebris, Sweep};
use crate::recovery::store::{self, LockHolder, LockStyle, OwnerStatus, StoreError};
use crate::report::{Refusal, RefusalKind};
use crate::write::{JournalEntry, Target, WriteError, Writer, refusal_of};
use serde::Serialize;
use std::path::{Path, PathBuf};

/// What the caller asks for.
#[derive(Debug, Clone)]
pub struct UnlockRequest {
    /// The locked file, its lock (`state.json.lock`) or a DWP plan folder.
    pub path: PathBuf,
    /// How the path was given, for hints (`planseal unlock <this> --force …`).
    pub shown: String,
    /// Remove the lock even when its owner is alive or unknown (needs a non-empty `reason`).
    pub force: bool,
    /// Why the lock is safe to remove; required with `force`, journaled when given.
    pub reason: Option<String>,
}

/// What unlock found and did.
#[allow(clippy::large_enum_variant)] // one per run, never stored
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(tag = "outcome", rename_all = "kebab-case")]
pub enum UnlockOutcome {
    /// There was no lock to remove.
    NotLocked {
        /// Where the lock would be (`<file>.lock`).
        lock_path: PathBuf,
        /// Leftovers of provably dead writers that were removed.
        removed_temp_files: Vec<PathBuf>,
        /// Leftovers that stay, and why.
        kept_debris: Vec<KeptDebris>,
    },
    /// The lock was removed (and journaled).
    Removed {
        /// The lock that was removed (`<file>.lock`, a folder or a pid file).
        lock_path: PathBuf,
        /// Who held it, as the lock said just before removal.
        holder: LockHolder,
        /// Whether that holder was alive, provably dead, or unknown.
        owner_status: OwnerStatus,
        /// The owner was not provably dead and `force` removed the lock anyway.
        forced: bool,
        /// The reason the request gave, as given.
        reason: Option<String>,
        /// Leftovers of dead writers removed with the lock: the dead owner's temp files (state,
        /// marker, receipt), lock staging folders, released locks.
        removed_temp_files: Vec<PathBuf>,
        /// Leftovers that stay, and why (an owner not provably dead, unexpected content).
        kept_debris: Vec<KeptDebris>,
    },
}

/// Why unlock did not end well: nothing was removed, or the removal was not journaled.
#[derive(Debug, thiserror::Error)]
pub enum UnlockError {
    /// Nothing was removed: a refusal (an owner not provably dead without `force`, `force`
    /// without a reason, a lock that changed hands) or an I/O error.
    #[error(transparent)]
    Write(#[from] WriteError),
    /// The lock was removed but its journal line could not be appended.
    #[error("{} was removed, but its journal line could not be appended to {}: {source}", lock_path.display(), journal.display())]
    Unjournaled {
        /// The lock that was removed.
        lock_path: PathBuf,
        /// The journal the line was meant for.
        journal: PathBuf,
        /// Why the append failed.
        #[source]
        source: Box<WriteError>,
    },
}

/// The file a PATH argument is about, as a write target (a lock file is GSD's pid file).
pub fn target_of(path: &Path) -> Target {
    let mut file = path.to_path_buf();
    // A plan folder names its state.json even when that file is lost: its lock is what a
    // writer killed while restoring it leaves.
    if path.is_dir()
        && (path.join(layout::STATE_FILE).is_file()
            || path.join(layout::MANIFEST_FILE).is_file()
            || path.join(format!("{}.lock", layout::STATE_FILE)).is_dir())
        && path.extension().is_none_or(|e| e != "lock")
    {
        file = layout::state_path(path);
    } else if let Some(stripped) = path
        .to_str()
        .and_then(|s| s.trim_end_matches('/').strip_suffix(".lock"))
    {
        file = PathBuf::from(stripped);
    }
    let dir = file.parent().unwrap_or(Path::new("."));
    let is_dwp_state = file.file_name().is_some_and(|n| n == layout::STATE_FILE)
        && (dir.join(layout::MANIFEST_FILE).is_file()
            || dir
                .file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with(layout::PLAN_PREFIX)));
    if is_dwp_state {
        return layout::state_target(dir);
    }
    if LockStyle::Directory.lock_path(&file).is_file() {
        crate::gsd::layout::state_target(&file, std::time::Duration::ZERO)
    } else if file
        .file_name()
        .is_some_and(|n| n == crate::checkpoint::layout::CHECKPOINT_FILE)
    {
        crate::checkpoint::layout::checkpoint_target(&file)
    } else {
        Target::journal_beside(file, LockStyle::Directory)
    }
}

/// Removes the lock `req.path` names when its owner is provably dead, or with `force`.
pub fn unlock(req: &UnlockRequest, clock: &mut Clock) -> Result<UnlockOutcome, UnlockError> {
    let target = target_of(&req.path).shown_as(req.shown.clone());
    let reason = req.reason.as_deref().map(str::trim).unwrap_or_default();
    if req.force && reason.is_empty() {
        return Err(WriteError::from(
            Refusal::new(
                RefusalKind::UsageError,
                "--force needs a non-empty --reason",
            )
            .hint("say why the lock is safe to remove: --reason TEXT"),
        )
        .into());
    }
    let outcome = match store::unlock(target.path(), target.lock_style(), req.force) {
        Ok(o) => o,
        Err(StoreError::NotLocked { lock_path }) => {
            let mut sweep = store::lock::sweep_lock_folder(&lock_path);
            sweep.extend(sweep_journal_folder(&target));
            return Ok(UnlockOutcome::NotLocked {
                lock_path,
                removed_temp_files: sweep.removed,
                kept_debris: sweep.kept,
            });
        }
        // Another process took or replaced the lock between our two looks: nothing was removed.
        Err(StoreError::LockPresent { lock_path, holder }) => {
            return Err(WriteError::from(
                Refusal::new(
                    RefusalKind::LockPresent,
                    format!(
                        "{}: the lock changed hands while it was being judged ({holder}); nothing was removed",
                        lock_path.display()
                    ),
                )
                .owner(crate::write::lock_owner_state(&store::owner_status(&holder)))
                .hint(format!(
                    "run `planseal unlock {}` again to judge the new owner",
                    req.shown
                )),
            )
            .into());
        }
        Err(e) => return Err(refusal_of(e, &target).into()),
    };
    let mut removed = outcome.removed_temp_files.clone();
    let mut kept = outcome.kept_debris.clone();
    kept.extend(outcome.left_behind.clone());
    let beside_journal = sweep_journal_folder(&target);
    removed.extend(beside_journal.removed);
    kept.extend(beside_journal.kept);
    let folder = target.path().parent().unwrap_or(Path::new("."));
    let entry = JournalEntry::new(clock.now_iso(), "unlock")
        .reason(req.reason.clone())
        .with(
            "target",
            target
                .path()
                .file_name()
                .map(|n| n.to_string_lossy().into_owned()),
        )
        .with(
            "holder",
            serde_json::to_value(&outcome.holder).unwrap_or_default(),
        )
        .with(
            "owner_status",
            serde_json::to_value(&outcome.status).unwrap_or_default(),
        )
        .with(
            "removed_temp_files",
            removed
                .iter()
                .map(|p| p.strip_prefix(folder).unwrap_or(p).display().to_string())
                .collect::<Vec<_>>(),
        );
    let mut entry = entry;
    if let Some(plan) = target.root().map(layout::plan_name) {
        entry.plan = Some(plan);
    } else {
        entry.file = Some(target.path().display().to_string());
    }
    if outcome.forced {
        entry.forced = vec!["unlock --force".into()];
    }
    Writer::from_env()
        .journal_only(&target, &entry)
        .map_err(|source| UnlockError::Unjournaled {
            lock_path: outcome.lock_path.clone(),
            journal: target.journal().path().to_path_buf(),
            source: Box::new(source),
        })?;
    Ok(UnlockOutcome::Removed {
        lock_path: outcome.lock_path,
        holder: outcome.holder,
        owner_status: outcome.status,
        forced: outcome.forced,
        reason: req.reason.clone(),
        removed_temp_files: removed,
        kept_debris: kept,
    })
}

/// The leftovers of dead writers in the journal's folder when it is not the target's own (a DWP
/// plan's `analysis_results/`, where the receipt is written).
pub(crate) fn sweep_journal_folder(target: &Target) -> Sweep {
    target.sweep_journal_folder()
}
