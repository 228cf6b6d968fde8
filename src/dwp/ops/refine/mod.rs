//! `planseal refine PLAN …`: the user changes a plan's scope (`docs/refine.md`).
//!
//! - [`skip`]: `--skip N --reason TEXT --authority user` removes task N from scope — the dated
//!   refinement record PROGRESS.md keeps, then `update`'s transition to `skipped`.
//! - [`add_task`]: `--add-task --title TEXT …` inserts a task before the Final Review, which is
//!   renumbered in its file, the README and state.json.
//!
//! Both write markdown first and state.json last, under state.json's lock, so after a crash
//! the state is stale, never ahead of the markdown, and running the same command again
//! finishes the change.

pub mod add_task;
pub mod skip;

use crate::clock::Clock;
use crate::dwp::model::markdown::rewrite::TaskDraft;
use crate::dwp::ops::OpError;
use crate::dwp::ops::update::UpdateOutcome;
use crate::report::{Refusal, RefusalKind};
use crate::write::Confirmation;
use serde::Serialize;
use std::path::PathBuf;

/// What `refine` is asked to change.
#[derive(Debug, Clone)]
pub enum RefineAction {
    /// `--skip N --reason TEXT --authority WHO`.
    Skip {
        /// The task removed from scope.
        task: u64,
        /// Why, in the user's words.
        reason: String,
        /// Who decides (only `user` is accepted).
        authority: String,
    },
    /// `--add-task --title TEXT …`.
    AddTask {
        /// The new task.
        draft: TaskDraft,
        /// `--reason`, for PROGRESS.md and the journal.
        reason: Option<String>,
    },
}

/// What `refine` is asked.
#[derive(Debug, Clone)]
pub struct RefineRequest {
    /// The plan folder.
    pub plan_dir: PathBuf,
    /// The change.
    pub action: RefineAction,
    /// The SHA-256 of state.json as the caller last read it.
    pub expected_sha256: Option<String>,
    /// Show the change; write nothing.
    pub dry_run: bool,
    /// `--agent` / `--model`: the skip's `updated_by` and the journal.
    pub agent: Option<String>,
    /// `--model`.
    pub model: Option<String>,
    /// The clock for the dates, `updated_at` and the journal.
    pub clock: Clock,
}

/// The Final Review's renumbering.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Renumbered {
    /// Its number before.
    pub from: u64,
    /// Its number now.
    pub to: u64,
}

/// What `refine` did (or would do).
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct RefineOutcome {
    /// `applied`, `unchanged` (already so: nothing written) or `ok` (a dry run).
    pub result: &'static str,
    /// The plan's name.
    pub plan: String,
    /// `skip` or `add-task`.
    pub action: &'static str,
    /// The task skipped or added.
    pub task: u64,
    /// Its title.
    pub title: String,
    /// The record that removes a skipped task from scope (`PROGRESS.md refinement of DATE`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub record: Option<String>,
    /// The Final Review's new number (an added task).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub renumbered: Option<Renumbered>,
    /// The files written (or that would be), in write order.
    pub written: Vec<String>,
    /// The files removed (the Final Review's old task file).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub removed: Vec<String>,
    /// The new task's sections written as a `TODO:` placeholder.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub placeholders: Vec<&'static str>,
    /// The unified diff of every file (a dry run).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub diff: String,
    /// A skip's state transition, when it was applied.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub transition: Option<UpdateOutcome>,
    /// What the writes could not confirm.
    #[serde(skip)]
    pub confirmation: Confirmation,
}

impl RefineOutcome {
    /// An outcome that changed nothing yet (`unchanged`), to be filled in.
    fn new(plan: &str, action: &'static str, task: u64, title: String) -> Self {
        Self {
            result: "unchanged",
            plan: plan.to_string(),
            action,
            task,
            title,
            record: None,
            renumbered: None,
            written: Vec::new(),
            removed: Vec::new(),
            placeholders: Vec::new(),
            diff: String::new(),
            transition: None,
            confirmation: Confirmation::Confirmed,
        }
    }

    /// The text output.
    pub fn to_text(&self) -> String {
        let plan = &self.plan;
        let task = self.task;
        let title = &self.title;
        let dry = self.result == "ok";
        let mut out = match (self.action, self.result) {
            ("skip", "unchanged") => format!(
                "{plan}: task {task} ({title}) is already skipped and its refinement recorded; nothing written\n"
            ),
            ("add-task", "unchanged") => format!(
                "{plan}: task {task} ({title}) is already the task before the Final Review; nothing written\n"
            ),
            ("skip", _) => format!(
                "{plan}: task {task} ({title}) {} from scope by the user ({})\n",
                if dry { "would be removed" } else { "removed" },
                self.record.as_deref().unwrap_or("refinement")
            ),
            _ => {
                let moved = self
                    .renumbered
                    .map(|r| {
                        format!(
                            "; the Final Review {} task {}",
                            if dry { "would be" } else { "is now" },
                            r.to
                        )
                    })
                    .unwrap_or_default();
                format!(
                    "{plan}: task {task} ({title}) {} before the Final Review{moved}\n",
                    if dry { "would be added" } else { "added" }
                )
            }
        };
        if !self.written.is_empty() || !self.removed.is_empty() {
            let mut files = self.written.join(", ");
            if !self.removed.is_empty() {
                files.push_str(&format!(
                    "{}removed {}",
                    if files.is_empty() { "" } else { "; " },
                    self.removed.join(", ")
                ));
            }
            out.push_str(&format!(
                "{} {files}\n",
                if dry { "would write" } else { "wrote" }
            ));
        }
        if let Some(t) = &self.transition {
            out.push_str(&t.line);
            out.push('\n');
        }
        if !self.placeholders.is_empty() {
            out.push_str(&format!(
                "fill in before the task starts: {} (written as `TODO:`)\n",
                self.placeholders.join(", ")
            ));
        }
        if dry {
            out.push_str(&self.diff);
            out.push_str("nothing written (--dry-run)\n");
        }
        out
    }
}

/// Applies the change (see the module comment).
pub fn refine(req: RefineRequest) -> Result<RefineOutcome, OpError> {
    match &req.action {
        RefineAction::Skip {
            task,
            reason,
            authority,
        } => skip::skip(&req, *task, reason, authority),
        RefineAction::AddTask { draft, reason } => {
            add_task::add_task(&req, draft, reason.as_deref())
        }
    }
}

/// A flag's text: one line of 1 to `max` characters.
pub(crate) fn one_line_arg(flag: &str, text: &str, max: usize) -> Result<(), Refusal> {
    let t = text.trim();
    if t.is_empty() || t.contains(['\n', '\r']) || t.chars().count() > max {
        return Err(Refusal::new(
            RefusalKind::UsageError,
            format!("{flag} must be one line of 1 to {max} characters"),
        )
        .hint(format!("e.g. {flag} \"the docs move to the wiki\"")));
    }
    Ok(())
}
