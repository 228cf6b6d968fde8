//! Finding the plan folders the commands work on: the ones `verify` discovers, and the one a
//! command such as `log` or `rebuild` is pointed at ([`open_plan`]).
//!
//! A plan folder is a directory named `PLAN_[a-z0-9_]+` directly under a `.dwp/plans/` folder.
//! Run without a path, discovery walks up from the working directory to the repository or
//! workspace root (the nearest ancestor holding `.dwp/`, else the nearest holding `.git`) and
//! collects `ROOT/.dwp/plans/PLAN_*` plus the orchestrator-hub children
//! `ROOT/repositories/*/.dwp/plans/PLAN_*`. A path may name a plan folder, a `.dwp` folder, a
//! `plans` folder or a repository root. Nothing here reads a plan's files.

use crate::dwp::layout;
use crate::recovery::git::{GitError, Progress, Repo};
use crate::report::HintedError;
use std::path::{Path, PathBuf};

/// One plan folder found on disk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlanLocation {
    /// The folder name (`PLAN_x`), which is the plan's identity.
    pub name: String,
    /// The folder itself.
    pub dir: PathBuf,
    /// The hub child repository it belongs to (`repositories/<repo>`), if any.
    pub hub_repository: Option<String>,
}

/// What the user asked for.
#[derive(Debug, Clone, Default)]
pub struct DiscoverOptions {
    /// The directory the command runs in (`-C` applied).
    pub cwd: PathBuf,
    /// `planseal verify PATH`.
    pub path: Option<PathBuf>,
    /// `--plan NAME` (with or without the `PLAN_` prefix, or a path to a plan folder).
    pub plan: Option<String>,
    /// `--dwp-dir DIR` or `DWP_DIR`: the `.dwp` folder to use instead of searching.
    pub dwp_dir: Option<PathBuf>,
}

/// Why discovery could not give an answer (a usage error: exit 2).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DiscoverError {
    /// The path given (or the `--dwp-dir` folder) does not exist; it is joined to the working
    /// directory.
    #[error("{0}: no such file or directory")]
    PathMissing(PathBuf),
    /// A folder on the way could not be read.
    #[error("{path}: cannot be listed: {why}")]
    Unreadable {
        /// The folder (or the path given) that could not be read.
        path: PathBuf,
        /// The I/O error, as text.
        why: String,
    },
    /// `--plan` named a plan that none of the folders searched holds.
    #[error("no plan named {name} under {searched}")]
    PlanNotFound {
        /// The name looked for, with its `PLAN_` prefix.
        name: String,
        /// Where it was looked for: the `--dwp-dir` folder, the path given, or the root found.
        searched: String,
    },
    /// `--plan` is not a plan folder name, even with `PLAN_` put in front; the value as given.
    #[error(
        "{0}: not a plan folder name (expected PLAN_ followed by lower-case letters, digits or _)"
    )]
    BadPlanName(String),
}

impl DiscoverError {
    /// What to do about it.
    pub fn hint(&self) -> &'static str {
        match self {
            DiscoverError::PathMissing(_) => {
                "pass a plan folder, a .dwp folder or a repository root that exists"
            }
            DiscoverError::Unreadable { .. } => "check the folder's permissions",
            DiscoverError::PlanNotFound { .. } => {
                "list the plans with `planseal verify` and pass one of their names"
            }
            DiscoverError::BadPlanName(_) => "plan folders are named like PLAN_my_plan",
        }
    }
}

/// `PLAN_` followed by at least one of `[a-z0-9_]`.
pub fn is_plan_name(name: &str) -> bool {
    name.strip_prefix("PLAN_").is_some_and(|rest| {
        !rest.is_empty()
            && rest
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
    })
}

/// The plan folders selected by `opts`, sorted by path; hub children after the root's own plans.
pub fn discover(opts: &DiscoverOptions) -> Result<Vec<PlanLocation>, DiscoverError> {
    let mut plans = if let Some(dwp) = &opts.dwp_dir {
        let dwp = opts.cwd.join(dwp);
        if !dwp.exists() {
            return Err(DiscoverError::PathMissing(dwp));
        }
        plans_in(&dwp.join("plans"))?
    } else if let Some(path) = &opts.path {
        from_path(&opts.cwd.join(path))?
    } else if let Some(plan) = opts.plan.as_deref().filter(|p| p.contains('/')) {
        // `--plan .dwp/plans/PLAN_x`: a path, as the helper also accepts.
        from_path(&opts.cwd.join(plan))?
    } else {
        from_root(&find_root(&opts.cwd))?
    };
    if let Some(wanted) = &opts.plan {
        let wanted_name = wanted
            .trim_end_matches('/')
            .rsplit('/')
            .next()
            .unwrap_or(wanted);
        let wanted_name = if wanted_name.starts_with("PLAN_") {
            wanted_name.to_string()
        } else {
            format!("PLAN_{wanted_name}")
        };
        if !is_plan_name(&wanted_name) {
            return Err(DiscoverError::BadPlanName(wanted.clone()));
        }
        let searched = match (&opts.dwp_dir, &opts.path) {
            (Some(d), _) => d.display().to_string(),
            (None, Some(p)) => p.display().to_string(),
            (None, None) => find_root(&opts.cwd).display().to_string(),
        };
        plans.retain(|p| p.name == wanted_name);
        if plans.is_empty() {
            return Err(DiscoverError::PlanNotFound {
                name: wanted_name,
                searched,
            });
        }
    }
    Ok(plans)
}

