//! `planseal gsd decision add`, `gsd blocker add|resolve`, `gsd session record`: GSD's record
//! commands (docs/gsd.md, "Writers"), and the `--wait` every GSD writer shares. The arguments
//! and the printing; the commands themselves are `planseal::gsd::ops::record`.

use super::super::Context;
use super::Command;
use planseal::clock::Clock;
use planseal::gsd::ops::{self, Record, RecordOptions, StateFile};
use planseal::report::ExitCode;
use planseal::write::wait;
use std::path::PathBuf;
use std::time::Duration;

/// `--wait[=DURATION]` on a GSD writer: how long to wait for GSD's lock (a live writer's pid
/// file) or a writer that got in between. `--lock-wait SECONDS` is its older spelling.
///
/// Not the shared `WaitArg`: GSD's writers wait 30 s without the flag too (as GSD's own tools
/// do), so the help says so.
#[derive(clap::Args, Debug, Clone, Default)]
pub(in crate::cli) struct GsdWait {
    /// Wait up to DURATION (500ms, 2m, or seconds; 30s without the flag, as GSD's tools wait) for
    /// another writer's lock or write to finish, then try again from a fresh read
    #[arg(
        long,
        value_name = "DURATION",
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = "30s",
        value_parser = wait::parse_duration
    )]
    pub wait: Option<Duration>,
    /// The same as --wait=SECONDS (kept for scripts written before --wait)
    #[arg(long, value_name = "SECONDS", conflicts_with = "wait")]
    pub lock_wait: Option<u64>,
}

impl GsdWait {
    /// The limit: --wait, else --lock-wait, else GSD's own 30 s.
    pub(in crate::cli) fn limit(&self) -> Duration {
        self.wait
            .or(self.lock_wait.map(Duration::from_secs))
            .unwrap_or(wait::DEFAULT_WAIT)
    }

    /// Runs `attempt` until it gets past the other writer or the limit has passed.
    pub(in crate::cli) fn run<T>(
        &self,
        attempt: impl FnMut() -> anyhow::Result<T>,
    ) -> anyhow::Result<T> {
        super::super::wait::WaitArg {
            wait: Some(self.limit()),
        }
        .run(attempt)
    }
}

/// What every record command takes besides its own fields.
#[derive(clap::Args, Debug)]
pub(in crate::cli) struct WriteArgs {
    /// The STATE.md (default: find .planning/STATE.md walking up from here)
    pub file: Option<PathBuf>,
    /// Print the change as a unified diff; write nothing
    #[arg(long)]
    pub dry_run: bool,
    /// SHA-256 of STATE.md as you last read it; refused if it changed since
    #[arg(long = "expected-sha256", value_name = "HEX")]
    pub expected_sha256: Option<String>,
    #[command(flatten)]
    pub wait: GsdWait,
}

#[derive(clap::Subcommand, Debug)]
pub(in crate::cli) enum DecisionCommand {
    /// Append `- [Phase P]: SUMMARY — RATIONALE` to the Decisions section (as `gsd-tools state add-decision`)
    #[command(after_help = concat!(
        "Examples:\n  planseal gsd decision add --phase 2 --summary \"Use Postgres\" --rationale \"already in the cluster\"\n  \
planseal gsd decision add --summary \"Keep the CLI stable\" --dry-run\n\n\
The first `Decisions`, `Decisions Made` or `Accumulated … Decisions` heading (level 2 or 3) gets\n\
the line, its `None yet.` removed; without one, a `## Decisions` section is added at the end.\n\
The frontmatter is brought in line as `planseal gsd sync --write` does (last_updated stamped).\n\n",
        "Exit codes: 0 written (or shown with --dry-run), 1 refused (nothing written), 2 usage error, 3 I/O error before the commit point, 4 written but not confirmed."
    ))]
    Add(DecisionArgs),
}

#[derive(clap::Args, Debug)]
pub(in crate::cli) struct DecisionArgs {
    /// The phase the decision belongs to (GSD writes `?` without one)
    #[arg(long, value_name = "PHASE")]
    pub phase: Option<String>,
    /// What was decided
    #[arg(long, value_name = "TEXT")]
    pub summary: String,
    /// Why
    #[arg(long, value_name = "TEXT")]
    pub rationale: Option<String>,
    #[command(flatten)]
    pub write: WriteArgs,
}

