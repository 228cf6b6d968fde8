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
    let mut report = Report {
        sections: check_plans(&plans, &opts.cwd),
    };
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

/// The folder CI reports name files from (`verify --format github|sarif|junit`): the root of
/// the git work tree `cwd` is in — the nearest folder at or above it holding `.git`, which is
/// what GitHub and other CI systems resolve paths against — else the workspace root verify
/// searches from.
pub fn repository_root(cwd: &Path) -> PathBuf {
    cwd.ancestors()
        .find(|dir| dir.join(".git").exists())
        .map(Path::to_path_buf)
        .unwrap_or_else(|| locate::find_root(cwd))
}

/// `PLANSEAL_VERIFY_THREADS=N` (a positive number): verify checks plans on N threads (at most
/// one per plan); unset or anything else: one per core. `1` checks every plan on this thread.
pub const THREADS_ENV: &str = "PLANSEAL_VERIFY_THREADS";

/// The sections of `plans`, in their order. Plans are independent, so they are checked on up to
/// one thread per core, each worker taking the next unchecked plan; every section lands at its
/// plan's index, so the report is the same whatever the number of threads.
fn check_plans(plans: &[PlanLocation], cwd: &Path) -> Vec<crate::report::Section> {
    let workers = worker_count(plans.len());
    if workers <= 1 {
        return check_plans_on_this_thread(plans.iter().enumerate(), cwd)
            .into_iter()
            .map(|(_, section)| section)
            .collect();
    }
    let next = std::sync::atomic::AtomicUsize::new(0);
    let claim = || {
        std::iter::from_fn(|| {
            let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            plans.get(i).map(|plan| (i, plan))
        })
    };
    let mut slots: Vec<Option<crate::report::Section>> = vec![None; plans.len()];
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..workers)
            .map(|_| {
                std::thread::Builder::new()
                    // the main thread's 8 MiB, so that a plan checks alike on either
                    .stack_size(8 << 20)
                    .spawn_scoped(scope, || check_plans_on_this_thread(claim(), cwd))
            })
            .collect();
        for handle in handles {
            let checked = match handle {
                Ok(worker) => worker
                    .join()
                    .unwrap_or_else(|p| std::panic::resume_unwind(p)),
                // No thread to be had: what it would have claimed is left for the others.
                Err(_) => Vec::new(),
            };
            for (i, section) in checked {
                slots[i] = Some(section);
            }
        }
    });
    // Plans no worker took (no thread could be started at all) are checked here.
    let missing = slots
        .iter()
        .enumerate()
        .filter(|(_, s)| s.is_none())
        .map(|(i, _)| (i, &plans[i]))
        .collect::<Vec<_>>();
    for (i, section) in check_plans_on_this_thread(missing.into_iter(), cwd) {
        slots[i] = Some(section);
    }
    slots.into_iter().flatten().collect()
}

/// Checks each `(index, plan)` in turn. The plans one thread checks share its repositories: one
/// open and one commit walk per repository and thread. (`Repositories` holds `Rc`s, so each
/// thread makes its own; nothing that is not `Send` crosses threads.)
fn check_plans_on_this_thread<'a>(
    plans: impl Iterator<Item = (usize, &'a PlanLocation)>,
    cwd: &Path,
) -> Vec<(usize, crate::report::Section)> {
    let shared = CheckOptions {
        repositories: Some(std::rc::Rc::new(check::Repositories::default())),
        ..CheckOptions::default()
    };
    plans
        .map(|(i, plan)| (i, check_location_with(plan, cwd, &shared)))
        .collect()
}

/// [`THREADS_ENV`], else one per core; never more than one per plan.
fn worker_count(plans: usize) -> usize {
    std::env::var(THREADS_ENV)
        .ok()
        .and_then(|v| v.trim().parse::<usize>().ok())
        .filter(|n| *n > 0)
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, usize::from))
        .min(plans)
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
