//! `planseal publish-check PLAN`: everything still missing before a plan can be published, all
//! at once, each with its fix (`docs/task.md`). Read-only.
//!
//! The finalization validates a completed candidate against every artifact and stops at the
//! first refusal; before the last task is closed there is no such candidate. This builds one —
//! the state as it would read with every open task completed — and runs the same validation on
//! it, so the list names what the publication would refuse: open tasks without a passing gate,
//! README boxes not ticked, logs without their labels, a missing security review, a dirty work
//! tree, and so on.

use crate::clock::Clock;
use crate::dwp::layout;
use crate::dwp::model::parse_json;
use crate::dwp::ops::OpError;
use crate::dwp::publish::{ValidationInput, validate_candidate};
use crate::dwp::read::read_plan_file;
use crate::jsonfmt::to_python_pretty;
use crate::report::{Finding, HintedError, Refusal, RefusalKind};
use crate::write::WriteError;
use serde::Serialize;
use serde_json::{Value, json};

/// What stands between the plan and its publication.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct PublishCheck {
    /// `ok`.
    pub result: &'static str,
    /// The plan's name.
    pub plan: String,
    /// Nothing is missing: closing the open tasks as they are would publish.
    pub ready: bool,
    /// The tasks not completed yet.
    pub open_tasks: Vec<u64>,
    /// Every failure the publication would meet, each with its fix.
    pub missing: Vec<Finding>,
    /// Advisories the validation met on the way.
    pub advisories: Vec<Finding>,
}

