//! `planseal demo`: a small plan's whole life cycle in a throw-away git repository, narrated —
//! guarded updates through the tasks, a publication interrupted right after its marker, `verify`
//! failing, `recover`, `verify` passing, the receipt. Every step runs this same binary as a child
//! process, so what you see is exactly what the commands print. The repository is built with the
//! git library; no `git` process is started.

use super::Context;
use crate::print_out;
use anyhow::Context as _;
use planseal::dwp::publish::{self, Candidate, FinalizeRequest, Step};
use planseal::recovery::scratch_repo::ScratchRepo;
use planseal::report::ExitCode;
use std::path::{Path, PathBuf};
use std::process::Command;

#[derive(clap::Args, Debug)]
#[command(
    after_help = "Examples:\n  planseal demo            the narrated walk; the scratch repository is removed afterwards\n  \
planseal demo --keep     keep it, to look around (run `planseal verify` or `git log` inside)\n\n\
Needs no git, no network and no other program; nothing outside the scratch folder is touched."
)]
pub struct Args {
    /// Keep the scratch folder afterwards (its path is printed)
    #[arg(long)]
    pub keep: bool,
    /// Internal: publish CANDIDATE into PLAN_DIR and exit right after the marker is written
    #[arg(long, hide = true, value_names = ["PLAN_DIR", "CANDIDATE"], num_args = 2)]
    pub internal_finalize_crash: Option<Vec<PathBuf>>,
    /// Internal (crash loop): write into DIR a plan of TASKS tasks whose markdown is closed and
    /// whose state awaits the terminal close, plus DIR/candidate.json
    #[arg(long, hide = true, value_names = ["DIR", "TASKS"], num_args = 2)]
    pub internal_ready_plan: Option<Vec<String>>,
    /// Internal (crash loop): exit 0 when FILE is one whole JSON document, 1 otherwise
    #[arg(long, hide = true, value_name = "FILE")]
    pub internal_json_check: Option<PathBuf>,
}

const PLAN: &str = "PLAN_demo_greeting";

pub fn run(args: Args, ctx: &Context) -> anyhow::Result<ExitCode> {
    if let Some(paths) = &args.internal_finalize_crash {
        return interrupted_publication(&ctx.cwd.join(&paths[0]), &ctx.cwd.join(&paths[1]));
    }
    if let Some(file) = &args.internal_json_check {
        let path = ctx.cwd.join(file);
        let bytes =
            std::fs::read(&path).with_context(|| format!("cannot read {}", path.display()))?;
        return Ok(ExitCode::failed_if(
            serde_json::from_slice::<serde_json::Value>(&bytes).is_err(),
        ));
    }
    if let Some(v) = &args.internal_ready_plan {
        let tasks: usize = v[1].parse().map_err(|_| {
            planseal::report::Refusal::new(
                planseal::report::RefusalKind::UsageError,
                format!("TASKS must be a number ≥ 2, not {}", v[1]),
            )
        })?;
        ready_plan(&ctx.cwd.join(&v[0]), tasks.max(2))?;
        print_out(&format!(".dwp/plans/{PLAN}/state.json\n"));
        return Ok(ExitCode::Ok);
    }
    // A fresh folder of its own (create_dir, not _all: an existing one is never reused or
    // removed — a former demo with the same pid may have been kept on purpose).
    let token = planseal::recovery::store::process::random_token();
    let scratch = std::env::temp_dir().join(format!(
        "planseal-demo-{}-{}",
        std::process::id(),
        token.get(..8).unwrap_or(&token)
    ));
    std::fs::create_dir(&scratch)
        .map_err(|e| anyhow::anyhow!("cannot create {}: {e}", scratch.display()))?;
    let result = Demo::new(&scratch, ctx).and_then(|mut d| d.walk());
    if args.keep {
        print_out(&format!(
            "\nThe scratch repository is kept at {}\n",
            scratch.display()
        ));
    } else {
        let _ = std::fs::remove_dir_all(&scratch);
        print_out(
            "\nThe scratch repository was removed (run `planseal demo --keep` to look around).\n",
        );
    }
    result.map(|()| ExitCode::Ok)
}

