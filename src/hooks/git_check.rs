//! What planseal's git hooks check when git runs them (`planseal hook pre-commit|pre-push|
//! commit-msg`, `docs/git-hooks.md`). Read-only: the index and the ignore rules are read through
//! gix (never by running git), the plans through `verify`'s own checks.
//!
//! - pre-commit: the plans the commit touches — a plan with a staged file — and every plan whose
//!   `.dwp/` folder is ignored (the usual set-up: then no plan file is ever staged, and the commit
//!   is the code that the plan's state describes).
//! - pre-push: every plan of the work tree.
//! - commit-msg: a subject that names a task (`… - Task N of PLAN_x`, `docs/history.md`) must
//!   name a plan of the work tree and a task of it that is in progress.

use crate::dwp::history::task_named;
use crate::dwp::locate::{self, DiscoverOptions, PlanLocation};
use crate::dwp::model::{State, TaskStatus, parse_json};
use crate::recovery::git::Repo;
use crate::recovery::read::{Kind, read};
use crate::report::{HintedError, Refusal, RefusalKind, Report, Verdict};
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Which plans a hook verified, and why those.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Scope {
    /// pre-commit: plans with a staged file, and plans whose `.dwp/` is ignored.
    Commit,
    /// pre-push: every plan.
    All,
}

/// What pre-commit or pre-push verified.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct PlansChecked {
    /// How the plans were chosen.
    pub scope: Scope,
    /// The plans verified, by name, in the order found.
    pub plans: Vec<String>,
    /// Per plan, why it was chosen (`staged` or `dwp-ignored`; pre-push: `all`).
    pub reasons: BTreeMap<String, &'static str>,
    /// The verify report of those plans (empty when none was chosen).
    #[serde(skip)]
    pub report: Report,
}

impl PlansChecked {
    /// The verdict: CONFORMANT when no plan was chosen.
    pub fn verdict(&self) -> Verdict {
        self.report.verdict()
    }
}

/// Why a hook could not check anything: a usage error (exit 2), which git takes as the hook
/// failing.
fn not_in_repository(dir: &Path) -> HintedError {
    HintedError::usage(format!("{}: not inside a git work tree", dir.display()))
        .hint("git runs this command as a hook from the work tree; run it inside one")
}

/// The repository and its work tree root around `dir`.
fn open(dir: &Path) -> Result<(Repo, PathBuf), HintedError> {
    let repo = Repo::discover(dir)
        .map_err(|e| HintedError::git_input(&dir.display().to_string(), &e))?
        .ok_or_else(|| not_in_repository(dir))?;
    let root = repo
        .work_tree()
        .map(Path::to_path_buf)
        .ok_or_else(|| not_in_repository(dir))?;
    Ok((repo, root))
}

/// Every plan of the work tree (its own and an orchestrator hub's children).
fn all_plans(root: &Path) -> Result<Vec<PlanLocation>, HintedError> {
    locate::discover(&DiscoverOptions {
        cwd: root.to_path_buf(),
        ..DiscoverOptions::default()
    })
    .map_err(|e| HintedError::usage(e.to_string()).hint(e.hint()))
}

/// `path` relative to `root` with `/` separators.
fn relative(path: &Path, root: &Path) -> String {
    path.strip_prefix(root)
        .unwrap_or(path)
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/")
}

