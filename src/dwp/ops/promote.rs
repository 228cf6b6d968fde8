//! `planseal promote PLAN`: a Lite plan promoted to Full (`docs/promote.md`) — each inline
//! record moved into its task file `N.task_<slug>.md`, the README index linking the files and
//! saying `Plan Format: Full`, state.json's locators `{kind: file, …}` and `format: full`.
//!
//! The promotion walks the phases state.json records (`crate::dwp::decide::promotion`), each
//! step durable before the next, under state.json's lock:
//!
//! 1. state.json: `materialization: promoting`, `promotion.phase: intent` with the file names;
//! 2. each task file, from the README's record;
//! 3. state.json: `phase: tasks_written`;
//! 4. README.md: records out, index linked, `Plan Format: Full`;
//! 5. state.json: `phase: switched`, the file locators, `format: full`;
//! 6. state.json: `materialization: ready`, `promotion: null`.
//!
//! Interrupted anywhere, the plan is either as it was (before step 1) or at a recorded phase:
//! `verify` names the phase, and `promote` run again resumes from it — every step is written
//! from what the plan holds at that phase, and a step already done writes nothing. The
//! manifest keeps `plan_format: lite`: it records how the plan was created.

use crate::clock::Clock;
use crate::dwp::decide::promotion::{
    PromotionState, declare, finish, promotion_state, switch_to_files, tasks_written,
};
use crate::dwp::decide::update::APPLIED_VERSION;
use crate::dwp::layout;
use crate::dwp::model::markdown::parse_readme;
use crate::dwp::model::markdown::promotion::{readme_as_full, task_file_from_record};
use crate::dwp::model::markdown::rewrite::{FINAL_REVIEW_SLUG, task_file_name, task_slug};
use crate::dwp::model::{Era, PromotionPhase, state_era};
use crate::dwp::ops::OpError;
use crate::dwp::ops::plan_edit::{Edit, PlanUnderEdit};
use crate::jsonfmt::{JsonStyle, to_bytes};
use crate::recovery::hash::sha256_hex;
use crate::report::{Refusal, RefusalKind};
use crate::write::{Confirmation, JournalEntry};
use serde::Serialize;
use serde_json::Value;
use std::path::PathBuf;

/// What `promote` is asked.
#[derive(Debug, Clone)]
pub struct PromoteRequest {
    /// The plan folder.
    pub plan_dir: PathBuf,
    /// The SHA-256 of state.json as the caller last read it.
    pub expected_sha256: Option<String>,
    /// Show the change; write nothing.
    pub dry_run: bool,
    /// The clock for `updated_at` and the journal.
    pub clock: Clock,
}

/// The sections a promoted task file got as placeholders.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct AddedSections {
    /// The task.
    pub task: u64,
    /// The sections added (`Read Before Starting`, `Instructions`, …).
    pub sections: Vec<&'static str>,
    /// Whether they hold a `TODO:` (a task still to do) or a note (a closed task).
    pub todo: bool,
}

/// What `promote` did (or would do).
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct PromoteOutcome {
    /// `applied`, `unchanged` (already Full: nothing written) or `ok` (a dry run).
    pub result: &'static str,
    /// The plan's name.
    pub plan: String,
    /// The phase an interrupted promotion was resumed from.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resumed_from: Option<&'static str>,
    /// The task files of the Full plan, by task.
    pub tasks: Vec<String>,
    /// The files written (or that would be), in the order of their first write.
    pub written: Vec<String>,
    /// The sections each task file got as placeholders.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub added: Vec<AddedSections>,
    /// The unified diff of every file (a dry run).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub diff: String,
    /// SHA-256 of state.json at the end.
    pub state_sha256: String,
    /// What the writes could not confirm.
    #[serde(skip)]
    pub confirmation: Confirmation,
}

