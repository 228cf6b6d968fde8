//! `planseal checkpoint status|init|refresh|diff|session|context|restore` — the checkpoint
//! protocol's PROJECT-CHECKPOINT.md (docs/checkpoint.md). The commands themselves are
//! `planseal::checkpoint::ops`; this module maps the arguments and prints the outcome.
//!
//! Nothing printed here ever holds a `.env` value: generated text carries keys only, and the
//! workspace's `.env` is handed to the process-wide output redactor before anything runs.

mod record;

use super::Context;
use crate::{print_json, print_out};
use planseal::checkpoint::locate;
use planseal::checkpoint::ops::{self, CheckpointError, Place};
use planseal::clock::Clock;
use planseal::report::ExitCode;
use planseal::report::text::Style;
use serde::Serialize;

const TARGET_HELP: &str = "The checkpoint: projects/<id>/PROJECT-CHECKPOINT.md when projects/ holds a project \
(--project ID, else the project folder you are in, else the only project), otherwise the legacy docs/PROJECT-CHECKPOINT.md.";

#[derive(clap::Subcommand, Debug)]
pub(super) enum Command {
    /// Check the checkpoint: required sections, sessions, story table, prefixes (read-only)
    #[command(
        after_help = "Examples:\n  planseal checkpoint status\n  planseal checkpoint status --project cw --json\n  planseal checkpoint status --prefix CW --exit-code\n\nExit codes: 0 when it ran (1 with --exit-code when a check failed), 1 when the project is\nambiguous, 2 when the checkpoint does not exist or cannot be read."
    )]
    Status(StatusArgs),
    /// Create the standard checkpoint skeleton when the project has none
    #[command(
        after_help = "Examples:\n  planseal checkpoint init\n  planseal checkpoint init --project cw --dry-run\n\nWrites `# Project Checkpoint`, `> Ultima atualizacao: <date>`, the six agent sections with\nplaceholders, the story table from stories/, `## Git Recente` and (with a .env) `## Ambiente Detectado`.\nRefused when the checkpoint exists (use refresh)."
    )]
    Init(InitArgs),
    /// Regenerate `## Git Recente`, `## Ambiente Detectado` and the story table; show the diff
    #[command(
        after_help = "Examples:\n  planseal checkpoint refresh                     show what would change\n  planseal checkpoint refresh --write             write it (lock, CAS, atomic)\n  planseal checkpoint refresh --prune-sessions --write --expected-sha256 HEX\n\nOnly the generated sections, missing story rows, status cells and (when anything changed) the\n`> Ultima atualizacao:` line change; every other byte stays. `.env` gives keys only, never values.\n--prune-sessions keeps the 3 most recent sessions and records the removed text in the journal."
    )]
    Refresh(RefreshArgs),
    /// What the checkpoint lost or gained since a git revision (sections, story rows, sessions)
    #[command(
        after_help = "Examples:\n  planseal checkpoint diff --against HEAD~5\n  planseal checkpoint diff --against v1.2 --json\n  planseal checkpoint diff --against main --exit-code   # exit 1 when anything differs"
    )]
    Diff(DiffArgs),
    /// Record what was done: a session entry in the protocol's format
    #[command(
        subcommand,
        after_help = "Examples:\n  planseal checkpoint session add --story 3.1 --did \"wired the SSO callback\" --did \"added token refresh\" --files src/sso.rs --tests 4/120"
    )]
    Session(record::SessionCommand),
    /// The session-start summary (for a SessionStart hook): project, story, next steps, last session, staleness
    #[command(
        after_help = "Examples:\n  planseal checkpoint context\n  planseal checkpoint context --project cw --json\n\n\
A SessionStart hook runs it and injects its output. With several projects and none chosen it\n\
lists them (exit 0), as the protocol's hook does. Staleness counts the story, PRD, architecture,\n\
ADR and memory files changed after the checkpoint (docs/checkpoint.md). Exit 0 whenever it ran."
    )]
    Context(record::ContextArgs),
    /// Put back `## ` sections an earlier committed version had and the file lost
    #[command(
        after_help = "Examples:\n  planseal checkpoint restore --from HEAD~3                       list what was lost\n  \
planseal checkpoint restore --from HEAD~3 --section \"Decisoes Tomadas\" --dry-run\n  \
planseal checkpoint restore --from v1.2 --section \"Proximos Passos\" --section \"Contexto Ativo\"\n\n\
A section goes back where it stood (after the section that preceded it at REV). A section that is\n\
there now with content is refused (section-present); one that holds only a placeholder is filled.\n\
Git is read through gix; nothing else of the file changes."
    )]
    Restore(record::RestoreArgs),
}

