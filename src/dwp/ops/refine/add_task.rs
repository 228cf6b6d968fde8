//! `planseal refine PLAN --add-task --title TEXT …`: a task inserted before the Final Review,
//! which takes the next number everywhere the plan's structure names it (`docs/refine.md`).
//!
//! The steps, each durable before the next, under state.json's lock:
//!
//! | Full plan | Lite plan |
//! |---|---|
//! | the Final Review's file written under its new number (`N+1.task_final_review.md`) | |
//! | the new task's file `N.task_<slug>.md` | |
//! | the Final Review's old file removed | |
//! | PROGRESS.md: a dated refinement entry | PROGRESS.md: a dated refinement entry |
//! | README.md: the index line, links, `Plan Status` | README.md: the record, index line, `Plan Status` |
//! | state.json: the new task, the Final Review renumbered, `task_count` | the same |
//!
//! state.json is the commit point: until it is written, the plan still says N tasks, and the
//! same command run again reads each step's result where it is (the Final Review from its new
//! file when the old one is gone, a README that already lists the new task) and finishes. The
//! manifest is never touched: its `task_count` is the count the plan was created with.

use super::{RefineOutcome, RefineRequest, Renumbered, one_line_arg};
use crate::dwp::decide::insert_task::{Insertion, insert_before_final};
use crate::dwp::decide::update::APPLIED_VERSION;
use crate::dwp::layout;
use crate::dwp::model::markdown::ReconciliationEntry;
use crate::dwp::model::markdown::close_out::line_ending;
use crate::dwp::model::markdown::rewrite::{
    FullNames, RewriteError, TaskDraft, full_task_file, has_inserted_task,
    insert_task_before_final, numbers_sections, renumber_task_file, renumbered_file_name,
    task_file_name, task_slug,
};
use crate::dwp::ops::OpError;
use crate::dwp::ops::plan_edit::{Edit, PlanUnderEdit, text_of};
use crate::jsonfmt::{JsonStyle, to_bytes};
use crate::recovery::hash::sha256_hex;
use crate::report::{Refusal, RefusalKind};
use crate::write::JournalEntry;
use serde_json::{Value, json};

