//! `planseal rebuild PLAN_DIR [--write] [--from REV] [--manifest]`: regenerate state.json from
//! the markdown, the committed copies, the journal and the git log
//! (docs/history.md). Without `--write` it prints the change it would make, one line per field.
//! The arguments and the printing; the command itself is `planseal::dwp::ops::rebuild`.

use super::Context;
use super::dwp::{error, git_progress};
use planseal::clock::Clock;
use planseal::dwp::ops::rebuild::{self, RebuildOptions};
use planseal::report::{ExitCode, HintedError};

#[derive(clap::Args, Debug)]
#[command(
    after_help = "Examples:\n  planseal rebuild .dwp/plans/PLAN_x             each field that would change, and why\n  planseal rebuild .dwp/plans/PLAN_x --write     write it and note it in PROGRESS.md\n  planseal rebuild .dwp/plans/PLAN_x --from HEAD~2   start from the state.json of that commit\n  planseal rebuild .dwp/plans/PLAN_x --manifest --write   restore a lost manifest.json from git\n  planseal finalize .dwp/plans/PLAN_x            then re-seal a published plan's receipt\n\nExit codes: 0 when it ran (and, with --write, wrote); 1 refused; \
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
}

pub(super) fn run(args: Args, ctx: &Context) -> anyhow::Result<ExitCode> {
    // A `.env` value quoted in a plan file, a log or a commit subject is never printed.
    crate::redact_output_for(&ctx.cwd.join(&args.plan_dir));
    let mut clock = Clock::from_env()?;
    let opts = RebuildOptions {
        cwd: ctx.cwd.clone(),
        plan_dir: args.plan_dir,
        write: args.write,
        from: args.from,
        manifest: args.manifest,
    };
    let write = opts.write;
    let outcome = rebuild::rebuild(&opts, &mut clock, git_progress())
        .map_err(error)
        .map_err(|e| if write { unreadable_input_is_io(e) } else { e })?;
    let applied = outcome.written.then_some(&outcome.confirmation);
    let code = super::outcome::deliver(ctx, &outcome, &outcome.to_text(), applied)?;
    if code != ExitCode::Ok {
        return Ok(code);
    }
    Ok(ExitCode::failed_if(args.exit_code && outcome.changed))
}

/// A writer that cannot read an input (EIO on a task file, state.json, .git/HEAD) stops before
/// its commit point: exit 3, "nothing was applied" — not 2, which is for usage errors and
/// UNVERIFIED. Refusals and usage errors keep their codes.
fn unreadable_input_is_io(err: anyhow::Error) -> anyhow::Error {
    let (_, code) = super::outcome::error_code(&err);
    // An OS error somewhere in the chain (a missing file is bad input, not an I/O error), or a
    // repository git could not read (its HEAD, an object): either way nothing was applied.
    let os_error = err.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|e| e.kind() != std::io::ErrorKind::NotFound)
            || cause
                .downcast_ref::<planseal::recovery::git::GitError>()
                .is_some()
    });
    if code != ExitCode::UsageOrUnverified
        || !os_error
        || super::refusal_ref(&err).is_some()
        || err.downcast_ref::<HintedError>().is_some()
    {
        return err;
    }
    HintedError {
        message: format!("{err:#}"),
        hint: Some(
            "nothing was applied; check the file and the disk, then run the rebuild again".into(),
        ),
        code: ExitCode::Io,
    }
    .into()
}