#[derive(clap::Args, Debug)]
pub(super) struct TargetArgs {
    /// The project id under projects/ (multi-project mode)
    #[arg(long, value_name = "ID", long_help = TARGET_HELP)]
    pub project: Option<String>,
}

#[derive(clap::Args, Debug)]
pub(super) struct StatusArgs {
    #[command(flatten)]
    pub target: TargetArgs,
    /// The story-id prefix (default: .project.yaml `prefix`/`story_prefix`/`code`, else the
    /// prefix most ids share)
    #[arg(long, value_name = "PREFIX")]
    pub prefix: Option<String>,
    /// Exit 1 when a check failed
    #[arg(long)]
    pub exit_code: bool,
}

#[derive(clap::Args, Debug)]
pub(super) struct InitArgs {
    #[command(flatten)]
    pub target: TargetArgs,
    /// Print the skeleton without writing it
    #[arg(long)]
    pub dry_run: bool,
    #[command(flatten)]
    pub wait: super::wait::WaitArg,
}

#[derive(clap::Args, Debug)]
pub(super) struct RefreshArgs {
    #[command(flatten)]
    pub target: TargetArgs,
    /// Write the refreshed file (without it, only the diff is shown)
    #[arg(long)]
    pub write: bool,
    /// Also remove sessions beyond the 3 most recent (their text goes to the journal)
    #[arg(long)]
    pub prune_sessions: bool,
    /// Refuse unless the checkpoint's current SHA-256 is this
    #[arg(long, value_name = "HEX")]
    pub expected_sha256: Option<String>,
    #[command(flatten)]
    pub wait: super::wait::WaitArg,
}

#[derive(clap::Args, Debug)]
pub(super) struct DiffArgs {
    #[command(flatten)]
    pub target: TargetArgs,
    /// The revision to compare with (a commit, branch, tag, HEAD~N)
    #[arg(long, value_name = "REV")]
    pub against: String,
    /// Exit 1 when anything was lost or gained
    #[arg(long)]
    pub exit_code: bool,
}

pub(super) fn run(command: Command, ctx: &Context) -> anyhow::Result<ExitCode> {
    // Whatever the checkpoint or its history holds, a value of the workspace's .env is never printed.
    crate::redact_output_with(locate::env_redactor(&ctx.cwd));
    let place = |t: TargetArgs| Place {
        cwd: ctx.cwd.clone(),
        project: t.project,
    };
    match command {
        Command::Status(a) => {
            let o = ops::status(&place(a.target), a.prefix.as_deref()).map_err(lift)?;
            print(ctx, &o, |o| o.to_text(Style { color: ctx.color }))?;
            Ok(ExitCode::failed_if(a.exit_code && o.failed()))
        }
        Command::Init(a) => {
            let clock = Clock::from_env()?;
            let target = place(a.target);
            let o = a
                .wait
                .run(|| ops::init(&target, a.dry_run, &mut clock.clone()).map_err(lift))?;
            let applied = o.written.as_ref().map(|w| &w.committed.confirmation);
            super::outcome::deliver(ctx, &o, &o.to_text(), applied)
        }
        Command::Refresh(a) => {
            let opts = ops::RefreshOptions {
                write: a.write,
                prune_sessions: a.prune_sessions,
                expected_sha256: a.expected_sha256,
            };
            let clock = Clock::from_env()?;
            let target = place(a.target);
            let o = a
                .wait
                .run(|| ops::refresh(&target, &opts, &mut clock.clone()).map_err(lift))?;
            let applied = o.written.as_ref().map(|w| &w.committed.confirmation);
            super::outcome::deliver(ctx, &o, &o.to_text(), applied)
        }
        Command::Session(record::SessionCommand::Add(a)) => record::session(a, ctx),
        Command::Context(a) => record::context(a, ctx),
        Command::Restore(a) => record::restore(a, ctx),
        Command::Diff(a) => {
            let o = ops::diff(&place(a.target), &a.against).map_err(lift)?;
            print(ctx, &o, ops::DiffOutcome::to_text)?;
            Ok(ExitCode::failed_if(a.exit_code && o.differs()))
        }
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

/// The error as the one error mapping knows it (a refusal, a hinted error, a write error).
pub(super) fn lift(e: CheckpointError) -> anyhow::Error {
    match e {
        CheckpointError::Refused(r) => r.into(),
        CheckpointError::Gather(planseal::checkpoint::GatherError::Refused(r)) => r.into(),
        CheckpointError::Hinted(h) => h.into(),
        CheckpointError::Write(w) => w.into(),
        other => other.into(),
    }
}