/// The repository or workspace root for a working directory: the nearest ancestor holding a
/// `.dwp` folder, else the nearest holding `.git`, else the directory itself. Inside a plan
/// folder this finds the repository that owns it.
pub fn find_root(cwd: &Path) -> PathBuf {
    for dir in cwd.ancestors() {
        if dir.join(".dwp").is_dir() {
            return dir.to_path_buf();
        }
    }
    for dir in cwd.ancestors() {
        if dir.join(".git").exists() {
            return dir.to_path_buf();
        }
    }
    cwd.to_path_buf()
}

fn from_path(path: &Path) -> Result<Vec<PlanLocation>, DiscoverError> {
    let meta = std::fs::metadata(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => DiscoverError::PathMissing(path.to_path_buf()),
        _ => DiscoverError::Unreadable {
            path: path.to_path_buf(),
            why: e.to_string(),
        },
    })?;
    // A file inside a plan (state.json, README.md) stands for its plan.
    let dir = if meta.is_dir() {
        path.to_path_buf()
    } else {
        path.parent().unwrap_or(path).to_path_buf()
    };
    let name = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    if is_plan_name(&name) {
        return Ok(vec![PlanLocation {
            name,
            hub_repository: hub_of(&dir),
            dir,
        }]);
    }
    if name == ".dwp" {
        return plans_in(&dir.join("plans"));
    }
    if name == "plans" && dir.parent().and_then(Path::file_name) == Some(".dwp".as_ref()) {
        return plans_in(&dir);
    }
    from_root(&dir)
}

fn from_root(root: &Path) -> Result<Vec<PlanLocation>, DiscoverError> {
    let mut plans = plans_in(&root.join(".dwp").join("plans"))?;
    let hub = root.join("repositories");
    if hub.is_dir() {
        let mut children = list_dir(&hub)?;
        children.sort();
        for child in children {
            let plans_dir = child.join(".dwp").join("plans");
            if plans_dir.is_dir() {
                plans.extend(plans_in(&plans_dir)?);
            }
        }
    }
    Ok(plans)
}

/// The plan folders directly under `plans_dir` (none when it does not exist); a folder under
/// `repositories/<repo>/.dwp/plans/` belongs to that hub child wherever the search started.
fn plans_in(plans_dir: &Path) -> Result<Vec<PlanLocation>, DiscoverError> {
    if !plans_dir.exists() {
        return Ok(Vec::new());
    }
    let mut out: Vec<PlanLocation> = list_dir(plans_dir)?
        .into_iter()
        .filter(|p| p.is_dir())
        .filter_map(|dir| {
            let name = dir.file_name()?.to_str()?.to_string();
            is_plan_name(&name).then(|| PlanLocation {
                name,
                hub_repository: hub_of(&dir),
                dir,
            })
        })
        .collect();
    out.sort_by(|a, b| a.dir.cmp(&b.dir));
    Ok(out)
}

fn list_dir(dir: &Path) -> Result<Vec<PathBuf>, DiscoverError> {
    let unreadable = |e: std::io::Error| DiscoverError::Unreadable {
        path: dir.to_path_buf(),
        why: e.to_string(),
    };
    std::fs::read_dir(dir)
        .map_err(unreadable)?
        .map(|entry| entry.map(|e| e.path()).map_err(unreadable))
        .collect()
}

/// `repositories/<repo>` when `dir` lies under `<hub>/repositories/<repo>/.dwp/`.
fn hub_of(dir: &Path) -> Option<String> {
    let parts: Vec<_> = dir.components().collect();
    let dwp_at = parts.iter().rposition(|c| c.as_os_str() == ".dwp")?;
    if dwp_at >= 2 && parts[dwp_at - 2].as_os_str() == "repositories" {
        Some(format!(
            "repositories/{}",
            parts[dwp_at - 1].as_os_str().to_string_lossy()
        ))
    } else {
        None
    }
}

/// Receives the progress of long git walks (the binary draws it on a terminal).
pub type GitProgress = Box<dyn Fn(Progress)>;

/// Whether a command reads the plan's git history.
pub enum Git {
    /// It does not: no repository is opened.
    Skip,
    /// Open the repository around the plan, when there is one, with an optional progress sink.
    Open(Option<GitProgress>),
}

/// The plan folder a command was pointed at, and the repository around it when it reads git.
#[derive(Debug)]
pub struct OpenedPlan {
    /// The folder as named (joined to the working directory), not canonicalised.
    pub dir: PathBuf,
    /// `None` when the plan is not in a git work tree, or when git was not asked for.
    pub repo: Option<Repo>,
}

