//! `planseal update STATE.json --task N --status S [flags]`: one guarded transition of a DWP
//! state.json, a drop-in for the DWP helper `update-state.py` (docs/update.md).
//!
//! Compatibility: the helper's exact flag set, and — like its argument parser — any unambiguous
//! prefix of its long options (`--stat` = `--status`), which [`super::abbrev`] expands before
//! clap sees the command line.

use super::Context;
use crate::print_err;
use planseal::clock::Clock;
use planseal::dwp::decide::update::UpdateRequest;
use planseal::dwp::model::TaskStatus;
use planseal::dwp::ops::update;
use planseal::report::ExitCode;
use std::path::PathBuf;

/// The task statuses the helper accepts.
#[derive(Copy, Clone, Debug, PartialEq, Eq, clap::ValueEnum)]
#[value(rename_all = "snake_case")]
pub enum StatusArg {
    Pending,
    InProgress,
    Completed,
    Blocked,
    Skipped,
}

impl From<StatusArg> for TaskStatus {
    fn from(s: StatusArg) -> Self {
        match s {
            StatusArg::Pending => TaskStatus::Pending,
            StatusArg::InProgress => TaskStatus::InProgress,
            StatusArg::Completed => TaskStatus::Completed,
            StatusArg::Blocked => TaskStatus::Blocked,
            StatusArg::Skipped => TaskStatus::Skipped,
        }
    }
}

#[derive(clap::Args, Debug)]
#[command(
    after_help = "Examples:\n  planseal update .dwp/plans/PLAN_x/state.json --task 1 --status in_progress\n  \
planseal update STATE --task 1 --status completed --commit 3f2a9c1 \\\n      \
--gate \"cargo test|0|analysis_results/logs/task1.log\" --worked \"limiter in place\"\n  \
planseal update STATE --task 2 --status blocked --block-reason \"needs an API key\"\n  \
planseal update STATE --task 2 --status in_progress --resolve-blocker --expected-sha256 HEX\n  \
planseal update STATE --task 1 --status in_progress --gate \"make|0|logs/t1.log\" --wait=10s\n\n\
Completing the last task publishes the plan through the finalization transaction.\n\
With --wait (default 30s) a writer that meets another writer's lock, or a state.json that \
changed under it, waits with jittered back-off and tries again from a fresh read; a refusal of \
your own --expected-sha256 (stale-snapshot) is never retried.\n\
Exit codes: 0 applied, 1 refused (nothing written; the refusal kind \
leads stderr), 2 usage error, 3 I/O error before the commit point (nothing applied), 4 applied \
but not confirmed (do not retry).\nLong options may be abbreviated to any unambiguous prefix \
(--stat = --status), as with the DWP helper update-state.py.\nTest clock: \
PLANSEAL_FAKE_NOW=2026-10-05T09:00:00+00:00 (step PLANSEAL_FAKE_NOW_STEP_US, default 1250000)."
)]
pub(super) struct Args {
    /// The plan's state.json
    #[arg(value_name = "STATE")]
    pub state: PathBuf,
    /// Task id
    #[arg(long, allow_negative_numbers = true)]
    pub task: i64,
    /// New task status
    #[arg(long, value_enum)]
    pub status: StatusArg,
    /// Append a gate record "command|exit_code|evidence" (repeatable)
    #[arg(long, value_name = "SPEC", allow_hyphen_values = true)]
    pub gate: Vec<String>,
    /// Append a whole gate record given as a JSON object (repeatable)
    #[arg(long = "gate-json", value_name = "JSON", allow_hyphen_values = true)]
    pub gate_json: Vec<String>,
    /// Why the task is blocked (with --status blocked)
    #[arg(long = "block-reason", value_name = "TEXT", allow_hyphen_values = true)]
    pub block_reason: Option<String>,
    /// What would unblock it
    #[arg(long = "block-needs", value_name = "TEXT", allow_hyphen_values = true)]
    pub block_needs: Option<String>,
    /// Resolve this task's own blocker (with --status in_progress or completed)
    #[arg(long = "resolve-blocker")]
    pub resolve_blocker: bool,
    /// Why a completed task is reopened (journaled)
    #[arg(
        long = "reopen-reason",
        value_name = "TEXT",
        allow_hyphen_values = true
    )]
    pub reopen_reason: Option<String>,
    /// SHA-256 of the state.json bytes you last read (compare-and-swap)
    #[arg(long = "expected-sha256", value_name = "HEX")]
    pub expected_sha256: Option<String>,
    /// What worked (outcome.worked, ≤ 500 characters)
    #[arg(long, value_name = "TEXT", allow_hyphen_values = true)]
    pub worked: Option<String>,
    /// Notes (outcome.notes, ≤ 1000 characters)
    #[arg(long, value_name = "TEXT", allow_hyphen_values = true)]
    pub notes: Option<String>,
    /// An approach tried (appended to outcome.tried; repeatable)
    #[arg(long, value_name = "TEXT", allow_hyphen_values = true)]
    pub tried: Vec<String>,
    /// An approach that failed (appended to outcome.failed; repeatable)
    #[arg(long, value_name = "TEXT", allow_hyphen_values = true)]
    pub failed: Vec<String>,
    /// The commit that completes the task (7–40 lower-case hex)
    #[arg(long, value_name = "SHA")]
    pub commit: Option<String>,
    /// Checkpoint step (default `start`)
    #[arg(
        long = "checkpoint-step",
        value_name = "TEXT",
        allow_hyphen_values = true
    )]
    pub checkpoint_step: Option<String>,
    /// Checkpoint note (default `Task N closed. Next: Task M.`)
    #[arg(
        long = "checkpoint-note",
        value_name = "TEXT",
        allow_hyphen_values = true
    )]
    pub checkpoint_note: Option<String>,
    /// Agent name for updated_by
    #[arg(long, value_name = "NAME")]
    pub agent: Option<String>,
    /// Model name for updated_by
    #[arg(long, value_name = "NAME")]
    pub model: Option<String>,
    #[command(flatten)]
    pub wait: super::wait::WaitArg,
}

