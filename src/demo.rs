//! The plan `planseal demo` walks: a three-task plan of a tiny `greeting` project, as data.
//!
//! Each function gives the files one step of the walk writes, as (path relative to the scratch
//! repository's root, bytes); the CLI writes them, commits them and narrates. Nothing here
//! touches the disk or prints.

use serde_json::{Value, json};

/// The demo plan's name.
pub const PLAN: &str = "PLAN_demo_greeting";
/// Its folder, relative to the repository root.
pub const PLAN_DIR: &str = ".dwp/plans/PLAN_demo_greeting";

/// A file of the scratch repository: its path relative to the root, and its bytes.
pub type File = (String, Vec<u8>);

/// One task of the demo plan, with the work the demo does for it.
#[derive(Debug)]
pub struct Task {
    /// The task's id in state.json, 1-based and in walk order.
    pub id: u32,
    /// The task file, relative to the plan folder.
    pub file: &'static str,
    /// The task's title, as the README index, PROGRESS and the task file show it.
    pub title: &'static str,
    /// The file the task's work writes (relative to the root) and its content.
    pub work_path: &'static str,
    /// The content written to `work_path`.
    pub work: &'static str,
    /// The subject of the task's commit (the plan's name and task number follow it).
    pub subject: &'static str,
    /// The gate command recorded for the task (and quoted in its gate log).
    pub gate: &'static str,
    /// What the gate's output says it ran.
    pub ran: &'static str,
    /// The one-line summary of the task's Completion & Log (and its PROGRESS entry).
    pub summary: &'static str,
    /// The task's documentation decision, as its Completion & Log states it.
    pub docs: &'static str,
}

/// The demo plan's three tasks, in order; the last one is the Final Review.
pub const TASKS: [Task; 3] = [
    Task {
        id: 1,
        file: "1.task_greeting_function.md",
        title: "Greeting function",
        work_path: "src/greeting.rs",
        work: "/// The greeting shown to a user.\npub fn greeting(name: &str) -> String {\n    format!(\"Hello, {name}!\")\n}\n",
        subject: "feat(greeting): add the greeting function",
        gate: "cargo test greeting",
        ran: "ran=3/3",
        summary: "`greeting(name)` in `src/greeting.rs`.",
        docs: "not applicable — no user-visible change until Task 2.",
    },
    Task {
        id: 2,
        file: "2.task_usage_docs.md",
        title: "Usage documentation",
        work_path: "docs/usage.md",
        work: "# Usage\n\nCall `greeting(\"Ada\")` to get `Hello, Ada!`.\n",
        subject: "docs(greeting): document the greeting",
        gate: "grep -c greeting docs/usage.md",
        ran: "matches=1",
        summary: "`docs/usage.md` explains the greeting.",
        docs: "updated — docs/usage.md is new.",
    },
    Task {
        id: 3,
        file: "3.task_final_review.md",
        title: "Final Review",
        work_path: "CHANGELOG.md",
        work: "# Changelog\n\n## 0.1.0\n\n- The greeting function and its usage page.\n",
        subject: "docs(release): final review and changelog",
        gate: "cargo test",
        ran: "ran=3/3",
        summary: "security pass, final-state validation and skills reconciliation; CHANGELOG entry.",
        docs: "updated — CHANGELOG 0.1.0 entry.",
    },
];

impl Task {
    /// The last task, whose close publishes the plan.
    pub fn is_last(&self) -> bool {
        self.id as usize == TASKS.len()
    }

    /// The subject of the task's commit.
    pub fn commit_subject(&self) -> String {
        format!("{} - Task {} of {PLAN}", self.subject, self.id)
    }

    /// The gate log, relative to the plan folder.
    pub fn log(&self) -> String {
        format!("analysis_results/gates/t{}.log", self.id)
    }

    /// What the task's `planseal task done` is given: its gate run, its commit and the labels of
    /// its Completion & Log.
    pub fn close_out(&self, sha: &str) -> CloseOut {
        let short = sha.get(..7).unwrap_or(sha);
        CloseOut {
            task: u64::from(self.id),
            gate: self.gate_record(short),
            commit: sha.to_string(),
            summary: self.summary.to_string(),
            outputs: format!("`{}`", self.work_path),
            skills_disposition: "none — nothing reusable beyond the usual toolset".to_string(),
            documentation_decision: self.docs.to_string(),
        }
    }

