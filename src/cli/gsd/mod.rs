//! `planseal gsd …`: statusline, status, check, sync, recover, and the record commands
//! (decision, blocker, session) for GSD's `.planning/STATE.md`. The arguments and the printing;
//! the commands themselves are `planseal::gsd::ops`.

mod record;
mod statusline;

pub(super) use statusline::{StatuslineArgs, StatuslineDocument, statusline};

use super::{Context, shown};
use crate::{print_json, print_out};
use planseal::clock::Clock;
use planseal::gsd::GsdError;
use planseal::gsd::locate::{self, Lookup};
use planseal::gsd::ops::{self, Picks, RecoverOptions, Restore, StateFile};
use planseal::report::ExitCode;
use std::path::PathBuf;

#[derive(clap::Subcommand, Debug)]
pub(super) enum Command {
    /// Print GSD's statusline exactly as its hook does: the state segment, or with --stdin the whole line
    #[command(
        after_help = "Examples:\n  planseal gsd statusline                    the GSD state segment\n  \
planseal gsd statusline --compact\n  \
echo '{\"workspace\":{\"current_dir\":\"/src/app\"}}' | planseal gsd statusline --stdin\n  \
echo '{\"workspace\":{\"current_dir\":\"/src/app\"}}' | planseal gsd statusline --stdin --segment\n\n\
With --stdin (Claude Code's statusLine command) it prints the hook's whole line: model, GSD state\n\
or current task, directory, context meter, update notice, git segment, in the hook's colours\n\
(always: the hook has no colour switch), and writes the hook's claude-ctx-<session>.json in the\n\
temp folder. --stdin --segment prints only the state segment.\n\n\
Exit codes: 0 printed (possibly nothing: no readable STATE.md prints no segment, as the hook does);\n\
2 --strict found no STATE.md, or --stdin got no JSON (malformed, over 1 MiB, not closed within 3 s)."
    )]
    Statusline(StatuslineArgs),
    /// Every field, the normalised status, the derived percent, and where they disagree
    #[command(
        after_help = "Examples:\n  planseal gsd status\n  planseal gsd status .planning/STATE.md --json\n  \
planseal gsd status --exit-code    exit 1 on a disagreement or a failing check"
    )]
    Status(StatusArgs),
    /// The GSD checks of `planseal verify` for one STATE.md (exit 1 when NOT CONFORMANT)
    #[command(
        after_help = "Examples:\n  planseal gsd check\n  planseal gsd check other/.planning/STATE.md --json\n\n\
Exit codes: 0 CONFORMANT, 1 NOT CONFORMANT, 2 UNVERIFIED (the file cannot be read)."
    )]
    Check(FileArgs),
    /// Derive the frontmatter from the body and the phase folders; show the diff, --write applies
    #[command(
        after_help = "Examples:\n  planseal gsd sync                  show the diff, write nothing\n  \
planseal gsd sync --write          apply it under .planning/STATE.md.lock\n  \
planseal gsd sync --write --lock-wait 5\n\n\
Only frontmatter keys change; a value set by hand since the last sync is kept and reported\nas drift."
    )]
    Sync(SyncArgs),
    /// List what earlier committed versions had and the file lost; --write --pick ID… restores it
    #[command(
        after_help = "Examples:\n  planseal gsd recover                              list what earlier commits had\n  \
planseal gsd recover --from HEAD~3                compare with one revision only\n  \
planseal gsd recover --write --pick decision:2-1f0c3a key:milestone\n  \
planseal gsd recover --write --all\n  \
planseal gsd recover --exit-code                  exit 1 when anything was lost"
    )]
    Recover(RecoverArgs),
    /// Record a decision in the Decisions section (as `gsd-tools state add-decision`)
    #[command(
        subcommand,
        after_help = "Examples:\n  planseal gsd decision add --phase 2 --summary \"Use Postgres\" --rationale \"already in the cluster\""
    )]
    Decision(record::DecisionCommand),
    /// Add or resolve a blocker in the Blockers section (as `gsd-tools state add-blocker` / `resolve-blocker`)
    #[command(
        subcommand,
        after_help = "Examples:\n  planseal gsd blocker add --text \"Waiting on API keys\"\n  planseal gsd blocker resolve --text \"api keys\""
    )]
    Blocker(record::BlockerCommand),
    /// Record the session: Last session, Stopped at, Resume file (as `gsd-tools state record-session`)
    #[command(
        subcommand,
        after_help = "Examples:\n  planseal gsd session record --stopped-at \"Plan 02-01 task 3\""
    )]
    Session(record::SessionCommand),
}

#[derive(clap::Args, Debug)]
pub(super) struct RecoverArgs {
    /// The STATE.md (default: find .planning/STATE.md walking up from here)
    pub file: Option<PathBuf>,
    /// Compare with this revision only (default: every committed version, newest first)
    #[arg(long, value_name = "REV")]
    pub from: Option<String>,
    /// Restore the picked pieces into the file (under GSD's lock, atomically)
    #[arg(long, requires = "selection")]
    pub write: bool,
    /// A piece to restore, by the id the listing shows (section:…, key:…, decision:N-HASH, blocker:N-HASH)
    #[arg(long, value_name = "ID", num_args = 1.., group = "selection")]
    pub pick: Vec<String>,
    /// Restore every lost piece
    #[arg(long, group = "selection", conflicts_with = "pick")]
    pub all: bool,
    #[command(flatten)]
    pub wait: record::GsdWait,
    /// Exit 1 when an earlier version had a piece the file lost
    #[arg(long)]
    pub exit_code: bool,
}

