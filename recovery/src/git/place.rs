//! Where a file sits in git's layout: its work tree and that work tree's own git directory —
//! `.git/` for the main work tree, `.git/worktrees/<name>/` for a linked one (`git worktree
//! add`), `.git/modules/<path>/` for a submodule's checkout. planseal keeps files there that
//! belong to one checkout and must never show up as untracked (the GSD and checkpoint journals,
//! `docs/journal.md`).
//!
//! The answer depends on nothing but the nearest `.git` above the file: a folder is the git
//! directory itself (nothing is read), a file names it (`gitdir: …`, read by gix's parser). So a
//! repository whose `HEAD` or config cannot be read right now still gets the same answer, and a
//! `.git` that cannot be read is an error, never a different place.

use std::path::{Path, PathBuf};

/// A file's place in its work tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkTreePlace {
    /// The root of the work tree (canonical).
    pub work_tree: PathBuf,
    /// The git directory that belongs to this work tree alone (canonical).
    pub git_dir: PathBuf,
    /// The file's path from the work tree root, `/`-separated (`.planning/STATE.md`).
    pub relative: String,
}

/// The nearest `.git` above a file could not be read.
#[derive(Debug, thiserror::Error)]
#[error("cannot read {}: {source}", dot_git.display())]
pub struct PlaceError {
    /// The `.git` (or the folder being searched) that could not be read.
    pub dot_git: PathBuf,
    /// The operating system's (or the `gitdir:` parser's) reason.
    #[source]
    pub source: std::io::Error,
}

/// The place of `file` (which need not exist: its folder's nearest existing ancestor is
/// resolved). `Ok(None)` when no folder above it holds a `.git`.
pub fn work_tree_place(file: &Path) -> Result<Option<WorkTreePlace>, PlaceError> {
    let absolute = if file.is_absolute() {
        file.to_path_buf()
    } else {
        let cwd = std::env::current_dir().map_err(|source| PlaceError {
            dot_git: PathBuf::from("."),
            source,
        })?;
        cwd.join(file)
    };
    let (Some(name), Some(parent)) = (absolute.file_name(), absolute.parent()) else {
        return Ok(None);
    };
    let folder = resolve_existing(parent);
    for dir in folder.ancestors() {
        let dot_git = dir.join(".git");
        let meta = match std::fs::metadata(&dot_git) {
            Ok(meta) => meta,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(source) => return Err(PlaceError { dot_git, source }),
        };
        let git_dir = if meta.is_dir() {
            dot_git.clone()
        } else {
            gix::discover::path::from_gitdir_file(&dot_git).map_err(|e| PlaceError {
                dot_git: dot_git.clone(),
                source: std::io::Error::other(e.to_string()),
            })?
        };
        let git_dir = git_dir
            .canonicalize()
            .map_err(|source| PlaceError { dot_git, source })?;
        let mut parts: Vec<String> = folder
            .strip_prefix(dir)
            .unwrap_or(Path::new(""))
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        parts.push(name.to_string_lossy().into_owned());
        return Ok(Some(WorkTreePlace {
            work_tree: dir.to_path_buf(),
            git_dir,
            relative: parts.join("/"),
        }));
    }
    Ok(None)
}

/// `path` with its longest existing ancestor canonicalised (kept as it is when that fails) and
/// the missing rest put back: a file that does not exist yet, under a symlinked temp folder,
/// still compares equal to the real paths of its work tree.
pub(crate) fn resolve_existing(path: &Path) -> PathBuf {
    let mut existing = path.to_path_buf();
    let mut tail = Vec::new();
    while !existing.exists() {
        match (existing.file_name(), existing.parent()) {
            (Some(name), Some(parent)) => {
                tail.push(name.to_os_string());
                existing = parent.to_path_buf();
            }
            _ => break,
        }
    }
    let mut resolved = existing.canonicalize().unwrap_or(existing);
    for name in tail.iter().rev() {
        resolved.push(name);
    }
    resolved
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outside_git_there_is_no_place() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(work_tree_place(&dir.path().join("STATE.md")).unwrap(), None);
    }

    #[test]
    fn a_git_folder_is_the_git_directory_and_a_git_file_names_it() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir_all(root.join("main/.git/worktrees/wt")).unwrap();
        let place = work_tree_place(&root.join("main/.planning/STATE.md"))
            .unwrap()
            .unwrap();
        assert_eq!(place.work_tree, root.join("main"));
        assert_eq!(place.git_dir, root.join("main/.git"));
        assert_eq!(place.relative, ".planning/STATE.md");
        // a linked work tree: `.git` is a file naming its own git directory
        std::fs::create_dir_all(root.join("wt/docs")).unwrap();
        std::fs::write(root.join("wt/.git"), "gitdir: ../main/.git/worktrees/wt\n").unwrap();
        let place = work_tree_place(&root.join("wt/docs/PROJECT-CHECKPOINT.md"))
            .unwrap()
            .unwrap();
        assert_eq!(place.git_dir, root.join("main/.git/worktrees/wt"));
        assert_eq!(place.relative, "docs/PROJECT-CHECKPOINT.md");
        // a `.git` file that names nothing readable is an error, not another place
        std::fs::write(root.join("wt/.git"), "not a gitdir line\n").unwrap();
        let err = work_tree_place(&root.join("wt/x.md")).unwrap_err();
        assert_eq!(err.dot_git, root.join("wt/.git"));
    }
}