impl PromoteOutcome {
    /// The text output.
    pub fn to_text(&self) -> String {
        if self.result == "unchanged" {
            return format!("{}: already a Full plan; nothing written\n", self.plan);
        }
        let dry = self.result == "ok";
        let mut out = format!(
            "{}: {} Lite → Full: {} task file(s) ({}); state.json format full, materialization ready\n",
            self.plan,
            if dry { "would promote" } else { "promoted" },
            self.tasks.len(),
            self.tasks.join(", ")
        );
        if let Some(phase) = self.resumed_from {
            out.push_str(&format!(
                "resumed an interrupted promotion at phase {phase}\n"
            ));
        }
        out.push_str(&format!(
            "{} {}\n",
            if dry { "would write" } else { "wrote" },
            self.written.join(", ")
        ));
        let open: Vec<String> = self
            .added
            .iter()
            .filter(|a| a.todo)
            .map(|a| a.task.to_string())
            .collect();
        if let Some(first) = self.added.iter().find(|a| a.todo) {
            out.push_str(&format!(
                "fill in before each task starts: {} (written as `TODO:` in task {})\n",
                first.sections.join(", "),
                open.join(", ")
            ));
        }
        if dry {
            out.push_str(&self.diff);
            out.push_str("nothing written (--dry-run)\n");
        }
        out
    }
}

/// How far a promotion has got: 0 not started, then one per recorded phase.
fn rank(at: &PromotionState) -> u8 {
    match at {
        PromotionState::NotStarted => 0,
        PromotionState::At { phase, .. } => match phase {
            PromotionPhase::Intent => 1,
            PromotionPhase::TasksWritten => 2,
            PromotionPhase::Switched => 3,
        },
    }
}

