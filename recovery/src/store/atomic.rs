//! Atomic replace and durable removal of one file.
//!
//! A reader (or a crash) sees the old bytes or the new bytes of the target, never a mixture:
//! the new bytes go to a temp file in the same folder, which is flushed to disk and then renamed
//! over the target; the folder is synced so the rename itself survives a power loss.

use super::StoreError;
use super::confirm::{Confirmation, Unconfirmed, UnconfirmedStep};
use super::failpoint::crash_point;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// Whether writes are flushed to the disk before they count as done.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub enum Durability {
    /// fsync the temp file before the rename and the folder after it (the default).
    #[default]
    Full,
    /// Skip every fsync. Crash-consistent against a killed process but not against a power
    /// loss; only for measuring what fsync costs.
    NoSync,
}

/// The folder a file lives in (`.` for a bare file name).
pub(crate) fn parent_dir(path: &Path) -> PathBuf {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// Replaces `path` with `bytes` atomically; an error names the step, whether it came before or
/// after the rename. Writers that must tell "not applied" from "applied, not confirmed" call
/// [`replace_atomic`] instead.
pub fn write_atomic(path: &Path, bytes: &[u8], durability: Durability) -> Result<(), StoreError> {
    match replace_atomic(path, bytes, durability)? {
        Confirmation::Confirmed => Ok(()),
        Confirmation::Unconfirmed(list) => Err(StoreError::io(
            "fsync folder",
            list[0].path.clone(),
            std::io::Error::other(list[0].reason.clone()),
        )),
    }
}

/// Replaces `path` with `bytes` atomically. An existing file keeps its permission bits; a new
/// file gets `0666` minus the umask.
///
/// The rename is the commit point. An error (creating, writing or syncing the temp file, the
/// rename itself) means the target was not touched, and the temp file is removed. Once the
/// rename happened the result is `Ok`: a folder that cannot be synced afterwards is
/// [`Confirmation::Unconfirmed`], never an error. Crash points: `store.after_temp_write`
/// (temp file complete, target untouched) and `store.after_rename` (target replaced, folder not
/// yet synced).
pub fn replace_atomic(
    path: &Path,
    bytes: &[u8],
    durability: Durability,
) -> Result<Confirmation, StoreError> {
    replace_atomic_with_mode(path, bytes, None, durability)
}

/// [`replace_atomic`] with the permission bits given: `Some(mode)` sets them on the new file
/// (an executable git hook, a file moved back with its own bits), `None` keeps the existing
/// file's bits as [`replace_atomic`] does.
pub fn replace_atomic_with_mode(
    path: &Path,
    bytes: &[u8],
    mode: Option<u32>,
    durability: Durability,
) -> Result<Confirmation, StoreError> {
    let dir = parent_dir(path);
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "file".to_string());
    // A symlinked target is replaced by the rename, never followed: its target's bits are not
    // read either.
    let keep_mode = std::fs::symlink_metadata(path)
        .ok()
        .filter(|m| m.file_type().is_file())
        .map(|m| m.permissions().mode() & 0o7777);
    let keep_mode = mode.map(|m| m & 0o7777).or(keep_mode);
    let temp = temp_path(&dir, &name);

    let result = write_temp(&temp, bytes, keep_mode, durability).and_then(|()| {
        crash_point("store.after_temp_write");
        faulted("store.rename")
            .map_or_else(|| std::fs::rename(&temp, path), Err)
            .map_err(|e| StoreError::io("rename temp file onto", path, e))
    });
    if let Err(e) = result {
        let _ = std::fs::remove_file(&temp);
        return Err(e);
    }
    crash_point("store.after_rename");
    Ok(confirm_dir(&dir, durability))
}

/// Syncs `dir` after a rename or removal inside it already happened: a failure is what was not
/// confirmed, not an error.
/// `.<name>.<pid>-<ticks>.<token>.tmp` in `dir`: the process start ticks make a dead writer's
/// temp file provable even after its pid was reused ([`super::debris`] reads the name).
pub(crate) fn temp_path(dir: &Path, name: &str) -> PathBuf {
    let token = super::process::random_token();
    let tag = super::process::NameTag::of_this_process();
    dir.join(format!(".{name}.{tag}.{}.tmp", &token[..8]))
}

