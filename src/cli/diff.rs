//! `planseal diff PLAN_DIR`: state.json vs the markdown (default), the plan at a revision vs now
//! (`--against REV`), or a candidate state vs the current one (`--candidate FILE`). Text (coloured
//! on a terminal), `--json`, or `--format markdown` for a pull-request comment.

use super::Context;
use super::log::{open_repo, plan_folder};
use crate::{print_json, print_out};
use anyhow::Context as _;
use clap::ValueEnum;
use planseal::dwp::decide::rebuild::gather;
use planseal::dwp::history::diff::{
    Disagreement, FileDiff, StateChange, file_diff, state_changes, state_vs_markdown,
};
use planseal::report::ExitCode;
use std::path::{Path, PathBuf};

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Text,
    Markdown,
}

#[derive(clap::Args, Debug)]
#[command(
    after_help = "Examples:\n  planseal diff .dwp/plans/PLAN_x                        state.json against the markdown\n  planseal diff .dwp/plans/PLAN_x --against HEAD~3       the plan's files at a revision against now\n  planseal diff .dwp/plans/PLAN_x --candidate cand.json  what finalize would publish\n  planseal diff .dwp/plans/PLAN_x --format markdown      for a pull-request comment\n\nExit codes: 0 when it ran; with --exit-code, 1 when it found a difference."
)]
pub struct Args {
    /// The plan folder (.dwp/plans/PLAN_<name>)
    pub plan_dir: PathBuf,
    /// Compare the plan's files at this revision with now (the plan must be tracked by git)
    #[arg(long, value_name = "REV", conflicts_with = "candidate")]
    pub against: Option<String>,
    /// Compare a candidate state.json with the current one (what finalize would publish)
    #[arg(long, value_name = "FILE")]
    pub candidate: Option<PathBuf>,
    /// Output format of the text report (`--json` overrides it)
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Exit 1 when a difference was found (like `git diff --exit-code`)
    #[arg(long)]
    pub exit_code: bool,
}

/// What one diff run found.
#[derive(Debug, Default, serde::Serialize)]
struct DiffReport {
    plan: String,
    /// `state-vs-markdown`, `against`, `candidate`.
    mode: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    against: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    candidate: Option<String>,
    disagreements: Vec<Disagreement>,
    state_changes: Vec<StateChange>,
    files: Vec<FileDiff>,
}

impl DiffReport {
    fn differs(&self) -> bool {
        !self.disagreements.is_empty() || !self.state_changes.is_empty() || !self.files.is_empty()
    }
}

pub fn run(args: Args, ctx: &Context) -> anyhow::Result<ExitCode> {
    // A `.env` value quoted in a plan file, a log or a commit subject is never printed.
    crate::redact_output_for(&ctx.cwd.join(&args.plan_dir));
    let plan_dir = plan_folder(&ctx.cwd, &args.plan_dir)?;
    let report = if let Some(rev) = &args.against {
        against(&plan_dir, rev)?
    } else if let Some(candidate) = &args.candidate {
        with_candidate(&plan_dir, &ctx.cwd.join(candidate), candidate)?
    } else {
        state_vs_md(&plan_dir)?
    };
    if ctx.json {
        print_json(serde_json::to_value(&report)?);
    } else if args.format == Format::Markdown {
        print_out(&render_markdown(&report));
    } else {
        print_out(&render_text(&report, ctx.color));
    }
    Ok(ExitCode::failed_if(args.exit_code && report.differs()))
}