/// The child of step 4: a real finalize that stops dead after its marker, like a killed process —
/// the lock stays behind, its owner (this process) gone.
fn interrupted_publication(plan_dir: &Path, candidate: &Path) -> anyhow::Result<ExitCode> {
    let bytes =
        std::fs::read(candidate).with_context(|| format!("cannot read {}", candidate.display()))?;
    let mut req = FinalizeRequest::new(
        plan_dir,
        Candidate::Bytes {
            bytes,
            origin: candidate.display().to_string(),
        },
    );
    req.clock = planseal::clock::Clock::from_env()?;
    publish::finalize(&req, &mut |step| {
        if step == Step::AfterMarker {
            crate::print_err(
                "(the finalizer process stops here: marker written, state.json not yet replaced)\n",
            );
            std::process::exit(137);
        }
    })
    .map_err(super::finalize::lift)?;
    anyhow::bail!("the publication was expected to stop after its marker")
}

struct Demo {
    root: PathBuf,
    plan_dir: PathBuf,
    repo: ScratchRepo,
    exe: PathBuf,
    color: bool,
    clock: i64,
}

struct TaskSpec {
    id: u32,
    file: &'static str,
    title: &'static str,
    work_path: &'static str,
    work: &'static str,
    subject: &'static str,
    gate: &'static str,
    ran: &'static str,
    summary: &'static str,
    docs: &'static str,
}

