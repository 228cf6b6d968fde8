//! Which PROJECT-CHECKPOINT.md a command works on (docs/checkpoint.md, "Which checkpoint"):
//! multi-project mode under `projects/<id>/`, else the legacy `docs/` layout; the workspace root
//! around it, and whose `.env` values must never be printed.

use super::layout::{
    CHECKPOINT_FILE, GIT_DIR, LEGACY_DIR, PROJECT_YAML, PROJECTS_DIR, Target, legacy_target,
    project_target,
};
use crate::report::redact::EnvRedactor;
use crate::report::{Refusal, RefusalKind};
use std::path::{Path, PathBuf};

/// Why no checkpoint could be chosen for the command.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ResolveError {
    /// `--project` names no project under `projects/`.
    #[error("there is no project `{id}` under projects/ (projects: {})", list(.candidates))]
    UnknownProject {
        /// The id as given to `--project`.
        id: String,
        /// Every project id under `projects/`, sorted.
        candidates: Vec<String>,
    },
    /// Several projects exist, no `--project` was given and the current folder is in none of them.
    #[error("several projects and none chosen (projects: {})", list(.candidates))]
    Ambiguous {
        /// Every project id under `projects/`, sorted.
        candidates: Vec<String>,
    },
    /// `--project` was given (the value) in a workspace without projects: legacy `docs/` mode.
    #[error(
        "--project {0} given, but there is no projects/ folder with a project (legacy docs/ mode)"
    )]
    NotMultiProject(String),
}

fn list(c: &[String]) -> String {
    c.join(", ")
}

/// The workspace root for `cwd`: the nearest folder (from `cwd` up) that has a `projects/`
/// project, a `docs/PROJECT-CHECKPOINT.md` or `.git`; else `cwd` itself.
pub fn find_root(cwd: &Path) -> PathBuf {
    cwd.ancestors()
        .find(|d| {
            !projects(d).is_empty()
                || d.join(LEGACY_DIR).join(CHECKPOINT_FILE).is_file()
                || d.join(GIT_DIR).exists()
        })
        .unwrap_or(cwd)
        .to_path_buf()
}

/// The project ids under `root/projects/`: folders not starting with `_` or `.` that hold a
/// `.project.yaml` or a checkpoint. Sorted.
pub fn projects(root: &Path) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(root.join(PROJECTS_DIR)) else {
        return Vec::new();
    };
    let mut out: Vec<String> = entries
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .filter_map(|e| {
            let name = e.file_name().to_str()?.to_string();
            let p = e.path();
            let is_project = !name.starts_with('_')
                && !name.starts_with('.')
                && (p.join(PROJECT_YAML).is_file() || p.join(CHECKPOINT_FILE).is_file());
            is_project.then_some(name)
        })
        .collect();
    out.sort();
    out
}

/// `--project ID`, else the project whose folder holds `cwd`, else the only project, else
/// refuse listing them; without projects, the legacy `docs/` checkpoint.
pub fn resolve(root: &Path, cwd: &Path, project: Option<&str>) -> Result<Target, ResolveError> {
    let candidates = projects(root);
    if candidates.is_empty() {
        return match project {
            Some(id) => Err(ResolveError::NotMultiProject(id.into())),
            None => Ok(legacy_target(root)),
        };
    }
    if let Some(id) = project {
        return if candidates.iter().any(|c| c == id) {
            Ok(project_target(root, id))
        } else {
            Err(ResolveError::UnknownProject {
                id: id.into(),
                candidates,
            })
        };
    }
    let projects_dir = root.join(PROJECTS_DIR);
    if let Ok(rel) = cwd.strip_prefix(&projects_dir)
        && let Some(first) = rel.components().next()
        && let Some(name) = first.as_os_str().to_str()
        && candidates.iter().any(|c| c == name)
    {
        return Ok(project_target(root, name));
    }
    if candidates.len() == 1 {
        return Ok(project_target(root, &candidates[0]));
    }
    Err(ResolveError::Ambiguous { candidates })
}

/// Every checkpoint that exists under `root` (all projects, or the legacy one).
pub fn existing(root: &Path) -> Vec<Target> {
    let ids = projects(root);
    let targets: Vec<Target> = if ids.is_empty() {
        vec![legacy_target(root)]
    } else {
        ids.iter().map(|id| project_target(root, id)).collect()
    };
    targets
        .into_iter()
        .filter(|t| t.checkpoint.exists())
        .collect()
}

/// The checkpoint for a command run in `cwd` (`project`: its `--project`), or the refusal that
/// says how to choose one.
pub fn locate(cwd: &Path, project: Option<&str>) -> Result<Target, Refusal> {
    let root = find_root(cwd);
    resolve(&root, cwd, project).map_err(|e| {
        let (kind, hint) = match &e {
            ResolveError::UnknownProject { .. } => (
                RefusalKind::UnknownProject,
                "pass --project ID, or run inside projects/<id>/",
            ),
            ResolveError::Ambiguous { .. } => (
                RefusalKind::ProjectAmbiguous,
                "pass --project ID, or run inside projects/<id>/",
            ),
            ResolveError::NotMultiProject(_) => (
                RefusalKind::UnknownProject,
                "drop --project: this repository uses docs/PROJECT-CHECKPOINT.md",
            ),
        };
        Refusal::new(kind, format!("{}: {e}", root.display())).hint(hint)
    })
}

/// The values a command run in `cwd` must hide: those of the workspace root's `.env` (the one
/// `## Ambiente Detectado` lists the keys of).
pub fn env_redactor(cwd: &Path) -> EnvRedactor {
    EnvRedactor::for_folder(&find_root(cwd))
}

/// A path as the user should see it: relative to `cwd` when inside it.
pub(super) fn shown(path: &Path, cwd: &Path) -> String {
    path.strip_prefix(cwd).unwrap_or(path).display().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checkpoint::layout::target_for;

    #[test]
    fn resolution_order() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let root = tmp.path();
        assert_eq!(resolve(root, root, None).expect("legacy").project, None);
        for id in ["alpha", "beta", "_template"] {
            std::fs::create_dir_all(root.join("projects").join(id).join("stories")).expect("mkdir");
            std::fs::write(
                root.join("projects").join(id).join(".project.yaml"),
                "prefix: X\n",
            )
            .expect("write");
        }
        assert_eq!(projects(root), ["alpha", "beta"]);
        assert!(matches!(
            resolve(root, root, None),
            Err(ResolveError::Ambiguous { .. })
        ));
        let inside = root.join("projects/beta/stories");
        assert_eq!(
            resolve(root, &inside, None)
                .expect("cwd")
                .project
                .as_deref(),
            Some("beta")
        );
        assert_eq!(
            resolve(root, root, Some("alpha"))
                .expect("flag")
                .project
                .as_deref(),
            Some("alpha")
        );
        assert!(matches!(
            resolve(root, root, Some("gamma")),
            Err(ResolveError::UnknownProject { .. })
        ));
        let t = target_for(&root.join("projects/alpha/PROJECT-CHECKPOINT.md"));
        assert_eq!(t.root, root);
        assert_eq!(t.project.as_deref(), Some("alpha"));
    }
}
