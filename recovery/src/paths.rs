//! Resolving a relative path that must stay inside a root folder (a plan, a project).
//!
//! Refused: absolute paths, any `..` component, and paths that leave the root through a
//! symlink (checked on the canonical form of the longest existing prefix).

use std::path::{Component, Path, PathBuf};

/// Why a path was refused. Each variant maps to a stable finding id in the formats above.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PathError {
    /// The path is absolute (a leading `/` or `\`, or a Windows drive).
    #[error("path is absolute")]
    Absolute,
    /// The path has a `..` component (with `/` or `\` separators).
    #[error("path has a `..` component")]
    ParentComponent,
    /// The path is the empty string.
    #[error("path is empty")]
    Empty,
    /// The path, or a symlink along it, resolves outside the root; the value is where it resolves
    /// to.
    #[error("path leaves the folder through a symlink (resolves to {0})")]
    SymlinkEscape(PathBuf),
    /// Nothing is at the path (reported only when the caller requires the target to exist).
    #[error("path does not exist")]
    Missing,
    /// The root or the path could not be canonicalised; the value names the path and the I/O error.
    #[error("path could not be read: {0}")]
    Io(String),
}

/// Checks only the text of `rel`: not absolute, no `..` component, not empty.
pub fn check_relative(rel: &str) -> Result<(), PathError> {
    if rel.is_empty() {
        return Err(PathError::Empty);
    }
    let p = Path::new(rel);
    // A Windows-style drive or a leading slash both count as absolute for our purposes.
    if p.is_absolute() || rel.starts_with('/') || rel.starts_with('\\') {
        return Err(PathError::Absolute);
    }
    for c in p.components() {
        match c {
            Component::ParentDir => return Err(PathError::ParentComponent),
            Component::RootDir | Component::Prefix(_) => return Err(PathError::Absolute),
            _ => {}
        }
    }
    // `a/../b` written with backslashes is still a parent reference when copied to Windows.
    if rel.split(['/', '\\']).any(|part| part == "..") {
        return Err(PathError::ParentComponent);
    }
    Ok(())
}

/// Resolves `rel` against `root` and returns the joined path when it is inside `root`, following
/// symlinks. With `must_exist`, a missing target is an error; otherwise the existing prefix is
/// checked and the rest is appended.
pub fn resolve_inside(root: &Path, rel: &str, must_exist: bool) -> Result<PathBuf, PathError> {
    check_relative(rel)?;
    let root_canon = root
        .canonicalize()
        .map_err(|e| PathError::Io(format!("{}: {e}", root.display())))?;
    let joined = root.join(rel);
    match joined.canonicalize() {
        Ok(canon) => {
            if canon.starts_with(&root_canon) {
                Ok(joined)
            } else {
                Err(PathError::SymlinkEscape(canon))
            }
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            // A dangling symlink or a missing file: check the longest existing ancestor so a link
            // that points outside is still refused even when its target is missing.
            if let Ok(meta) = std::fs::symlink_metadata(&joined)
                && meta.file_type().is_symlink()
            {
                let target = std::fs::read_link(&joined).unwrap_or_default();
                let resolved = joined.parent().unwrap_or(root).join(&target);
                let normal = lexical_normalise(&resolved);
                if !normal.starts_with(&root_canon) && !normal.starts_with(root) {
                    return Err(PathError::SymlinkEscape(normal));
                }
            }
            let mut ancestor = joined.parent();
            while let Some(a) = ancestor {
                if let Ok(canon) = a.canonicalize() {
                    if !canon.starts_with(&root_canon) {
                        return Err(PathError::SymlinkEscape(canon));
                    }
                    break;
                }
                ancestor = a.parent();
            }
            if must_exist {
                Err(PathError::Missing)
            } else {
                Ok(joined)
            }
        }
        Err(e) => Err(PathError::Io(format!("{}: {e}", joined.display()))),
    }
}

fn lexical_normalise(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other.as_os_str()),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn textual_refusals() {
        assert_eq!(check_relative("/etc/passwd"), Err(PathError::Absolute));
        assert_eq!(check_relative("../../x"), Err(PathError::ParentComponent));
        assert_eq!(check_relative("a/../b"), Err(PathError::ParentComponent));
        assert_eq!(check_relative("a\\..\\b"), Err(PathError::ParentComponent));
        assert_eq!(check_relative(""), Err(PathError::Empty));
        assert_eq!(check_relative("a/..b/c"), Ok(()));
        assert_eq!(check_relative("analysis_results/gates/t1.log"), Ok(()));
    }

    #[test]
    fn symlink_escape_is_refused() {
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret"), b"x").unwrap();
        let root = tempfile::tempdir().unwrap();
        std::fs::write(root.path().join("inside.md"), b"ok").unwrap();
        std::os::unix::fs::symlink(outside.path().join("secret"), root.path().join("link.md"))
            .unwrap();
        std::os::unix::fs::symlink(outside.path(), root.path().join("dir")).unwrap();
        std::os::unix::fs::symlink(outside.path().join("gone"), root.path().join("dangling"))
            .unwrap();
        assert!(resolve_inside(root.path(), "inside.md", true).is_ok());
        assert!(matches!(
            resolve_inside(root.path(), "link.md", true),
            Err(PathError::SymlinkEscape(_))
        ));
        assert!(matches!(
            resolve_inside(root.path(), "dir/secret", true),
            Err(PathError::SymlinkEscape(_))
        ));
        assert!(matches!(
            resolve_inside(root.path(), "dir/missing", false),
            Err(PathError::SymlinkEscape(_))
        ));
        assert!(matches!(
            resolve_inside(root.path(), "dangling", false),
            Err(PathError::SymlinkEscape(_))
        ));
        assert_eq!(
            resolve_inside(root.path(), "nope.md", true),
            Err(PathError::Missing)
        );
        assert!(resolve_inside(root.path(), "nope.md", false).is_ok());
    }
}
