//! What a writer left behind (`docs/verify.md`, "Stale writers"): the lock `state.json.lock/`,
//! the lock's staging folders `state.json.lock.staging-<token>/` and the temp files of an atomic
//! write `.<file>.<pid>.<token>.tmp` — each named with the command that clears it.
//!
//! An empty lock folder is what the DWP helper (`update-state.py`, `finalize_plan.py`) holds
//! *while it works*: it is never called stale.

use crate::dwp::layout;
use crate::dwp::read::PlanFiles;
use crate::recovery::read::{Kind, read_no_follow};
use crate::recovery::store::lock::OWNER_FILE;
use crate::recovery::store::process::pid_alive;
use crate::recovery::store::{
    LockHolder, LockOwner, LockStyle, OwnerStatus, inspect, owner_status,
};
use crate::report::Finding;
use std::path::Path;

/// `.<file>.<pid>.<token>.tmp` → `(file, pid)`.
fn temp_file_of(name: &str) -> Option<(&str, u32)> {
    let rest = name.strip_prefix('.')?.strip_suffix(".tmp")?;
    let (rest, token) = rest.rsplit_once('.')?;
    let (file, pid) = rest.rsplit_once('.')?;
    if file.is_empty() || token.is_empty() || !token.bytes().all(|b| b.is_ascii_alphanumeric()) {
        return None;
    }
    Some((file, pid.parse().ok()?))
}

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
    let staging_prefix = format!("{lock_rel}.staging-");
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
        let rel = format!("{dir}{name}");
        let path = files.dir.join(&rel);
        if dir.is_empty() && name.starts_with(&staging_prefix) {
            let owner = read_no_follow(&path.join(OWNER_FILE), Kind::LockRecord)
                .ok()
                .flatten()
                .and_then(|b| serde_json::from_slice::<LockOwner>(&b).ok());
            let status = match &owner {
                Some(o) => owner_status(&LockHolder::Owner(o.clone())),
                None => OwnerStatus::Unknown("it holds no owner record".into()),
            };
            let rm = format!("rm -r {}", Path::new(shown).join(&rel).display());
            match status {
                OwnerStatus::Alive => {}
                OwnerStatus::Dead(why) => out.push(
                    Finding::advisory(
                        "writer-debris",
                        format!(
                            "{rel}/ is the staging folder of a lock a killed writer never took ({why})"
                        ),
                    )
                    .file(rel.clone())
                    .hint(format!(
                        "`{rm}` (it never was a lock; the next write removes it too)"
                    )),
                ),
                OwnerStatus::Unknown(why) => out.push(
                    Finding::advisory(
                        "writer-debris",
                        format!("{rel}/ is the staging folder of a lock that was never taken ({why})"),
                    )
                    .file(rel.clone())
                    .hint(format!(
                        "first check that no planseal writer is running; then `{rm}`"
                    )),
                ),
            }
            continue;
        }
        let Some((_, pid)) = temp_file_of(&name) else {
            continue;
        };
        let owned_by_dead_lock = dir.is_empty() && dead_lock_pid == Some(pid);
        if pid_alive(pid) && !owned_by_dead_lock {
            continue;
        }
        let hint = if owned_by_dead_lock {
            format!(
                "`planseal unlock {shown} --reason TEXT` removes it with the dead writer's lock"
            )
        } else {
            format!(
                "`rm {}` (the temp file of an interrupted atomic write; nothing reads it)",
                Path::new(shown).join(&rel).display()
            )
        };
        out.push(
            Finding::advisory(
                "writer-debris",
                format!("{rel} is the temp file of a write that pid {pid} never finished"),
            )
            .file(rel.clone())
            .hint(hint),
        );
    }
    out
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

#[cfg(test)]
mod tests {
    use super::temp_file_of;

    #[test]
    fn temp_file_names_are_recognised() {
        assert_eq!(
            temp_file_of(".state.json.4242.a1b2c3.tmp"),
            Some(("state.json", 4242))
        );
        assert_eq!(temp_file_of(".README.md.7.x.tmp"), Some(("README.md", 7)));
        assert_eq!(temp_file_of("state.json.4242.a1.tmp"), None);
        assert_eq!(temp_file_of(".state.json.tmp"), None);
        assert_eq!(temp_file_of(".state.json.pid.a1.tmp"), None);
    }
}