/// Inserts the task (see the module comment).
pub(super) fn add_task(
    req: &RefineRequest,
    draft: &TaskDraft,
    reason: Option<&str>,
) -> Result<RefineOutcome, OpError> {
    one_line_arg("--title", &draft.title, 200)?;
    if let Some(r) = reason {
        one_line_arg("--reason", r, 500)?;
    }
    let title = draft.title.split_whitespace().collect::<Vec<_>>().join(" ");
    let plan = PlanUnderEdit::open(&req.plan_dir, req.expected_sha256.as_deref())?;
    check_ready(&plan)?;
    let last = plan.tasks().last().ok_or_else(|| {
        Refusal::new(
            RefusalKind::ShapeError,
            format!(
                "{}: state.json has no tasks; nothing was written",
                plan.name
            ),
        )
        .hint(format!(
            "`planseal rebuild {}` restores them",
            plan.dir.display()
        ))
    })?;
    let at = last.get("id").and_then(Value::as_u64).unwrap_or(0);
    let status = last.get("status").and_then(Value::as_str).unwrap_or("?");
    if status != "pending" {
        return Err(Refusal::new(
            RefusalKind::FinalReviewStarted,
            format!(
                "the Final Review (task {at}) is {status}: a task is added before it only while it is pending; nothing was written"
            ),
        )
        .hint("new work after the Final Review has started goes into a new plan (or reopen the Final Review with `planseal amend` first)")
        .into());
    }
    // Killed after state.json was written (before its journal line), the same command is run
    // again: the task is there, just before the Final Review, and nothing is left to do.
    let tasks = plan.tasks();
    if tasks.len() >= 2 {
        let before_final = &tasks[tasks.len() - 2];
        if before_final.get("title").and_then(Value::as_str) == Some(title.as_str())
            && before_final.get("status").and_then(Value::as_str) == Some("pending")
        {
            let id = before_final.get("id").and_then(Value::as_u64).unwrap_or(0);
            return Ok(RefineOutcome::new(&plan.name, "add-task", id, title));
        }
    }
    let locator = last.get("locator");
    let final_locator = locator
        .and_then(|l| l.get("value"))
        .or_else(|| last.get("file"))
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    let lite = locator.and_then(|l| l.get("kind")).and_then(Value::as_str) == Some("inline");
    let n = u32::try_from(at).unwrap_or(u32::MAX);
    let mut clock = req.clock.clone();
    let now = clock.now_iso();
    let date = now.get(..10).unwrap_or(&now).to_string();

    let mut edit = Edit::default();
    edit.read_as(layout::STATE_FILE, Some(&plan.state_bytes));
    let (readme_bytes, readme) = plan.read_text(layout::README_FILE)?;
    edit.read_as(layout::README_FILE, Some(&readme_bytes));
    let names = if lite {
        None
    } else {
        let names = full_names(&plan, at, &title, &final_locator)?;
        write_task_files(&plan, &mut edit, &names, n, draft)?;
        Some(names)
    };
    let entry = ReconciliationEntry {
        date,
        summary: format!(
            "Task {at} ({title}) added to scope before the Final Review, which is now Task {} (refine --add-task)",
            at + 1
        ),
        changes: reason
            .map(|r| vec![format!("Reason: {}", r.trim())])
            .unwrap_or_default(),
    };
    edit.append_progress_once(&plan, "Refinement", &entry, "refine.after_progress")?;
    // A README the interrupted run already rewrote is kept as it is.
    if !has_inserted_task(&readme, n, &title) {
        let after = insert_task_before_final(&readme, n, draft, names.as_ref())
            .map_err(|e| readme_refusal(&e))?;
        edit.write(
            layout::README_FILE,
            after.into_bytes(),
            "refine.after_readme",
        );
    }
    let (new_locator, final_new) = match &names {
        Some(n) => (n.new_task.clone(), n.final_after.clone()),
        None => (format!("#task-{at}"), format!("#task-{}", at + 1)),
    };
    let mut state = plan.state.clone();
    insert_before_final(
        &mut state,
        &Insertion {
            at,
            title: title.clone(),
            locator: new_locator,
            final_locator: final_new,
        },
        &now,
    )
    .map_err(|e| Refusal::new(RefusalKind::ShapeError, format!("{e}; nothing was written")))?;
    let state_after = to_bytes(&state, &JsonStyle::detect(&plan.state_bytes));
    let state_sha256 = sha256_hex(&state_after);
    edit.write(layout::STATE_FILE, state_after, "refine.after_state");

    let mut outcome = RefineOutcome::new(&plan.name, "add-task", at, title.clone());
    outcome.result = "ok";
    outcome.renumbered = Some(Renumbered {
        from: at,
        to: at + 1,
    });
    outcome.written = edit.written();
    outcome.removed = edit.removed();
    outcome.placeholders = draft.placeholders();
    if req.dry_run {
        outcome.diff = edit.diff();
        return Ok(outcome);
    }
    let mut line = JournalEntry::for_plan(now, "refine", &plan.name)
        .transition(Some(at), Value::Null, "pending".into())
        .reason(reason.map(|r| r.trim().to_string()))
        .hashes(Some(sha256_hex(&plan.state_bytes)), Some(state_sha256))
        .with("action", "add-task")
        .with("title", title)
        .with("renumbered", json!({"from": at, "to": at + 1}))
        .with("written", outcome.written.clone());
    if !outcome.removed.is_empty() {
        line = line.with("removed", outcome.removed.clone());
    }
    // The whole new state, so that a replay of the journal (`planseal rebuild`) reaches it.
    line = line.with(
        "applied",
        json!({"version": APPLIED_VERSION, "replaced": state}),
    );
    line.agent = req.agent.clone();
    line.model = req.model.clone();
    outcome.confirmation = edit.apply(&plan.dir, "refine", &line)?;
    outcome.result = "applied";
    Ok(outcome)
}

