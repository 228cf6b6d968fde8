//! `planseal publish-check PLAN_DIR`: what is still missing before a plan can be published
//! (docs/task.md). Read-only; the check itself is `planseal::dwp::ops::publish_check`.

use super::Context;
use super::dwp::error;
use crate::{print_json, print_out};
use planseal::clock::Clock;
use planseal::dwp::ops::publish_check;
use planseal::report::ExitCode;
use std::path::PathBuf;

#[derive(clap::Args, Debug)]
#[command(
    after_help = "Runs the finalization's validation on the state as it would read with \
every open task completed, and lists every failure it meets — all at once, each with its fix — \
instead of the first refusal. Nothing is written.\n\n\
Examples:\n  planseal publish-check .dwp/plans/PLAN_x\n  planseal publish-check .dwp/plans/PLAN_x --json\n\n\
Exit codes: 0 nothing missing, 1 something is missing, 2 usage error or the plan could not be read."
)]
pub(super) struct Args {
    /// The plan folder (.dwp/plans/PLAN_<name>)
    #[arg(value_name = "PLAN_DIR")]
    pub plan_dir: PathBuf,
}

pub(super) fn run(args: Args, ctx: &Context) -> anyhow::Result<ExitCode> {
    crate::redact_output_for(&ctx.cwd.join(&args.plan_dir));
    let check = publish_check::publish_check(&ctx.cwd.join(&args.plan_dir), Clock::from_env()?)
        .map_err(error)?;
    if ctx.json {
        print_json(serde_json::to_value(&check)?);
    } else {
        print_out(&check.to_text());
    }
    Ok(if check.ready {
        ExitCode::Ok
    } else {
        ExitCode::Failed
    })
}