fn confirm_dir(dir: &Path, durability: Durability) -> Confirmation {
    if durability == Durability::NoSync {
        return Confirmation::Confirmed;
    }
    match fsync_dir(dir) {
        Ok(()) => Confirmation::Confirmed,
        Err(e) => Confirmation::Unconfirmed(vec![Unconfirmed::new(
            UnconfirmedStep::FolderSync,
            dir,
            e.to_string(),
        )]),
    }
}

/// Creates `path` (it must not exist), writes `bytes` and, with [`Durability::Full`], syncs it:
/// the temp file of a record that is renamed into place whole (an owner record, a journal's
/// first line).
pub(crate) fn create_synced(
    path: &Path,
    bytes: &[u8],
    durability: Durability,
) -> std::io::Result<()> {
    let mut file = OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o666)
        .open(path)?;
    file.write_all(bytes)?;
    if durability == Durability::Full {
        file.sync_all()?;
    }
    Ok(())
}

/// `Err(the armed error)` when the fault point `name` is armed (tests only), else `Ok`.
fn fault(name: &str) -> std::io::Result<()> {
    faulted(name).map_or(Ok(()), Err)
}

fn faulted(name: &str) -> Option<std::io::Error> {
    super::failpoint::io_fault(name)
}

fn write_temp(
    temp: &Path,
    bytes: &[u8],
    keep_mode: Option<u32>,
    durability: Durability,
) -> Result<(), StoreError> {
    let mut file = fault("store.create_temp")
        .and_then(|()| {
            OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(0o666)
                .open(temp)
        })
        .map_err(|e| StoreError::io("create temp file", temp, e))?;
    fault("store.write_temp")
        .and_then(|()| file.write_all(bytes))
        .map_err(|e| StoreError::io("write temp file", temp, e))?;
    if let Some(mode) = keep_mode {
        file.set_permissions(std::fs::Permissions::from_mode(mode))
            .map_err(|e| StoreError::io("set permissions of temp file", temp, e))?;
    }
    if durability == Durability::Full {
        fault("store.fsync_temp")
            .and_then(|()| file.sync_all())
            .map_err(|e| StoreError::io("fsync temp file", temp, e))?;
    }
    Ok(())
}

/// fsync a folder, so that renames and removals inside it are durable.
pub fn fsync_dir(dir: &Path) -> Result<(), StoreError> {
    fault("store.fsync_dir")
        .and_then(|()| File::open(dir))
        .and_then(|d| d.sync_all())
        .map_err(|e| StoreError::io("fsync folder", dir, e))
}

/// Removes `path` and syncs its folder. Returns `false` when there was nothing to remove.
pub fn remove_durable(path: &Path, durability: Durability) -> Result<bool, StoreError> {
    match remove_atomic(path, durability)? {
        None => Ok(false),
        Some(Confirmation::Confirmed) => Ok(true),
        Some(Confirmation::Unconfirmed(list)) => Err(StoreError::io(
            "fsync folder",
            list[0].path.clone(),
            std::io::Error::other(list[0].reason.clone()),
        )),
    }
}

/// Removes `path`, then syncs its folder. `None` when there was nothing to remove; an error
/// means the file is still there; once it is gone, a folder that cannot be synced is
/// [`Confirmation::Unconfirmed`].
pub fn remove_atomic(
    path: &Path,
    durability: Durability,
) -> Result<Option<Confirmation>, StoreError> {
    match std::fs::remove_file(path) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(StoreError::io("remove", path, e)),
    }
    Ok(Some(confirm_dir(&parent_dir(path), durability)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_bytes_and_keeps_mode() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("state.json");
        std::fs::write(&p, b"old").unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o640)).unwrap();
        write_atomic(&p, b"new bytes", Durability::Full).unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"new bytes");
        let mode = std::fs::metadata(&p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o640);
        // no temp file left behind
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, vec![std::ffi::OsString::from("state.json")]);
    }

    #[test]
    fn creates_new_file_and_removes_it() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("marker.json");
        write_atomic(&p, b"{}", Durability::NoSync).unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"{}");
        assert!(remove_durable(&p, Durability::Full).unwrap());
        assert!(!remove_durable(&p, Durability::Full).unwrap());
    }

    #[test]
    fn missing_folder_is_an_error_naming_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("nope/state.json");
        let err = write_atomic(&p, b"x", Durability::Full).unwrap_err();
        assert!(err.to_string().contains("create temp file"), "{err}");
    }
}
