//! `diff`: what changed and what disagrees — state.json against the markdown
//! ([`state_vs_markdown`]), the plan's files at a revision against now ([`against`]), or a
//! candidate state against the current one ([`candidate`]). Text, markdown (for a pull-request
//! comment) and JSON are forms of one [`DiffOutcome`].
//!
//! An outcome holds plan text as it is: whoever shows it hides the project's `.env` values first.

use super::{OpError, paint};
use crate::dwp::decide::rebuild::gather;
use crate::dwp::history::diff::{
    Disagreement, FileDiff, StateChange, file_diff, state_changes, state_vs_markdown as compare,
};
use crate::dwp::layout;
use crate::dwp::locate::{Git, GitProgress, open_plan};
use crate::dwp::model::parse_json;
use crate::report::HintedError;
use serde::Serialize;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// `planseal diff PLAN_DIR [--against REV | --candidate FILE]`.
#[derive(Debug, Clone)]
pub struct DiffOptions {
    /// The directory the command runs in; relative paths are taken from here.
    pub cwd: PathBuf,
    /// The plan folder as given.
    pub plan_dir: PathBuf,
    /// What the plan is compared with.
    pub mode: DiffMode,
}

/// What the plan is compared with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DiffMode {
    /// state.json against the README and the task logs.
    StateVsMarkdown,
    /// The plan's files at this revision against the files now.
    Against(String),
    /// This candidate state.json (as given, relative to the working directory) against the
    /// current one.
    Candidate(PathBuf),
}

/// What one diff found (the `--json` document).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct DiffOutcome {
    /// The plan folder's name (`PLAN_x`).
    pub plan: String,
    /// `state-vs-markdown`, `against`, `candidate`.
    pub mode: &'static str,
    /// The revision compared with, as given (`against` mode only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub against: Option<String>,
    /// The candidate file, as the working directory resolves it (`candidate` mode only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub candidate: Option<String>,
    /// What state.json and the markdown disagree on (`state-vs-markdown` mode).
    pub disagreements: Vec<Disagreement>,
    /// The semantic changes of state.json from the revision or the current state to now or the
    /// candidate (`against` and `candidate` modes).
    pub state_changes: Vec<StateChange>,
    /// The text diff of every plan file that differs (in `candidate` mode: state.json only).
    pub files: Vec<FileDiff>,
}

/// Runs the diff `opts.mode` asks for.
pub fn diff(opts: &DiffOptions, progress: Option<GitProgress>) -> Result<DiffOutcome, OpError> {
    match &opts.mode {
        DiffMode::StateVsMarkdown => state_vs_markdown(opts),
        DiffMode::Against(rev) => against(opts, rev, progress),
        DiffMode::Candidate(file) => candidate(opts, file),
    }
}

/// state.json against the markdown; a missing or unparseable state.json is one disagreement.
pub fn state_vs_markdown(opts: &DiffOptions) -> Result<DiffOutcome, OpError> {
    let plan = open_plan(&opts.cwd, &opts.plan_dir, Git::Skip)?;
    let inputs = gather(&plan.dir, None)?;
    let mut outcome = DiffOutcome {
        plan: inputs.plan.clone(),
        mode: "state-vs-markdown",
        ..Default::default()
    };
    match &inputs.old_state {
        Some(state) => {
            outcome.disagreements = compare(state, &inputs.tasks, inputs.plan_status);
        }
        None => outcome.disagreements.push(Disagreement {
            task: None,
            field: layout::STATE_FILE,
            state: None,
            markdown: Some(format!("{} task(s) in the README", inputs.tasks.len())),
            direction: "markdown-ahead",
            message: if inputs.old_bytes.is_some() {
                "state.json does not parse; `planseal rebuild` regenerates it".into()
            } else {
                "state.json is missing; `planseal rebuild` regenerates it".into()
            },
        }),
    }
    Ok(outcome)
}

