//! `planseal recover PLAN_DIR [--candidate FILE] [--rollback]`: finish or roll back an
//! interrupted publication (a leftover `.finalizing.json`), bound to the marker's candidate.
//! The arguments and the printing; the command itself is `planseal::dwp::ops::recover`.

use super::Context;
use super::dwp::error;
use crate::{print_json, print_out};
use planseal::clock::Clock;
use planseal::dwp::ops::recover::{self, RecoverOptions};
use planseal::report::ExitCode;
use std::path::PathBuf;

#[derive(clap::Args, Debug)]
#[command(
    after_help = "Examples:\n  planseal recover .dwp/plans/PLAN_x                    finish the interrupted publication\n  \
planseal recover .dwp/plans/PLAN_x --candidate c.json  a marker left by the DWP helper\n  \
planseal recover .dwp/plans/PLAN_x --rollback          keep the state before instead\n  \
planseal recover .dwp/plans/PLAN_x --dry-run           show what happened and what would be done\n  \
planseal recover .dwp/plans/PLAN_x --wait=10s          wait for a live writer's lock first\n\n\
Recovery is bound to the candidate named by the marker: a --candidate \
whose SHA-256 differs is refused. A lock left by a killed writer is removed only when its owner \
is provably dead; an unknown owner (an empty lock directory) needs `planseal unlock --force \
--reason TEXT` first."
)]
pub(super) struct Args {
    /// The plan folder (or its state.json)
    #[arg(value_name = "PLAN_DIR")]
    pub plan_dir: PathBuf,
    /// The candidate that was being published (needed for markers written by the DWP helper)
    #[arg(long, value_name = "FILE")]
    pub candidate: Option<PathBuf>,
    /// Remove the marker and keep the state as it was before the publication
    #[arg(long)]
    pub rollback: bool,
    /// SHA-256 of state.json as you last read it; refused (stale-snapshot) if it changed since
    #[arg(long = "expected-sha256", value_name = "HEX")]
    pub expected_sha256: Option<String>,
    /// Show what the interruption left and what recover would do; change nothing
    #[arg(long)]
    pub dry_run: bool,
    #[command(flatten)]
    pub wait: super::wait::WaitArg,
}

pub(super) fn run(args: Args, ctx: &Context) -> anyhow::Result<ExitCode> {
    // A `.env` value quoted in a plan file, a log or a commit subject is never printed.
    crate::redact_output_for(&ctx.cwd.join(&args.plan_dir));
    match outcome(args, ctx)? {
        Outcome::DryRun(outcome) => {
            if ctx.json {
                print_json(super::outcome::read_document(&outcome)?);
            } else {
                print_out(&outcome.to_text());
            }
            Ok(ExitCode::Ok)
        }
        Outcome::Recovered(outcome) => {
            super::outcome::deliver(ctx, &outcome, &outcome.to_text(), outcome.confirmation())
        }
    }
}

/// What recover would do (`--dry-run`), or what it did.
pub(super) enum Outcome {
    DryRun(recover::DryRunOutcome),
    Recovered(recover::RecoveredOutcome),
}

impl Outcome {
    /// The `--json` document (what `recover --json` prints and the MCP tool returns).
    pub(super) fn document(&self) -> anyhow::Result<serde_json::Value> {
        match self {
            Outcome::DryRun(o) => super::outcome::read_document(o),
            Outcome::Recovered(o) => super::outcome::writer_document(o, o.confirmation()),
        }
    }
}

/// Recovers (or with `--dry-run` says what it would do); the text form shows what the
/// interruption left before acting.
pub(super) fn outcome(args: Args, ctx: &Context) -> anyhow::Result<Outcome> {
    let opts = RecoverOptions {
        cwd: ctx.cwd.clone(),
        plan_dir: args.plan_dir,
        candidate: args.candidate,
        rollback: args.rollback,
        clock: Clock::from_env()?,
        expected_sha256: args.expected_sha256,
    };
    if args.dry_run {
        let prepared = recover::prepare(opts).map_err(error)?;
        return Ok(Outcome::DryRun(recover::dry_run(&prepared).map_err(error)?));
    }
    // With --wait, an attempt that meets a live writer's lock runs again from a fresh look at
    // the plan, after a pause.
    let mut diagnosed = false;
    let outcome = args.wait.run(|| {
        let prepared = recover::prepare(opts.clone()).map_err(error)?;
        if !ctx.json && !diagnosed {
            // Show what happened before acting; a refusal below then has its context.
            print_out(&recover::diagnose(&prepared).map_err(error)?.to_text());
            diagnosed = true;
        }
        recover::recover(prepared).map_err(error)
    })?;
    Ok(Outcome::Recovered(outcome))
}
