//! `planseal log PLAN_DIR`: the plan's timeline from git — which commit completed which task and
//! when, tasks completed in the markdown that no commit names, commits naming a task the state
//! does not call completed, commits naming a task number the plan does not have.

use super::Context;
use crate::{print_json, print_out};
use anyhow::Context as _;
use planseal::dwp::history::{PlanLog, plan_log};
use planseal::recovery::git::{HistoryOptions, Repo};
use planseal::report::ExitCode;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};

#[derive(clap::Args, Debug)]
#[command(
    after_help = "Examples:\n  planseal log .dwp/plans/PLAN_x                 which commit completed which task, and when\n  planseal --json log .dwp/plans/PLAN_x          the same timeline as data\n  planseal log .dwp/plans/PLAN_x --exit-code     exit 1 when git and the plan disagree\n  planseal log .dwp/plans/PLAN_x --file src/lib.rs --max-count 5\n\nExit codes: 0 when it ran; with --exit-code, 1 when it found a difference."
)]
pub struct Args {
    /// The plan folder (.dwp/plans/PLAN_<name>)
    pub plan_dir: PathBuf,
    /// Exit 1 when git and the plan disagree (like `git diff --exit-code`)
    #[arg(long)]
    pub exit_code: bool,
    /// Instead of the timeline, list the commits that changed FILE (relative to the current
    /// directory), newest first — e.g. a plan file when `.dwp/` is committed
    #[arg(long, value_name = "FILE")]
    pub file: Option<PathBuf>,
    /// With --file: stop after N versions
    #[arg(long, value_name = "N", requires = "file")]
    pub max_count: Option<usize>,
}

pub fn run(args: Args, ctx: &Context) -> anyhow::Result<ExitCode> {
    // A `.env` value quoted in a plan file, a log or a commit subject is never printed.
    crate::redact_output_for(&ctx.cwd.join(&args.plan_dir));
    let plan_dir = plan_folder(&ctx.cwd, &args.plan_dir)?;
    let repo = open_repo(&plan_dir)?;
    if let Some(file) = &args.file {
        return file_history(
            repo.as_ref(),
            &plan_dir,
            &ctx.cwd.join(file),
            args.max_count,
            ctx,
        );
    }
    let log = plan_log(&plan_dir, repo.as_ref())
        .with_context(|| format!("reading the git history of {}", plan_dir.display()))?;
    if ctx.json {
        print_json(serde_json::to_value(&log)?);
    } else {
        print_out(&render(&log, ctx.color));
    }
    Ok(ExitCode::failed_if(
        args.exit_code && !log.differences.is_empty(),
    ))
}

/// `--file`: one line per version, `<hash> <committer time> <subject>`.
fn file_history(
    repo: Option<&Repo>,
    plan_dir: &Path,
    file: &Path,
    limit: Option<usize>,
    ctx: &Context,
) -> anyhow::Result<ExitCode> {
    let Some(repo) = repo else {
        anyhow::bail!(
            "{} is not in a git repository; there is no file history to show",
            plan_dir.display()
        );
    };
    let rel = repo.relative_to_work_tree(file)?;
    let history = repo.file_versions(
        &rel,
        &HistoryOptions {
            limit,
            ..Default::default()
        },
    )?;
    if ctx.json {
        let versions: Vec<serde_json::Value> = history
            .versions
            .iter()
            .map(|v| {
                serde_json::json!({
                    "commit": v.commit.id,
                    "short": v.commit.short,
                    "committed_at": v.commit.committer_time.to_utc_iso(),
                    "subject": v.commit.subject.trim_end(),
                    "blob": v.blob_id,
                })
            })
            .collect();
        let doc = serde_json::json!({
            "path": rel,
            "versions": versions,
            "walked": history.walked,
            "truncated": history.truncated,
        });
        print_json(doc);
    } else {
        let mut out = String::new();
        for v in &history.versions {
            out.push_str(&format!(
                "{} {} {}\n",
                v.commit.id,
                v.commit.committer_time.to_utc_iso(),
                v.commit.subject.trim_end()
            ));
        }
        print_out(&out);
    }
    Ok(ExitCode::Ok)
}