/// A task is added to a ready plan: not while it is materializing or being promoted.
fn check_ready(plan: &PlanUnderEdit) -> Result<(), Refusal> {
    let materialization = plan.state.get("materialization").and_then(Value::as_str);
    let promoting = plan.state.get("promotion").is_some_and(|p| !p.is_null());
    if materialization.is_some_and(|m| m != "ready") || promoting {
        return Err(Refusal::new(
            RefusalKind::NotReady,
            format!(
                "{} is not ready (materialization: {}{}); a task is added to a ready plan; nothing was written",
                plan.name,
                materialization.unwrap_or("?"),
                if promoting { ", promotion in flight" } else { "" }
            ),
        )
        .hint(format!(
            "finish materializing the plan, or finish its promotion with `planseal promote {}`",
            plan.dir.display()
        )));
    }
    Ok(())
}

/// The file names of a Full plan's insertion: the new task's from its title, the Final
/// Review's before and after.
fn full_names(
    plan: &PlanUnderEdit,
    at: u64,
    title: &str,
    final_before: &str,
) -> Result<FullNames, Refusal> {
    let n = u32::try_from(at).unwrap_or(u32::MAX);
    let final_after = renumbered_file_name(final_before, n + 1).ok_or_else(|| {
        Refusal::new(
            RefusalKind::ShapeError,
            format!(
                "{}: the Final Review's file `{final_before}` is not named `<N>.task_<slug>.md`; nothing was written",
                plan.name
            ),
        )
        .hint("name it as the plan's rules ask, e.g. `4.task_final_review.md`")
    })?;
    let slug = task_slug(title);
    let mut new_task = task_file_name(n, &slug);
    if new_task == final_before {
        new_task = task_file_name(n, &format!("{slug}_task"));
    }
    Ok(FullNames {
        new_task,
        final_before: final_before.to_string(),
        final_after,
    })
}

/// The task-file steps of a Full plan: the Final Review under its new number (from its old
/// file, or — after an interrupted run removed that — from the new one), the new task's file,
/// the old file removed.
fn write_task_files(
    plan: &PlanUnderEdit,
    edit: &mut Edit,
    names: &FullNames,
    n: u32,
    draft: &TaskDraft,
) -> Result<(), OpError> {
    let old = plan.read(&names.final_before)?;
    let moved = plan.read(&names.final_after)?;
    let existing = plan.read(&names.new_task)?;
    edit.read_as(&names.final_before, old.as_deref());
    edit.read_as(&names.final_after, moved.as_deref());
    edit.read_as(&names.new_task, existing.as_deref());
    let (rel, source) = match (&old, &moved) {
        (Some(b), _) => (&names.final_before, b),
        (None, Some(b)) => (&names.final_after, b),
        (None, None) => {
            return Err(Refusal::new(
                RefusalKind::TaskRecordMissing,
                format!(
                    "{}: the Final Review's task file {} is missing; nothing was written",
                    plan.name, names.final_before
                ),
            )
            .hint("restore the task file (the markdown is the source of truth), then run the command again")
            .into());
        }
    };
    let text = text_of(rel, source)?;
    let renumbered = renumber_task_file(&text, n, n + 1);
    edit.write(
        &names.final_after,
        renumbered.into_bytes(),
        "refine.after_final_review_copy",
    );
    let new_text = full_task_file(n, draft, numbers_sections(&text), line_ending(&text));
    edit.write(
        &names.new_task,
        new_text.into_bytes(),
        "refine.after_new_task_file",
    );
    edit.remove(&names.final_before, "refine.after_old_final_review_removed");
    Ok(())
}

fn readme_refusal(e: &RewriteError) -> Refusal {
    let kind = match e {
        RewriteError::NoRecord(_) => RefusalKind::TaskRecordMissing,
        RewriteError::NoIndexLine(_) | RewriteError::NoPlanStatus => {
            RefusalKind::ReadmeIndexMissing
        }
    };
    Refusal::new(kind, format!("{e}; nothing was written")).hint(
        "the README needs its task list (`- [ ] Task N: …`), a `Plan Status: X/N completed` line and, in a Lite plan, the Final Review's `{#task-N}` record",
    )
}