/// Why [`open_plan`] gave up.
#[derive(Debug, thiserror::Error)]
pub enum OpenPlanError {
    /// The path is no plan folder (a usage error, with what to pass instead).
    #[error(transparent)]
    NotAPlan(#[from] HintedError),
    /// The repository around the plan could not be opened.
    #[error(transparent)]
    Git(#[from] GitError),
}

/// The plan folder `given` names (relative paths against `cwd`): a folder holding a README.md
/// or a state.json. With [`Git::Open`], also the repository around it.
pub fn open_plan(cwd: &Path, given: &Path, git: Git) -> Result<OpenedPlan, OpenPlanError> {
    let dir = cwd.join(given);
    let expected = "pass a plan folder such as .dwp/plans/PLAN_<name>";
    if !dir.is_dir() {
        return Err(
            HintedError::usage(format!("{}: not a folder", dir.display()))
                .hint(expected)
                .into(),
        );
    }
    if !dir.join(layout::README_FILE).exists() && !dir.join(layout::STATE_FILE).exists() {
        return Err(HintedError::usage(format!(
            "{}: neither {} nor {} is there",
            dir.display(),
            layout::README_FILE,
            layout::STATE_FILE
        ))
        .hint(expected)
        .into());
    }
    let mut plan = OpenedPlan { dir, repo: None };
    if let Git::Open(progress) = git {
        plan.open_git(progress)?;
    }
    Ok(plan)
}

impl OpenedPlan {
    /// Opens the repository around the plan (a command that first checks something of its own,
    /// such as `rebuild`'s marker check, opens it only after that).
    pub fn open_git(&mut self, progress: Option<GitProgress>) -> Result<(), GitError> {
        self.repo = Repo::discover(&self.dir)?;
        if let (Some(repo), Some(progress)) = (self.repo.as_mut(), progress) {
            repo.set_progress(progress);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn repo() -> tempfile::TempDir {
        let t = tempfile::tempdir().unwrap();
        for p in [
            ".dwp/plans/PLAN_b",
            ".dwp/plans/PLAN_a",
            ".dwp/plans/not_a_plan",
            ".dwp/plans/PLAN_Upper",
            "repositories/svc/.dwp/plans/PLAN_child",
            "src/deep/er",
        ] {
            fs::create_dir_all(t.path().join(p)).unwrap();
        }
        fs::write(t.path().join(".dwp/plans/PLAN_file"), b"not a dir").unwrap();
        t
    }

    fn names(v: &[PlanLocation]) -> Vec<&str> {
        v.iter().map(|p| p.name.as_str()).collect()
    }

    #[test]
    fn plan_names() {
        assert!(is_plan_name("PLAN_a_1"));
        assert!(!is_plan_name("PLAN_"));
        assert!(!is_plan_name("PLAN_A"));
        assert!(!is_plan_name("plan_a"));
        assert!(!is_plan_name("PLAN_a-b"));
    }

    #[test]
    fn from_anywhere_inside_the_repository() {
        let t = repo();
        for cwd in [
            t.path().to_path_buf(),
            t.path().join("src/deep/er"),
            t.path().join(".dwp/plans/PLAN_a"),
        ] {
            let found = discover(&DiscoverOptions {
                cwd,
                ..Default::default()
            })
            .unwrap();
            assert_eq!(names(&found), ["PLAN_a", "PLAN_b", "PLAN_child"]);
            assert_eq!(found[2].hub_repository.as_deref(), Some("repositories/svc"));
        }
    }

    #[test]
    fn explicit_paths_and_filters() {
        let t = repo();
        let opts = |path: &str| DiscoverOptions {
            cwd: t.path().to_path_buf(),
            path: Some(path.into()),
            ..Default::default()
        };
        assert_eq!(
            names(&discover(&opts(".dwp/plans/PLAN_b")).unwrap()),
            ["PLAN_b"]
        );
        assert_eq!(
            names(&discover(&opts(".dwp")).unwrap()),
            ["PLAN_a", "PLAN_b"]
        );
        assert_eq!(
            names(&discover(&opts(".dwp/plans")).unwrap()),
            ["PLAN_a", "PLAN_b"]
        );
        assert_eq!(
            names(&discover(&opts("repositories/svc")).unwrap()),
            ["PLAN_child"]
        );
        assert!(matches!(
            discover(&opts("nope")),
            Err(DiscoverError::PathMissing(_))
        ));
        let by_name = discover(&DiscoverOptions {
            cwd: t.path().join("src"),
            plan: Some("b".into()),
            ..Default::default()
        })
        .unwrap();
        assert_eq!(names(&by_name), ["PLAN_b"]);
        assert!(matches!(
            discover(&DiscoverOptions {
                cwd: t.path().to_path_buf(),
                plan: Some("PLAN_zzz".into()),
                ..Default::default()
            }),
            Err(DiscoverError::PlanNotFound { .. })
        ));
        let dwp_dir = discover(&DiscoverOptions {
            cwd: t.path().join("src"),
            dwp_dir: Some("../repositories/svc/.dwp".into()),
            ..Default::default()
        })
        .unwrap();
        assert_eq!(names(&dwp_dir), ["PLAN_child"]);
    }
}