/// Promotes the plan, or finishes an interrupted promotion (see the module comment).
pub fn promote(req: PromoteRequest) -> Result<PromoteOutcome, OpError> {
    let plan = PlanUnderEdit::open(&req.plan_dir, req.expected_sha256.as_deref())?;
    let unchanged = PromoteOutcome {
        result: "unchanged",
        plan: plan.name.clone(),
        resumed_from: None,
        tasks: Vec::new(),
        written: Vec::new(),
        added: Vec::new(),
        diff: String::new(),
        state_sha256: sha256_hex(&plan.state_bytes),
        confirmation: Confirmation::Confirmed,
    };
    let era = state_era(&plan.state).map_err(|e| {
        Refusal::new(
            RefusalKind::UnsupportedSchema,
            format!("state.json: {e}; nothing was written"),
        )
    })?;
    if era == Era::V1 {
        // A v1 plan has no Lite form: each task is a file already.
        return Ok(unchanged);
    }
    let at = promotion_state(&plan.state)
        .map_err(|e| Refusal::new(RefusalKind::ShapeError, format!("{e}; nothing was written")))?;
    let materialization = plan
        .state
        .get("materialization")
        .and_then(Value::as_str)
        .unwrap_or("?");
    if at == PromotionState::NotStarted
        && plan.state.get("format").and_then(Value::as_str) == Some("full")
    {
        return Ok(unchanged);
    }
    if plan.state.get("status").and_then(Value::as_str) == Some("completed") {
        return Err(Refusal::new(
            RefusalKind::PlanCompleted,
            format!(
                "{} is completed: its shape is part of the published record; nothing was written",
                plan.name
            ),
        )
        .hint(
            "a completed plan keeps the format it was published in; start a new plan for new work",
        )
        .into());
    }
    match &at {
        PromotionState::NotStarted => {
            if materialization != "ready" {
                return Err(Refusal::new(
                    RefusalKind::NotReady,
                    format!(
                        "{} is not ready (materialization: {materialization}); a plan is promoted once it is materialized; nothing was written",
                        plan.name
                    ),
                )
                .hint("finish materializing the plan first")
                .into());
            }
        }
        PromotionState::At { .. } if materialization != "promoting" => {
            return Err(Refusal::new(
                RefusalKind::from_id("promotion-materialization-mismatch"),
                format!(
                    "{}: state.json has a promotion record but materialization is `{materialization}`; nothing was written",
                    plan.name
                ),
            )
            .hint("a promotion record exists exactly while materialization is `promoting`: fix state.json (or `planseal rebuild`), then promote again")
            .into());
        }
        PromotionState::At { .. } => {}
    }
    let (readme_bytes, readme) = plan.read_text(layout::README_FILE)?;
    let ids: Vec<u64> = plan
        .tasks()
        .iter()
        .map(|t| t.get("id").and_then(Value::as_u64).unwrap_or(0))
        .collect();
    let files = match &at {
        PromotionState::At {
            files: Some(files), ..
        } if recorded_names_fit(files, &ids) => files.clone(),
        _ => file_names(&plan, &readme, &ids),
    };
    let step = rank(&at);
    if step == 0 {
        check_lite_inventory(&plan, &readme, &ids)?;
    }

    let mut clock = req.clock.clone();
    let now = clock.now_iso();
    let mut edit = Edit::default();
    edit.read_as(layout::STATE_FILE, Some(&plan.state_bytes));
    edit.read_as(layout::README_FILE, Some(&readme_bytes));
    for file in &files {
        let bytes = plan.read(file)?;
        edit.read_as(file, bytes.as_deref());
    }
    let mut state = plan.state.clone();
    let style = JsonStyle::detect(&plan.state_bytes);
    let shape = |e: crate::dwp::decide::promotion::PromotionError| {
        Refusal::new(RefusalKind::ShapeError, format!("{e}; nothing was written"))
    };
    let mut added = Vec::new();
    if step < 1 {
        declare(&mut state, &files, &now).map_err(shape)?;
        edit.write(
            layout::STATE_FILE,
            to_bytes(&state, &style),
            "promote.after_intent",
        );
    }
    if step < 2 {
        for (id, file) in ids.iter().zip(&files) {
            write_task_file(&plan, &mut edit, &readme, *id, file, &mut added)?;
        }
        tasks_written(&mut state, &now).map_err(shape)?;
        edit.write(
            layout::STATE_FILE,
            to_bytes(&state, &style),
            "promote.after_tasks_written",
        );
    }
    if step < 3 {
        // A task file lost since its phase is written again while the README still holds the
        // record; once the README is switched, the file is the only copy.
        for (id, file) in ids.iter().zip(&files) {
            if edit.current(file).is_none() {
                write_task_file(&plan, &mut edit, &readme, *id, file, &mut added)?;
            }
        }
        let pairs: Vec<(u32, String)> = ids
            .iter()
            .zip(&files)
            .map(|(id, f)| (u32::try_from(*id).unwrap_or(u32::MAX), f.clone()))
            .collect();
        edit.write(
            layout::README_FILE,
            readme_as_full(&readme, &pairs).into_bytes(),
            "promote.after_readme",
        );
        switch_to_files(&mut state, &files, &now).map_err(shape)?;
        edit.write(
            layout::STATE_FILE,
            to_bytes(&state, &style),
            "promote.after_switched",
        );
    }
    finish(&mut state, &now).map_err(shape)?;
    let state_after = to_bytes(&state, &style);
    let state_sha256 = sha256_hex(&state_after);
    edit.write(layout::STATE_FILE, state_after, "promote.after_ready");

    let resumed_from = match &at {
        PromotionState::At { phase, .. } => Some(phase.as_str()),
        PromotionState::NotStarted => None,
    };
    let mut outcome = PromoteOutcome {
        result: "ok",
        plan: plan.name.clone(),
        resumed_from,
        tasks: files.clone(),
        written: edit.written(),
        added,
        diff: String::new(),
        state_sha256: state_sha256.clone(),
        confirmation: Confirmation::Confirmed,
    };
    if req.dry_run {
        outcome.diff = edit.diff();
        return Ok(outcome);
    }
    let mut line = JournalEntry::for_plan(now, "promote", &plan.name)
        .transition(None, "lite".into(), "full".into())
        .hashes(Some(sha256_hex(&plan.state_bytes)), Some(state_sha256))
        .with("tasks", files)
        .with("written", outcome.written.clone());
    if let Some(phase) = resumed_from {
        line = line.with("resumed_from", phase);
    }
    // The whole new state, so that a replay of the journal (`planseal rebuild`) reaches it.
    line = line.with(
        "applied",
        serde_json::json!({"version": APPLIED_VERSION, "replaced": state}),
    );
    outcome.confirmation = edit.apply(&plan.dir, "promote", &line)?;
    outcome.result = "applied";
    Ok(outcome)
}

