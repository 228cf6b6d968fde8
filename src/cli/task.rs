//! `planseal task done PLAN_DIR --task N …`: a task's whole close-out (docs/task.md). The
//! arguments and the printing; the command itself is `planseal::dwp::ops::task_done`.

use super::Context;
use super::dwp::error;
use planseal::clock::Clock;
use planseal::dwp::ops::task_done::{self, TaskDoneRequest};
use planseal::report::ExitCode;
use std::path::PathBuf;

#[derive(clap::Subcommand, Debug)]
pub(super) enum Command {
    /// Close a task: its Completion & Log, the README box and Plan Status, a PROGRESS.md entry,
    /// then the state transition (the publication on the last task)
    #[command(
        after_help = "Writes, in the DWP completion order — the task's log, the README, \
PROGRESS.md, then state.json — under state.json's lock. A label given no value is written as an \
explicit `TODO:` placeholder and the state transition is refused (task-record-placeholder) \
until it is filled; run the same command again to finish. Closing the last task publishes the \
plan through the finalization transaction.\n\n\
Examples:\n  planseal task done .dwp/plans/PLAN_x --task 2 --gate \"cargo test|0|ran=12/12\" \\\n      \
--commit 3f2a9c1 --summary \"retry loop in place\" --outputs \"src/retry.rs\" \\\n      \
--skills-disposition none --documentation-decision \"not applicable — internal\"\n  \
planseal task done .dwp/plans/PLAN_x --task 2 --dry-run        show the diff, write nothing\n\n\
Exit codes: 0 applied, 1 refused (the refusal says whether the markdown was written), 2 usage \
error, 3 I/O error before a commit point, 4 applied but not confirmed.\n\
Test clock: PLANSEAL_FAKE_NOW=2026-10-05T09:00:00+00:00."
    )]
    Done(Box<DoneArgs>),
}

#[derive(clap::Args, Debug)]
pub(super) struct DoneArgs {
    /// The plan folder (.dwp/plans/PLAN_<name>)
    #[arg(value_name = "PLAN_DIR")]
    pub plan_dir: PathBuf,
    /// The task to close
    #[arg(long)]
    pub task: u64,
    /// A gate run "command|exit_code|evidence" (repeatable): state.json and the log's Gate record
    #[arg(long, value_name = "SPEC", allow_hyphen_values = true)]
    pub gate: Vec<String>,
    /// The commit that did the work (7–40 lower-case hex)
    #[arg(long, value_name = "SHA")]
    pub commit: Option<String>,
    /// One line on what the task did (log Summary:, the PROGRESS entry)
    #[arg(long, value_name = "TEXT", allow_hyphen_values = true)]
    pub summary: Option<String>,
    /// The files or artifacts it produced (log Outputs:)
    #[arg(long, value_name = "TEXT", allow_hyphen_values = true)]
    pub outputs: Option<String>,
    /// none | update X | create Y | defer — reason (log Skills disposition:)
    #[arg(
        long = "skills-disposition",
        value_name = "TEXT",
        allow_hyphen_values = true
    )]
    pub skills_disposition: Option<String>,
    /// What documentation changed, or why none did (log Documentation decision:)
    #[arg(
        long = "documentation-decision",
        value_name = "TEXT",
        allow_hyphen_values = true
    )]
    pub documentation_decision: Option<String>,
    /// What worked (outcome.worked)
    #[arg(long, value_name = "TEXT", allow_hyphen_values = true)]
    pub worked: Option<String>,
    /// An approach tried (outcome.tried; repeatable)
    #[arg(long, value_name = "TEXT", allow_hyphen_values = true)]
    pub tried: Vec<String>,
    /// An approach that failed (outcome.failed; repeatable)
    #[arg(long, value_name = "TEXT", allow_hyphen_values = true)]
    pub failed: Vec<String>,
    /// Notes (outcome.notes)
    #[arg(long, value_name = "TEXT", allow_hyphen_values = true)]
    pub notes: Option<String>,
    /// Agent name for updated_by
    #[arg(long, value_name = "NAME")]
    pub agent: Option<String>,
    /// Model name for updated_by
    #[arg(long, value_name = "NAME")]
    pub model: Option<String>,
    #[command(flatten)]
    pub guard: super::wait::GuardArgs,
}

pub(super) fn run(command: Command, ctx: &Context) -> anyhow::Result<ExitCode> {
    let Command::Done(args) = command;
    crate::redact_output_for(&ctx.cwd.join(&args.plan_dir));
    let req = TaskDoneRequest {
        plan_dir: ctx.cwd.join(&args.plan_dir),
        task: args.task,
        gates: args.gate.clone(),
        commit: args.commit.clone(),
        worked: args.worked.clone(),
        tried: args.tried.clone(),
        failed: args.failed.clone(),
        notes: args.notes.clone(),
        summary: args.summary.clone(),
        outputs: args.outputs.clone(),
        skills_disposition: args.skills_disposition.clone(),
        documentation_decision: args.documentation_decision.clone(),
        agent: args.agent.clone(),
        model: args.model.clone(),
        expected_sha256: args.guard.expected_sha256.clone(),
        dry_run: args.guard.dry_run,
        clock: Clock::from_env()?,
    };
    let outcome = args
        .guard
        .wait
        .run(|| task_done::task_done(req.clone()).map_err(error))?;
    let applied = (outcome.result == "applied").then_some(&outcome.confirmation);
    super::outcome::deliver(ctx, &outcome, &outcome.to_text(), applied)
}
