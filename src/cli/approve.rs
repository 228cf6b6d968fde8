//! `planseal approve PLAN_DIR --by NAME [--pre REASON]`: the user's approval of a plan's
//! proposal (docs/approve.md). The arguments and the printing; the command itself is
//! `planseal::dwp::ops::approve`.

use super::Context;
use super::dwp::error;
use planseal::clock::Clock;
use planseal::dwp::ops::approve::{self, ApproveRequest};
use planseal::report::ExitCode;
use std::path::PathBuf;

#[derive(clap::Args, Debug)]
#[command(
    after_help = "Approval is the user's act. An agent must not approve its own plan: it asks \
the user, and the user runs this command (or tells the agent, in their own words, to record \
their approval).\n\n\
Sets state.json `approval` and the README `Approval:` line (markdown first, state.json last, \
under state.json's lock); the approver's name goes into a dated PROGRESS.md entry and the \
journal line, never into state.json.\n\n\
Examples:\n  planseal approve .dwp/plans/PLAN_x --by \"Ana Lima\"\n  \
planseal approve .dwp/plans/PLAN_x --by \"Ana Lima\" --pre \"trusted repo, routine change\"\n  \
planseal approve .dwp/plans/PLAN_x --by \"Ana Lima\" --dry-run      show the diff, write nothing\n\n\
Exit codes: 0 applied (or already so), 1 refused (nothing written), 2 usage error, 3 I/O error \
before the commit point, 4 applied but not confirmed.\nTest clock: \
PLANSEAL_FAKE_NOW=2026-10-05T09:00:00+00:00."
)]
pub(super) struct Args {
    /// The plan folder (.dwp/plans/PLAN_<name>)
    #[arg(value_name = "PLAN_DIR")]
    pub plan_dir: PathBuf,
    /// Who approves (recorded in PROGRESS.md and the journal, never in state.json)
    #[arg(long, value_name = "NAME")]
    pub by: String,
    /// Pre-approve, before a full review, for this reason (`pre_approved`)
    #[arg(long, value_name = "REASON")]
    pub pre: Option<String>,
    #[command(flatten)]
    pub guard: super::wait::GuardArgs,
}

pub(super) fn run(args: Args, ctx: &Context) -> anyhow::Result<ExitCode> {
    crate::redact_output_for(&ctx.cwd.join(&args.plan_dir));
    let req = ApproveRequest {
        plan_dir: ctx.cwd.join(&args.plan_dir),
        by: args.by.clone(),
        pre: args.pre.clone(),
        expected_sha256: args.guard.expected_sha256.clone(),
        dry_run: args.guard.dry_run,
        clock: Clock::from_env()?,
    };
    let outcome = args
        .guard
        .wait
        .run(|| approve::approve(req.clone()).map_err(error))?;
    let applied = outcome.written.then_some(&outcome.confirmation);
    super::outcome::deliver(ctx, &outcome, &outcome.to_text(), applied)
}
