//! `planseal rebuild PLAN_DIR [--write] [--from REV] [--manifest]`: regenerate state.json from
//! the markdown, the committed copies, the journal and the git log
//! (docs/history.md). Without `--write` it prints the change it would make, one line per field.
//! The arguments and the printing; the command itself is `planseal::dwp::ops::rebuild`.

use super::Context;
use super::dwp::{error, git_progress};
use planseal::clock::Clock;
use planseal::dwp::ops::rebuild::{self, RebuildOptions};
use planseal::report::ExitCode;

#[derive(clap::Args, Debug)]
#[command(
    after_help = "Examples:\n  planseal rebuild .dwp/plans/PLAN_x             each field that would change, and why\n  planseal rebuild .dwp/plans/PLAN_x --write     write it and note it in PROGRESS.md\n  planseal rebuild .dwp/plans/PLAN_x --write --wait   wait for another writer's lock first\n  planseal rebuild .dwp/plans/PLAN_x --from HEAD~2   start from the state.json of that commit\n  planseal rebuild .dwp/plans/PLAN_x --manifest --write   restore a lost manifest.json from git\n  planseal finalize .dwp/plans/PLAN_x            then re-seal a published plan's receipt\n\nExit codes: 0 when it ran (and, with --write, wrote); 1 refused; \
with --exit-code and without --write, 1 when state.json would change."
)]
pub(super) struct Args {
    /// The plan folder (.dwp/plans/PLAN_<name>)
    pub plan_dir: std::path::PathBuf,
    /// Write the rebuilt state.json (lock, compare-and-swap, atomic write) and append a dated
    /// reconciliation entry to PROGRESS.md
    #[arg(long)]
    pub write: bool,
    /// Without --write: exit 1 when state.json would change (like `git diff --exit-code`)
    #[arg(long, conflicts_with = "write")]
    pub exit_code: bool,
    /// Start from the state.json this revision holds (with --manifest: restore its
    /// manifest.json) instead of the newest commit that holds one
    #[arg(long, value_name = "REV")]
    pub from: Option<String>,
    /// Restore a lost manifest.json byte for byte from git (never derived from the README or
    /// the state)
    #[arg(long)]
    pub manifest: bool,
    /// SHA-256 of state.json as you last read it; refused (stale-snapshot) if it changed since
    #[arg(long = "expected-sha256", value_name = "HEX")]
    pub expected_sha256: Option<String>,
    #[command(flatten)]
    pub wait: super::wait::WaitArg,
}

pub(super) fn run(args: Args, ctx: &Context) -> anyhow::Result<ExitCode> {
    // A `.env` value quoted in a plan file, a log or a commit subject is never printed.
    crate::redact_output_for(&ctx.cwd.join(&args.plan_dir));
    let exit_code = args.exit_code;
    let outcome = outcome(args, ctx)?;
    let applied = outcome.written.then_some(&outcome.confirmation);
    let code = super::outcome::deliver(ctx, &outcome, &outcome.to_text(), applied)?;
    if code != ExitCode::Ok {
        return Ok(code);
    }
    Ok(ExitCode::failed_if(exit_code && outcome.changed))
}

/// The rebuilt state (written with `--write`), or the refusal or error that stopped it.
pub(super) fn outcome(args: Args, ctx: &Context) -> anyhow::Result<rebuild::RebuildOutcome> {
    let mut clock = Clock::from_env()?;
    let opts = RebuildOptions {
        cwd: ctx.cwd.clone(),
        plan_dir: args.plan_dir,
        write: args.write,
        from: args.from,
        manifest: args.manifest,
        expected_sha256: args.expected_sha256,
    };
    let write = opts.write;
    args.wait
        .run(|| rebuild::rebuild(&opts, &mut clock, git_progress()).map_err(error))
        .map_err(|e| {
            if write {
                super::outcome::unreadable_input_is_io(e)
            } else {
                e
            }
        })
}

/// The `--json` document (what `rebuild --json` prints and the MCP tool returns): `applied`
/// when it wrote, `ok` otherwise.
pub(super) fn document(outcome: &rebuild::RebuildOutcome) -> anyhow::Result<serde_json::Value> {
    super::outcome::writer_document(outcome, outcome.written.then_some(&outcome.confirmation))
}
