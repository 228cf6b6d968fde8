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

/// The work state of the checked-out branch, counted as `git status --porcelain=v2 --branch`
/// lists it: paths, not changes (one path can be both staged and unstaged), untracked folders
/// collapsed to one entry, ignored paths left out.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BranchStatus {
    /// The branch `HEAD` names (also before its first commit); `None` when `HEAD` is detached.
    pub branch: Option<String>,
    /// Commits on `HEAD` and not on the upstream branch (0 without an upstream).
    pub ahead: usize,
    /// Commits on the upstream branch and not on `HEAD`.
    pub behind: usize,
    /// Paths whose index entry differs from `HEAD`.
    pub staged: usize,
    /// Paths whose work-tree file differs from the index, and unmerged paths.
    pub unstaged: usize,
    /// Untracked files, and untracked folders counted once each.
    pub untracked: usize,
}

impl Repo {
    /// The branch, its distance to its upstream, and how many paths are staged, unstaged and
    /// untracked — what a prompt or a statusline shows.
    pub fn branch_status(&self) -> Result<BranchStatus, GitError> {
        use std::collections::BTreeSet;
        if self.work_tree.is_none() {
            return Err(GitError::NoWorkTree {
                git_dir: self.git_dir.clone(),
            });
        }
        let repo = self.gix();
        let head = repo.head().map_err(|e| GitError::read("HEAD", e))?;
        let branch_ref = if head.is_detached() {
            None
        } else {
            head.referent_name().map(|n| n.to_owned())
        };
        let branch = branch_ref.as_ref().map(|n| n.shorten().to_string());
        let (ahead, behind) = match (&branch_ref, self.head_commit_id()?) {
            (Some(name), Some(head_id)) => self.upstream_distance(name.as_ref(), head_id)?,
            _ => (0, 0),
        };

        let platform = repo
            .status(gix::progress::Discard)
            .map_err(|e| GitError::read("the work-tree status", e))?
            .untracked_files(gix::status::UntrackedFiles::Collapsed)
            .index_worktree_options_mut(|o| o.thread_limit = thread_limit());
        let iter = platform
            .into_iter(Vec::<BString>::new())
            .map_err(|e| GitError::read("the work-tree status", e))?;
        let (mut staged, mut unstaged, mut untracked) =
            (BTreeSet::new(), BTreeSet::new(), BTreeSet::new());
        for item in iter {
            let item = item.map_err(|e| GitError::read("the work-tree status", e))?;
            match item {
                gix::status::Item::IndexWorktree(change) => {
                    let path = change.rela_path().to_owned();
                    match change.summary() {
                        Some(Summary::Added) => {
                            untracked.insert(path);
                        }
                        Some(_) => {
                            unstaged.insert(path);
                        }
                        None => {}
                    }
                }
                gix::status::Item::TreeIndex(change) => {
                    use gix::diff::index::ChangeRef;
                    let location = match &change {
                        ChangeRef::Addition { location, .. }
                        | ChangeRef::Deletion { location, .. }
                        | ChangeRef::Modification { location, .. }
                        | ChangeRef::Rewrite { location, .. } => BString::from(location.as_ref()),
                    };
                    staged.insert(location);
                }
            }
        }
        Ok(BranchStatus {
            branch,
            ahead,
            behind,
            staged: staged.len(),
            unstaged: unstaged.len(),
            untracked: untracked.len(),
        })
    }

    /// Commits only on `HEAD` and only on the branch's upstream (`branch.<name>.remote` and
    /// `.merge`; a remote of `.` is this repository). (0, 0) without an upstream or when the
    /// upstream's ref does not exist.
    fn upstream_distance(
        &self,
        branch: &gix::refs::FullNameRef,
        head: gix::ObjectId,
    ) -> Result<(usize, usize), GitError> {
        let repo = self.gix();
        let short = branch.shorten().to_string();
        let config = repo.config_snapshot();
        let Some(remote) = config.string(format!("branch.{short}.remote").as_str()) else {
            return Ok((0, 0));
        };
        let upstream_name: Option<gix::refs::FullName> = if remote.as_slice() == b"." {
            config
                .string(format!("branch.{short}.merge").as_str())
                .and_then(|m| gix::refs::FullName::try_from(m).ok())
        } else {
            repo.branch_remote_tracking_ref_name(branch, gix::remote::Direction::Fetch)
                .and_then(Result::ok)
        };
        let Some(upstream_name) = upstream_name else {
            return Ok((0, 0));
        };
        let Some(mut upstream_ref) = repo
            .try_find_reference(upstream_name.as_ref())
            .map_err(|e| GitError::read("the upstream branch", e))?
        else {
            return Ok((0, 0));
        };
        let upstream = upstream_ref
            .peel_to_id()
            .map_err(|e| GitError::read("the upstream branch", e))?
            .detach();
        let count = |from: gix::ObjectId, hidden: gix::ObjectId| -> Result<usize, GitError> {
            let walk = repo
                .rev_walk([from])
                .with_hidden([hidden])
                .all()
                .map_err(|e| GitError::read("the commits ahead of the upstream", e))?;
            let mut n = 0;
            for info in walk {
                info.map_err(|e| GitError::read("the commits ahead of the upstream", e))?;
                n += 1;
            }
            Ok(n)
        };
        Ok((count(head, upstream)?, count(upstream, head)?))
    }
}
