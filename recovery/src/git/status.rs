//! The work tree's status with `git status` semantics (ignored paths never reported), through
//! gix's status machinery: index vs work tree (modified, deleted, untracked) and `HEAD` vs index
//! (staged changes).

use super::{GitError, Repo};
use gix::bstr::{BString, ByteSlice};
use gix::status::index_worktree::iter::Summary;

/// How a path differs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum StatusKind {
    /// Not tracked and not ignored.
    Untracked,
    /// Tracked; the work tree content differs from the index.
    Modified,
    /// Tracked; missing from the work tree.
    Deleted,
    /// Tracked; the kind of entry changed (file ↔ symlink ↔ directory).
    TypeChange,
    /// Unmerged entry.
    Conflict,
    /// Added with `git add -N`.
    IntentToAdd,
    /// Staged: added to the index, not in `HEAD`.
    StagedAdded,
    /// Staged: differs between `HEAD` and the index.
    StagedModified,
    /// Staged: removed from the index.
    StagedDeleted,
}

impl StatusKind {
    /// A change recorded in the index but not committed.
    pub fn is_staged(self) -> bool {
        matches!(
            self,
            StatusKind::StagedAdded | StatusKind::StagedModified | StatusKind::StagedDeleted
        )
    }

    /// A tracked file whose work-tree state differs from the index.
    pub fn is_unstaged_tracked(self) -> bool {
        matches!(
            self,
            StatusKind::Modified
                | StatusKind::Deleted
                | StatusKind::TypeChange
                | StatusKind::Conflict
                | StatusKind::IntentToAdd
        )
    }

    /// A short stable name (`untracked`, `modified`, `staged-added`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            StatusKind::Untracked => "untracked",
            StatusKind::Modified => "modified",
            StatusKind::Deleted => "deleted",
            StatusKind::TypeChange => "type-change",
            StatusKind::Conflict => "conflict",
            StatusKind::IntentToAdd => "intent-to-add",
            StatusKind::StagedAdded => "staged-added",
            StatusKind::StagedModified => "staged-modified",
            StatusKind::StagedDeleted => "staged-deleted",
        }
    }
}

/// One path that differs, relative to the work tree root with `/` separators.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct StatusEntry {
    /// The path, relative to the work tree root with `/` separators.
    pub path: String,
    /// How the path differs from `HEAD` or the index.
    pub kind: StatusKind,
}

/// `PLANSEAL_GIT_THREADS=N` caps the threads git's work-tree status compares files with (unset
/// or not a positive number: one per core). The fault suite sets 1 so that a fault injected into
/// the N-th system call hits planseal's own thread, not a status worker (`docs/verify.md`).
fn thread_limit() -> Option<usize> {
    std::env::var("PLANSEAL_GIT_THREADS")
        .ok()
        .and_then(|v| v.trim().parse::<usize>().ok())
        .filter(|n| *n > 0)
}

impl Repo {
    /// Paths that differ from `HEAD` or the index, limited to `pathspecs` (relative to the work
    /// tree root; empty means the whole tree). Each untracked file is listed on its own;
    /// ignored files never are. Sorted by path, then kind.
    pub fn status(&self, pathspecs: &[&str]) -> Result<Vec<StatusEntry>, GitError> {
        if self.work_tree.is_none() {
            return Err(GitError::NoWorkTree {
                git_dir: self.git_dir.clone(),
            });
        }
        let patterns: Vec<BString> = pathspecs
            .iter()
            .map(|p| BString::from(format!(":(literal){p}")))
            .collect();
        let platform = self
            .gix()
            .status(gix::progress::Discard)
            .map_err(|e| GitError::read("the work-tree status", e))?
            .untracked_files(gix::status::UntrackedFiles::Files)
            .index_worktree_options_mut(|o| o.thread_limit = thread_limit());
        let iter = platform
            .into_iter(patterns)
            .map_err(|e| GitError::read("the work-tree status", e))?;
        let mut entries = Vec::new();
        for item in iter {
            let item = item.map_err(|e| GitError::read("the work-tree status", e))?;
            match item {
                gix::status::Item::IndexWorktree(change) => {
                    let kind = match change.summary() {
                        Some(Summary::Added) => StatusKind::Untracked,
                        Some(Summary::Removed) => StatusKind::Deleted,
                        Some(Summary::Modified) => StatusKind::Modified,
                        Some(Summary::TypeChange) => StatusKind::TypeChange,
                        Some(Summary::Conflict) => StatusKind::Conflict,
                        Some(Summary::IntentToAdd) => StatusKind::IntentToAdd,
                        // Rewrite tracking is off, so renames and copies do not occur.
                        Some(Summary::Renamed) | Some(Summary::Copied) => StatusKind::Modified,
                        None => continue,
                    };
                    entries.push(StatusEntry {
                        path: change.rela_path().to_str_lossy().into_owned(),
                        kind,
                    });
                }
                gix::status::Item::TreeIndex(change) => {
                    use gix::diff::index::ChangeRef;
                    let (path, kind) = match &change {
                        ChangeRef::Addition { location, .. } => (
                            location.to_str_lossy().into_owned(),
                            StatusKind::StagedAdded,
                        ),
                        ChangeRef::Deletion { location, .. } => (
                            location.to_str_lossy().into_owned(),
                            StatusKind::StagedDeleted,
                        ),
                        ChangeRef::Modification { location, .. }
                        | ChangeRef::Rewrite { location, .. } => (
                            location.to_str_lossy().into_owned(),
                            StatusKind::StagedModified,
                        ),
                    };
                    entries.push(StatusEntry { path, kind });
                }
            }
        }
        entries.sort();
        entries.dedup();
        Ok(entries)
    }

    /// Is `path` (relative to the work tree root) tracked — a file in the index, or a directory
    /// with at least one tracked file under it?
    pub fn is_tracked(&self, path: &str) -> Result<bool, GitError> {
        let index = self
            .gix()
            .index_or_empty()
            .map_err(|e| GitError::read("the index", e))?;
        let path = path.trim_end_matches('/');
        if index.entry_by_path(path.as_bytes().as_bstr()).is_some() {
            return Ok(true);
        }
        let prefix = format!("{path}/");
        Ok(index
            .prefixed_entries(prefix.as_bytes().as_bstr())
            .is_some_and(|entries| !entries.is_empty()))
    }

    /// How many tracked files have changes not staged for commit (what the checkpoint
    /// protocol calls "modified files").
    pub fn unstaged_tracked_count(&self) -> Result<usize, GitError> {
        Ok(self
            .status(&[])?
            .iter()
            .filter(|e| e.kind.is_unstaged_tracked())
            .count())
    }
}