fn checked(scope: Scope, root: &Path, chosen: Vec<(PlanLocation, &'static str)>) -> PlansChecked {
    let mut report = Report::default();
    let mut plans = Vec::new();
    let mut reasons = BTreeMap::new();
    for (plan, reason) in chosen {
        report
            .sections
            .push(crate::verify::check_location(&plan, root));
        reasons.insert(plan.name.clone(), reason);
        plans.push(plan.name);
    }
    PlansChecked {
        scope,
        plans,
        reasons,
        report,
    }
}

/// pre-commit: verifies the plans with a staged file and the plans whose `.dwp/` folder is
/// ignored (see the module comment). `dir` is where git runs the hook (the work tree root).
pub fn pre_commit(dir: &Path) -> Result<PlansChecked, HintedError> {
    let (repo, root) = open(dir)?;
    let plans = all_plans(&root)?;
    if plans.is_empty() {
        return Ok(checked(Scope::Commit, &root, Vec::new()));
    }
    // The staged paths are read only when a plan's .dwp/ is not ignored (the status of the
    // whole work tree is the costly part).
    let mut staged: Option<Vec<String>> = None;
    let mut ignored: BTreeMap<String, bool> = BTreeMap::new();
    let mut chosen = Vec::new();
    for plan in plans {
        let dwp = plan
            .dir
            .parent()
            .and_then(Path::parent)
            .map(|d| relative(d, &root))
            .unwrap_or_default();
        let is_ignored = match ignored.get(&dwp) {
            Some(known) => *known,
            None => {
                let answer = repo
                    .is_ignored(&dwp, true)
                    .map_err(|e| HintedError::git_input(&root.display().to_string(), &e))?;
                ignored.insert(dwp.clone(), answer);
                answer
            }
        };
        let prefix = format!("{}/", relative(&plan.dir, &root));
        if is_ignored {
            chosen.push((plan, "dwp-ignored"));
        } else {
            if staged.is_none() {
                staged = Some(
                    repo.staged_paths()
                        .map_err(|e| HintedError::git_input(&root.display().to_string(), &e))?,
                );
            }
            if staged
                .as_deref()
                .unwrap_or_default()
                .iter()
                .any(|p| p.starts_with(&prefix))
            {
                chosen.push((plan, "staged"));
            }
        }
    }
    Ok(checked(Scope::Commit, &root, chosen))
}

/// pre-push: verifies every plan of the work tree.
pub fn pre_push(dir: &Path) -> Result<PlansChecked, HintedError> {
    let (_, root) = open(dir)?;
    let chosen = all_plans(&root)?.into_iter().map(|p| (p, "all")).collect();
    Ok(checked(Scope::All, &root, chosen))
}

/// What commit-msg found in the message.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct MessageChecked {
    /// The subject: the message's first line that is neither blank nor a comment.
    pub subject: String,
    /// The plan the subject names (`None`: it names no task, nothing to check).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub plan: Option<String>,
    /// The task number the subject names.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub task: Option<u64>,
    /// The task's status in state.json (`in_progress`), or `None` when the plan keeps no
    /// state.json (nothing says which task is in progress: the subject passes).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
    /// Why the subject passed without its task being checked, when it did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// Why commit-msg says no, or could not check.
#[derive(Debug, thiserror::Error)]
pub enum MessageError {
    /// The subject names a plan or task that does not exist, or a task not in progress.
    #[error(transparent)]
    Refused(#[from] Refusal),
    /// The message or the plan could not be read.
    #[error(transparent)]
    Error(#[from] HintedError),
}

/// The subject of a commit message as git will record it: the first line that is not blank and
/// not a comment (`#`, which git strips after the commit-msg hook has run).
pub fn subject_of(message: &str) -> &str {
    message
        .lines()
        .map(str::trim_end)
        .find(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .unwrap_or("")
}

/// commit-msg: checks the message in `message_file` (relative to `dir`, as git passes it).
pub fn commit_msg(dir: &Path, message_file: &Path) -> Result<MessageChecked, MessageError> {
    let path = dir.join(message_file);
    let bytes = read(&path, Kind::Settings)
        .map_err(|e| {
            HintedError::usage(format!("{}: {e}", message_file.display()))
                .hint("git passes the commit message file as the hook's only argument")
        })?
        .ok_or_else(|| {
            HintedError::usage(format!("{}: no such file", message_file.display()))
                .hint("git passes the commit message file as the hook's only argument")
        })?;
    let message = String::from_utf8_lossy(&bytes);
    let subject = subject_of(&message).to_string();
    let Some((task, plan_name)) = task_named(&subject).map(|(n, p)| (n, p.to_string())) else {
        return Ok(MessageChecked {
            subject,
            plan: None,
            task: None,
            status: None,
            note: None,
        });
    };
    let (_, root) = open(dir)?;
    let plans: Vec<PlanLocation> = all_plans(&root)?
        .into_iter()
        .filter(|p| p.name == plan_name)
        .collect();
    if plans.is_empty() {
        return Err(Refusal::new(
            RefusalKind::PlanNotFound,
            format!(
                "the commit subject names task {task} of {plan_name}, and this work tree has no plan {plan_name}"
            ),
        )
        .hint("end the subject with `- Task N of PLAN_x` naming a plan of .dwp/plans/ (planseal status lists them), or commit with --no-verify to skip the hook")
        .into());
    }
    // An orchestrator hub may hold the name in several children: one with the task in progress
    // is enough; otherwise the first one's answer is given.
    let mut first_refusal = None;
    for plan in &plans {
        match task_status(plan, &plan_name, task, &root) {
            Ok(status) => {
                let note = status.is_none().then(|| {
                    format!(
                        "{plan_name} keeps no state.json: which task is in progress is not recorded, so the task is not checked"
                    )
                });
                return Ok(MessageChecked {
                    subject,
                    plan: Some(plan_name),
                    task: Some(task),
                    status,
                    note,
                });
            }
            Err(e) => {
                first_refusal.get_or_insert(e);
            }
        }
    }
    Err(first_refusal.expect("at least one plan"))
}

/// Task `task`'s status in the plan's state.json: `Ok(Some("in_progress"))`, `Ok(None)` when the
/// plan has no state.json, a refusal when the task does not exist or is not in progress.
fn task_status(
    plan: &PlanLocation,
    plan_name: &str,
    task: u64,
    root: &Path,
) -> Result<Option<String>, MessageError> {
    let state_path = plan.dir.join("state.json");
    let state_shown = relative(&state_path, root);
    let shown = format!("{plan_name}/state.json");
    let Some(bytes) = crate::dwp::read::read_plan_file(&plan.dir, "state.json").map_err(|e| {
        HintedError::usage(format!("{shown}: {e}")).hint("check the file, then commit again")
    })?
    else {
        return Ok(None);
    };
    let value = parse_json(&bytes).map_err(|e| {
        Refusal::new(RefusalKind::StateUnparseable, format!("{state_shown}: {e}")).hint(format!(
            "repair it (planseal rebuild {} --write regenerates it from the markdown)",
            relative(&plan.dir, root)
        ))
    })?;
    let state = State::from_value(&value);
    let ids: Vec<u64> = state.tasks.iter().filter_map(|t| t.id).collect();
    let Some(found) = state.task(task) else {
        let known = match (ids.iter().min(), ids.iter().max()) {
            (Some(lo), Some(hi)) => format!("its tasks are {lo} to {hi}"),
            _ => "it has no tasks".to_string(),
        };
        return Err(Refusal::new(
            RefusalKind::UnknownTask,
            format!("the commit subject names task {task} of {plan_name}, which has no task {task}: {known}"),
        )
        .hint("fix the task number in the subject (planseal status shows the current task)")
        .into());
    };
    match found.status {
        Some(TaskStatus::InProgress) => Ok(Some(TaskStatus::InProgress.as_str().to_string())),
        _ => {
            let status = found.status_raw.clone().unwrap_or_else(|| "missing".into());
            Err(Refusal::new(
                RefusalKind::TaskNotInProgress,
                format!(
                    "the commit subject names task {task} of {plan_name}, whose status is {status}, not in_progress"
                ),
            )
            .hint(format!(
                "name the task in progress (planseal status shows it), or start this one first: planseal update {state_shown} --task {task} --status in_progress"
            ))
            .into())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_subject_is_the_first_line_that_is_not_a_comment() {
        assert_eq!(
            subject_of("\n# Please enter\nfeat: x - Task 2 of PLAN_a  \n\nbody\n"),
            "feat: x - Task 2 of PLAN_a"
        );
        assert_eq!(subject_of("# only comments\n"), "");
    }
}
