//! Files a command produces for people to read (the page `planseal report` writes), as opposed
//! to the state files the rest of this module guards. No plan tool reads them, so they take no
//! lock and write no journal line; they are still replaced atomically (a reader sees the old page
//! or the new one, never half of it) and synced like every other write.

use super::{Confirmation, WriteError, Writer};
use crate::recovery::store::{self, StoreError};
use std::path::Path;

/// Replaces `path` with `bytes` through a temp file in the same folder. An error is before the
/// rename (nothing was written); after it, a folder that could not be synced is what the
/// [`Confirmation`] says.
pub fn write_output(path: &Path, bytes: &[u8]) -> Result<Confirmation, WriteError> {
    replace_unlocked(path, bytes, Writer::from_env().durability())
}

/// `path` replaced atomically at `durability`, with no lock and no journal line: the one way
/// every file no plan tool guards is written (a report page, a scratch file, git's `%A`).
pub(super) fn replace_unlocked(
    path: &Path,
    bytes: &[u8],
    durability: store::Durability,
) -> Result<Confirmation, WriteError> {
    store::atomic::replace_atomic(path, bytes, durability).map_err(|e| match e {
        StoreError::Io { op, path, source } => WriteError::Io { op, path, source },
        other => WriteError::Io {
            op: "write",
            path: path.to_path_buf(),
            source: std::io::Error::other(other.to_string()),
        },
    })
}

/// Creates the folder `path` with its parents when it is missing (git's hooks folder before a
/// hook is written into it), and syncs the folder above the first one created. Returns whether
/// anything was created; an error means nothing usable was.
pub fn create_folder(path: &Path) -> Result<bool, WriteError> {
    if path.is_dir() {
        return Ok(false);
    }
    let first_missing = path
        .ancestors()
        .take_while(|p| !p.exists())
        .last()
        .unwrap_or(path)
        .to_path_buf();
    std::fs::create_dir_all(path).map_err(|source| WriteError::Io {
        op: "create folder",
        path: path.to_path_buf(),
        source,
    })?;
    if Writer::from_env().durability() == store::Durability::Full
        && let Some(parent) = first_missing.parent()
    {
        store::fsync_dir(parent).map_err(|e| WriteError::Io {
            op: "fsync folder",
            path: parent.to_path_buf(),
            source: std::io::Error::other(e.to_string()),
        })?;
    }
    Ok(true)
}

/// A scratch file other tools poll and nobody needs after a crash (the statusline's context
/// bridge in the temp folder): replaced atomically, so a reader never sees half of it, but not
/// synced — it is rewritten on the next prompt anyway, and the statusline must stay fast.
pub fn write_scratch(path: &Path, bytes: &[u8]) -> Result<(), WriteError> {
    replace_unlocked(path, bytes, store::Durability::NoSync).map(|_| ())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_the_file_whole_and_leaves_no_temp_file() {
        let dir = tempfile::tempdir().expect("tempdir");
        let page = dir.path().join("report.html");
        std::fs::write(&page, "old").expect("write");
        let confirmation = write_output(&page, b"new page").expect("written");
        assert_eq!(confirmation, Confirmation::Confirmed);
        assert_eq!(std::fs::read(&page).expect("read"), b"new page");
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .expect("list")
            .map(|e| e.expect("entry").file_name())
            .collect();
        assert_eq!(names, ["report.html"]);
    }

    #[test]
    fn a_missing_folder_is_an_io_error_and_nothing_is_written() {
        let dir = tempfile::tempdir().expect("tempdir");
        let page = dir.path().join("no/such/folder/report.html");
        match write_output(&page, b"x") {
            Err(WriteError::Io { .. }) => {}
            other => panic!("{other:?}"),
        }
        assert!(!page.exists());
    }
}
