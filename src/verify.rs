//! `verify` as a library call: options in, a [`Report`] out — every DWP plan found
//! plus the GSD, Reversa and checkpoint files of the same workspace, each in its own section.
//! Read-only: nothing here opens a file for writing.

use crate::dwp::check::{self, CheckOptions};
use crate::dwp::locate::{self, DiscoverError, DiscoverOptions, PlanLocation};
use crate::report::Report;
use std::path::{Path, PathBuf};

/// What to verify.
#[derive(Debug, Clone, Default)]
pub struct VerifyOptions {
    /// The directory the command runs in (`-C` applied).
    pub cwd: PathBuf,
    /// `planseal verify PATH`: a plan folder, a `.dwp` folder or a repository root.
    pub path: Option<PathBuf>,
    /// `--plan NAME`.
    pub plan: Option<String>,
    /// `--dwp-dir DIR` / `DWP_DIR`.
    pub dwp_dir: Option<PathBuf>,
    /// `--gsd FILE`: GSD state files to check in addition to what is found.
    pub gsd: Vec<PathBuf>,
}

/// Why verify could not produce a report (a usage error: exit 2).
#[derive(Debug, thiserror::Error)]
pub enum VerifyError {
    /// Finding the plans failed: a PATH that is missing or cannot be listed, or a `--plan` that
    /// names no plan or is not a plan folder name.
    #[error(transparent)]
    Discover(#[from] DiscoverError),
    /// Nothing of any format was found in the folder searched (the value).
    #[error(
        "nothing to verify under {0}: no .dwp/plans/PLAN_* folder (and no GSD, Reversa or checkpoint file)"
    )]
    NothingFound(PathBuf),
    /// A `--gsd` file does not exist (the path as given, relative to `cwd`).
    #[error("--gsd {0}: no such file")]
    GsdMissing(PathBuf),
}

impl VerifyError {
    /// What to do about it, printed as the error's `hint:` line.
    pub fn hint(&self) -> &'static str {
        match self {
            VerifyError::Discover(e) => e.hint(),
            VerifyError::NothingFound(_) => {
                "run it inside a repository with .dwp/plans/, or pass a plan folder, --dwp-dir DIR or DWP_DIR"
            }
            VerifyError::GsdMissing(_) => "pass the path of a .planning/STATE.md",
        }
    }
}

/// Runs every check that `opts` selects.
pub fn verify(opts: &VerifyOptions) -> Result<Report, VerifyError> {
    for g in &opts.gsd {
        if !opts.cwd.join(g).is_file() {
            return Err(VerifyError::GsdMissing(g.clone()));
        }
    }
    let plans = locate::discover(&DiscoverOptions {
        cwd: opts.cwd.clone(),
        path: opts.path.clone(),
        plan: opts.plan.clone(),
        dwp_dir: opts.dwp_dir.clone(),
    })?;
    let mut report = Report::default();
    // The plans of one repository share it: one open, one commit walk.
    let shared = CheckOptions {
        repositories: Some(std::rc::Rc::new(check::Repositories::default())),
        ..CheckOptions::default()
    };
    for plan in &plans {
        report
            .sections
            .push(check_location_with(plan, &opts.cwd, &shared));
    }
    // The other systems: when the whole workspace is verified (no plan, path or .dwp selected).
    let whole_workspace = opts.path.is_none() && opts.plan.is_none() && opts.dwp_dir.is_none();
    let root = locate::find_root(&opts.cwd);
    let mut gsd_files: Vec<PathBuf> = opts.gsd.iter().map(|g| opts.cwd.join(g)).collect();
    if whole_workspace {
        gsd_files.extend(crate::gsd::detect(&root));
    }
    gsd_files.dedup();
    for g in &gsd_files {
        report.sections.push(crate::gsd::check(g));
    }
    if whole_workspace {
        for r in crate::reversa::detect(&root) {
            report.sections.push(crate::reversa::check(&r));
        }
        for c in crate::checkpoint::detect(&root) {
            report.sections.push(crate::checkpoint::check(&c));
        }
    }
    if report.sections.is_empty() {
        let searched = match (&opts.dwp_dir, &opts.path) {
            (Some(d), _) => opts.cwd.join(d),
            (None, Some(p)) => opts.cwd.join(p),
            (None, None) => root,
        };
        return Err(VerifyError::NothingFound(searched));
    }
    Ok(report)
}

/// One plan's section, named `PLAN_x` (or `repo:PLAN_x` for an orchestrator-hub child).
pub fn check_location(plan: &PlanLocation, cwd: &Path) -> crate::report::Section {
    check_location_with(plan, cwd, &CheckOptions::default())
}

fn check_location_with(
    plan: &PlanLocation,
    cwd: &Path,
    opts: &CheckOptions,
) -> crate::report::Section {
    let display_name = match &plan.hub_repository {
        Some(repo) => format!("{}:{}", repo.trim_start_matches("repositories/"), plan.name),
        None => plan.name.clone(),
    };
    let display_path = relative_display(&plan.dir, cwd);
    check::check_plan(&plan.dir, &plan.name, &display_name, &display_path, opts)
}

/// `path` relative to `cwd` when it lies below it, else as given.
fn relative_display(path: &Path, cwd: &Path) -> String {
    path.strip_prefix(cwd)
        .map(|p| p.display().to_string())
        .unwrap_or_else(|_| path.display().to_string())
}
