//! The append-only transition journal: one compact JSON object per line (ndjson).
//!
//! A crash in the middle of an append can leave an unterminated last line. Readers ignore it;
//! the next append first ends it with a newline, so it becomes a skipped bad line and never
//! glues itself onto the next entry.

use super::StoreError;
use super::atomic::{Durability, fsync_dir, parent_dir};
use super::failpoint::crash_point;
use std::fs::OpenOptions;
use std::io::Write;
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

/// One journal file.
#[derive(Debug, Clone)]
pub struct Journal {
    path: PathBuf,
    /// The folder the journal must stay inside (the plan folder), when known.
    root: Option<PathBuf>,
    /// That folder canonicalised, once: a write checks the journal's place before the lock and
    /// again before it appends.
    root_canonical: std::sync::OnceLock<PathBuf>,
}

/// Two journals are the same file kept inside the same folder, whether or not either has
/// resolved that folder yet.
impl PartialEq for Journal {
    fn eq(&self, other: &Self) -> bool {
        self.path == other.path && self.root == other.root
    }
}

impl Eq for Journal {}

/// What a journal holds: the entries that parse, plus what was skipped.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct JournalRead {
    /// Every complete line that is a JSON value, in order.
    pub entries: Vec<serde_json::Value>,
    /// 1-based numbers of complete lines that are not JSON (ends of earlier torn appends).
    pub bad_lines: Vec<usize>,
    /// The file ends in an unterminated line (a crash during the last append).
    pub torn_tail: bool,
}

impl Journal {
    /// A journal at `path` with no folder it must stay inside: only a journal file that is itself
    /// a symlink is refused.
    pub fn new(path: impl Into<PathBuf>) -> Self {
        Self {
            path: path.into(),
            root: None,
            root_canonical: std::sync::OnceLock::new(),
        }
    }

    /// A journal that must stay inside `root`: an append whose folder resolves outside it is
    /// refused (`symlink-escape`).
    pub fn inside(root: impl Into<PathBuf>, path: impl Into<PathBuf>) -> Self {
        Self {
            path: path.into(),
            root: Some(root.into()),
            root_canonical: std::sync::OnceLock::new(),
        }
    }

    /// Refuses (`symlink-escape`) when the journal file is a symlink, or when its folder (or the
    /// nearest existing ancestor) resolves outside the root. Writers call it before changing
    /// anything, so a refused journal leaves every file as it was.
    pub fn check_target(&self) -> Result<(), StoreError> {
        let escape = |target: PathBuf| StoreError::SymlinkEscape {
            path: self.path.clone(),
            root: self.root.clone().unwrap_or_else(|| parent_dir(&self.path)),
            target,
        };
        if let Ok(meta) = std::fs::symlink_metadata(&self.path) {
            if meta.file_type().is_symlink() {
                return Err(escape(std::fs::read_link(&self.path).unwrap_or_default()));
            }
            // A FIFO in the journal's place would take the line and keep it nowhere.
            if !meta.is_file() {
                return Err(crate::read::ReadError::NotRegularFile {
                    path: self.path.clone(),
                    what: crate::read::what_it_is(&meta),
                }
                .into());
            }
        }
        let Some(root) = &self.root else {
            return Ok(());
        };
        let root_canon = match self.root_canonical.get() {
            Some(known) => known,
            None => {
                let found = root
                    .canonicalize()
                    .map_err(|e| StoreError::io("resolve journal root", root, e))?;
                self.root_canonical.get_or_init(|| found)
            }
        };
        let mut ancestor = Some(parent_dir(&self.path));
        while let Some(dir) = ancestor {
            if let Ok(canon) = dir.canonicalize() {
                if !canon.starts_with(root_canon) {
                    return Err(escape(canon));
                }
                return Ok(());
            }
            ancestor = dir.parent().map(Path::to_path_buf);
        }
        Ok(())
    }

    /// The journal file's path, as it was given.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends `entry` as one line. Creates the file (and its folder) when missing. Crash point:
    /// `store.after_journal_append`.
    pub fn append(
        &self,
        entry: &impl serde::Serialize,
        durability: Durability,
    ) -> Result<(), StoreError> {
        self.check_target()?;
        // One compact line; serialised from the caller's values, never through a copy of them.
        let body = serde_json::to_vec(entry).map_err(|e| {
            StoreError::io(
                "serialise journal line",
                &self.path,
                std::io::Error::other(e),
            )
        })?;
        let dir = parent_dir(&self.path);
        let dir_existed = dir.is_dir();
        if !dir_existed {
            std::fs::create_dir_all(&dir)
                .map_err(|e| StoreError::io("create journal folder", &dir, e))?;
        }
        let existed = self.path.exists();
        if !existed && self.create_with(&body, durability, &dir)? {
            crash_point("store.after_journal_append");
            return Ok(());
        }
        let mut file = OpenOptions::new()
            .read(true)
            .append(true)
            .create(true)
            .mode(0o666)
            // A symlink swapped in after the check is still never followed.
            .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
            .open(&self.path)
            .map_err(|e| match e.raw_os_error() {
                Some(libc::ELOOP) => StoreError::SymlinkEscape {
                    path: self.path.clone(),
                    root: self.root.clone().unwrap_or_else(|| dir.clone()),
                    target: std::fs::read_link(&self.path).unwrap_or_default(),
                },
                _ => StoreError::io("open journal", &self.path, e),
            })?;
        let meta = file
            .metadata()
            .map_err(|e| StoreError::io("stat journal", &self.path, e))?;
        if !meta.is_file() {
            return Err(crate::read::ReadError::NotRegularFile {
                path: self.path.clone(),
                what: crate::read::what_it_is(&meta),
            }
            .into());
        }
        let len = meta.len();
        let mut line = Vec::with_capacity(256);
        if len > 0 {
            let mut last = [0u8; 1];
            file.read_exact_at(&mut last, len - 1)
                .map_err(|e| StoreError::io("read journal", &self.path, e))?;
            if last[0] != b'\n' {
                line.push(b'\n');
            }
        }
        line.extend_from_slice(&body);
        line.push(b'\n');
        match super::failpoint::io_fault("store.journal_write") {
            Some(e) => Err(e),
            None => file.write_all(&line),
        }
        .map_err(|e| StoreError::io("append to journal", &self.path, e))?;
        if durability == Durability::Full {
            file.sync_data()
                .map_err(|e| StoreError::io("fsync journal", &self.path, e))?;
            if !existed {
                fsync_dir(&dir)?;
            }
        }
        crash_point("store.after_journal_append");
        Ok(())
    }

