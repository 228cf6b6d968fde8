//! Which state file a command works on, the project it belongs to, and whose `.env` values must
//! never be printed.

use super::layout::STATE_PATH;
use crate::report::HintedError;
use crate::report::redact::EnvRedactor;
use std::path::{Path, PathBuf};

/// `file` (relative to `cwd`) when given, else `.reversa/state.json` in `cwd` or the nearest
/// parent folder that has one.
pub fn state_file(cwd: &Path, file: Option<&Path>) -> Result<PathBuf, HintedError> {
    if let Some(f) = file {
        return Ok(cwd.join(f));
    }
    cwd.ancestors()
        .map(|dir| dir.join(STATE_PATH))
        .find(|p| p.exists())
        .ok_or_else(|| {
            HintedError::usage(format!(
                "no {STATE_PATH} in {} or any parent folder",
                cwd.display()
            ))
            .hint("run inside a project that Reversa analyses, or pass --file PATH")
        })
}

/// The project folder of a state file: the parent of `.reversa/`.
pub fn project_root(state_path: &Path) -> PathBuf {
    match state_path.parent().and_then(Path::parent) {
        // `.reversa/state.json` given relative to the project itself
        Some(p) if p.as_os_str().is_empty() => PathBuf::from("."),
        Some(p) => p.to_path_buf(),
        None => PathBuf::from("."),
    }
}

/// The values a command on this state file must hide: those of the project folder's `.env`.
/// Nothing when no state file is found (the command then stops before reading anything).
pub fn env_redactor(cwd: &Path, file: Option<&Path>) -> EnvRedactor {
    state_file(cwd, file)
        .map(|p| EnvRedactor::for_folder(&project_root(&p)))
        .unwrap_or_default()
}

/// A path as the user should see it: relative to `cwd` when inside it.
pub(super) fn shown(path: &Path, cwd: &Path) -> String {
    path.strip_prefix(cwd).unwrap_or(path).display().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn project_root_of_relative_paths() {
        assert_eq!(
            project_root(Path::new(".reversa/state.json")),
            PathBuf::from(".")
        );
        assert_eq!(
            project_root(Path::new("a/.reversa/state.json")),
            PathBuf::from("a")
        );
        assert_eq!(
            project_root(Path::new("/p/.reversa/state.json")),
            PathBuf::from("/p")
        );
    }

    #[test]
    fn the_nearest_parent_with_a_state_file_wins() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let deep = tmp.path().join("a/b");
        std::fs::create_dir_all(&deep).expect("mkdir");
        std::fs::create_dir_all(tmp.path().join("a/.reversa")).expect("mkdir");
        std::fs::write(tmp.path().join("a").join(STATE_PATH), "{}").expect("write");
        assert_eq!(
            state_file(&deep, None).expect("found"),
            tmp.path().join("a").join(STATE_PATH)
        );
        let err = state_file(tmp.path(), None).expect_err("none above the temp dir");
        assert!(err.message.starts_with("no .reversa/state.json in "));
        assert_eq!(
            err.hint.as_deref(),
            Some("run inside a project that Reversa analyses, or pass --file PATH")
        );
    }
}
