//! What a writer left behind (`docs/verify.md`, "Stale writers"): the lock `state.json.lock/`,
//! the lock's staging folders `state.json.lock.staging-<tag>.<token>/`, released locks
//! `.state.json.lock.<tag>.<token>.released/` and the temp files of an atomic write
//! `.<file>.<pid>.<token>.tmp` (names: `planseal_recovery::store::debris`) — each named with the
//! command that clears it. A leftover whose owner cannot be proven dead is reported too, never
//! called dead.
//!
//! An empty lock folder is what the DWP helper (`update-state.py`, `finalize_plan.py`) holds
//! *while it works*: it is never called stale.

use crate::dwp::layout;
use crate::dwp::read::PlanFiles;
use crate::recovery::read::{Kind, read_no_follow};
use crate::recovery::store::debris::{Debris, DebrisKind};
use crate::recovery::store::lock::OWNER_FILE;
use crate::recovery::store::{
    LockHolder, LockOwner, LockStyle, OwnerStatus, inspect, owner_status,
};
use crate::report::Finding;
use std::path::Path;

/// The findings about writers' leftovers in the plan folder (and its `analysis_results/`).
/// `marker` says a publication marker is present: then `recover` is the way out for a dead
/// lock (it removes it first).
pub(super) fn writer_findings(files: &PlanFiles, marker: bool) -> Vec<Finding> {
    let mut out = Vec::new();
    let shown = &files.display;
    let state = layout::state_path(&files.dir);
    let lock_rel = format!("{}.lock", layout::STATE_FILE);
    let mut dead_lock_pid = None;
    match inspect(&state, &LockStyle::Directory) {
        Ok(None) | Err(_) => {}
        Ok(Some(holder)) => {
            let status = owner_status(&holder);
            match (&holder, &status) {
                (LockHolder::Unknown, _) => out.push(
                    Finding::advisory(
                        "empty-lock",
                        format!(
                            "{lock_rel}/ is an empty lock folder: the DWP helper holds its lock this way while it works, or a writer was killed before recording itself"
                        ),
                    )
                    .file(lock_rel.clone())
                    .hint(format!(
                        "first check that no DWP helper (`update-state.py`, `finalize_plan.py`) is running; then `planseal unlock {shown} --force --reason TEXT`"
                    )),
                ),
                (_, OwnerStatus::Dead(why)) => {
                    if let LockHolder::Owner(o) = &holder {
                        dead_lock_pid = Some(o.pid);
                    }
                    let hint = if marker {
                        format!(
                            "run `planseal recover {shown}`: it removes the dead writer's lock, then finishes or rolls back the publication"
                        )
                    } else {
                        format!(
                            "run `planseal unlock {shown} --reason TEXT` (the owner is provably dead), then follow the other hints"
                        )
                    };
                    out.push(
                        Finding::fail(
                            "stale-lock",
                            format!(
                                "{lock_rel}/ is left by a writer that is gone ({holder}; {why}): every write is refused until it is removed"
                            ),
                        )
                        .file(lock_rel.clone())
                        .hint(hint),
                    );
                }
                (_, status) => out.push(
                    Finding::advisory(
                        "lock-held",
                        format!("{lock_rel}/ is {holder} ({status}): a write may be in progress"),
                    )
                    .file(lock_rel.clone())
                    .hint(format!(
                        "wait for the writer to finish; if you are sure none runs, `planseal unlock {shown} --force --reason TEXT`"
                    )),
                ),
            }
        }
    }
    let live_lock_pid = match inspect(&state, &LockStyle::Directory) {
        Ok(Some(LockHolder::Owner(o))) if dead_lock_pid.is_none() => Some(o.pid),
        _ => None,
    };
    let results = list(&files.dir.join(layout::RESULTS_DIR));
    let names = files
        .listing
        .iter()
        .map(|n| (String::new(), n.clone()))
        .chain(
            results
                .into_iter()
                .map(|n| (format!("{}/", layout::RESULTS_DIR), n)),
        );
    for (dir, name) in names {
        let Some(debris) = Debris::from_name(&name) else {
            continue;
        };
        let rel = format!("{dir}{name}");
        let path = files.dir.join(&rel);
        if debris.is_folder() != path.is_dir() {
            continue;
        }
        let status = match debris.tag {
            Some(tag) => tag.status(),
            // A staging folder of an earlier version: its owner record says who made it.
            None => read_no_follow(&path.join(OWNER_FILE), Kind::LockRecord)
                .ok()
                .flatten()
                .and_then(|b| serde_json::from_slice::<LockOwner>(&b).ok())
                .map_or_else(
                    || OwnerStatus::Unknown("it holds no owner record".into()),
                    |o| owner_status(&LockHolder::Owner(o)),
                ),
        };
        if let Some(finding) =
            debris_finding(&debris, &rel, status, shown, dead_lock_pid, live_lock_pid)
        {
            out.push(finding);
        }
    }
    out
}

