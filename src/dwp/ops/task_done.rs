//! `planseal task done PLAN --task N …`: a task's whole close-out (`docs/task.md`) — the
//! markdown the plan's rules ask for, then the state transition, in the completion order of
//! the DWP method: the task's Completion & Log, the README box and `Plan Status`, the PROGRESS.md
//! entry, then state.json.
//!
//! The markdown is written under state.json's lock, every file through the one write path; the
//! state transition is `update`'s, with its own lock, re-read and checks — and on the last task
//! the finalization transaction. A crash between the two leaves the markdown closed and the
//! state stale, which `verify` names; every markdown edit is idempotent, so running the same
//! `task done` again finishes the close-out. `recover` never edits markdown.
//!
//! A required label left without a value is written as an explicit `TODO:` placeholder, and the
//! state transition is then refused (`task-record-placeholder`) — the markdown stays written
//! and the refusal lists what to fill in.

use crate::clock::Clock;
use crate::dwp::check::gates::parse_gate_spec;
use crate::dwp::decide::update::UpdateRequest;
use crate::dwp::layout;
use crate::dwp::model::markdown::close_out::{
    LogValues, TaskEntry, add_task_entry, close_log, tick_task,
};
use crate::dwp::model::markdown::parse_readme;
use crate::dwp::model::{Task, TaskStatus};
use crate::dwp::ops::update::{self, UpdateOutcome};
use crate::dwp::ops::{OpError, OpenedPlan};
use crate::dwp::read::read_plan_file;
use crate::report::text::unified_diff;
use crate::report::{Refusal, RefusalKind};
use crate::write::{Confirmation, JournalEntry, WriteError, Writer};
use serde::Serialize;
use serde_json::Value;
use std::path::PathBuf;

/// What `task done` is asked.
#[derive(Debug, Clone)]
pub struct TaskDoneRequest {
    /// The plan folder.
    pub plan_dir: PathBuf,
    /// The task to close.
    pub task: u64,
    /// `--gate "command|exit_code|evidence"`: the runs that prove it (state.json and the log).
    pub gates: Vec<String>,
    /// `--commit`: the commit that did the work.
    pub commit: Option<String>,
    /// `--worked`, `--tried`, `--failed`, `--notes`: the outcome record.
    pub worked: Option<String>,
    /// `--tried` (repeatable).
    pub tried: Vec<String>,
    /// `--failed` (repeatable).
    pub failed: Vec<String>,
    /// `--notes`.
    pub notes: Option<String>,
    /// `--summary`: the log's `Summary:` and the PROGRESS entry's first bullet.
    pub summary: Option<String>,
    /// `--outputs`: the log's `Outputs:`.
    pub outputs: Option<String>,
    /// `--skills-disposition`.
    pub skills_disposition: Option<String>,
    /// `--documentation-decision`.
    pub documentation_decision: Option<String>,
    /// `--agent` / `--model`: `updated_by` and the journal.
    pub agent: Option<String>,
    /// `--model`.
    pub model: Option<String>,
    /// The SHA-256 of state.json as the caller last read it.
    pub expected_sha256: Option<String>,
    /// Show the change; write nothing.
    pub dry_run: bool,
    /// The clock for dates and the transition.
    pub clock: Clock,
}

/// What `task done` did (or would do).
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct TaskDoneOutcome {
    /// `applied`, `unchanged` (already closed) or `ok` (a dry run).
    pub result: &'static str,
    /// The plan's name.
    pub plan: String,
    /// The task closed.
    pub task: u64,
    /// The markdown files the close-out changed (or would change), in write order.
    pub markdown: Vec<String>,
    /// The unified diff of the markdown (a dry run).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub diff: String,
    /// The state transition, when it was applied.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub transition: Option<UpdateOutcome>,
    /// On a dry run: what the state transition would meet (`null` when it would apply).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub transition_refused: Option<Refusal>,
    /// What the markdown write could not confirm.
    #[serde(skip)]
    pub confirmation: Confirmation,
}

impl TaskDoneOutcome {
    /// The text output.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        let files = if self.markdown.is_empty() {
            "the markdown was already closed".to_string()
        } else {
            format!(
                "{} {}",
                if self.result == "ok" {
                    "would write"
                } else {
                    "wrote"
                },
                self.markdown.join(", ")
            )
        };
        out.push_str(&format!(
            "{}: task {} close-out: {files}\n",
            self.plan, self.task
        ));
        if let Some(t) = &self.transition {
            out.push_str(&t.line);
            out.push('\n');
        }
        if self.result == "ok" {
            out.push_str(&self.diff);
            match &self.transition_refused {
                None => out.push_str("the state transition would apply\n"),
                Some(r) => out.push_str(&format!(
                    "the state transition would be refused: {}: {}\n",
                    r.kind, r.message
                )),
            }
            out.push_str("nothing written (--dry-run)\n");
        }
        out
    }
}

