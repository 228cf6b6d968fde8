//! `planseal reversa status|advance|set|history` — Reversa `.reversa/state.json`
//! (docs/reversa.md). The commands themselves are `planseal::reversa::ops`; this module maps
//! the arguments and prints the outcome.

use super::Context;
use crate::{print_json, print_out};
use planseal::clock::Clock;
use planseal::report::ExitCode;
use planseal::report::text::Style;
use planseal::reversa::locate;
use planseal::reversa::ops::{self, Place, ReversaError, WriteGuard, WriteOutcome};
use serde::Serialize;
use std::path::PathBuf;

#[derive(clap::Subcommand, Debug)]
pub(super) enum Command {
    /// Show where the analysis stands and check the file (read-only)
    #[command(
        after_help = "Examples:\n  planseal reversa status\n  planseal reversa status --json\n  planseal reversa status --file other/.reversa/state.json --exit-code\n\nExit codes: 0 when it ran (1 with --exit-code when a check failed), 2 when the file cannot be read."
    )]
    Status(StatusArgs),
    /// Mark the current phase done: it leaves `pending`, joins `completed`, `phase` moves on
    #[command(
        after_help = "Examples:\n  planseal reversa advance --phase-done reconhecimento --agent scout --files _reversa_sdd/inventory.md _reversa_sdd/dependencies.md\n  planseal reversa advance --phase-done escavacao --dry-run\n  planseal reversa advance --phase-done escavacao --expected-sha256 $(sha256sum .reversa/state.json | cut -d' ' -f1)\n\nPhases finish in order: reconhecimento → escavacao → interpretacao → geracao → revisao\n(or the English fork's reconnaissance → excavation → interpretation → generation → review).\n--agent records the finishing agent's checkpoint: `checkpoints.<NAME>` gets completed_at (now) and\nthe --files (added to the ones it lists; its other keys kept). Every other byte of the file is kept.\nExit 1 when refused (nothing written)."
    )]
    Advance(AdvanceArgs),
    /// Set one top-level field to a JSON value, keeping every other byte
    #[command(
        after_help = "Examples:\n  planseal reversa set doc_level '\"completo\"'\n  planseal reversa set engines '[\"claude-code\", \"codex\"]'\n  planseal reversa set phase '\"escavacao\"' --force --reason \"redo the excavation after the schema change\"\n\nVALUE is JSON: quote strings. A change that removes a field, moves a phase backwards or\ndrops a created_files entry is refused unless --force --reason (recorded in the journal)."
    )]
    Set(SetArgs),
    /// Walk the git history of state.json and report every break of the never-remove rule
    #[command(
        after_help = "Examples:\n  planseal reversa history\n  planseal reversa history --json\n  planseal reversa history --exit-code   # exit 1 when a commit broke the rule\n\nReported: a commit that removed a field, moved a phase backwards, or dropped a created_files\nentry (an advisory when the same commit changed `version`: the installer's own update)."
    )]
    History(HistoryArgs),
}

#[derive(clap::Args, Debug)]
pub(super) struct FileArg {
    /// The state file (default: .reversa/state.json here or in the nearest parent folder)
    #[arg(long, value_name = "PATH")]
    pub file: Option<PathBuf>,
}

#[derive(clap::Args, Debug)]
pub(super) struct StatusArgs {
    #[command(flatten)]
    pub file: FileArg,
    /// Exit 1 when a check failed
    #[arg(long)]
    pub exit_code: bool,
}

#[derive(clap::Args, Debug)]
pub(super) struct WriteArgs {
    /// Refuse unless the file's current SHA-256 is this (the bytes you last read)
    #[arg(long, value_name = "HEX")]
    pub expected_sha256: Option<String>,
    /// Show the change as a unified diff; write nothing
    #[arg(long)]
    pub dry_run: bool,
    #[command(flatten)]
    pub wait: super::wait::WaitArg,
}

#[derive(clap::Args, Debug)]
pub(super) struct AdvanceArgs {
    #[command(flatten)]
    pub file: FileArg,
    /// The phase that just finished
    #[arg(long, value_name = "PHASE")]
    pub phase_done: String,
    /// The agent that finished it: records `checkpoints.<NAME>` {completed_at, files}
    #[arg(long, value_name = "NAME")]
    pub agent: Option<String>,
    /// The files the agent wrote, relative to the project root (each must exist)
    #[arg(long, value_name = "PATH", num_args = 1.., requires = "agent")]
    pub files: Vec<String>,
    #[command(flatten)]
    pub write: WriteArgs,
}

