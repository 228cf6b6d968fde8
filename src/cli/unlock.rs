//! `planseal unlock PATH`: shows who holds the lock of a state file and removes it when its owner
//! is provably dead (same host, and the pid is not alive or its process start time
//! differs from the recorded one). A live or unknown owner (an empty lock directory, as the DWP
//! helper leaves it) needs `--force --reason TEXT`; every removal is journaled.

use super::Context;
use crate::print_out;
use planseal::report::ExitCode;
use planseal::unlock::{UnlockOutcome, UnlockRequest, unlock};
use std::path::PathBuf;

#[derive(clap::Args, Debug)]
#[command(
    after_help = "Examples:\n  planseal unlock .dwp/plans/PLAN_x                   show the owner; remove the lock if it is dead\n  \
planseal unlock .planning/STATE.md                  GSD's pid-file lock\n  \
planseal unlock .dwp/plans/PLAN_x --force --reason \"helper crashed, checked with ps\"\n\n\
PATH may be the state file (state.json, STATE.md, …), its lock \
(state.json.lock) or a DWP plan folder.\nExit codes: 0 removed (or nothing to remove), 1 refused \
(owner alive or unknown, or the lock holds files planseal never writes there: nothing removed), \
2 usage error.\nLeftovers of dead writers beside the lock (temp files, staging folders, released \
locks) are removed too; those whose owner cannot be proven dead are listed as kept."
)]
pub(super) struct Args {
    /// The locked file, its lock, or a plan folder
    #[arg(value_name = "PATH")]
    pub path: PathBuf,
    /// Remove the lock even though its owner is not provably dead (needs --reason)
    #[arg(long, requires = "reason")]
    pub force: bool,
    /// Why the lock is forced (recorded in the journal)
    #[arg(long, value_name = "TEXT")]
    pub reason: Option<String>,
}

pub(super) fn run(args: Args, ctx: &Context) -> anyhow::Result<ExitCode> {
    // A `.env` value quoted in a plan file, a log or a commit subject is never printed.
    crate::redact_output_for(&ctx.cwd.join(&args.path));
    // Read the clock before anything is removed: a bad PLANSEAL_FAKE_NOW must not leave a lock
    // removed without its journal line.
    let mut clock = planseal::clock::Clock::from_env()?;
    let req = UnlockRequest {
        path: ctx.cwd.join(&args.path),
        shown: args.path.display().to_string(),
        force: args.force,
        reason: args.reason,
    };
    let outcome = unlock(&req, &mut clock)?;
    if ctx.json {
        // A removed lock is a change applied; no lock, nothing changed.
        let result = match &outcome {
            UnlockOutcome::Removed { .. } => "applied",
            UnlockOutcome::NotLocked { .. } => "unchanged",
        };
        crate::print_json_as(serde_json::to_value(&outcome)?, result);
        return Ok(ExitCode::Ok);
    }
    let (removed, kept) = match &outcome {
        UnlockOutcome::NotLocked {
            lock_path,
            removed_temp_files,
            kept_debris,
        } => {
            print_out(&format!(
                "{}: not locked, nothing to remove\n",
                lock_path.display()
            ));
            (removed_temp_files, kept_debris)
        }
        UnlockOutcome::Removed {
            lock_path,
            holder,
            owner_status,
            forced,
            reason,
            removed_temp_files,
            kept_debris,
        } => {
            print_out(&format!(
                "removed {}\n  owner: {holder}\n  {owner_status}{}\n",
                lock_path.display(),
                if *forced {
                    format!(
                        "\n  forced: {} (journaled)",
                        reason.as_deref().map(str::trim).unwrap_or_default()
                    )
                } else {
                    String::new()
                }
            ));
            (removed_temp_files, kept_debris)
        }
    };
    for path in removed {
        print_out(&format!(
            "removed {} (left by a dead writer)\n",
            path.display()
        ));
    }
    for k in kept {
        print_out(&format!("kept {}: {}\n", k.path.display(), k.reason));
    }
    Ok(ExitCode::Ok)
}