impl Args {
    fn request(&self) -> UpdateRequest {
        UpdateRequest {
            task: self.task,
            status: self.status.into(),
            gates: self.gate.clone(),
            gate_jsons: self.gate_json.clone(),
            block_reason: self.block_reason.clone(),
            block_needs: self.block_needs.clone(),
            resolve_blocker: self.resolve_blocker,
            reopen_reason: self.reopen_reason.clone(),
            expected_sha256: self.expected_sha256.clone(),
            worked: self.worked.clone(),
            notes: self.notes.clone(),
            tried: self.tried.clone(),
            failed: self.failed.clone(),
            commit: self.commit.clone(),
            checkpoint_step: self.checkpoint_step.clone(),
            checkpoint_note: self.checkpoint_note.clone(),
            agent: self.agent.clone(),
            model: self.model.clone(),
        }
    }
}

pub(super) fn run(args: Args, ctx: &Context) -> anyhow::Result<ExitCode> {
    // A `.env` value quoted in a plan file, a log or a commit subject is never printed.
    crate::redact_output_for(&ctx.cwd.join(&args.state));
    let (advisories, result) = outcome(&args, ctx);
    for advisory in &advisories {
        print_err(&format!(
            "advisory: {}: {}\n",
            advisory.id, advisory.message
        ));
    }
    let outcome = result?;
    let text = format!("{}\n", outcome.line);
    super::outcome::deliver(ctx, &outcome, &text, Some(&outcome.confirmation))
}

/// The transition applied (or the refusal or error that stopped it), with the advisories of
/// the attempt that counts.
pub(super) fn outcome(
    args: &Args,
    ctx: &Context,
) -> (
    Vec<planseal::report::Finding>,
    anyhow::Result<update::UpdateOutcome>,
) {
    let clock = match Clock::from_env() {
        Ok(clock) => clock,
        Err(e) => return (Vec::new(), Err(e.into())),
    };
    let state = ctx.cwd.join(&args.state);
    // With --wait a refused attempt runs again from a fresh read; only the advisories of the
    // attempt that counts are shown, before its outcome, so a refusal that follows has its context.
    let mut advisories = Vec::new();
    let result = args.wait.run(|| {
        let planned =
            update::plan(&state, &args.state, args.request(), clock.clone()).map_err(lift)?;
        advisories = planned.transition.advisories.clone();
        update::apply(planned).map_err(lift)
    });
    (advisories, result)
}

/// The `--json` document of an applied update (what `update --json` prints and the MCP tool
/// returns).
pub(super) fn document(outcome: &update::UpdateOutcome) -> anyhow::Result<serde_json::Value> {
    super::outcome::writer_document(outcome, Some(&outcome.confirmation))
}

/// The library's error as the one error mapping of `cli` reads it.
fn lift(e: update::UpdateError) -> anyhow::Error {
    match e {
        update::UpdateError::Refused(r) => r.into(),
        update::UpdateError::Write(w) => w.into(),
        update::UpdateError::Publish(p) => p.into(),
        update::UpdateError::Input(h) => h.into(),
    }
}