impl PublishCheck {
    /// The text output.
    pub fn to_text(&self) -> String {
        let open = if self.open_tasks.is_empty() {
            "every task is completed".to_string()
        } else {
            format!(
                "open task(s): {}",
                self.open_tasks
                    .iter()
                    .map(u64::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        };
        let mut out = if self.ready {
            format!("{}: ready to publish ({open})\n", self.plan)
        } else {
            format!(
                "{}: {} thing(s) missing before publication ({open})\n",
                self.plan,
                self.missing.len()
            )
        };
        for f in &self.missing {
            let task = f.task.map(|t| format!("task {t}: ")).unwrap_or_default();
            let message = f
                .message
                .strip_prefix(&format!("task {}: ", f.task.unwrap_or(0)))
                .unwrap_or(&f.message);
            out.push_str(&format!("  [ ] {task}{message} ({})\n", f.id));
            if let Some(h) = &f.hint {
                out.push_str(&format!("      fix: {h}\n"));
            }
        }
        out
    }
}

/// Lists what the publication would refuse (see the module comment).
pub fn publish_check(
    plan_dir: &std::path::Path,
    mut clock: Clock,
) -> Result<PublishCheck, OpError> {
    let plan_dir = plan_dir.canonicalize().map_err(|_| {
        HintedError::usage(format!("{}: not a plan folder", plan_dir.display()))
            .hint("pass a plan folder such as .dwp/plans/PLAN_<name>")
    })?;
    let plan = layout::plan_name(&plan_dir);
    let bytes = read_plan_file(&plan_dir, layout::STATE_FILE)
        .map_err(WriteError::read)?
        .ok_or_else(|| {
            Refusal::new(
                RefusalKind::StateMissing,
                format!("{}: no state.json", plan_dir.display()),
            )
        })?;
    let mut value = parse_json(&bytes).map_err(|e| {
        Refusal::new(RefusalKind::StateUnreadable, format!("state.json: {e}")).hint(format!(
            "`planseal rebuild {}` restores it",
            plan_dir.display()
        ))
    })?;
    let now = clock.now_iso();
    let mut open_tasks = Vec::new();
    let mut last = None;
    if let Some(tasks) = value.get_mut("tasks").and_then(Value::as_array_mut) {
        for task in tasks.iter_mut() {
            let id = task.get("id").and_then(Value::as_u64);
            last = id.or(last);
            let Some(t) = task.as_object_mut() else {
                continue;
            };
            if t.get("status").and_then(Value::as_str) != Some("completed") {
                open_tasks.extend(id);
                t.insert("status".into(), json!("completed"));
                t.entry("started_at").or_insert_with(|| json!(now));
                t.entry("completed_at").or_insert_with(|| json!(now));
            }
        }
    }
    let count = value["tasks"].as_array().map_or(0, Vec::len);
    if let Some(top) = value.as_object_mut() {
        top.insert("completed_count".into(), json!(count));
        top.insert("status".into(), json!("completed"));
        if top.get("blocked").is_some_and(|b| !b.is_null()) {
            top.insert("blocked".into(), Value::Null);
        }
        top.insert(
            "checkpoint".into(),
            json!({"task": last, "step": "done", "at": now, "note": "Plan completed."}),
        );
    }
    let run = |value: &Value| {
        let candidate = to_python_pretty(value);
        validate_candidate(&ValidationInput {
            plan_dir: &plan_dir,
            candidate: &candidate,
            candidate_value: Some(value),
            candidate_path: None,
            allow_dirty_reason: None,
            allow_unverified_git_reason: None,
        })
    };
    // The validation stops at the state's own rules (an open task has no passing gate yet);
    // a second run, with a stand-in passing run on each open task, reaches everything after
    // them (the task records, the README, the security review, git).
    let first = run(&value)?;
    let missing: Vec<Finding> = first.failures.into_iter().collect();
    let mut advisories = first.advisories;
    if let Some(tasks) = value.get_mut("tasks").and_then(Value::as_array_mut) {
        for task in tasks.iter_mut() {
            let open = task
                .get("id")
                .and_then(Value::as_u64)
                .is_some_and(|id| open_tasks.contains(&id));
            if let (true, Some(t)) = (open, task.as_object_mut()) {
                t.insert(
                    "gates".into(),
                    json!([{"command": "publish-check stand-in", "passes": true,
                            "last_run": now, "exit_code": 0, "evidence": "stand-in run"}]),
                );
            }
        }
    }
    let second = run(&value)?;
    let mut missing: Vec<Finding> = missing
        .into_iter()
        .map(|f| for_open_task(f, &open_tasks, &plan))
        .collect();
    for f in second.failures {
        let f = for_open_task(f, &open_tasks, &plan);
        let known = missing
            .iter()
            .any(|m| m.id == f.id && m.task == f.task && m.message == f.message);
        if !known {
            missing.push(f);
        }
    }
    for a in second.advisories {
        if !advisories
            .iter()
            .any(|k| k.id == a.id && k.message == a.message)
        {
            advisories.push(a);
        }
    }
    Ok(PublishCheck {
        result: "ok",
        plan,
        ready: missing.is_empty(),
        open_tasks,
        missing,
        advisories,
    })
}

/// A finding about an open task, said as what is left to do rather than as a broken record,
/// with the command that does it.
fn for_open_task(f: Finding, open: &[u64], plan: &str) -> Finding {
    let Some(task) = f.task.filter(|t| open.contains(t)) else {
        return f;
    };
    let close = format!(
        "close it with `planseal task done .dwp/plans/{plan} --task {task} --gate \"COMMAND|EXIT|EVIDENCE\" [--commit SHA] --summary … --outputs … --skills-disposition … --documentation-decision …` (it writes the log, ticks the box, adds the PROGRESS entry, then completes the task)"
    );
    let message = match f.id.as_str() {
        "completion-gates-unsuccessful" => {
            format!("task {task}: no passing gate run is recorded yet")
        }
        "readme-checkbox-disagrees" => format!("task {task}: its README box is not ticked yet"),
        "task-log-still-pending" => {
            format!("task {task}: its Completion & Log still says Status: pending")
        }
        _ => f.message.clone(),
    };
    let hint = if f.id == "completion-gates-unsuccessful" {
        format!("run the task's Validation command, then {close}")
    } else {
        close
    };
    Finding {
        message,
        hint: Some(hint),
        ..f
    }
}