/// The plan folder named on the command line, resolved against `-C`; it must exist and hold a
/// README.md or a state.json.
pub(super) fn plan_folder(cwd: &Path, arg: &Path) -> anyhow::Result<PathBuf> {
    let dir = cwd.join(arg);
    if !dir.is_dir() {
        anyhow::bail!(
            "{}: not a folder; pass a plan folder such as .dwp/plans/PLAN_<name>",
            dir.display()
        );
    }
    if !dir.join("README.md").exists() && !dir.join("state.json").exists() {
        anyhow::bail!(
            "{}: neither README.md nor state.json is there; pass a plan folder such as .dwp/plans/PLAN_<name>",
            dir.display()
        );
    }
    Ok(dir)
}

/// The repository around `dir`, with a progress line on stderr for long walks.
pub(super) fn open_repo(dir: &Path) -> anyhow::Result<Option<Repo>> {
    let mut repo = Repo::discover(dir)?;
    if let Some(repo) = repo.as_mut() {
        attach_progress(repo);
    }
    Ok(repo)
}

/// Draws `walking commits… N` on stderr, only on a terminal and only once a walk has taken
/// more than half a second; the line is cleared when the walk ends.
pub(super) fn attach_progress(repo: &mut Repo) {
    if !std::io::stderr().is_terminal() {
        return;
    }
    let started = std::time::Instant::now();
    let drawn = std::cell::Cell::new(false);
    repo.set_progress(move |p| {
        if p.done {
            if drawn.get() {
                crate::print_err("\r\x1b[K");
                drawn.set(false);
            }
            return;
        }
        if started.elapsed() >= std::time::Duration::from_millis(500) {
            crate::print_err(&format!("\rwalking {}… {} commits", p.task, p.commits));
            drawn.set(true);
        }
    });
}

fn paint(text: &str, code: &str, color: bool) -> String {
    if color {
        format!("\x1b[{code}m{text}\x1b[0m")
    } else {
        text.to_string()
    }
}

/// The text form: a header, one line per task, then the differences.
pub fn render(log: &PlanLog, color: bool) -> String {
    let mut out = String::new();
    match &log.repository {
        None => {
            out.push_str(&format!(
                "Plan: {} (not in a git repository)\n",
                paint(&log.plan, "1", color)
            ));
        }
        Some(repo) => {
            let at = repo
                .head
                .as_deref()
                .map(|h| h[..h.len().min(7)].to_string())
                .unwrap_or_else(|| "no commits yet".into());
            let branch = repo
                .branch
                .as_deref()
                .map(|b| format!("branch {b}"))
                .unwrap_or_else(|| "detached HEAD".into());
            let shallow = if repo.shallow { ", shallow clone" } else { "" };
            out.push_str(&format!(
                "Plan: {} ({branch} at {at}{shallow})\n",
                paint(&log.plan, "1", color)
            ));
        }
    }
    for note in &log.notes {
        out.push_str(&format!("  note: {note}\n"));
    }
    let width = log
        .tasks
        .iter()
        .map(|t| t.task.to_string().len())
        .max()
        .unwrap_or(1);
    let status_width = log
        .tasks
        .iter()
        .map(|t| t.state_status.as_deref().unwrap_or("-").len())
        .max()
        .unwrap_or(1);
    for t in &log.tasks {
        let box_ = match t.readme_checked {
            Some(true) => "[x]",
            Some(false) => "[ ]",
            None => "[?]",
        };
        let status = t.state_status.as_deref().unwrap_or("-");
        let line = match &t.commit {
            Some(c) => format!(
                "{}  {}  {}",
                paint(&c.short, "33", color),
                c.committed_at,
                c.subject
            ),
            None if log.truncated => "no commit names it before the shallow boundary".to_string(),
            None if log.repository.is_some() => "no commit names this task".to_string(),
            None => String::new(),
        };
        out.push_str(
            format!(
                "  {box_} task {:<width$}  {status:<status_width$}  {line}",
                t.task
            )
            .trim_end(),
        );
        out.push('\n');
        for c in &t.earlier_commits {
            out.push_str(&format!(
                "        earlier: {}  {}  {}\n",
                c.short, c.committed_at, c.subject
            ));
        }
    }
    if log.truncated {
        out.push_str("  note: history truncated at the shallow-clone boundary; older commits were not read\n");
    }
    if log.repository.is_some() {
        if log.differences.is_empty() {
            out.push_str("No differences between git and the plan.\n");
        } else {
            out.push_str(&format!("Differences ({}):\n", log.differences.len()));
            for d in &log.differences {
                out.push_str(&format!(
                    "  {} {}: {}\n",
                    paint("!", "31", color),
                    d.kind,
                    d.message
                ));
            }
        }
    }
    out
}