#[derive(clap::Args, Debug)]
pub(super) struct StatusArgs {
    /// The STATE.md (default: find .planning/STATE.md walking up from here)
    pub file: Option<PathBuf>,
    /// Exit 1 when frontmatter, body and phase folders disagree or a GSD check fails
    #[arg(long)]
    pub exit_code: bool,
}

#[derive(clap::Args, Debug)]
pub(super) struct FileArgs {
    /// The STATE.md (default: find .planning/STATE.md walking up from here)
    pub file: Option<PathBuf>,
}

#[derive(clap::Args, Debug)]
pub(super) struct SyncArgs {
    /// The STATE.md (default: find .planning/STATE.md walking up from here)
    pub file: Option<PathBuf>,
    /// Write the change (under GSD's lock .planning/STATE.md.lock, atomically)
    #[arg(long)]
    pub write: bool,
    #[command(flatten)]
    pub wait: record::GsdWait,
}

pub(super) fn run(command: Command, ctx: &Context) -> anyhow::Result<ExitCode> {
    let lookup = Lookup::from_env();
    let file = match &command {
        Command::Statusline(args) => return statusline(args, ctx, lookup),
        Command::Status(a) => a.file.as_deref(),
        Command::Check(a) => a.file.as_deref(),
        Command::Sync(a) => a.file.as_deref(),
        Command::Recover(a) => a.file.as_deref(),
        Command::Decision(_) | Command::Blocker(_) | Command::Session(_) => {
            record::write_of(&command).and_then(|w| w.file.as_deref())
        }
    };
    let writing = match &command {
        Command::Sync(a) => a.write,
        Command::Recover(a) => a.write,
        Command::Decision(_) | Command::Blocker(_) | Command::Session(_) => {
            record::write_of(&command).is_some_and(|w| !w.dry_run)
        }
        _ => false,
    };
    let path = locate::state_file(file, &ctx.cwd, &lookup, writing).map_err(error)?;
    // Whatever STATE.md or its history holds, a value of the project's .env is never printed.
    crate::redact_output_with(locate::env_redactor(&path));
    let state = StateFile {
        shown: shown(&path, ctx),
        path,
    };
    match command {
        Command::Statusline(_) => Ok(ExitCode::Ok), // answered above
        Command::Status(args) => {
            let opts = ops::StatusOptions {
                state,
                exit_code: args.exit_code,
            };
            let outcome = ops::status(&opts).map_err(error)?;
            print(ctx, &outcome, || outcome.to_text())?;
            Ok(outcome.exit_code)
        }
        Command::Check(_) => {
            let outcome = ops::check(&state);
            print(ctx, &outcome, || outcome.to_text(ctx.color))?;
            Ok(outcome.exit_code())
        }
        Command::Sync(args) => {
            let clock = Clock::from_env()?;
            let opts = ops::SyncOptions {
                state,
                write: args.write,
                lock_wait: args.wait.limit(),
            };
            let outcome = args
                .wait
                .run(|| ops::sync(&opts, &mut clock.clone()).map_err(error))?;
            let applied = outcome.committed.as_ref().map(|c| &c.confirmation);
            let text = if ctx.json {
                String::new()
            } else {
                outcome.to_text()
            };
            super::outcome::deliver(ctx, &outcome, &text, applied)
        }
        Command::Recover(args) => {
            // Only a restoration reads the clock: a listing never fails on PLANSEAL_FAKE_NOW.
            let clock = if args.write {
                Clock::from_env()?
            } else {
                Clock::system()
            };
            let picks = if args.all {
                Picks::All
            } else {
                Picks::Ids(args.pick)
            };
            let opts = RecoverOptions {
                state,
                from: args.from,
                restore: args.write.then(|| Restore {
                    picks,
                    lock_wait: args.wait.limit(),
                }),
                exit_code: args.exit_code,
            };
            let outcome = args
                .wait
                .run(|| ops::recover(&opts, &mut clock.clone()).map_err(error))?;
            let applied = outcome.committed.as_ref().map(|c| &c.confirmation);
            let text = if ctx.json {
                String::new()
            } else {
                outcome.to_text()
            };
            match super::outcome::deliver(ctx, &outcome, &text, applied)? {
                ExitCode::Ok => Ok(outcome.exit_code),
                unconfirmed => Ok(unconfirmed),
            }
        }
        c @ (Command::Decision(_) | Command::Blocker(_) | Command::Session(_)) => {
            record::run(c, state, ctx)
        }
    }
}

/// `--json`: the outcome as one document; else its text.
fn print<T: serde::Serialize>(
    ctx: &Context,
    outcome: &T,
    text: impl FnOnce() -> String,
) -> anyhow::Result<()> {
    if ctx.json {
        print_json(serde_json::to_value(outcome)?);
    } else {
        print_out(&text());
    }
    Ok(())
}

/// The error as its own type, so the one error mapping prints it (a refusal as a refusal, a
/// hint on its own line).
fn error(e: GsdError) -> anyhow::Error {
    match e {
        GsdError::Refused(r) => r.into(),
        GsdError::Hinted(h) => h.into(),
        GsdError::Write(w) => w.into(),
        GsdError::Git(g) => g.into(),
    }
}