#[derive(clap::Subcommand, Debug)]
pub(in crate::cli) enum BlockerCommand {
    /// Append `- TEXT` to the Blockers section (as `gsd-tools state add-blocker`)
    #[command(after_help = concat!(
        "Examples:\n  planseal gsd blocker add --text \"Waiting on API keys\"\n  \
planseal gsd blocker add --text \"CI runner flaky\" --dry-run\n\n\
The first `Blockers`, `Blockers/Concerns` or `Concerns` heading (level 2 or 3) gets the line, its\n\
`None` / `None yet.` removed; without one, a `### Blockers` section is added at the end.\n\n",
        "Exit codes: 0 written (or shown with --dry-run), 1 refused (nothing written), 2 usage error, 3 I/O error before the commit point, 4 written but not confirmed."
    ))]
    Add(BlockerArgs),
    /// Remove every blocker line that contains TEXT (as `gsd-tools state resolve-blocker`)
    #[command(after_help = concat!(
        "Examples:\n  planseal gsd blocker resolve --text \"api keys\"\n  \
planseal gsd blocker resolve --text flaky --dry-run\n\n\
TEXT is matched ignoring case. When no blocker is left the section says `None`. Refused\n\
(blocker-not-found, the open blockers listed) when no blocker line contains TEXT.\n\n",
        "Exit codes: 0 written (or shown with --dry-run), 1 refused (nothing written), 2 usage error, 3 I/O error before the commit point, 4 written but not confirmed."
    ))]
    Resolve(BlockerArgs),
}

#[derive(clap::Args, Debug)]
pub(in crate::cli) struct BlockerArgs {
    /// The blocker (add), or text the blocker lines to remove contain (resolve)
    #[arg(long, value_name = "TEXT")]
    pub text: String,
    #[command(flatten)]
    pub write: WriteArgs,
}

#[derive(clap::Subcommand, Debug)]
pub(in crate::cli) enum SessionCommand {
    /// Set Last session (now), Stopped at and Resume file (as `gsd-tools state record-session`)
    #[command(after_help = concat!(
        "Examples:\n  planseal gsd session record --stopped-at \"Plan 02-01 task 3\"\n  \
planseal gsd session record --stopped-at \"Phase 2 done\" --resume-file .planning/phases/02/.continue-here.md\n  \
planseal gsd session record --dry-run\n\n\
Each field is changed where it stands; without --resume-file a Resume file of `None` stays\n\
`None` and a path someone wrote stays. Missing fields are added under `## Session` (or\n\
`## Session Continuity`), or in a new `## Session` section, when a value was given.\n\
Test clock: PLANSEAL_FAKE_NOW=2026-10-05T09:00:00+00:00.\n\n",
        "Exit codes: 0 written (or shown with --dry-run), 1 refused (nothing written), 2 usage error, 3 I/O error before the commit point, 4 written but not confirmed."
    ))]
    Record(SessionArgs),
}

#[derive(clap::Args, Debug)]
pub(in crate::cli) struct SessionArgs {
    /// Where the work stopped
    #[arg(long, value_name = "TEXT")]
    pub stopped_at: Option<String>,
    /// The file to resume from (GSD writes `None` when there is none)
    #[arg(long, value_name = "PATH")]
    pub resume_file: Option<String>,
    #[command(flatten)]
    pub write: WriteArgs,
}

/// The arguments every record command shares; `None` for the other `gsd` commands.
pub(super) fn write_of(command: &Command) -> Option<&WriteArgs> {
    match command {
        Command::Decision(DecisionCommand::Add(a)) => Some(&a.write),
        Command::Blocker(BlockerCommand::Add(a) | BlockerCommand::Resolve(a)) => Some(&a.write),
        Command::Session(SessionCommand::Record(a)) => Some(&a.write),
        _ => None,
    }
}

/// What to record, and how to write it; `None` for the other `gsd` commands.
fn into_parts(command: Command) -> Option<(Record, WriteArgs)> {
    Some(match command {
        Command::Decision(DecisionCommand::Add(a)) => (
            Record::Decision {
                phase: a.phase,
                summary: a.summary,
                rationale: a.rationale,
            },
            a.write,
        ),
        Command::Blocker(BlockerCommand::Add(a)) => (Record::AddBlocker { text: a.text }, a.write),
        Command::Blocker(BlockerCommand::Resolve(a)) => {
            (Record::ResolveBlocker { text: a.text }, a.write)
        }
        Command::Session(SessionCommand::Record(a)) => (
            Record::Session {
                stopped_at: a.stopped_at,
                resume_file: a.resume_file,
            },
            a.write,
        ),
        _ => return None,
    })
}

/// Runs one record command on `state`.
pub(super) fn run(command: Command, state: StateFile, ctx: &Context) -> anyhow::Result<ExitCode> {
    let Some((record, write)) = into_parts(command) else {
        return Ok(ExitCode::Ok);
    };
    let opts = RecordOptions {
        state,
        record,
        dry_run: write.dry_run,
        expected_sha256: write.expected_sha256,
        lock_wait: write.wait.limit(),
    };
    let clock = Clock::from_env()?;
    let outcome = write.wait.run(|| {
        let mut clock = clock.clone();
        ops::record(&opts, &mut clock).map_err(super::error)
    })?;
    let applied = outcome.committed.as_ref().map(|c| &c.confirmation);
    let text = if ctx.json {
        String::new()
    } else {
        outcome.to_text()
    };
    super::super::outcome::deliver(ctx, &outcome, &text, applied)
}
