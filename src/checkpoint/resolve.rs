//! Which PROJECT-CHECKPOINT.md a command works on (SPEC §4): multi-project mode under
//! `projects/<id>/`, else the legacy `docs/` layout.

use std::path::{Path, PathBuf};

pub const CHECKPOINT_FILE: &str = "PROJECT-CHECKPOINT.md";

/// The checkpoint a command works on and the folders around it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Target {
    /// The repository / workspace root (holds `.env`, `projects/` or `docs/`).
    pub root: PathBuf,
    pub checkpoint: PathBuf,
    pub stories: PathBuf,
    /// The project id in multi-project mode; `None` in legacy mode.
    pub project: Option<String>,
    /// `projects/<id>` or `docs`.
    pub project_dir: PathBuf,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ResolveError {
    #[error("there is no project `{id}` under projects/ (projects: {})", list(.candidates))]
    UnknownProject { id: String, candidates: Vec<String> },
    #[error("several projects and none chosen (projects: {})", list(.candidates))]
    Ambiguous { candidates: Vec<String> },
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
                || d.join("docs").join(CHECKPOINT_FILE).is_file()
                || d.join(".git").exists()
        })
        .unwrap_or(cwd)
        .to_path_buf()
}

/// The project ids under `root/projects/`: folders not starting with `_` or `.` that hold a
/// `.project.yaml` or a checkpoint. Sorted.
pub fn projects(root: &Path) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(root.join("projects")) else {
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
                && (p.join(".project.yaml").is_file() || p.join(CHECKPOINT_FILE).is_file());
            is_project.then_some(name)
        })
        .collect();
    out.sort();
    out
}

fn project_target(root: &Path, id: &str) -> Target {
    let dir = root.join("projects").join(id);
    Target {
        root: root.to_path_buf(),
        checkpoint: dir.join(CHECKPOINT_FILE),
        stories: dir.join("stories"),
        project: Some(id.to_string()),
        project_dir: dir,
    }
}

fn legacy_target(root: &Path) -> Target {
    let dir = root.join("docs");
    Target {
        root: root.to_path_buf(),
        checkpoint: dir.join(CHECKPOINT_FILE),
        stories: dir.join("stories"),
        project: None,
        project_dir: dir,
    }
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
    let projects_dir = root.join("projects");
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
        .filter(|t| t.checkpoint.is_file())
        .collect()
}

/// The target a checkpoint path belongs to (used by `verify`, which is handed paths).
pub fn target_for(path: &Path) -> Target {
    let dir = path.parent().unwrap_or(Path::new(".")).to_path_buf();
    let parent = dir.parent().unwrap_or(Path::new("."));
    let in_projects = parent.file_name().is_some_and(|n| n == "projects");
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
            stories: dir.join("stories"),
            project: Some(id),
            project_dir: dir,
        }
    } else {
        Target {
            root: parent.to_path_buf(),
            checkpoint: path.to_path_buf(),
            stories: dir.join("stories"),
            project: None,
            project_dir: dir,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