    /// A new journal appears whole or not at all: its first line is written to a temp file,
    /// fsynced and renamed onto the journal's name without replacing (a failed or killed append
    /// leaves no journal, never an empty or half-written one). `false` when a journal appeared
    /// meanwhile: the caller appends to it.
    fn create_with(
        &self,
        body: &[u8],
        durability: Durability,
        dir: &Path,
    ) -> Result<bool, StoreError> {
        let name = self.path.file_name().unwrap_or_default().to_string_lossy();
        let temp = super::atomic::temp_path(dir, &name);
        let mut line = Vec::with_capacity(body.len() + 1);
        line.extend_from_slice(body);
        line.push(b'\n');
        let written = match super::failpoint::io_fault("store.journal_write") {
            Some(e) => Err(e),
            None => super::atomic::create_synced(&temp, &line, durability),
        };
        let placed = written.and_then(|()| {
            super::lock::place_no_replace(&temp, &self.path).map(|()| {
                let _ = std::fs::remove_file(&temp); // left behind by the hard-link fallback
            })
        });
        match placed {
            Ok(()) => {}
            Err(e) => {
                let _ = std::fs::remove_file(&temp);
                if e.kind() == std::io::ErrorKind::AlreadyExists {
                    return Ok(false);
                }
                return Err(StoreError::io("append to journal", &self.path, e));
            }
        }
        if durability == Durability::Full {
            fsync_dir(dir)?;
        }
        Ok(true)
    }

    /// Reads the journal; a missing file is an empty journal.
    pub fn read(&self) -> Result<JournalRead, StoreError> {
        match crate::read::read(&self.path, crate::read::Kind::Journal)? {
            Some(bytes) => Ok(read_journal(&bytes)),
            None => Ok(JournalRead::default()),
        }
    }
}

/// Parses journal bytes (pure).
pub fn read_journal(bytes: &[u8]) -> JournalRead {
    let mut out = JournalRead::default();
    let mut rest = bytes;
    let mut number = 0;
    while !rest.is_empty() {
        number += 1;
        let Some(end) = rest.iter().position(|&b| b == b'\n') else {
            out.torn_tail = true;
            break;
        };
        let line = &rest[..end];
        rest = &rest[end + 1..];
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        match serde_json::from_slice::<serde_json::Value>(line) {
            Ok(v) => out.entries.push(v),
            Err(_) => out.bad_lines.push(number),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The root is resolved once per journal, its folder at every check: a folder swapped for
    /// a symlink out of the root after a first check is still refused, nothing appended.
    #[test]
    fn a_folder_swapped_for_a_link_out_after_a_check_is_refused() {
        let root = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let folder = root.path().join("results");
        std::fs::create_dir(&folder).unwrap();
        let j = Journal::inside(root.path(), folder.join("J.ndjson"));
        j.check_target().unwrap();
        std::fs::remove_dir(&folder).unwrap();
        std::os::unix::fs::symlink(outside.path(), &folder).unwrap();
        assert_eq!(j.check_target().unwrap_err().kind(), "symlink-escape");
        let err = j.append(&json!({"n": 1}), Durability::NoSync).unwrap_err();
        assert_eq!(err.kind(), "symlink-escape");
        assert_eq!(std::fs::read_dir(outside.path()).unwrap().count(), 0);
    }

    #[test]
    fn appends_and_reads_back() {
        let dir = tempfile::tempdir().unwrap();
        let j = Journal::new(dir.path().join("analysis_results/J.ndjson"));
        j.append(&json!({"n": 1}), Durability::Full).unwrap();
        j.append(&json!({"n": 2, "t": "—"}), Durability::NoSync)
            .unwrap();
        let r = j.read().unwrap();
        assert_eq!(r.entries, vec![json!({"n": 1}), json!({"n": 2, "t": "—"})]);
        assert!(!r.torn_tail && r.bad_lines.is_empty());
    }

    #[test]
    fn torn_tail_is_ignored_then_terminated_by_the_next_append() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("j.ndjson");
        std::fs::write(&p, b"{\"n\":1}\n{\"n\":").unwrap();
        let j = Journal::new(&p);
        let r = j.read().unwrap();
        assert_eq!(r.entries, vec![json!({"n": 1})]);
        assert!(r.torn_tail);
        j.append(&json!({"n": 3}), Durability::Full).unwrap();
        let r = j.read().unwrap();
        assert_eq!(r.entries, vec![json!({"n": 1}), json!({"n": 3})]);
        assert_eq!(r.bad_lines, vec![2]);
        assert!(!r.torn_tail);
    }

    #[test]
    fn missing_journal_is_empty() {
        let dir = tempfile::tempdir().unwrap();
        let r = Journal::new(dir.path().join("none")).read().unwrap();
        assert_eq!(r, JournalRead::default());
    }
}