/// The `writer-debris` finding of one leftover, or `None` when its owner is alive (a write in
/// progress).
fn debris_finding(
    debris: &Debris,
    rel: &str,
    status: OwnerStatus,
    shown: &str,
    dead_lock_pid: Option<u32>,
    live_lock_pid: Option<u32>,
) -> Option<Finding> {
    let shown_path = Path::new(shown).join(rel);
    let rm_r = format!("rm -r {}", shown_path.display());
    let (message, hint) = match (&debris.kind, status) {
        (_, OwnerStatus::Alive) => return None,
        (DebrisKind::Staging { .. }, OwnerStatus::Dead(why)) => (
            format!("{rel}/ is the staging folder of a lock a killed writer never took ({why})"),
            format!("`{rm_r}` (it never was a lock; the next write removes it too)"),
        ),
        (DebrisKind::Staging { .. }, OwnerStatus::Unknown(why)) => (
            format!("{rel}/ is the staging folder of a lock that was never taken ({why})"),
            format!("first check that no planseal writer is running; then `{rm_r}`"),
        ),
        (DebrisKind::Released { .. }, OwnerStatus::Dead(why)) => (
            format!(
                "{rel}/ is a lock its writer released and was killed before removing ({why}); it locks nothing"
            ),
            format!(
                "`{rm_r}` (the next write, `planseal unlock` or `planseal recover` removes it too)"
            ),
        ),
        (DebrisKind::Released { .. }, OwnerStatus::Unknown(why)) => (
            format!(
                "{rel}/ is a released lock whose remover cannot be proven gone ({why}); it locks nothing"
            ),
            format!("first check that no planseal writer is running; then `{rm_r}`"),
        ),
        (DebrisKind::Temp { .. }, status) => {
            let pid = debris.tag.map(|t| t.pid).unwrap_or_default();
            let in_plan_folder = !rel.contains('/');
            if dead_lock_pid == Some(pid) {
                (
                    format!("{rel} is the temp file of a write that pid {pid} never finished"),
                    format!(
                        "`planseal unlock {shown} --reason TEXT` removes it with the dead writer's lock"
                    ),
                )
            } else if live_lock_pid == Some(pid) && in_plan_folder {
                return None; // the lock holder's write in progress
            } else if let OwnerStatus::Unknown(why) = status {
                (
                    format!(
                        "{rel} is the temp file of an atomic write whose writer cannot be proven gone ({why})"
                    ),
                    format!(
                        "first check that pid {pid} is not a planseal writer; then `rm {}`",
                        shown_path.display()
                    ),
                )
            } else {
                (
                    format!("{rel} is the temp file of a write that pid {pid} never finished"),
                    format!(
                        "`rm {}` (the temp file of an interrupted atomic write; nothing reads it; the next write removes it too)",
                        shown_path.display()
                    ),
                )
            }
        }
    };
    Some(
        Finding::advisory("writer-debris", message)
            .file(rel.to_string())
            .hint(hint),
    )
}

fn list(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}