/// The markdown of a close-out, before and after.
struct Markdown {
    files: Vec<(String, Option<Vec<u8>>, Vec<u8>)>,
    placeholders: Vec<&'static str>,
}

impl Markdown {
    fn changed(&self) -> impl Iterator<Item = &(String, Option<Vec<u8>>, Vec<u8>)> {
        self.files
            .iter()
            .filter(|(_, before, after)| before.as_deref() != Some(after.as_slice()))
    }
}

/// Closes the task (see the module comment).
pub fn task_done(req: TaskDoneRequest) -> Result<TaskDoneOutcome, OpError> {
    task_done_with(req, &mut |_| {})
}

/// [`task_done`], with `hook` seeing every step boundary of the publication when the task is the
/// last one (the demo stops its child there).
pub fn task_done_with(
    req: TaskDoneRequest,
    hook: crate::dwp::publish::StepHook<'_>,
) -> Result<TaskDoneOutcome, OpError> {
    let opened = OpenedPlan::open(
        &req.plan_dir,
        req.expected_sha256.as_deref(),
        "a task is closed in a materialized plan: state.json is missing",
    )?;
    let (plan_dir, plan, state_bytes) = (opened.dir, opened.name, opened.state_bytes);
    let state: Value = serde_json::from_slice(&state_bytes).map_err(|e| {
        Refusal::new(
            RefusalKind::StateUnreadable,
            format!("state.json: {e}; nothing was written"),
        )
        .hint(format!(
            "`planseal rebuild {}` restores it",
            plan_dir.display()
        ))
    })?;
    let task = find_task(&state, req.task).ok_or_else(|| {
        let ids: Vec<String> = state["tasks"]
            .as_array()
            .map(|t| {
                t.iter()
                    .filter_map(|t| t["id"].as_u64())
                    .map(|i| i.to_string())
                    .collect()
            })
            .unwrap_or_default();
        Refusal::new(
            RefusalKind::UnknownTask,
            format!(
                "task {} is not in {plan}; its tasks are {}",
                req.task,
                ids.join(", ")
            ),
        )
        .hint("pass one of the listed ids with --task")
    })?;
    for spec in &req.gates {
        parse_gate_spec(spec).map_err(|e| Refusal::new(e.kind(), e.to_string()).hint(e.hint()))?;
    }

    let markdown = close_out_markdown(&plan_dir, &req, &task)?;
    let already_completed = task.status == Some(TaskStatus::Completed);
    if already_completed && markdown.changed().next().is_none() {
        return Ok(TaskDoneOutcome {
            result: "unchanged",
            plan,
            task: req.task,
            markdown: Vec::new(),
            diff: String::new(),
            transition: None,
            transition_refused: None,
            confirmation: Confirmation::Confirmed,
        });
    }
    let changed: Vec<String> = markdown.changed().map(|(f, _, _)| f.clone()).collect();
    // The transition is decided before anything is written: what it refuses on the state as it
    // is (an open lower task, no approval, a blocker, …) refuses the whole close-out, so no
    // README box is ticked for a task the state cannot complete.
    let decided = if already_completed {
        Ok(())
    } else {
        update::plan(
            &layout::state_path(&plan_dir),
            &layout::state_path(&plan_dir),
            transition_request(&req),
            req.clock.clone(),
        )
        .map(|_| ())
    };
    if req.dry_run {
        let mut diff = String::new();
        for (file, before, after) in markdown.changed() {
            diff.push_str(&unified_diff(
                &String::from_utf8_lossy(before.as_deref().unwrap_or_default()),
                &String::from_utf8_lossy(after),
                file,
            ));
        }
        let refused = match decided {
            Err(update::UpdateError::Refused(r)) => Some(r),
            Err(e) => return Err(e.into()),
            Ok(()) if !markdown.placeholders.is_empty() => Some(placeholder_refusal(
                &plan,
                req.task,
                &markdown.placeholders,
                &[],
            )),
            Ok(()) => None,
        };
        return Ok(TaskDoneOutcome {
            result: "ok",
            plan,
            task: req.task,
            markdown: changed,
            diff,
            transition: None,
            transition_refused: refused,
            confirmation: Confirmation::Confirmed,
        });
    }

    decided?;
    // 1–3. The markdown, in the completion order, under state.json's lock.
    let mut clock = req.clock.clone();
    let mut confirmation = Confirmation::Confirmed;
    if !changed.is_empty() {
        let now = clock.now_iso();
        let target = layout::state_target(&plan_dir);
        let tx = Writer::from_env().begin(&target, "task done", &now)?;
        tx.expect_unchanged(&layout::state_path(&plan_dir), Some(&state_bytes))?;
        for (file, before, _) in &markdown.files {
            tx.expect_unchanged(&plan_dir.join(file), before.as_deref())?;
        }
        target.check_writable(&[])?;
        for (file, _, after) in markdown.changed() {
            tx.replace(&plan_dir.join(file), after)?;
            tx.step(&format!("task_done.after_{}", step_name(file)));
        }
        let line = JournalEntry::for_plan(now, "task done", &plan)
            .transition(
                Some(req.task),
                task_status(&task).into(),
                task_status(&task).into(),
            )
            .with("markdown", changed.clone());
        if plan_dir.join(layout::RESULTS_DIR).is_dir() {
            tx.journal_applied(&line);
        }
        confirmation = tx.close();
    }
    if !markdown.placeholders.is_empty() {
        return Err(placeholder_refusal(&plan, req.task, &markdown.placeholders, &changed).into());
    }
    // 4. state.json last: update's transition (the finalization on the last task).
    let transition = if already_completed {
        None
    } else {
        let planned = update::plan(
            &layout::state_path(&plan_dir),
            &layout::state_path(&plan_dir),
            transition_request(&req),
            clock,
        )
        .map_err(|e| after_markdown(e, &changed))?;
        Some(update::apply_with(planned, hook).map_err(|e| after_markdown(e, &changed))?)
    };
    Ok(TaskDoneOutcome {
        result: "applied",
        plan,
        task: req.task,
        markdown: changed,
        diff: String::new(),
        transition,
        transition_refused: None,
        confirmation,
    })
}

