//! What a writer writes: the file, its lock, its journal, and the folder it must stay inside.

use super::WriteError;
use crate::recovery::paths;
use crate::recovery::store::{Journal, JournalRead, LockStyle, StoreError};
use std::path::{Path, PathBuf};

/// The folder of the moved journals inside a work tree's git directory.
const JOURNALS_DIR: &str = "planseal/journals";
/// A journal's name: the file's name and this.
const JOURNAL_SUFFIX: &str = ".journal.ndjson";

/// `<file>.journal.ndjson`.
fn beside(path: &Path) -> PathBuf {
    let mut journal = path.as_os_str().to_owned();
    journal.push(JOURNAL_SUFFIX);
    PathBuf::from(journal)
}

/// One file a command may change. Built by each format's `layout` module, so the lock style and
/// the journal's place are decided once per format.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    path: PathBuf,
    lock: LockStyle,
    journal: Journal,
    /// Where the journal was kept before it moved into the git directory (beside the file):
    /// still read, never written.
    old_journal: Option<Journal>,
    /// The `.git` above the file that could not be read, and why: the journal has no place, so
    /// every write and journal read refuses (an I/O error, nothing applied).
    unplaced: Option<(PathBuf, std::io::ErrorKind, String)>,
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
            old_journal: None,
            unplaced: None,
            root: None,
            shown,
        }
    }

    /// `path` with its journal beside it as `<file>.journal.ndjson` (Reversa files).
    pub fn journal_beside(path: impl Into<PathBuf>, lock: LockStyle) -> Self {
        let path = path.into();
        let journal = beside(&path);
        Self::new(path, lock, Journal::new(journal))
    }

    /// `path` with its journal in the git directory of its work tree, keyed by its path from the
    /// work tree root: `<git dir>/planseal/journals/<path>.journal.ndjson` (GSD and checkpoint
    /// files, which sit among tracked files: a journal beside them would show up as untracked).
    /// Each linked work tree has its own git directory, so its journal is its own. Outside a work
    /// tree the journal stays beside the file. The journal beside the file, where earlier
    /// versions kept it, is still read ([`Target::read_journals`]).
    pub fn journal_in_git_dir(path: impl Into<PathBuf>, lock: LockStyle) -> Self {
        let path = path.into();
        let place = match crate::recovery::git::work_tree_place(&path) {
            Ok(Some(place)) => place,
            Ok(None) => return Self::journal_beside(path, lock),
            Err(e) => {
                let unplaced = (e.dot_git, e.source.kind(), e.source.to_string());
                let mut target = Self::journal_beside(path, lock);
                target.unplaced = Some(unplaced);
                return target;
            }
        };
        let mut key = place.git_dir.join(JOURNALS_DIR);
        key.extend(place.relative.split('/'));
        let mut journal = key.into_os_string();
        journal.push(JOURNAL_SUFFIX);
        let old = beside(&path);
        let mut target = Self::new(path, lock, Journal::inside(place.git_dir, journal));
        target.old_journal = Some(Journal::new(old));
        target
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
    /// Every line of the journal: the old place's (beside the file) first, then the current
    /// one's, so the last entry is the newest write wherever it was journaled. A journal that is
    /// missing reads as empty.
    pub fn read_journals(&self) -> Result<JournalRead, StoreError> {
        self.placed()?;
        let mut all = JournalRead::default();
        for journal in self
            .old_journal
            .iter()
            .chain(std::iter::once(&self.journal))
        {
            let read = journal.read()?;
            all.entries.extend(read.entries);
            all.bad_lines.extend(read.bad_lines);
            all.torn_tail |= read.torn_tail;
        }
        Ok(all)
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

    /// An error when the journal has no place (the `.git` above the file could not be read).
    pub(super) fn placed(&self) -> Result<(), StoreError> {
        match &self.unplaced {
            None => Ok(()),
            Some((dot_git, kind, why)) => Err(StoreError::Io {
                op: "find the journal's place: read",
                path: dot_git.clone(),
                source: std::io::Error::new(*kind, why.clone()),
            }),
        }
    }

    fn check_paths(&self, files: &[&str]) -> Result<(), StoreError> {
        self.placed()?;
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