fn state_vs_md(plan_dir: &Path) -> anyhow::Result<DiffReport> {
    let inputs = gather(plan_dir, None)?;
    let mut report = DiffReport {
        plan: inputs.plan.clone(),
        mode: "state-vs-markdown",
        ..Default::default()
    };
    match &inputs.old_state {
        Some(state) => {
            report.disagreements = state_vs_markdown(state, &inputs.tasks, inputs.plan_status);
        }
        None => report.disagreements.push(Disagreement {
            task: None,
            field: "state.json",
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
    Ok(report)
}

/// The plan files compared with a revision: the fixed set and every task file now present.
fn plan_files(plan_dir: &Path) -> Vec<String> {
    let mut files: Vec<String> = [
        "README.md",
        "PROGRESS.md",
        "PROMPTS.md",
        "manifest.json",
        "state.json",
        "analysis_results/SECURITY_REVIEW.md",
        "analysis_results/SKILLS_CANDIDATES.md",
        "analysis_results/FINALIZATION.json",
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

fn against(plan_dir: &Path, rev: &str) -> anyhow::Result<DiffReport> {
    let Some(repo) = open_repo(plan_dir)? else {
        anyhow::bail!(
            "{} is not in a git repository; --against needs one",
            plan_dir.display()
        );
    };
    let commit = repo
        .resolve(rev)?
        .ok_or_else(|| anyhow::anyhow!("`{rev}` is not a revision of this repository"))?;
    let rel = repo.relative_to_work_tree(plan_dir)?;
    let mut report = DiffReport {
        plan: planseal::dwp::history::plan_name_of(plan_dir),
        mode: "against",
        against: Some(rev.to_string()),
        ..Default::default()
    };
    let mut tracked_then = false;
    let mut state_then = None;
    let mut state_now = None;
    for name in plan_files(plan_dir) {
        let then = repo.file_at(&commit, &format!("{rel}/{name}"))?;
        let now = match std::fs::read(plan_dir.join(&name)) {
            Ok(b) => Some(b),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(e) => {
                return Err(e)
                    .with_context(|| format!("reading {}", plan_dir.join(&name).display()));
            }
        };
        tracked_then |= then.is_some();
        if name == "state.json" {
            state_then = then.as_deref().and_then(|b| serde_json::from_slice(b).ok());
            state_now = now.as_deref().and_then(|b| serde_json::from_slice(b).ok());
        }
        if let Some(d) = file_diff(&name, then.as_deref(), now.as_deref()) {
            report.files.push(d);
        }
    }
    if !tracked_then {
        anyhow::bail!(
            "{rel} holds no plan file at {rev}: the plan is not tracked by git there (.dwp/ is usually git-ignored); hint: compare a candidate with --candidate instead"
        );
    }
    let empty = serde_json::json!({});
    if state_then.is_some() || state_now.is_some() {
        report.state_changes = state_changes(
            state_then.as_ref().unwrap_or(&empty),
            state_now.as_ref().unwrap_or(&empty),
        );
    }
    Ok(report)
}

fn with_candidate(
    plan_dir: &Path,
    candidate: &Path,
    as_given: &Path,
) -> anyhow::Result<DiffReport> {
    let cand_bytes = std::fs::read(candidate)
        .with_context(|| format!("reading the candidate {}", candidate.display()))?;
    let cand: serde_json::Value = planseal::dwp::model::parse_json(&cand_bytes).map_err(|e| {
        anyhow::anyhow!(
            "{}: the candidate is not valid JSON ({e}); fix the file",
            candidate.display()
        )
    })?;
    let current_bytes = std::fs::read(plan_dir.join("state.json")).ok();
    let current: serde_json::Value = current_bytes
        .as_deref()
        .and_then(|b| planseal::dwp::model::parse_json(b).ok())
        .unwrap_or_else(|| serde_json::json!({}));
    Ok(DiffReport {
        plan: planseal::dwp::history::plan_name_of(plan_dir),
        mode: "candidate",
        candidate: Some(as_given.display().to_string()),
        state_changes: state_changes(&current, &cand),
        files: file_diff("state.json", current_bytes.as_deref(), Some(&cand_bytes))
            .into_iter()
            .collect(),
        ..Default::default()
    })
}

fn paint(text: &str, code: &str, color: bool) -> String {
    if color {
        format!("\x1b[{code}m{text}\x1b[0m")
    } else {
        text.to_string()
    }
}

fn title(r: &DiffReport) -> String {
    match r.mode {
        "against" => format!(
            "{} — changes since {}",
            r.plan,
            r.against.as_deref().unwrap_or("?")
        ),
        "candidate" => format!(
            "{} — candidate {} vs state.json",
            r.plan,
            r.candidate.as_deref().unwrap_or("?")
        ),
        _ => format!("{} — state.json vs the markdown", r.plan),
    }
}

fn render_text(r: &DiffReport, color: bool) -> String {
    let mut out = format!("Plan: {}\n", paint(&title(r), "1", color));
    for d in &r.disagreements {
        out.push_str(&format!(
            "  {} {} [{}]\n",
            paint("!", "33", color),
            d.message,
            d.direction
        ));
    }
    if !r.state_changes.is_empty() {
        out.push_str("State changes:\n");
        for c in &r.state_changes {
            let mark = if c.kind == "status-moved-backwards" || c.kind.ends_with("removed") {
                paint("-", "31", color)
            } else {
                paint("+", "32", color)
            };
            out.push_str(&format!("  {mark} {} [{}]\n", c.message, c.kind));
        }
    }
    for f in &r.files {
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
    if r.differs() {
        let n = r.disagreements.len() + r.state_changes.len() + r.files.len();
        out.push_str(&format!("{n} difference(s).\n"));
    } else {
        out.push_str("No differences.\n");
    }
    out
}

fn render_markdown(r: &DiffReport) -> String {
    let mut out = format!("### planseal diff: {}\n\n", title(r));
    if !r.differs() {
        out.push_str("No differences.\n");
        return out;
    }
    if !r.disagreements.is_empty() {
        out.push_str(
            "| task | field | state.json | markdown | direction |\n|---|---|---|---|---|\n",
        );
        for d in &r.disagreements {
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
    if !r.state_changes.is_empty() {
        out.push_str("**State changes**\n\n");
        for c in &r.state_changes {
            out.push_str(&format!("- {} (`{}`)\n", c.message, c.kind));
        }
        out.push('\n');
    }
    for f in &r.files {
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

fn cell(s: Option<&str>) -> String {
    s.unwrap_or("—").replace('|', "\\|").replace('\n', " ")
}