/// The plan's files at `rev` against now. The plan must be tracked by git at `rev`, which it
/// usually is not (`.dwp/` is git-ignored).
pub fn against(
    opts: &DiffOptions,
    rev: &str,
    progress: Option<GitProgress>,
) -> Result<DiffOutcome, OpError> {
    let plan = open_plan(&opts.cwd, &opts.plan_dir, Git::Open(progress))?;
    let plan_dir = &plan.dir;
    let Some(repo) = plan.repo.as_ref() else {
        return Err(HintedError::usage(format!(
            "{} is not in a git repository; --against needs one",
            plan_dir.display()
        ))
        .into());
    };
    let commit = repo.resolve(rev)?.ok_or_else(|| {
        HintedError::usage(format!("`{rev}` is not a revision of this repository"))
    })?;
    let rel = repo.relative_to_work_tree(plan_dir)?;
    let mut outcome = DiffOutcome {
        plan: crate::dwp::layout::plan_name(plan_dir),
        mode: "against",
        against: Some(rev.to_string()),
        ..Default::default()
    };
    let mut tracked_then = false;
    let mut state_then = None;
    let mut state_now = None;
    for name in plan_files(plan_dir) {
        let then = repo.file_at(&commit, &format!("{rel}/{name}"))?;
        let path = plan_dir.join(&name);
        let now = match std::fs::read(&path) {
            Ok(b) => Some(b),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(source) => {
                return Err(OpError::Read {
                    what: format!("reading {}", path.display()),
                    source,
                });
            }
        };
        tracked_then |= then.is_some();
        if name == layout::STATE_FILE {
            state_then = then.as_deref().and_then(|b| serde_json::from_slice(b).ok());
            state_now = now.as_deref().and_then(|b| serde_json::from_slice(b).ok());
        }
        if let Some(d) = file_diff(&name, then.as_deref(), now.as_deref()) {
            outcome.files.push(d);
        }
    }
    if !tracked_then {
        return Err(HintedError::usage(format!(
            "{rel} holds no plan file at {rev}: the plan is not tracked by git there (.dwp/ is usually git-ignored)"
        ))
        .hint("compare a candidate with --candidate instead")
        .into());
    }
    if state_then.is_some() || state_now.is_some() {
        let empty = Value::Object(Default::default());
        outcome.state_changes = state_changes(
            state_then.as_ref().unwrap_or(&empty),
            state_now.as_ref().unwrap_or(&empty),
        );
    }
    Ok(outcome)
}

/// The plan files compared with a revision: the fixed set, then every task file now present.
fn plan_files(plan_dir: &Path) -> Vec<String> {
    let mut files: Vec<String> = [
        layout::README_FILE,
        layout::PROGRESS_FILE,
        layout::PROMPTS_FILE,
        layout::MANIFEST_FILE,
        layout::STATE_FILE,
        layout::SECURITY_REVIEW_FILE,
        layout::SKILLS_CANDIDATES_FILE,
        layout::RECEIPT_FILE,
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let mut tasks: Vec<String> = std::fs::read_dir(plan_dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.contains(".task_") && n.ends_with(".md"))
                .collect()
        })
        .unwrap_or_default();
    tasks.sort();
    files.extend(tasks);
    files
}

/// A candidate state.json against the current one: what finalize would publish.
pub fn candidate(opts: &DiffOptions, file: &Path) -> Result<DiffOutcome, OpError> {
    let plan = open_plan(&opts.cwd, &opts.plan_dir, Git::Skip)?;
    let path = opts.cwd.join(file);
    let cand_bytes = std::fs::read(&path).map_err(|source| OpError::Read {
        what: format!("reading the candidate {}", path.display()),
        source,
    })?;
    let cand = parse_json(&cand_bytes).map_err(|e| {
        HintedError::usage(format!(
            "{}: the candidate is not valid JSON ({e})",
            path.display()
        ))
        .hint("fix the file")
    })?;
    let current_bytes = std::fs::read(layout::state_path(&plan.dir)).ok();
    let current = current_bytes
        .as_deref()
        .and_then(|b| parse_json(b).ok())
        .unwrap_or_else(|| Value::Object(Default::default()));
    Ok(DiffOutcome {
        plan: crate::dwp::layout::plan_name(&plan.dir),
        mode: "candidate",
        candidate: Some(file.display().to_string()),
        state_changes: state_changes(&current, &cand),
        files: file_diff(
            layout::STATE_FILE,
            current_bytes.as_deref(),
            Some(&cand_bytes),
        )
        .into_iter()
        .collect(),
        ..Default::default()
    })
}