    /// The `--gate` value that records the task's gate, `short` being its commit's short id.
    pub fn gate_record(&self, short: &str) -> String {
        format!(
            "{}|0|scope=task {}; fp={short}+clean; {}; log={}",
            self.gate,
            self.id,
            self.ran,
            self.log()
        )
    }
}

/// One task's close-out, as the command line shows it and as the library takes it.
#[derive(Debug, Clone)]
pub struct CloseOut {
    /// The task closed.
    pub task: u64,
    /// Its `--gate` run.
    pub gate: String,
    /// Its `--commit`.
    pub commit: String,
    /// `--summary` (and `--worked`).
    pub summary: String,
    /// `--outputs`.
    pub outputs: String,
    /// `--skills-disposition`.
    pub skills_disposition: String,
    /// `--documentation-decision`.
    pub documentation_decision: String,
}

impl CloseOut {
    /// `task done PLAN_DIR --task N …` as the command line takes it.
    pub fn args(&self) -> Vec<String> {
        let task = self.task.to_string();
        [
            "task",
            "done",
            PLAN_DIR,
            "--task",
            &task,
            "--gate",
            &self.gate,
            "--commit",
            &self.commit,
            "--summary",
            &self.summary,
            "--outputs",
            &self.outputs,
            "--skills-disposition",
            &self.skills_disposition,
            "--documentation-decision",
            &self.documentation_decision,
            "--worked",
            &self.summary,
        ]
        .iter()
        .map(|s| s.to_string())
        .collect()
    }

    /// The same close-out as the library takes it, for the plan folder `plan_dir`.
    pub fn request(
        &self,
        plan_dir: &std::path::Path,
        clock: crate::clock::Clock,
    ) -> crate::dwp::ops::task_done::TaskDoneRequest {
        crate::dwp::ops::task_done::TaskDoneRequest {
            plan_dir: plan_dir.to_path_buf(),
            task: self.task,
            gates: vec![self.gate.clone()],
            commit: Some(self.commit.clone()),
            worked: Some(self.summary.clone()),
            tried: Vec::new(),
            failed: Vec::new(),
            notes: None,
            summary: Some(self.summary.clone()),
            outputs: Some(self.outputs.clone()),
            skills_disposition: Some(self.skills_disposition.clone()),
            documentation_decision: Some(self.documentation_decision.clone()),
            agent: None,
            model: None,
            expected_sha256: None,
            dry_run: false,
            clock,
        }
    }
}

fn in_plan(rel: &str, text: String) -> File {
    (format!("{PLAN_DIR}/{rel}"), text.into_bytes())
}

fn file(path: &str, text: &str) -> File {
    (path.to_string(), text.as_bytes().to_vec())
}

/// The project before the plan: `.gitignore` (plans are not tracked) and its README.
pub fn base_files() -> Vec<File> {
    vec![
        file(".gitignore", ".dwp/\n"),
        file(
            "README.md",
            "# greeting\n\nA tiny library that greets people.\n",
        ),
    ]
}

/// The plan as created at `created_at` (ISO-8601): README, PROGRESS, PROMPTS, manifest, state,
/// the analysis files and the three task files, every task pending.
pub fn plan_files(created_at: &str) -> Vec<File> {
    let n = TASKS.len();
    let tasks: Vec<Value> = TASKS
        .iter()
        .map(|t| {
            json!({
                "id": t.id,
                "locator": { "kind": "file", "value": t.file },
                "title": t.title,
                "status": "pending",
                "gates": [],
            })
        })
        .collect();
    let state = json!({
        "schema": "https://deepworkplan.com/schema/plan-state/v5.json",
        "plan": PLAN,
        "updated_at": created_at,
        "status": "pending",
        "completed_count": 0,
        "task_count": n,
        "format": "full",
        "materialization": "ready",
        "approval": "pending",
        "promotion": null,
        "checkpoint": null,
        "blocked": null,
        "tasks": tasks,
    });
    let mut files = vec![
        in_plan("README.md", readme()),
        in_plan("PROGRESS.md", progress()),
        in_plan(
            "PROMPTS.md",
            "# Prompts\n\n## Request\n\n> Add a greeting function and document it.\n".into(),
        ),
        in_plan(
            "manifest.json",
            format!(
                "{{\n  \"schema\": \"https://deepworkplan.com/schema/plan-manifest/v5.json\",\n  \"spec_version\": \"5.0.0\",\n  \"name\": \"{PLAN}\",\n  \"title\": \"Greet people by name\",\n  \"archetype\": \"individual\",\n  \"rigor\": \"standard\",\n  \"created_at\": \"{created_at}\",\n  \"task_count\": {n},\n  \"plan_format\": \"full\"\n}}\n"
            ),
        ),
        in_plan("state.json", pretty(&state)),
        in_plan(
            "analysis_results/PLAN_ANALYSIS.md",
            "# Plan analysis\n\n- New project, no callers yet; the risk is low.\n".into(),
        ),
        in_plan(
            "analysis_results/SKILLS_CANDIDATES.md",
            "# Skills candidates\n\nNone so far.\n".into(),
        ),
    ];
    files.extend(TASKS.iter().map(|t| in_plan(t.file, task_record(t))));
    files
}

