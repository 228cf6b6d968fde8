//! `planseal amend PLAN_DIR --task N …`: an amendment record, appended and applied
//! (docs/amend.md). The arguments and the printing; the command itself is
//! `planseal::dwp::ops::amend`.

use super::Context;
use super::dwp::error;
use planseal::clock::Clock;
use planseal::dwp::model::markdown::{Authority, Disposition};
use planseal::dwp::ops::amend::{self, AmendRequest};
use planseal::report::ExitCode;
use std::path::PathBuf;

#[derive(Copy, Clone, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(super) enum DispositionArg {
    /// The criterion itself changes (give --revised)
    RevisedCriterion,
    /// The requirement moves to another task (name it with --affects)
    DeferredRequirement,
    /// A scenario is recorded as not executed
    UnexecutedScenario,
    /// A gate is recorded as failed
    FailedGate,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(super) enum AuthorityArg {
    User,
    Developer,
    Evidence,
}

#[derive(clap::Args, Debug)]
#[command(
    after_help = "Appends `### Amendment <n> — <today>` with its nine labels to the task's \
log (never backdated), mirrors it in a dated PROGRESS.md entry, and applies it to state.json: \
the gate runs it invalidates get the evidence prefix `invalidated by refine (Amendment <n>): ` \
(history, never passing evidence: completing the task again needs a new passing run), and a \
completed task is reopened. While a later task is completed, name it with --affects.\n\n\
Examples:\n  planseal amend .dwp/plans/PLAN_x --task 2 --criterion \"p95 under 200 ms\" \\\n      \
--observed \"p95 is 240 ms on the CI runner\" --disposition failed-gate \\\n      \
--reason \"the benchmark ran on a debug build\" --authority evidence --invalidates \"make bench\"\n  \
planseal amend .dwp/plans/PLAN_x --task 3 --criterion \"…\" --observed \"…\" \\\n      \
--disposition deferred-requirement --affects 3 --affects 4 --reason \"…\" --authority user\n  \
planseal amend … --dry-run        show the diff, write nothing\n\n\
Exit codes: 0 applied, 1 refused (nothing written), 2 usage error, 3 I/O error before the \
commit point, 4 applied but not confirmed.\nTest clock: PLANSEAL_FAKE_NOW=2026-10-05T09:00:00+00:00."
)]
pub(super) struct Args {
    /// The plan folder (.dwp/plans/PLAN_<name>)
    #[arg(value_name = "PLAN_DIR")]
    pub plan_dir: PathBuf,
    /// The task whose criterion changes
    #[arg(long)]
    pub task: u64,
    /// Original criterion: the criterion as the plan states it, verbatim
    #[arg(long, value_name = "TEXT", allow_hyphen_values = true)]
    pub criterion: String,
    /// Observed: what was found instead
    #[arg(long, value_name = "TEXT", allow_hyphen_values = true)]
    pub observed: String,
    /// Disposition
    #[arg(long, value_enum)]
    pub disposition: DispositionArg,
    /// Revised criterion (default: none)
    #[arg(long, value_name = "TEXT", allow_hyphen_values = true)]
    pub revised: Option<String>,
    /// Reason
    #[arg(long, value_name = "TEXT", allow_hyphen_values = true)]
    pub reason: String,
    /// Authority: who decided
    #[arg(long, value_enum)]
    pub authority: AuthorityArg,
    /// An affected task (repeatable; default: the task itself)
    #[arg(long, value_name = "N")]
    pub affects: Vec<u32>,
    /// A gate run the amendment invalidates: its command, or the name of its log (repeatable)
    #[arg(long, value_name = "GATE", allow_hyphen_values = true)]
    pub invalidates: Vec<String>,
    /// Evidence that still holds (repeatable)
    #[arg(long, value_name = "GATE", allow_hyphen_values = true)]
    pub preserves: Vec<String>,
    /// Agent name for updated_by (on a reopen)
    #[arg(long, value_name = "NAME")]
    pub agent: Option<String>,
    /// Model name for updated_by (on a reopen)
    #[arg(long, value_name = "NAME")]
    pub model: Option<String>,
    #[command(flatten)]
    pub guard: super::wait::GuardArgs,
}

pub(super) fn run(args: Args, ctx: &Context) -> anyhow::Result<ExitCode> {
    crate::redact_output_for(&ctx.cwd.join(&args.plan_dir));
    let req = AmendRequest {
        plan_dir: ctx.cwd.join(&args.plan_dir),
        task: args.task,
        criterion: args.criterion.clone(),
        observed: args.observed.clone(),
        disposition: match args.disposition {
            DispositionArg::RevisedCriterion => Disposition::RevisedCriterion,
            DispositionArg::DeferredRequirement => Disposition::DeferredRequirement,
            DispositionArg::UnexecutedScenario => Disposition::UnexecutedScenario,
            DispositionArg::FailedGate => Disposition::FailedGate,
        },
        revised: args.revised.clone(),
        reason: args.reason.clone(),
        authority: match args.authority {
            AuthorityArg::User => Authority::User,
            AuthorityArg::Developer => Authority::Developer,
            AuthorityArg::Evidence => Authority::Evidence,
        },
        affects: args.affects.clone(),
        invalidates: args.invalidates.clone(),
        preserves: args.preserves.clone(),
        expected_sha256: args.guard.expected_sha256.clone(),
        dry_run: args.guard.dry_run,
        agent: args.agent.clone(),
        model: args.model.clone(),
        clock: Clock::from_env()?,
    };
    let outcome = args
        .guard
        .wait
        .run(|| amend::amend(req.clone()).map_err(error))?;
    let applied = (outcome.result == "applied").then_some(&outcome.confirmation);
    super::outcome::deliver(ctx, &outcome, &outcome.to_text(), applied)
}
