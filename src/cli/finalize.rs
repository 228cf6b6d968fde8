//! `planseal finalize PLAN_DIR [--candidate FILE] [--expected-sha256 HEX] [--dry-run]
//! [--allow-dirty] [--allow-unverified-git] [--reason TEXT]`: the verified publication of a completed plan
//! (docs/finalize.md). The arguments and the printing; the command itself is
//! `planseal::dwp::ops::finalize`.

use super::Context;
use super::dwp::error;
use crate::print_err;
use planseal::clock::Clock;
use planseal::dwp::ops::finalize::{self, FinalizeOptions};
use planseal::report::{ExitCode, text};
use std::path::PathBuf;

#[derive(clap::Args, Debug)]
#[command(
    after_help = "Without --candidate the current state.json is re-sealed: it must already \
be completed; every check runs again and the receipt is rewritten for the current files.\n\n\
Examples:\n  planseal finalize .dwp/plans/PLAN_x --candidate candidate.json\n  planseal finalize \
.dwp/plans/PLAN_x                 re-seal a completed plan\n  planseal finalize .dwp/plans/PLAN_x \
--dry-run       every check, nothing written"
)]
#[command(group(
    clap::ArgGroup::new("exception")
        .args(["allow_dirty", "allow_unverified_git"])
        .multiple(true)
))]
pub(super) struct Args {
    /// The plan folder (or its state.json)
    #[arg(value_name = "PLAN_DIR")]
    pub plan_dir: PathBuf,
    /// The completed state to publish (default: the current state.json — a re-seal)
    #[arg(long, value_name = "FILE")]
    pub candidate: Option<PathBuf>,
    /// SHA-256 of state.json as you last read it; refused if it changed since
    #[arg(long, value_name = "HEX")]
    pub expected_sha256: Option<String>,
    /// Run every check and print what would be written; write nothing
    #[arg(long)]
    pub dry_run: bool,
    /// Accept a work tree with uncommitted changes (needs --reason; recorded in the receipt)
    #[arg(long, requires = "reason")]
    pub allow_dirty: bool,
    /// Seal although git cannot be read (a damaged object, an unsupported object format;
    /// needs --reason; recorded in the receipt)
    #[arg(long, requires = "reason")]
    pub allow_unverified_git: bool,
    /// Why the exception is acceptable
    #[arg(long, value_name = "TEXT", requires = "exception")]
    pub reason: Option<String>,
    #[command(flatten)]
    pub wait: super::wait::WaitArg,
}

pub(super) fn run(args: Args, ctx: &Context) -> anyhow::Result<ExitCode> {
    // A `.env` value quoted in a plan file, a log or a commit subject is never printed.
    crate::redact_output_for(&ctx.cwd.join(&args.plan_dir));
    let outcome = outcome(args, ctx)?;
    let p = &outcome.published;
    let applied = (!p.dry_run).then_some(&p.confirmation);
    let code = super::outcome::deliver(ctx, &outcome, &outcome.to_text(), applied)?;
    if !ctx.json {
        // Advisories are diagnostics: stderr, so stdout stays the one result line. Per-task
        // advisories of one id are summed up as verify's report does.
        print_err(&text::advisory_lines(&p.advisories));
    }
    Ok(code)
}

/// The publication (or its dry run), or the refusal or error that stopped it.
pub(super) fn outcome(args: Args, ctx: &Context) -> anyhow::Result<finalize::FinalizeOutcome> {
    let opts = FinalizeOptions {
        cwd: ctx.cwd.clone(),
        plan_dir: args.plan_dir,
        candidate: args.candidate,
        expected_sha256: args.expected_sha256,
        dry_run: args.dry_run,
        // clap makes --reason come with --allow-dirty or --allow-unverified-git (or both).
        allow_dirty_reason: args.reason.clone().filter(|_| args.allow_dirty),
        allow_unverified_git_reason: args.reason.filter(|_| args.allow_unverified_git),
        clock: Clock::from_env()?,
    };
    args.wait
        .run(|| finalize::finalize(opts.clone()).map_err(error))
        .map_err(super::outcome::unreadable_input_is_io)
}

/// The `--json` document of a publication (what `finalize --json` prints and the MCP tool
/// returns): `applied`, or `ok` for a dry run.
pub(super) fn document(outcome: &finalize::FinalizeOutcome) -> anyhow::Result<serde_json::Value> {
    let p = &outcome.published;
    super::outcome::writer_document(outcome, (!p.dry_run).then_some(&p.confirmation))
}
