//! `planseal refine PLAN --skip N --reason TEXT --authority user`: the user removes task N
//! from scope (`docs/refine.md`).
//!
//! The record first: a dated `## Refinement — DATE` entry in PROGRESS.md naming the task, the
//! user's authority and the reason — the record `update --status skipped` requires. Then the
//! transition to `skipped`, which is `update`'s own (its lock, re-read and checks). The
//! transition is decided before anything is written, with the record it is about to get, so a
//! skip `update` would refuse (no approval, an active blocker, a marker) writes nothing. A crash
//! between the two leaves the record written and the state stale; the same command run again
//! finds the record and applies the transition.
//!
//! Strict order is unchanged: a skipped task still blocks the tasks after it, and a plan with a
//! skipped task never reads `completed`. Work removed so that a plan can finish is a re-scope —
//! a `deferred requirement` amendment moving the criterion to a named task — not a skip.

use super::{RefineOutcome, RefineRequest, one_line_arg};
use crate::dwp::decide::update::{UpdateRequest, plan_transition};
use crate::dwp::layout;
use crate::dwp::model::TaskStatus;
use crate::dwp::model::markdown::SkipRefinement;
use crate::dwp::ops::OpError;
use crate::dwp::ops::plan_edit::{Edit, PlanUnderEdit};
use crate::dwp::ops::update;
use crate::report::{Refusal, RefusalKind};
use crate::write::{Confirmation, JournalEntry};
use serde_json::Value;

/// How re-scoping is done instead of a skip, for the hints.
const RESCOPE: &str = "to finish the plan without some work, re-scope it: a `deferred requirement` amendment moves the criterion to a named task (`planseal amend PLAN --task N … --disposition deferred-requirement --affects M --authority user`)";

/// Removes the task from scope (see the module comment).
pub(super) fn skip(
    req: &RefineRequest,
    task: u64,
    reason: &str,
    authority: &str,
) -> Result<RefineOutcome, OpError> {
    if !authority.trim().eq_ignore_ascii_case("user") {
        return Err(Refusal::new(
            RefusalKind::AuthorityNotUser,
            format!(
                "--authority {authority}: only the user removes a task from scope — the user decides what the plan delivers; nothing was written"
            ),
        )
        .hint(format!(
            "ask the user; with their decision run `planseal refine PLAN --skip {task} --reason \"…\" --authority user`; {RESCOPE}"
        ))
        .into());
    }
    one_line_arg("--reason", reason, 500)?;
    let plan = PlanUnderEdit::open(&req.plan_dir, req.expected_sha256.as_deref())?;
    let tasks = plan.tasks();
    let index = tasks
        .iter()
        .position(|t| t.get("id").and_then(Value::as_u64) == Some(task))
        .ok_or_else(|| {
            Refusal::new(
                RefusalKind::UnknownTask,
                format!(
                    "task {task} is not in {}; its tasks are {}",
                    plan.name,
                    plan.task_ids()
                ),
            )
            .hint("pass one of the listed ids with --skip")
        })?;
    let entry = &tasks[index];
    let title = entry
        .get("title")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    let status = entry
        .get("status")
        .and_then(Value::as_str)
        .unwrap_or("?")
        .to_string();
    if status == TaskStatus::Completed.as_str() {
        return Err(Refusal::new(
            RefusalKind::SkipCompletedTask,
            format!(
                "task {task} ({title}) is completed: a completed task is reopened, never skipped; nothing was written"
            ),
        )
        .hint(format!(
            "record why with `planseal amend {} --task {task} …` (it reopens the task); {RESCOPE}",
            plan.dir.display()
        ))
        .into());
    }
    if index + 1 == tasks.len() {
        return Err(Refusal::new(
            RefusalKind::SkipFinalReview,
            format!(
                "task {task} ({title}) is the Final Review: it closes the plan and is never removed from scope; nothing was written"
            ),
        )
        .hint(RESCOPE)
        .into());
    }

    let mut clock = req.clock.clone();
    let now = clock.now_iso();
    let date = now.get(..10).unwrap_or(&now).to_string();
    let refinement = SkipRefinement {
        date: date.clone(),
        task: u32::try_from(task).unwrap_or(u32::MAX),
        title: title.clone(),
        reason: reason.trim().to_string(),
    };
    let record = format!("PROGRESS.md refinement of {date}");
    let already_skipped = status == TaskStatus::Skipped.as_str();
    let mut markdown = Edit::default();
    markdown.read_as(layout::STATE_FILE, Some(&plan.state_bytes));
    let recorded = markdown.append_progress_once(
        &plan,
        "Refinement",
        &refinement.entry(),
        "refine.after_progress",
    )?;
    let mut outcome = RefineOutcome::new(&plan.name, "skip", task, title);
    outcome.record = Some(record.clone());
    if already_skipped && recorded {
        return Ok(outcome);
    }

    let mut request =
        UpdateRequest::new(i64::try_from(task).unwrap_or(i64::MAX), TaskStatus::Skipped);
    request.agent = req.agent.clone();
    request.model = req.model.clone();
    request.expected_sha256 = req.expected_sha256.clone();
    // The transition, decided now with the record it is about to get: what `update` would
    // refuse refuses the whole skip, before anything is written.
    let candidate = if already_skipped {
        None
    } else {
        let mut facts = update::read_plan_facts(&plan.dir, &plan.state_bytes, request.task)?;
        facts.skip_record = Some(record.clone());
        let decided = plan_transition(&plan.state_bytes, &request, &facts, &mut clock.clone())?;
        Some(decided.candidate_bytes)
    };

    if req.dry_run {
        let mut shown = markdown.clone();
        if let Some(bytes) = candidate {
            shown.write(layout::STATE_FILE, bytes, "");
        }
        outcome.result = "ok";
        outcome.written = shown.written();
        outcome.diff = shown.diff();
        return Ok(outcome);
    }

    // 1. The record, under state.json's lock.
    let mut confirmation = Confirmation::Confirmed;
    if !markdown.is_empty() {
        let mut line = JournalEntry::for_plan(now, "refine", &plan.name)
            // The record only: the task's status moves with update's line after it (a replay of
            // the journal must not skip a task whose transition did not happen).
            .transition(Some(task), status.clone().into(), status.clone().into())
            .reason(Some(reason.trim().to_string()))
            .with("action", "skip")
            .with("authority", "user")
            .with("record", record.clone())
            .with("markdown", markdown.written());
        line.agent = req.agent.clone();
        line.model = req.model.clone();
        confirmation = markdown.apply(&plan.dir, "refine", &line)?;
        outcome.written = markdown.written();
    }
    // 2. state.json last: update's transition.
    if !already_skipped {
        let state = layout::state_path(&plan.dir);
        let transition = update::plan(&state, &state, request, clock)
            .and_then(update::apply)
            .map_err(|e| after_record(e, !markdown.is_empty()))?;
        confirmation = confirmation.and(transition.confirmation.clone());
        outcome.written.push(layout::STATE_FILE.to_string());
        outcome.transition = Some(transition);
    }
    outcome.result = "applied";
    outcome.confirmation = confirmation;
    Ok(outcome)
}

/// A refusal of the transition after the record was written says so, and how to finish.
fn after_record(e: update::UpdateError, written: bool) -> OpError {
    match e {
        update::UpdateError::Refused(mut r) if written => {
            r.message = format!(
                "{} (the refinement record was written to PROGRESS.md; state.json was not changed — run the same `planseal refine` again once this is fixed)",
                r.message
            );
            r.into()
        }
        other => other.into(),
    }
}