/// The step that writes task `id`'s file from its README record.
fn write_task_file(
    plan: &PlanUnderEdit,
    edit: &mut Edit,
    readme: &str,
    id: u64,
    file: &str,
    added: &mut Vec<AddedSections>,
) -> Result<(), Refusal> {
    let status = plan
        .tasks()
        .iter()
        .find(|t| t.get("id").and_then(Value::as_u64) == Some(id))
        .and_then(|t| t.get("status"))
        .and_then(Value::as_str)
        .unwrap_or("pending");
    let closed = matches!(status, "completed" | "skipped");
    let n = u32::try_from(id).unwrap_or(u32::MAX);
    let promoted = task_file_from_record(readme, n, closed).map_err(|e| {
        Refusal::new(
            RefusalKind::TaskRecordMissing,
            format!("{e}, and its task file {file} is not written yet; nothing more was written"),
        )
        .hint(format!(
            "restore the record in README.md (or the file {file}), then run `planseal promote {}` again",
            plan.dir.display()
        ))
    })?;
    if !promoted.added.is_empty() {
        added.push(AddedSections {
            task: id,
            sections: promoted.added.clone(),
            todo: !closed,
        });
    }
    edit.write(file, promoted.text.into_bytes(), "promote.after_task_file");
    Ok(())
}

/// The task file names of the Full plan: `<id>.task_<slug of the record's title>.md`, the
/// last one `<id>.task_final_review.md` (the name the checks look for).
fn file_names(plan: &PlanUnderEdit, readme: &str, ids: &[u64]) -> Vec<String> {
    let parsed = parse_readme(readme);
    ids.iter()
        .enumerate()
        .map(|(i, id)| {
            let n = u32::try_from(*id).unwrap_or(u32::MAX);
            let slug = if i + 1 == ids.len() {
                FINAL_REVIEW_SLUG.to_string()
            } else {
                let title = parsed
                    .inline
                    .record(n)
                    .map(|r| r.title.clone())
                    .or_else(|| {
                        plan.tasks()[i]
                            .get("title")
                            .and_then(Value::as_str)
                            .map(str::to_string)
                    });
                task_slug(title.as_deref().unwrap_or_default())
            };
            task_file_name(n, &slug)
        })
        .collect()
}

/// Whether the names a promotion record declared fit the tasks: one per task, each
/// `<id>.task_<slug>.md`.
fn recorded_names_fit(files: &[String], ids: &[u64]) -> bool {
    files.len() == ids.len()
        && files.iter().zip(ids).all(|(f, id)| {
            f.strip_prefix(&format!("{id}.task_"))
                .and_then(|rest| rest.strip_suffix(".md"))
                .is_some_and(|slug| {
                    !slug.is_empty()
                        && slug
                            .bytes()
                            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
                })
        })
}

/// Before a promotion starts: the README holds one record per task of state.json (a record
/// without its task would be lost with the README's records), and no task file is in the
/// folder yet (the promotion would write over it).
fn check_lite_inventory(plan: &PlanUnderEdit, readme: &str, ids: &[u64]) -> Result<(), Refusal> {
    let parsed = parse_readme(readme);
    let mut records: Vec<u64> = parsed
        .inline
        .records
        .iter()
        .map(|r| u64::from(r.anchor_number))
        .collect();
    records.sort_unstable();
    let mut tasks = ids.to_vec();
    tasks.sort_unstable();
    if records != tasks {
        return Err(Refusal::new(
            RefusalKind::from_id("lite-records-inventory-mismatch"),
            format!(
                "README.md inline records {records:?} differ from state.json's tasks {tasks:?}; nothing was written"
            ),
        )
        .hint("one `{#task-N}` record per task of state.json: fix the README (or `planseal rebuild`), then promote"));
    }
    let present: Vec<String> = std::fs::read_dir(&plan.dir)
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .filter_map(|e| e.file_name().to_str().map(str::to_string))
                .filter(|name| is_task_file_name(name))
                .collect()
        })
        .unwrap_or_default();
    if !present.is_empty() {
        return Err(Refusal::new(
            RefusalKind::from_id("lite-plan-has-task-files"),
            format!(
                "a Lite plan keeps its tasks inline, but the folder holds {}; the promotion would write over them; nothing was written",
                present.join(", ")
            ),
        )
        .hint("move those files out of the plan folder, then promote"));
    }
    Ok(())
}

/// `<digits>.task_<anything>.md`.
fn is_task_file_name(name: &str) -> bool {
    let digits = name.bytes().take_while(u8::is_ascii_digit).count();
    digits > 0 && name[digits..].starts_with(".task_") && name.ends_with(".md")
}