/// What the work of `task` writes: its file, and for the last task the security review too.
pub fn work_files(task: &Task) -> Vec<File> {
    let mut files = vec![file(task.work_path, task.work)];
    if task.is_last() {
        files.push(in_plan(
            "analysis_results/SECURITY_REVIEW.md",
            format!("# Security review — {PLAN}\n\n## Findings\n\n1. The greeting formats a caller-given name into a string; no input reaches a shell or a file.\n\nResult: 0 unresolved critical findings, 0 high.\n"),
        ));
    }
    files
}

/// The output of the task's gate, saved where its record points.
pub fn gate_log(task: &Task) -> File {
    in_plan(&task.log(), format!("$ {}\n{} ok\n", task.gate, task.ran))
}

/// The README as the plan is materialized: every box empty, approval pending (the user approves
/// with `planseal approve`).
fn readme() -> String {
    let mut index = String::new();
    for t in &TASKS {
        index.push_str(&format!(
            "- [ ] Task {}: {} — [{}]({})\n",
            t.id, t.title, t.file, t.file
        ));
    }
    format!(
        "# Plan: Greet people by name\n\n## Goal\n\nAdd a `greeting(name)` function, document it, and close the plan with a final review.\n\n## Context\n\nThe `greeting` project is new; this plan is planseal's demo and runs in a scratch repository.\n\n## Plan Variables\n\n- **Standard:** DWP spec 5.0.0\n- **Plan Format:** Full\n- **Tier:** standard\n- **Approval:** pending\n\n## Task List\n\n{index}\n## Plan Status\n\nPlan Status: 0/{} completed\n",
        TASKS.len()
    )
}

/// PROGRESS.md as the plan is materialized; `planseal task done` adds each task's entry.
fn progress() -> String {
    format!(
        "# Progress — {PLAN}\n\n## Active context\n\n- Work through the tasks in order.\n\n## Task entries\n\n(none yet)\n"
    )
}

/// A task file as the plan is materialized: its Completion & Log pending.
fn task_record(t: &Task) -> String {
    let goal = if t.is_last() {
        "Perform the security pass, the final-state validation and the skills reconciliation, and write `analysis_results/SECURITY_REVIEW.md`."
    } else {
        "Deliver the change described by the title, with its gate recorded."
    };
    format!(
        "# Task {id}: {title}\n\n## 1. Context\n\nPart of {PLAN}; tasks run in order.\n\n## 2. Read Before Starting\n\n- README.md of the plan\n\n## 3. Goal\n\n{goal}\n\n## 4. Touched Surface\n\n- `{path}`\n\n## 5. Instructions\n\n1. Make the change.\n2. Run the gate and save its output under `analysis_results/gates/`.\n\n## 6. Acceptance Criteria\n\n- [ ] `{path}` exists and does what the goal says.\n\n## 7. Outputs\n\n- `{path}`\n\n## 8. Validation\n\n```bash\n{gate}\n```\n\n## 9. Execution Checklist\n\n- [ ] Change made\n- [ ] Gate recorded\n\n## 10. Completion & Log\n\nStatus: pending\n",
        id = t.id,
        title = t.title,
        path = t.work_path,
        gate = t.gate
    )
}

fn pretty(v: &Value) -> String {
    let mut text = serde_json::to_string_pretty(v).unwrap_or_default();
    text.push('\n');
    text
}

/// A fresh scratch folder of the demo's own in the system temp folder (`create_dir`, not
/// `create_dir_all`: an existing one is never reused or removed — a former demo with the same
/// pid may have been kept on purpose).
pub fn create_scratch_folder() -> std::io::Result<std::path::PathBuf> {
    let token = crate::recovery::store::process::random_token();
    let scratch = std::env::temp_dir().join(format!(
        "planseal-demo-{}-{}",
        std::process::id(),
        token.get(..8).unwrap_or(&token)
    ));
    std::fs::create_dir(&scratch)?;
    Ok(scratch)
}