#[derive(clap::Args, Debug)]
pub(super) struct SetArgs {
    #[command(flatten)]
    pub file: FileArg,
    /// A top-level field name
    pub field: String,
    /// The new value, as JSON (strings in quotes)
    pub value: String,
    /// Apply a change the history check would flag (needs --reason)
    #[arg(long, requires = "reason")]
    pub force: bool,
    /// Why the forced change is right (recorded in the journal)
    #[arg(long, value_name = "TEXT")]
    pub reason: Option<String>,
    #[command(flatten)]
    pub write: WriteArgs,
}

#[derive(clap::Args, Debug)]
pub(super) struct HistoryArgs {
    #[command(flatten)]
    pub file: FileArg,
    /// Exit 1 when a commit broke the rule
    #[arg(long)]
    pub exit_code: bool,
}

pub(super) fn run(command: Command, ctx: &Context) -> anyhow::Result<ExitCode> {
    let file = match &command {
        Command::Status(a) => &a.file,
        Command::Advance(a) => &a.file,
        Command::Set(a) => &a.file,
        Command::History(a) => &a.file,
    };
    // Whatever the state file holds, a value of the project's .env is never printed.
    crate::redact_output_with(locate::env_redactor(&ctx.cwd, file.file.as_deref()));
    let place = |f: FileArg| Place {
        cwd: ctx.cwd.clone(),
        file: f.file,
    };
    let style = Style { color: ctx.color };
    match command {
        Command::Status(a) => {
            let o = ops::status(&place(a.file)).map_err(lift)?;
            print(ctx, &o, |o| o.to_text(style))?;
            Ok(ExitCode::failed_if(a.exit_code && o.failed()))
        }
        Command::Advance(a) => {
            let wait = a.write.wait.clone();
            let opts = ops::AdvanceOptions {
                phase_done: a.phase_done,
                agent: a.agent,
                files: a.files,
                guard: guard(a.write),
            };
            let (place, clock) = (place(a.file), Clock::from_env()?);
            let o = wait.run(|| ops::advance(&place, &opts, &mut clock.clone()).map_err(lift))?;
            written(ctx, &o)
        }
        Command::Set(a) => {
            let wait = a.write.wait.clone();
            let opts = ops::SetOptions {
                field: a.field,
                value: a.value,
                force: a.force,
                reason: a.reason,
                guard: guard(a.write),
            };
            let (place, clock) = (place(a.file), Clock::from_env()?);
            let o = wait.run(|| ops::set(&place, &opts, &mut clock.clone()).map_err(lift))?;
            written(ctx, &o)
        }
        Command::History(a) => {
            let o = ops::history(&place(a.file)).map_err(lift)?;
            print(ctx, &o, |o| o.to_text(style))?;
            Ok(ExitCode::failed_if(a.exit_code && o.failed()))
        }
    }
}

fn guard(w: WriteArgs) -> WriteGuard {
    WriteGuard {
        expected_sha256: w.expected_sha256,
        dry_run: w.dry_run,
    }
}

/// The outcome as one JSON document with `--json`, else as its text.
fn print<T: Serialize>(
    ctx: &Context,
    outcome: &T,
    text: impl Fn(&T) -> String,
) -> anyhow::Result<()> {
    if ctx.json {
        print_json(serde_json::to_value(outcome)?);
    } else {
        print_out(&text(outcome));
    }
    Ok(())
}

fn written(ctx: &Context, o: &WriteOutcome) -> anyhow::Result<ExitCode> {
    let applied = o.committed.as_ref().map(|c| &c.confirmation);
    let text = if ctx.json { String::new() } else { o.to_text() };
    super::outcome::deliver(ctx, o, &text, applied)
}

/// The error as the one error mapping knows it (a refusal, a hinted error, a write error).
fn lift(e: ReversaError) -> anyhow::Error {
    match e {
        ReversaError::Refused(r) => r.into(),
        ReversaError::Hinted(h) => h.into(),
        ReversaError::Write(w) => w.into(),
        other => other.into(),
    }
}
