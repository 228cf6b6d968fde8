//! `planseal log PLAN_DIR`: the plan's timeline from git — which commit completed which task and
//! when, tasks completed in the markdown that no commit names, commits naming a task the state
//! does not call completed, commits naming a task number the plan does not have. The arguments
//! and the printing; the command itself is `planseal::dwp::ops::log`.

use super::Context;
use super::dwp::{error, git_progress};
use crate::{print_json, print_out};
use planseal::dwp::ops::log::{self, FileHistoryOptions, LogOptions};
use planseal::report::ExitCode;
use std::path::PathBuf;

#[derive(clap::Args, Debug)]
#[command(
    after_help = "Examples:\n  planseal log .dwp/plans/PLAN_x                 which commit completed which task, and when\n  planseal --json log .dwp/plans/PLAN_x          the same timeline as data\n  planseal log .dwp/plans/PLAN_x --exit-code     exit 1 when git and the plan disagree\n  planseal log .dwp/plans/PLAN_x --file src/lib.rs --max-count 5\n\nExit codes: 0 when it ran; with --exit-code, 1 when it found a difference."
)]
pub(super) struct Args {
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

pub(super) fn run(args: Args, ctx: &Context) -> anyhow::Result<ExitCode> {
    // A `.env` value quoted in a plan file, a log or a commit subject is never printed.
    crate::redact_output_for(&ctx.cwd.join(&args.plan_dir));
    let exit_code = args.exit_code;
    let outcome = outcome(args, ctx)?;
    if ctx.json {
        print_json(outcome.document()?);
    }
    match outcome {
        Outcome::FileHistory(history) => {
            if !ctx.json {
                print_out(&history.to_text());
            }
            Ok(ExitCode::Ok)
        }
        Outcome::Timeline(outcome) => {
            if !ctx.json {
                print_out(&outcome.to_text(ctx.color));
            }
            Ok(ExitCode::failed_if(exit_code && outcome.differs()))
        }
    }
}

/// The plan's timeline, or with `--file` the versions of that file.
pub(super) enum Outcome {
    Timeline(log::LogOutcome),
    FileHistory(log::FileHistoryOutcome),
}

impl Outcome {
    /// The `--json` document (what `log --json` prints and the MCP tool returns).
    pub(super) fn document(&self) -> anyhow::Result<serde_json::Value> {
        match self {
            Outcome::Timeline(o) => super::outcome::read_document(o),
            Outcome::FileHistory(h) => super::outcome::read_document(h),
        }
    }
}

/// What the walk of git found, or the error that kept it from running.
pub(super) fn outcome(args: Args, ctx: &Context) -> anyhow::Result<Outcome> {
    let plan = LogOptions {
        cwd: ctx.cwd.clone(),
        plan_dir: args.plan_dir,
    };
    if let Some(file) = args.file {
        let opts = FileHistoryOptions {
            plan,
            file,
            max_count: args.max_count,
        };
        let history = log::file_history(&opts, git_progress()).map_err(error)?;
        return Ok(Outcome::FileHistory(history));
    }
    Ok(Outcome::Timeline(
        log::timeline(&plan, git_progress()).map_err(error)?,
    ))
}
