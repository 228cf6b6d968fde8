//! `planseal status [PATH]`: the resume view (`docs/status.md`) — for every plan (and GSD,
//! Reversa and checkpoint file) found, where the work stands and the next command to run. The
//! arguments and the printing; the command itself is `planseal::dwp::ops::status`.

use super::Context;
use crate::{print_json, print_out};
use planseal::dwp::ops::status::{StatusOptions, status};
use planseal::report::{ExitCode, HintedError};
use std::path::PathBuf;

#[derive(clap::Args, Debug)]
#[command(
    after_help = "Examples:\n  planseal status                          every plan (and GSD, Reversa, checkpoint file) here\n  planseal status .dwp/plans/PLAN_x        one plan: task, checkpoint, blocker, lock, receipt\n  planseal status --plan PLAN_x --json     the same as one JSON document\n  planseal status --exit-code              exit 1 when something needs action\n\nExit codes: 0 when it ran; with --exit-code, 1 when something needs action (a marker, a lock whose owner is not alive, a blocker, a receipt that no longer matches, a missing or unparseable state.json); 2 usage error, or a state.json that cannot be read."
)]
pub(super) struct Args {
    /// A plan folder, a .dwp folder or a repository root (default: search from the current directory)
    #[arg(value_name = "PATH")]
    pub path: Option<PathBuf>,
    /// Only the plan with this folder name (PLAN_ prefix optional)
    #[arg(long, value_name = "NAME")]
    pub plan: Option<String>,
    /// The .dwp folder to use instead of searching
    #[arg(long, value_name = "DIR", env = "DWP_DIR")]
    pub dwp_dir: Option<PathBuf>,
    /// Exit 1 when something needs action
    #[arg(long)]
    pub exit_code: bool,
}

pub(super) fn run(args: Args, ctx: &Context) -> anyhow::Result<ExitCode> {
    // A `.env` value quoted in a plan file (a note, a blocker) is never printed.
    crate::redact_output_for(
        &ctx.cwd
            .join(args.path.as_deref().unwrap_or(std::path::Path::new("."))),
    );
    let exit_code = args.exit_code;
    let view = view(args, ctx)?;
    if ctx.json {
        print_json(super::outcome::read_document(&view)?);
    } else {
        print_out(&view.to_text());
    }
    if view.incomplete() {
        return Ok(ExitCode::UsageOrUnverified);
    }
    Ok(ExitCode::failed_if(exit_code && view.needs_action()))
}

/// The resume view of every plan found, or the usage error that kept it from being made.
pub(super) fn view(
    args: Args,
    ctx: &Context,
) -> anyhow::Result<planseal::dwp::ops::status::StatusView> {
    let opts = StatusOptions {
        cwd: ctx.cwd.clone(),
        path: args.path,
        plan: args.plan,
        dwp_dir: args.dwp_dir.filter(|d| !d.as_os_str().is_empty()),
    };
    Ok(status(&opts).map_err(|e| HintedError::usage(e.to_string()).hint(e.hint()))?)
}