fn task_status(task: &Task) -> &'static str {
    task.status.map_or("?", |s| s.as_str())
}

/// The failpoint name of the step after writing `file`.
fn step_name(file: &str) -> &'static str {
    match file {
        layout::README_FILE => "readme",
        layout::PROGRESS_FILE => "progress",
        _ => "task_log",
    }
}

fn transition_request(req: &TaskDoneRequest) -> UpdateRequest {
    let mut u = UpdateRequest::new(
        i64::try_from(req.task).unwrap_or(i64::MAX),
        TaskStatus::Completed,
    );
    u.gates = req.gates.clone();
    u.commit = req.commit.clone();
    u.worked = req.worked.clone();
    u.tried = req.tried.clone();
    u.failed = req.failed.clone();
    u.notes = req.notes.clone();
    u.agent = req.agent.clone();
    u.model = req.model.clone();
    u.expected_sha256 = req.expected_sha256.clone();
    u
}

/// The refusal of a close-out whose log still holds placeholders.
fn placeholder_refusal(
    plan: &str,
    task: u64,
    labels: &[&'static str],
    written: &[String],
) -> Refusal {
    let flags: Vec<String> = labels
        .iter()
        .map(|l| format!("--{}", l.to_lowercase().replace(' ', "-")))
        .collect();
    let written = if written.is_empty() {
        "the markdown holds them already".to_string()
    } else {
        format!(
            "the markdown close-out was written ({})",
            written.join(", ")
        )
    };
    Refusal::new(
        RefusalKind::TaskRecordPlaceholder,
        format!(
            "{plan} task {task}: {} still hold{} a `TODO:` placeholder in the Completion & Log; {written}, state.json was not changed",
            labels.join(", "),
            if labels.len() == 1 { "s" } else { "" }
        ),
    )
    .hint(format!(
        "fill them in the task's log (or pass {}), then run the same `planseal task done` again",
        flags.join(" ")
    ))
}

/// A refusal of the state transition after the markdown was written says so.
fn after_markdown(e: update::UpdateError, written: &[String]) -> OpError {
    match e {
        update::UpdateError::Refused(mut r) if !written.is_empty() => {
            r.message = format!(
                "{} (the markdown close-out was written: {}; state.json was not changed — run the same `task done` again once this is fixed)",
                r.message,
                written.join(", ")
            );
            r.into()
        }
        other => other.into(),
    }
}

fn find_task(state: &Value, id: u64) -> Option<Task> {
    let tasks = state.get("tasks")?.as_array()?;
    tasks
        .iter()
        .enumerate()
        .find(|(_, t)| t.get("id").and_then(Value::as_u64) == Some(id))
        .map(|(i, t)| Task::from_value(i, t))
}

/// The gate record line of a `--gate` spec: `` `command` · exit N · evidence ``.
fn gate_line(spec: &str) -> Option<String> {
    let g = parse_gate_spec(spec).ok()?;
    let mut line = format!("`{}` · exit {}", g.command, g.exit_code);
    if !g.evidence.trim().is_empty() {
        line.push_str(" · ");
        line.push_str(g.evidence.trim());
    }
    Some(line)
}

/// The three markdown files after the close-out.
fn close_out_markdown(
    plan_dir: &std::path::Path,
    req: &TaskDoneRequest,
    task: &Task,
) -> Result<Markdown, OpError> {
    let read = |rel: &str| read_plan_file(plan_dir, rel).map_err(WriteError::read);
    let text_of = |rel: &str, bytes: &[u8]| -> Result<String, Refusal> {
        String::from_utf8(bytes.to_vec()).map_err(|_| {
            Refusal::new(
                RefusalKind::NotUtf8,
                format!("{rel} is not UTF-8 text; nothing was written"),
            )
            .hint("save the file as UTF-8, then run the command again")
        })
    };
    let readme_before = read(layout::README_FILE)?.ok_or_else(|| {
        Refusal::new(
            RefusalKind::FileNotFound,
            format!("{}: no README.md", plan_dir.display()),
        )
    })?;
    let mut readme = text_of(layout::README_FILE, &readme_before)?;
    let n = u32::try_from(req.task).unwrap_or(u32::MAX);
    let date = req
        .clock
        .clone()
        .now_iso()
        .get(..10)
        .unwrap_or_default()
        .to_string();
    let values = LogValues {
        completed: date.clone(),
        summary: req.summary.clone(),
        outputs: req.outputs.clone(),
        skills_disposition: req.skills_disposition.clone(),
        documentation_decision: req.documentation_decision.clone(),
        gate_records: req.gates.iter().filter_map(|g| gate_line(g)).collect(),
        commit: req.commit.clone(),
    };
    let mut files = Vec::new();
    let placeholders;
    let title;
    match task.artifact_file() {
        Some(file) => {
            let before = read(file)?.ok_or_else(|| {
                Refusal::new(
                    RefusalKind::FileNotFound,
                    format!("{file}: the task file state.json names is missing"),
                )
                .hint("restore the task file, then run the command again")
            })?;
            let text = text_of(file, &before)?;
            let closed = close_log(&text, 1, text.lines().count().max(1), 2, &values);
            placeholders = closed.placeholders;
            files.push((file.to_string(), Some(before), closed.text.into_bytes()));
            title = task.title.clone().unwrap_or_default();
        }
        None => {
            let parsed = parse_readme(&readme);
            let record = parsed.inline.record(n).ok_or_else(|| {
                Refusal::new(
                    RefusalKind::TaskRecordMissing,
                    format!("README.md has no inline record `{{#task-{n}}}` for task {n}"),
                )
                .hint("add the task's record to the README, then run the command again")
            })?;
            let first = record.heading_line;
            let last = record.body.lines.last().map_or(first, |l| l.number);
            let level = parsed.lines[first - 1]
                .text
                .bytes()
                .take_while(|b| *b == b'#')
                .count();
            title = record.title.clone();
            let closed = close_log(&readme, first, last, level + 1, &values);
            placeholders = closed.placeholders;
            readme = closed.text;
        }
    }
    let ticked = tick_task(&readme, n).map_err(|e| {
        Refusal::new(RefusalKind::ReadmeIndexMissing, format!("{e}; nothing was written"))
            .hint("the README needs its task list (`- [ ] Task N: …`) and a `Plan Status: X/N completed` line")
    })?;
    files.push((
        layout::README_FILE.to_string(),
        Some(readme_before),
        ticked.into_bytes(),
    ));
    let progress_before = read(layout::PROGRESS_FILE)?;
    let progress = match &progress_before {
        Some(b) => text_of(layout::PROGRESS_FILE, b)?,
        None => String::new(),
    };
    let mut bullets = vec![
        req.summary
            .clone()
            .unwrap_or_else(|| "TODO: one line on what the task did".into()),
    ];
    if let Some(o) = &req.outputs {
        bullets.push(format!("Outputs: {o}"));
    }
    for g in req.gates.iter().filter_map(|g| gate_line(g)) {
        bullets.push(format!("Gate: {g}"));
    }
    if let Some(c) = &req.commit {
        bullets.push(format!("Commit: `{c}`"));
    }
    let entry = TaskEntry {
        task: n,
        title,
        date,
        bullets,
    };
    files.push((
        layout::PROGRESS_FILE.to_string(),
        progress_before,
        add_task_entry(&progress, &entry).into_bytes(),
    ));
    Ok(Markdown {
        files,
        placeholders,
    })
}