impl DiffOutcome {
    /// A difference was found (`--exit-code` exits 1).
    pub fn differs(&self) -> bool {
        !self.disagreements.is_empty() || !self.state_changes.is_empty() || !self.files.is_empty()
    }

    fn title(&self) -> String {
        match self.mode {
            "against" => format!(
                "{} — changes since {}",
                self.plan,
                self.against.as_deref().unwrap_or("?")
            ),
            "candidate" => format!(
                "{} — candidate {} vs state.json",
                self.plan,
                self.candidate.as_deref().unwrap_or("?")
            ),
            _ => format!("{} — state.json vs the markdown", self.plan),
        }
    }

    /// The terminal form: disagreements, state changes, unified diffs, a count.
    pub fn to_text(&self, color: bool) -> String {
        let mut out = format!("Plan: {}\n", paint(&self.title(), "1", color));
        for d in &self.disagreements {
            out.push_str(&format!(
                "  {} {} [{}]\n",
                paint("!", "33", color),
                d.message,
                d.direction
            ));
        }
        if !self.state_changes.is_empty() {
            out.push_str("State changes:\n");
            for c in &self.state_changes {
                let mark = if c.kind == "status-moved-backwards" || c.kind.ends_with("removed") {
                    paint("-", "31", color)
                } else {
                    paint("+", "32", color)
                };
                out.push_str(&format!("  {mark} {} [{}]\n", c.message, c.kind));
            }
        }
        for f in &self.files {
            out.push_str(&format!("File {} ({}):\n", f.path, f.change));
            for line in f.unified.lines() {
                let painted = if line.starts_with("+++") || line.starts_with("---") {
                    paint(line, "1", color)
                } else if line.starts_with('+') {
                    paint(line, "32", color)
                } else if line.starts_with('-') {
                    paint(line, "31", color)
                } else if line.starts_with("@@") {
                    paint(line, "36", color)
                } else {
                    line.to_string()
                };
                out.push_str(&painted);
                out.push('\n');
            }
        }
        if self.differs() {
            let n = self.disagreements.len() + self.state_changes.len() + self.files.len();
            out.push_str(&format!("{n} difference(s).\n"));
        } else {
            out.push_str("No differences.\n");
        }
        out
    }

    /// The pull-request comment form: a table of disagreements, a list of state changes, and
    /// each file's diff folded in a `<details>` block.
    pub fn to_markdown(&self) -> String {
        let mut out = format!("### planseal diff: {}\n\n", self.title());
        if !self.differs() {
            out.push_str("No differences.\n");
            return out;
        }
        if !self.disagreements.is_empty() {
            out.push_str(
                "| task | field | state.json | markdown | direction |\n|---|---|---|---|---|\n",
            );
            for d in &self.disagreements {
                out.push_str(&format!(
                    "| {} | {} | {} | {} | {} |\n",
                    d.task
                        .map(|t| t.to_string())
                        .unwrap_or_else(|| "plan".into()),
                    d.field,
                    cell(d.state.as_deref()),
                    cell(d.markdown.as_deref()),
                    d.direction
                ));
            }
            out.push('\n');
        }
        if !self.state_changes.is_empty() {
            out.push_str("**State changes**\n\n");
            for c in &self.state_changes {
                out.push_str(&format!("- {} (`{}`)\n", c.message, c.kind));
            }
            out.push('\n');
        }
        for f in &self.files {
            // A diff that itself holds a fence needs a longer one around it.
            let fence = if f.unified.contains("```") {
                "````"
            } else {
                "```"
            };
            out.push_str(&format!(
                "<details><summary>{} ({})</summary>\n\n{fence}diff\n{}{fence}\n\n</details>\n\n",
                f.path, f.change, f.unified
            ));
        }
        out
    }
}

/// A table cell: pipes escaped, one line.
fn cell(s: Option<&str>) -> String {
    s.unwrap_or("—").replace('|', "\\|").replace('\n', " ")
}