const TASKS: [TaskSpec; 3] = [
    TaskSpec {
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
    TaskSpec {
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
    TaskSpec {
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

impl Demo {
    fn new(root: &Path, ctx: &Context) -> anyhow::Result<Self> {
        let repo = ScratchRepo::init(root)?;
        Ok(Self {
            root: root.to_path_buf(),
            plan_dir: root.join(".dwp/plans").join(PLAN),
            repo,
            exe: std::env::current_exe()?,
            color: ctx.color,
            clock: jiff::Timestamp::now().as_second() - 3600,
        })
    }

    fn walk(&mut self) -> anyhow::Result<()> {
        self.heading("planseal demo — one plan's life cycle, from first task to sealed receipt");
        self.say(&format!("Scratch repository: {}", self.root.display()));
        self.say("The demo plays the agent: it writes the code, the gate logs and the task logs; planseal");
        self.say("guards every state change. Each `$ planseal …` line below is a real run of this binary.");

        self.heading("1. A git repository with a three-task plan");
        self.write_base()?;
        let base = self.commit(
            &[".gitignore", "README.md"],
            "chore: start the greeting project",
        )?;
        self.say(&format!(
            "commit {} chore: start the greeting project",
            &base[..7]
        ));
        self.write_plan()?;
        self.say(&format!(
            ".dwp/plans/{PLAN}/ written (git-ignored, as plans usually are): README, PROGRESS,"
        ));
        self.say("PROMPTS, manifest.json, state.json, three task files, analysis_results/.");
        self.planseal(&["verify"], Some(0))?;

        for task in &TASKS {
            let last = task.id as usize == TASKS.len();
            self.heading(&format!(
                "{}. Task {}: {}",
                task.id + 1,
                task.id,
                task.title
            ));
            let state = self.state_arg();
            self.planseal(
                &[
                    "update",
                    &state,
                    "--task",
                    &task.id.to_string(),
                    "--status",
                    "in_progress",
                ],
                Some(0),
            )?;
            let sha = self.do_task_work(task)?;
            let short = &sha[..7];
            self.say(&format!(
                "commit {short} {} - Task {} of {PLAN}",
                task.subject, task.id
            ));
            let log = format!("analysis_results/gates/t{}.log", task.id);
            self.write(
                &self.plan_dir.join(&log),
                &format!("$ {}\n{} ok\n", task.gate, task.ran),
            )?;
            let gate = format!(
                "{}|0|scope=task {}; fp={short}+clean; {}; log={log}",
                task.gate, task.id, task.ran
            );
            self.planseal(
                &[
                    "update",
                    &state,
                    "--task",
                    &task.id.to_string(),
                    "--status",
                    "in_progress",
                    "--gate",
                    &gate,
                ],
                Some(0),
            )?;
            self.close_markdown(task, short, &log)?;
            self.say("Completion & Log filled in, README box ticked, PROGRESS entry written.");
            if !last {
                self.planseal(
                    &[
                        "update",
                        &state,
                        "--task",
                        &task.id.to_string(),
                        "--status",
                        "completed",
                        "--commit",
                        &sha,
                        "--worked",
                        task.summary,
                    ],
                    Some(0),
                )?;
            } else {
                self.interrupted_close(task, &sha)?;
            }
        }

        self.heading("5. verify refuses to call the plan done");
        self.planseal(&["verify"], Some(1))?;

        self.heading("6. recover finishes the publication, bound to the marker's candidate");
        let plan_rel = format!(".dwp/plans/{PLAN}");
        self.planseal(&["recover", &plan_rel], Some(0))?;

        self.heading("7. verify again");
        self.planseal(&["verify"], Some(0))?;

        self.heading("8. The receipt");
        let receipt = std::fs::read_to_string(self.plan_dir.join(publish::RECEIPT_FILE))?;
        self.say(&format!("{plan_rel}/{}:", publish::RECEIPT_FILE));
        print_out(&receipt);
        self.say("The first three keys are the DWP helper's; `planseal` adds every covered file's hash, the");
        self.say(
            "git HEAD, the checks that passed and any accepted exception — and no timestamp, so",
        );
        self.say(&format!(
            "sealing again (`planseal finalize {plan_rel}`) writes the same bytes."
        ));
        Ok(())
    }

    /// The last task: the candidate is published by a child finalizer that dies after its marker.
    fn interrupted_close(&mut self, task: &TaskSpec, sha: &str) -> anyhow::Result<()> {
        let candidate = self.terminal_candidate(task, sha)?;
        let candidate_path = self.root.join(".dwp/candidate.json");
        self.write(&candidate_path, &candidate)?;
        self.say("Closing the last task publishes the plan: the finalizer checks the candidate against every");
        self.say("artifact and git, writes the marker .finalizing.json, replaces state.json, re-verifies, and");
        self.say(
            "seals the receipt. Here the finalizer process dies right after writing its marker:",
        );
        let plan_rel = format!(".dwp/plans/{PLAN}");
        self.show_command(&["finalize", &plan_rel, "--candidate", ".dwp/candidate.json"]);
        let out = Command::new(&self.exe)
            .arg("-C")
            .arg(&self.root)
            .args([
                "demo",
                "--internal-finalize-crash",
                &plan_rel,
                ".dwp/candidate.json",
            ])
            .output()?;
        self.indent(&String::from_utf8_lossy(&out.stdout));
        self.indent(&String::from_utf8_lossy(&out.stderr));
        if out.status.code() != Some(137) {
            anyhow::bail!(
                "the interrupted finalizer exited with {:?}, expected 137",
                out.status.code()
            );
        }
        self.say("(exit 137) Left behind: .finalizing.json and the lock state.json.lock/ of a process that is gone.");
        Ok(())
    }

    fn terminal_candidate(&self, task: &TaskSpec, sha: &str) -> anyhow::Result<String> {
        use serde_json::{Value, json};
        let mut state: Value =
            serde_json::from_slice(&std::fs::read(self.plan_dir.join("state.json"))?)?;
        let now = iso(self.clock + 30);
        let n = TASKS.len();
        let entry = &mut state["tasks"][n - 1];
        entry["status"] = json!("completed");
        entry["completed_at"] = json!(now);
        entry["commit"] = json!(sha);
        entry["outcome"] = json!({ "worked": task.summary });
        state["updated_at"] = json!(now);
        state["status"] = json!("completed");
        state["completed_count"] = json!(n);
        state["checkpoint"] =
            json!({ "task": n, "step": "done", "at": now, "note": "Plan completed." });
        let mut text = serde_json::to_string_pretty(&state)?;
        text.push('\n');
        Ok(text)
    }

    fn do_task_work(&mut self, task: &TaskSpec) -> anyhow::Result<String> {
        self.write(&self.root.join(task.work_path), task.work)?;
        if task.id as usize == TASKS.len() {
            self.write(
                &self.plan_dir.join("analysis_results/SECURITY_REVIEW.md"),
                "# Security review — PLAN_demo_greeting\n\n## Findings\n\n1. The greeting formats a caller-given name into a string; no input reaches a shell or a file.\n\nResult: 0 unresolved critical findings, 0 high.\n",
            )?;
        }
        self.commit(
            &[task.work_path],
            &format!("{} - Task {} of {PLAN}", task.subject, task.id),
        )
    }

    fn close_markdown(&self, task: &TaskSpec, short: &str, log: &str) -> anyhow::Result<()> {
        let file = self.plan_dir.join(task.file);
        let body = std::fs::read_to_string(&file)?;
        let closed = body.replace(
            "Status: pending\n",
            &format!(
                "Status: completed\nSummary: {}\nOutputs: `{}`\nSkills disposition: none — nothing reusable beyond the usual toolset.\nDocumentation decision: {}\nGate record: `{}` · exit 0 · fp={short}+clean · {} · log={log}\n",
                task.summary, task.work_path, task.docs, task.gate, task.ran
            ),
        );
        self.write(&file, &closed)?;
        let readme_path = self.plan_dir.join("README.md");
        let readme = std::fs::read_to_string(&readme_path)?
            .replace(
                &format!("- [ ] Task {}:", task.id),
                &format!("- [x] Task {}:", task.id),
            )
            .replace(
                &format!("Plan Status: {}/{} completed", task.id - 1, TASKS.len()),
                &format!("Plan Status: {}/{} completed", task.id, TASKS.len()),
            );
        self.write(&readme_path, &readme)?;
        let progress_path = self.plan_dir.join("PROGRESS.md");
        let mut progress = std::fs::read_to_string(&progress_path)?;
        progress.push_str(&format!(
            "\n### Task {} — {}\n\n- {}\n- Gate: `{}` green ({}).\n",
            task.id, task.title, task.summary, task.gate, task.ran
        ));
        self.write(&progress_path, &progress)?;
        Ok(())
    }

    fn write_base(&self) -> anyhow::Result<()> {
        self.write(&self.root.join(".gitignore"), ".dwp/\n")?;
        self.write(
            &self.root.join("README.md"),
            "# greeting\n\nA tiny library that greets people.\n",
        )
    }

    fn write_plan(&self) -> anyhow::Result<()> {
        let p = &self.plan_dir;
        let created = iso(self.clock);
        let mut index = String::new();
        for t in &TASKS {
            index.push_str(&format!(
                "- [ ] Task {}: {} — [{}]({})\n",
                t.id, t.title, t.file, t.file
            ));
        }
        self.write(&p.join("README.md"), &format!(
            "# Plan: Greet people by name\n\n## Goal\n\nAdd a `greeting(name)` function, document it, and close the plan with a final review.\n\n## Context\n\nThe `greeting` project is new; this plan is planseal's demo and runs in a scratch repository.\n\n## Plan Variables\n\n- **Standard:** DWP spec 5.0.0\n- **Plan Format:** Full\n- **Tier:** standard\n\n## Task List\n\n{index}\n## Plan Status\n\nPlan Status: 0/{} completed\n", TASKS.len()))?;
        self.write(&p.join("PROGRESS.md"), &format!("# Progress — {PLAN}\n\n## Active context\n\n- Work through the tasks in order.\n\n## Task entries\n"))?;
        self.write(
            &p.join("PROMPTS.md"),
            "# Prompts\n\n## Request\n\n> Add a greeting function and document it.\n",
        )?;
        self.write(&p.join("manifest.json"), &format!(
            "{{\n  \"schema\": \"https://deepworkplan.com/schema/plan-manifest/v5.json\",\n  \"spec_version\": \"5.0.0\",\n  \"name\": \"{PLAN}\",\n  \"title\": \"Greet people by name\",\n  \"archetype\": \"individual\",\n  \"rigor\": \"standard\",\n  \"created_at\": \"{created}\",\n  \"task_count\": {},\n  \"plan_format\": \"full\"\n}}\n", TASKS.len()))?;
        let tasks: Vec<serde_json::Value> = TASKS
            .iter()
            .map(|t| {
                serde_json::json!({
                    "id": t.id,
                    "locator": { "kind": "file", "value": t.file },
                    "title": t.title,
                    "status": "pending",
                    "gates": [],
                })
            })
            .collect();
        let state = serde_json::json!({
            "schema": "https://deepworkplan.com/schema/plan-state/v5.json",
            "plan": PLAN,
            "updated_at": created,
            "status": "pending",
            "completed_count": 0,
            "task_count": TASKS.len(),
            "format": "full",
            "materialization": "ready",
            "approval": "approved",
            "promotion": null,
            "checkpoint": null,
            "blocked": null,
            "tasks": tasks,
        });
        self.write(
            &p.join("state.json"),
            &(serde_json::to_string_pretty(&state)? + "\n"),
        )?;
        self.write(
            &p.join("analysis_results/PLAN_ANALYSIS.md"),
            "# Plan analysis\n\n- New project, no callers yet; the risk is low.\n",
        )?;
        self.write(
            &p.join("analysis_results/SKILLS_CANDIDATES.md"),
            "# Skills candidates\n\nNone so far.\n",
        )?;
        for t in &TASKS {
            let extra = if t.id as usize == TASKS.len() {
                "Perform the security pass, the final-state validation and the skills reconciliation, and write `analysis_results/SECURITY_REVIEW.md`."
            } else {
                "Deliver the change described by the title, with its gate recorded."
            };
            self.write(&p.join(t.file), &format!(
                "# Task {id}: {title}\n\n## 1. Context\n\nPart of {PLAN}; tasks run in order.\n\n## 2. Read Before Starting\n\n- README.md of the plan\n\n## 3. Goal\n\n{extra}\n\n## 4. Touched Surface\n\n- `{path}`\n\n## 5. Instructions\n\n1. Make the change.\n2. Run the gate and save its output under `analysis_results/gates/`.\n\n## 6. Acceptance Criteria\n\n- [ ] `{path}` exists and does what the goal says.\n\n## 7. Outputs\n\n- `{path}`\n\n## 8. Validation\n\n```bash\n{gate}\n```\n\n## 9. Execution Checklist\n\n- [ ] Change made\n- [ ] Gate recorded\n\n## 10. Completion & Log\n\nStatus: pending\n",
                id = t.id, title = t.title, path = t.work_path, gate = t.gate))?;
        }
        Ok(())
    }

    fn commit(&mut self, paths: &[&str], subject: &str) -> anyhow::Result<String> {
        self.clock += 60;
        Ok(self.repo.commit(paths, subject, self.clock)?)
    }

    fn state_arg(&self) -> String {
        format!(".dwp/plans/{PLAN}/state.json")
    }

    fn write(&self, path: &Path, text: &str) -> anyhow::Result<()> {
        write_file(path, text)
    }

    /// Runs `planseal ARGS` in the scratch repository and shows its output; a different exit
    /// code than expected stops the demo.
    fn planseal(&self, args: &[&str], expect: Option<i32>) -> anyhow::Result<()> {
        self.show_command(args);
        let out = Command::new(&self.exe)
            .arg("-C")
            .arg(&self.root)
            .args(args)
            .env("NO_COLOR", "1")
            .output()?;
        self.indent(&String::from_utf8_lossy(&out.stdout));
        self.indent(&String::from_utf8_lossy(&out.stderr));
        let code = out.status.code();
        if expect.is_some() && code != expect {
            anyhow::bail!(
                "demo step `planseal {}` exited with {code:?}, expected {expect:?}",
                args.join(" ")
            );
        }
        if code != Some(0) {
            self.say(&format!("(exit {})", code.unwrap_or(-1)));
        }
        Ok(())
    }

    fn show_command(&self, args: &[&str]) {
        let shown: Vec<String> = args
            .iter()
            .map(|a| {
                if a.contains(' ') || a.contains('|') || a.contains(';') {
                    format!("'{a}'")
                } else {
                    a.to_string()
                }
            })
            .collect();
        let line = format!("$ planseal {}", shown.join(" "));
        if self.color {
            print_out(&format!("\x1b[1m{line}\x1b[0m\n"));
        } else {
            print_out(&format!("{line}\n"));
        }
    }

    fn indent(&self, text: &str) {
        for line in text.lines() {
            print_out(&format!("    {line}\n"));
        }
    }

    fn heading(&self, text: &str) {
        if self.color {
            print_out(&format!("\n\x1b[1;36m{text}\x1b[0m\n"));
        } else {
            print_out(&format!("\n{text}\n"));
        }
    }

    fn say(&self, text: &str) {
        print_out(&format!("{text}\n"));
    }
}

/// Unix seconds as ISO-8601 UTC with `+00:00`.
fn iso(unix_seconds: i64) -> String {
    jiff::Timestamp::from_second(unix_seconds)
        .map(planseal::clock::format_timestamp)
        .unwrap_or_default()
}

/// One task of a generated plan.
struct GenTask {
    id: usize,
    file: String,
    title: String,
}

fn gen_tasks(n: usize) -> Vec<GenTask> {
    (1..=n)
        .map(|id| {
            if id == n {
                GenTask {
                    id,
                    file: format!("{id}.task_final_review.md"),
                    title: "Final Review".into(),
                }
            } else {
                GenTask {
                    id,
                    file: format!("{id}.task_step_{id}.md"),
                    title: format!("Step {id}"),
                }
            }
        })
        .collect()
}

/// A plan of `n` tasks (no git) at the moment of the terminal close: every task record closed,
/// README ticked, PROGRESS written, state.json with tasks 1..n-1 completed and task n
/// in progress with its gate; `root/candidate.json` holds the completed state.
/// Writes a file of the scratch plan, creating its folder; an error names the file.
fn write_file(path: &Path, text: &str) -> anyhow::Result<()> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)
            .with_context(|| format!("cannot create {}", parent.display()))?;
    }
    std::fs::write(path, text).with_context(|| format!("cannot write {}", path.display()))
}

fn ready_plan(root: &Path, n: usize) -> anyhow::Result<()> {
    let plan_dir = root.join(".dwp/plans").join(PLAN);
    std::fs::create_dir_all(plan_dir.join("analysis_results/gates"))?;
    let write = |rel: &str, text: &str| write_file(&plan_dir.join(rel), text);
    let tasks = gen_tasks(n);
    let t0 = 1_791_190_800i64; // 2026-10-05T09:00:00Z
    let at = |minutes: i64| iso(t0 + minutes * 60);
    let mut index = String::new();
    let mut progress = format!("# Progress — {PLAN}\n\n## Task entries\n");
    let mut state_tasks = Vec::new();
    for t in &tasks {
        index.push_str(&format!(
            "- [x] Task {}: {} — [{}]({})\n",
            t.id, t.title, t.file, t.file
        ));
        progress.push_str(&format!(
            "\n### Task {} — {}\n\n- Done; gate green.\n",
            t.id, t.title
        ));
        let log = format!("analysis_results/gates/t{}.log", t.id);
        write(&log, &format!("$ cargo test step_{}\nran=1/1 ok\n", t.id))?;
        let goal = if t.id == n {
            "Perform the security pass, the final-state validation and the skills reconciliation."
        } else {
            "Deliver this step of the generated plan."
        };
        write(
            &t.file,
            &format!(
                "# Task {id}: {title}\n\n## 1. Context\n\nGenerated plan for the crash loop.\n\n## 3. Goal\n\n{goal}\n\n## 4. Touched Surface\n\n- `src/step_{id}.rs`\n\n## 6. Acceptance Criteria\n\n- [ ] The step works.\n\n## 8. Validation\n\n```bash\ncargo test step_{id}\n```\n\n## 10. Completion & Log\n\nStatus: completed\nSummary: step {id} done.\nSkills disposition: none — nothing reusable.\nDocumentation decision: not applicable — generated plan.\nGate record: `cargo test step_{id}` · exit 0 · ran=1/1 · log={log}\n",
                id = t.id,
                title = t.title
            ),
        )?;
        let start = (t.id as i64) * 10;
        let mut entry = serde_json::json!({
            "id": t.id,
            "locator": { "kind": "file", "value": t.file },
            "title": t.title,
            "status": if t.id == n { "in_progress" } else { "completed" },
            "gates": [{
                "command": format!("cargo test step_{}", t.id),
                "passes": true,
                "last_run": at(start + 1),
                "exit_code": 0,
                "evidence": format!("scope=unit; ran=1/1; log={log}"),
            }],
            "started_at": at(start),
        });
        if t.id != n {
            entry["completed_at"] = serde_json::json!(at(start + 2));
            entry["outcome"] = serde_json::json!({ "worked": format!("step {} done", t.id) });
        }
        state_tasks.push(entry);
    }
    write(
        "README.md",
        &format!(
            "# Plan: A generated plan of {n} tasks\n\n## Goal\n\nExercise the terminal close of a large plan.\n\n## Context\n\nGenerated by `planseal demo --internal-ready-plan` for scripts/crash-loop.sh.\n\n## Plan Variables\n\n- **Standard:** DWP spec 5.0.0\n- **Plan Format:** Full\n\n## Task List\n\n{index}\n## Plan Status\n\nPlan Status: {n}/{n} completed\n"
        ),
    )?;
    write("PROGRESS.md", &progress)?;
    write("PROMPTS.md", "# Prompts\n\n> Generated plan.\n")?;
    write(
        "manifest.json",
        &format!(
            "{{\n  \"schema\": \"https://deepworkplan.com/schema/plan-manifest/v5.json\",\n  \"spec_version\": \"5.0.0\",\n  \"name\": \"{PLAN}\",\n  \"archetype\": \"individual\",\n  \"rigor\": \"standard\",\n  \"created_at\": \"{}\",\n  \"task_count\": {n},\n  \"plan_format\": \"full\"\n}}\n",
            at(0)
        ),
    )?;
    write(
        "analysis_results/PLAN_ANALYSIS.md",
        "# Plan analysis\n\n- Generated.\n",
    )?;
    write(
        "analysis_results/SKILLS_CANDIDATES.md",
        "# Skills candidates\n\nNone.\n",
    )?;
    write(
        "analysis_results/SECURITY_REVIEW.md",
        "# Security review\n\nResult: 0 unresolved critical findings.\n",
    )?;
    let last = (n as i64) * 10;
    let mut state = serde_json::json!({
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
    write(
        "state.json",
        &(serde_json::to_string_pretty(&state)? + "\n"),
    )?;
    let done = at(last + 3);
    state["tasks"][n - 1]["status"] = serde_json::json!("completed");
    state["tasks"][n - 1]["completed_at"] = serde_json::json!(done);
    state["tasks"][n - 1]["outcome"] = serde_json::json!({ "worked": "final review done" });
    state["updated_at"] = serde_json::json!(done);
    state["status"] = serde_json::json!("completed");
    state["completed_count"] = serde_json::json!(n);
    state["checkpoint"] =
        serde_json::json!({ "task": n, "step": "done", "at": done, "note": "Plan completed." });
    std::fs::write(
        root.join("candidate.json"),
        serde_json::to_string_pretty(&state)? + "\n",
    )?;
    Ok(())
}
