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
        if ctx.json {
            print_json(serde_json::to_value(&history)?);
        } else {
            print_out(&history.to_text());
        }
        return Ok(ExitCode::Ok);
    }
    let outcome = log::timeline(&plan, git_progress()).map_err(error)?;
    if ctx.json {
        print_json(serde_json::to_value(&outcome)?);
    } else {
        print_out(&outcome.to_text(ctx.color));
    }
    Ok(ExitCode::failed_if(args.exit_code && outcome.differs()))
}
