//! Where a workspace keeps its checkpoint, and how planseal writes it — every name once, here.
//!
//! ```text
//! <root>/                                   the workspace (its `.env` is never printed)
//!   .env                                    keys listed in `## Ambiente Detectado`, values never
//!   projects/<id>/                          multi-project mode, one folder per project
//!     .project.yaml                         the project's settings (its story prefix)
//!     PROJECT-CHECKPOINT.md
//!     stories/
//!   docs/                                   legacy mode, when projects/ holds no project
//!     PROJECT-CHECKPOINT.md
//!     stories/
//! ```
//!
//! Beside the checkpoint, planseal's writers keep `PROJECT-CHECKPOINT.md.lock/` (the lock, owner
//! record inside); the journal (one line per write) is in the work tree's git directory
//! (`<git dir>/planseal/journals/<path>.journal.ndjson`), or beside the file outside git
//! (`docs/journal.md`).

use crate::recovery::store::LockStyle;
use std::path::{Path, PathBuf};

/// The checkpoint's file name, in both modes.
pub const CHECKPOINT_FILE: &str = "PROJECT-CHECKPOINT.md";
/// The folder of the projects in multi-project mode.
pub const PROJECTS_DIR: &str = "projects";
/// The folder of the checkpoint in legacy mode.
pub const LEGACY_DIR: &str = "docs";
/// The story files, beside the checkpoint.
pub const STORIES_DIR: &str = "stories";
/// A project's settings file, in its folder (its story prefix among them).
pub const PROJECT_YAML: &str = ".project.yaml";
/// The workspace's environment file, at the root: its keys are listed, its values never shown.
pub const ENV_FILE: &str = ".env";
/// A folder holding this is the root of a git work tree.
pub const GIT_DIR: &str = ".git";

/// The checkpoint a command works on and the folders around it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct Target {
    /// The repository / workspace root (holds `.env`, `projects/` or `docs/`).
    pub root: PathBuf,
    /// The checkpoint file itself (`projects/<id>/PROJECT-CHECKPOINT.md` or
    /// `docs/PROJECT-CHECKPOINT.md`).
    pub checkpoint: PathBuf,
    /// The folder of its story files, beside it (`stories/`); it may not exist.
    pub stories: PathBuf,
    /// The project id in multi-project mode; `None` in legacy mode.
    pub project: Option<String>,
    /// `projects/<id>` or `docs`.
    pub project_dir: PathBuf,
}

impl Target {
    /// The `.env` of the workspace.
    pub fn env_file(&self) -> PathBuf {
        self.root.join(ENV_FILE)
    }
}

/// `projects/<id>/PROJECT-CHECKPOINT.md` under `root`.
pub fn project_target(root: &Path, id: &str) -> Target {
    let dir = root.join(PROJECTS_DIR).join(id);
    Target {
        root: root.to_path_buf(),
        checkpoint: dir.join(CHECKPOINT_FILE),
        stories: dir.join(STORIES_DIR),
        project: Some(id.to_string()),
        project_dir: dir,
    }
}

/// `docs/PROJECT-CHECKPOINT.md` under `root`.
pub fn legacy_target(root: &Path) -> Target {
    let dir = root.join(LEGACY_DIR);
    Target {
        root: root.to_path_buf(),
        checkpoint: dir.join(CHECKPOINT_FILE),
        stories: dir.join(STORIES_DIR),
        project: None,
        project_dir: dir,
    }
}

/// The target a checkpoint path belongs to (used by `verify`, which is handed paths).
pub fn target_for(path: &Path) -> Target {
    let dir = path.parent().unwrap_or(Path::new(".")).to_path_buf();
    let parent = dir.parent().unwrap_or(Path::new("."));
    let in_projects = parent.file_name().is_some_and(|n| n == PROJECTS_DIR);
    if in_projects {
        let root = parent.parent().unwrap_or(Path::new(".")).to_path_buf();
        let id = dir
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default()
            .to_string();
        Target {
            root,
            checkpoint: path.to_path_buf(),
            stories: dir.join(STORIES_DIR),
            project: Some(id),
            project_dir: dir,
        }
    } else {
        Target {
            root: parent.to_path_buf(),
            checkpoint: path.to_path_buf(),
            stories: dir.join(STORIES_DIR),
            project: None,
            project_dir: dir,
        }
    }
}

/// A checkpoint file as a write target: a lock folder `<file>.lock/` with an owner record, and
/// the journal in the work tree's git directory (`<file>.journal.ndjson` beside it outside git).
pub fn checkpoint_target(path: &Path) -> crate::write::Target {
    crate::write::Target::journal_in_git_dir(path, LockStyle::Directory)
}
