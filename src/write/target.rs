//! What a writer writes: the file, its lock, its journal, and the folder it must stay inside.

use super::WriteError;
use crate::recovery::paths;
use crate::recovery::store::{Journal, LockStyle, StoreError};
use std::path::{Path, PathBuf};

/// One file a command may change. Built by each format's `layout` module, so the lock style and
/// the journal's place are decided once per format.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    path: PathBuf,
    lock: LockStyle,
    journal: Journal,
    /// The folder every file of a transaction must stay inside (the DWP plan folder).
    root: Option<PathBuf>,
    /// How the file is named in hints (`planseal unlock <this>`).
    shown: String,
}

impl Target {
    /// `path`, locked by `lock`, journaled to `journal`.
    pub fn new(path: impl Into<PathBuf>, lock: LockStyle, journal: Journal) -> Self {
        let path = path.into();
        let shown = path.display().to_string();
        Self {
            path,
            lock,
            journal,
            root: None,
            shown,
        }
    }

    /// `path` with its journal beside it as `<file>.journal.ndjson` (GSD, Reversa and checkpoint
    /// files).
    pub fn journal_beside(path: impl Into<PathBuf>, lock: LockStyle) -> Self {
        let path = path.into();
        let mut journal = path.as_os_str().to_owned();
        journal.push(".journal.ndjson");
        Self::new(path, lock, Journal::new(PathBuf::from(journal)))
    }

    /// Every file a transaction on this target writes must resolve inside `root`.
    pub fn inside(mut self, root: impl Into<PathBuf>) -> Self {
        self.root = Some(root.into());
        self
    }

    /// The name hints use for the file (default: its path as given).
    pub fn shown_as(mut self, shown: impl Into<String>) -> Self {
        self.shown = shown.into();
        self
    }

    /// The file this target writes, as its layout built it.
    pub fn path(&self) -> &Path {
        &self.path
    }
    /// How the file is locked: a lock folder with an owner record, or GSD's pid file.
    pub fn lock_style(&self) -> &LockStyle {
        &self.lock
    }
    /// The journal every change of this file appends a line to.
    pub fn journal(&self) -> &Journal {
        &self.journal
    }
    /// Removes the leftovers of provably dead writers in the journal's folder when it is not the
    /// target's own (a DWP plan's `analysis_results/`: receipt and journal temps).
    pub fn sweep_journal_folder(&self) -> crate::recovery::store::debris::Sweep {
        crate::recovery::store::commit::sweep_journal_folder(&self.path, self.journal.path())
    }
    /// The folder every file of a transaction must resolve inside; `None` when only the file itself
    /// is written.
    pub fn root(&self) -> Option<&Path> {
        self.root.as_deref()
    }
    /// How hints name the file (`planseal unlock <this>`).
    pub fn shown(&self) -> &str {
        &self.shown
    }
    /// Where the lock lives (`<file>.lock`, a folder or a pid file).
    pub fn lock_path(&self) -> PathBuf {
        self.lock.lock_path(&self.path)
    }

    /// Refuses (`symlink-escape`) before anything is written when the target, the journal, or any
    /// of `files` (relative to the root), would be written through a symlink leading out of the
    /// root.
    pub fn check_writable(&self, files: &[&str]) -> Result<(), WriteError> {
        self.check_paths(files)
            .map_err(|e| super::refusal_of(e, self))
    }

    fn check_paths(&self, files: &[&str]) -> Result<(), StoreError> {
        self.journal.check_target()?;
        let Some(root) = &self.root else {
            return Ok(());
        };
        // The target itself first: a symlink in its place leading out of the root is never
        // replaced or read through.
        let own = self
            .path
            .strip_prefix(root)
            .ok()
            .and_then(|p| p.to_str())
            .filter(|p| !p.is_empty());
        for rel in own.into_iter().chain(files.iter().copied()) {
            if let Err(e) = paths::resolve_inside(root, rel, false) {
                let target = match e {
                    paths::PathError::SymlinkEscape(to) => to,
                    _ => root.join(rel),
                };
                return Err(StoreError::SymlinkEscape {
                    path: root.join(rel),
                    root: root.clone(),
                    target,
                });
            }
        }
        Ok(())
    }
}
