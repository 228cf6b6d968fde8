//! Generated plans for planseal's crash loop and property tests.
//!
//! [`PlanSpec`] describes a Full (v5) plan at the moment of its terminal close: every task record
//! is closed in the markdown (README ticked, PROGRESS written, Completion & Log filled in), and
//! state.json has tasks 1..n-1 completed and task n in progress with its gate. [`PlanSpec::build`]
//! turns it into bytes — the plan's files and the completed candidate state — and
//! [`write_ready_plan`] puts them on disk. Nothing here knows planseal's code: the plans are
//! plain data, so the tests that use them check planseal from the outside.

use serde_json::{Value, json};
use std::io;
use std::path::{Path, PathBuf};

/// The plan's name (and folder under `.dwp/plans/`); scripts/crash-loop.sh expects it.
pub const PLAN: &str = "PLAN_demo_greeting";

/// 2026-10-05T09:00:00Z: the plan's clock starts here and moves in whole minutes.
const T0: i64 = 1_791_190_800;

/// One task of a generated plan; its id is its position (1-based).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GenTask {
    /// The locator value: the task file's name relative to the plan folder.
    pub file: String,
    /// The task's title, the same in state.json, the README index, PROGRESS and the record's
    /// heading.
    pub title: String,
    /// An extra paragraph of the task's Context section (none when empty).
    pub note: String,
    /// Whether the gate evidence points at its log (`log=analysis_results/gates/tN.log`).
    pub log: bool,
}

/// A plan at the moment of its terminal close.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlanSpec {
    /// The tasks in order; the last one is the Final Review.
    pub tasks: Vec<GenTask>,
    /// `analysis_results/SKILLS_CANDIDATES.md` is written.
    pub skills_candidates: bool,
    /// `analysis_results/PLAN_ANALYSIS.md` is written.
    pub plan_analysis: bool,
}

/// What [`PlanSpec::build`] gives.
#[derive(Debug, Clone)]
pub struct ReadyPlan {
    /// The plan folder's files: (name relative to the plan folder, bytes).
    pub files: Vec<(String, Vec<u8>)>,
    /// The completed state the terminal close publishes.
    pub candidate: Vec<u8>,
}

impl PlanSpec {
    /// The crash loop's plan of `n` tasks (at least 2): `N.task_step_N.md` titled `Step N`, the
    /// last `N.task_final_review.md`, every gate citing its log, every optional file present.
    pub fn standard(n: usize) -> Self {
        let n = n.max(2);
        let tasks = (1..=n)
            .map(|id| {
                let (file, title) = if id == n {
                    (format!("{id}.task_final_review.md"), "Final Review".into())
                } else {
                    (format!("{id}.task_step_{id}.md"), format!("Step {id}"))
                };
                GenTask {
                    file,
                    title,
                    note: String::new(),
                    log: true,
                }
            })
            .collect();
        Self {
            tasks,
            skills_candidates: true,
            plan_analysis: true,
        }
    }

