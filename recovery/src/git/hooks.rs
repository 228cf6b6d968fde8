//! What git hooks need to know of a repository, read through gix: the folder git runs hooks
//! from (`core.hooksPath` honoured), whether a path is ignored, and which paths are staged.

use super::{GitError, Repo};
use std::path::PathBuf;

impl Repo {
    /// The folder git looks for hooks in: `core.hooksPath` when it is set (`~` expanded; a
    /// relative value is taken from the work tree root, where git runs hooks, or from the git
    /// directory in a bare repository), else `hooks` in the common git directory — shared by
    /// every linked work tree. The folder need not exist.
    pub fn hooks_dir(&self) -> Result<PathBuf, GitError> {
        let configured = self
            .gix()
            .config_snapshot()
            .trusted_path("core.hooksPath")
            .map_err(|e| GitError::read("core.hooksPath", e))?
            .filter(|p| !p.as_os_str().is_empty());
        let Some(path) = configured else {
            let common = self.common_dir();
            let common = common
                .canonicalize()
                .unwrap_or_else(|_| common.to_path_buf());
            return Ok(common.join("hooks"));
        };
        if path.is_absolute() {
            return Ok(path);
        }
        let base = self
            .work_tree()
            .map(|w| w.to_path_buf())
            .unwrap_or_else(|| self.git_dir().to_path_buf());
        Ok(base.join(path))
    }

    /// Whether `path` (relative to the work tree root, `/` separators; a folder when `is_dir`)
    /// is ignored by the repository's exclude rules (`.gitignore` files, `info/exclude`,
    /// `core.excludesFile`).
    pub fn is_ignored(&self, path: &str, is_dir: bool) -> Result<bool, GitError> {
        let worktree = self.gix().worktree().ok_or_else(|| GitError::NoWorkTree {
            git_dir: self.git_dir().to_path_buf(),
        })?;
        let mut excludes = worktree
            .excludes(None)
            .map_err(|e| GitError::read("the ignore rules", e))?;
        let mode = is_dir.then_some(gix::index::entry::Mode::DIR);
        let platform = excludes
            .at_entry(path, mode)
            .map_err(|e| GitError::read("the ignore rules", e))?;
        Ok(platform.is_excluded())
    }

    /// The paths whose staged content differs from `HEAD` (added, modified or deleted in the
    /// index), relative to the work tree root, sorted. The index is the one git names in
    /// `GIT_INDEX_FILE` when it is set (as git sets it for its commit hooks).
    pub fn staged_paths(&self) -> Result<Vec<String>, GitError> {
        let mut paths: Vec<String> = self
            .status(&[])?
            .into_iter()
            .filter(|e| e.kind.is_staged())
            .map(|e| e.path)
            .collect();
        paths.dedup();
        Ok(paths)
    }
}