    /// The plan's files and its candidate.
    pub fn build(&self) -> ReadyPlan {
        let n = self.tasks.len();
        let mut files: Vec<(String, Vec<u8>)> = Vec::new();
        let mut put = |rel: &str, text: String| files.push((rel.to_string(), text.into_bytes()));
        let mut index = String::new();
        let mut progress = format!("# Progress — {PLAN}\n\n## Task entries\n");
        let mut state_tasks = Vec::new();
        for (i, t) in self.tasks.iter().enumerate() {
            let id = i + 1;
            index.push_str(&format!(
                "- [x] Task {id}: {} — [{}]({})\n",
                t.title, t.file, t.file
            ));
            progress.push_str(&format!(
                "\n### Task {id} — {}\n\n- Done; gate green.\n",
                t.title
            ));
            let log = format!("analysis_results/gates/t{id}.log");
            if t.log {
                put(&log, format!("$ cargo test step_{id}\nran=1/1 ok\n"));
            }
            put(&t.file, task_record(id, t, id == n, &log));
            let start = id as i64 * 10;
            let evidence = if t.log {
                format!("scope=unit; ran=1/1; log={log}")
            } else {
                "scope=unit; ran=1/1".to_string()
            };
            let mut entry = json!({
                "id": id,
                "locator": { "kind": "file", "value": t.file },
                "title": t.title,
                "status": if id == n { "in_progress" } else { "completed" },
                "gates": [{
                    "command": format!("cargo test step_{id}"),
                    "passes": true,
                    "last_run": at(start + 1),
                    "exit_code": 0,
                    "evidence": evidence,
                }],
                "started_at": at(start),
            });
            if id != n {
                entry["completed_at"] = json!(at(start + 2));
                entry["outcome"] = json!({ "worked": format!("step {id} done") });
            }
            state_tasks.push(entry);
        }
        put(
            "README.md",
            format!(
                "# Plan: A generated plan of {n} tasks\n\n## Goal\n\nExercise the terminal close of a large plan.\n\n## Context\n\nGenerated by `planseal-harness ready-plan` for scripts/crash-loop.sh.\n\n## Plan Variables\n\n- **Standard:** DWP spec 5.0.0\n- **Plan Format:** Full\n\n## Task List\n\n{index}\n## Plan Status\n\nPlan Status: {n}/{n} completed\n"
            ),
        );
        put("PROGRESS.md", progress);
        put("PROMPTS.md", "# Prompts\n\n> Generated plan.\n".into());
        put(
            "manifest.json",
            format!(
                "{{\n  \"schema\": \"https://deepworkplan.com/schema/plan-manifest/v5.json\",\n  \"spec_version\": \"5.0.0\",\n  \"name\": \"{PLAN}\",\n  \"archetype\": \"individual\",\n  \"rigor\": \"standard\",\n  \"created_at\": \"{}\",\n  \"task_count\": {n},\n  \"plan_format\": \"full\"\n}}\n",
                at(0)
            ),
        );
        if self.plan_analysis {
            put(
                "analysis_results/PLAN_ANALYSIS.md",
                "# Plan analysis\n\n- Generated.\n".into(),
            );
        }
        if self.skills_candidates {
            put(
                "analysis_results/SKILLS_CANDIDATES.md",
                "# Skills candidates\n\nNone.\n".into(),
            );
        }
        put(
            "analysis_results/SECURITY_REVIEW.md",
            "# Security review\n\nResult: 0 unresolved critical findings.\n".into(),
        );
        let last = n as i64 * 10;
        let mut state = json!({
            "schema": "https://deepworkplan.com/schema/plan-state/v5.json",
            "plan": PLAN,
            "updated_at": at(last + 1),
            "status": "in_progress",
            "completed_count": n - 1,
            "task_count": n,
            "format": "full",
            "materialization": "ready",
            "approval": "approved",
            "promotion": null,
            "checkpoint": { "task": n, "step": "start", "at": at(last + 1), "note": format!("Task {} closed. Next: Task {n}.", n - 1) },
            "blocked": null,
            "tasks": state_tasks,
        });
        put("state.json", pretty(&state));
        let done = at(last + 3);
        let final_task = &mut state["tasks"][n - 1];
        final_task["status"] = json!("completed");
        final_task["completed_at"] = json!(done);
        final_task["outcome"] = json!({ "worked": "final review done" });
        state["updated_at"] = json!(done);
        state["status"] = json!("completed");
        state["completed_count"] = json!(n);
        state["checkpoint"] =
            json!({ "task": n, "step": "done", "at": done, "note": "Plan completed." });
        ReadyPlan {
            files,
            candidate: pretty(&state).into_bytes(),
        }
    }
}

/// The task file of task `id`, its Completion & Log closed.
fn task_record(id: usize, t: &GenTask, last: bool, log: &str) -> String {
    let goal = if last {
        "Perform the security pass, the final-state validation and the skills reconciliation."
    } else {
        "Deliver this step of the generated plan."
    };
    let note = if t.note.is_empty() {
        String::new()
    } else {
        format!("\n{}\n", t.note)
    };
    let log = if t.log {
        format!(" · log={log}")
    } else {
        String::new()
    };
    format!(
        "# Task {id}: {title}\n\n## 1. Context\n\nGenerated plan for the crash loop.\n{note}\n## 3. Goal\n\n{goal}\n\n## 4. Touched Surface\n\n- `src/step_{id}.rs`\n\n## 6. Acceptance Criteria\n\n- [ ] The step works.\n\n## 8. Validation\n\n```bash\ncargo test step_{id}\n```\n\n## 10. Completion & Log\n\nStatus: completed\nSummary: step {id} done.\nSkills disposition: none — nothing reusable.\nDocumentation decision: not applicable — generated plan.\nGate record: `cargo test step_{id}` · exit 0 · ran=1/1{log}\n",
        title = t.title
    )
}

/// `minutes` after the plan's start, as ISO-8601 UTC with `+00:00` (whole seconds).
fn at(minutes: i64) -> String {
    jiff::Timestamp::from_second(T0 + minutes * 60)
        .map(|t| t.strftime("%Y-%m-%dT%H:%M:%S+00:00").to_string())
        .unwrap_or_default()
}

fn pretty(v: &Value) -> String {
    let mut text = serde_json::to_string_pretty(v).unwrap_or_default();
    text.push('\n');
    text
}

/// Writes `plan` into `root/.dwp/plans/PLAN/` and its candidate to `root/candidate.json`;
/// returns the plan folder.
pub fn write_ready_plan(root: &Path, plan: &ReadyPlan) -> io::Result<PathBuf> {
    let plan_dir = root.join(".dwp/plans").join(PLAN);
    std::fs::create_dir_all(plan_dir.join("analysis_results/gates"))?;
    for (rel, bytes) in &plan.files {
        let path = plan_dir.join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(&path, bytes)
            .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", path.display())))?;
    }
    std::fs::write(root.join("candidate.json"), &plan.candidate)?;
    Ok(plan_dir)
}

/// The crash loop's plan of `n` tasks, written under `root`.
pub fn ready_plan(root: &Path, n: usize) -> io::Result<PathBuf> {
    write_ready_plan(root, &PlanSpec::standard(n).build())
}

/// True when `bytes` are one whole JSON document.
pub fn is_json(bytes: &[u8]) -> bool {
    serde_json::from_slice::<Value>(bytes).is_ok()
}
