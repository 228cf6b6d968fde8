//! `planseal refine PLAN_DIR --skip N … | --add-task …`: the user's scope changes of a DWP plan
//! (docs/refine.md). The arguments and the printing; the command itself is
//! `planseal::dwp::ops::refine`.

use super::Context;
use super::dwp::error;
use planseal::clock::Clock;
use planseal::dwp::model::markdown::rewrite::TaskDraft;
use planseal::dwp::ops::refine::{self, RefineAction, RefineRequest};
use planseal::report::ExitCode;
use std::path::PathBuf;

#[derive(clap::Args, Debug)]
#[command(
    group = clap::ArgGroup::new("change").required(true).args(["skip", "add_task"]),
    after_help = "Scope is the user's decision. `--skip` removes a task from scope: a dated \
`## Refinement` entry in PROGRESS.md (the task, `Authority: user`, the reason), then the \
transition to `skipped` — the record `update --status skipped` requires. Strict order is \
unchanged: a skipped task still blocks the tasks after it, and a plan with a skipped task never \
reads completed. To finish a plan without some work, re-scope it instead: a `deferred \
requirement` amendment moves the criterion to a named task (`planseal amend`).\n\n\
`--add-task` inserts a task before the Final Review, which takes the next number in its task \
file, the README and state.json; a section not given is written as an explicit `TODO:`. The \
manifest is never touched.\n\n\
Markdown first, state.json last, under state.json's lock: after a crash, running the same \
command again finishes it.\n\n\
Examples:\n  planseal refine .dwp/plans/PLAN_x --skip 3 --reason \"the docs move to the wiki\" --authority user\n  \
planseal refine .dwp/plans/PLAN_x --add-task --title \"Load test the limiter\" \\\n      \
--goal \"Measure p95 under load\" --acceptance \"p95 under 200 ms\" --validation \"make bench\"\n  \
planseal refine .dwp/plans/PLAN_x --add-task --title \"Docs\" --dry-run   show the diff only\n\n\
Exit codes: 0 applied (or already so), 1 refused (nothing written), 2 usage error, 3 I/O error \
before the commit point, 4 applied but not confirmed.\nTest clock: \
PLANSEAL_FAKE_NOW=2026-10-05T09:00:00+00:00."
)]
pub(super) struct Args {
    /// The plan folder (.dwp/plans/PLAN_<name>)
    #[arg(value_name = "PLAN_DIR")]
    pub plan_dir: PathBuf,
    /// Remove task N from scope (needs --reason and --authority user)
    #[arg(long, value_name = "N", requires_all = ["reason", "authority"])]
    pub skip: Option<u64>,
    /// Why the scope changes, in the user's words
    #[arg(long, value_name = "TEXT", allow_hyphen_values = true)]
    pub reason: Option<String>,
    /// Who decides: only `user` (the user decides what the plan delivers)
    #[arg(long, value_name = "WHO", requires = "skip")]
    pub authority: Option<String>,
    /// Insert a task before the Final Review (needs --title)
    #[arg(long, requires = "title")]
    pub add_task: bool,
    /// The new task's title
    #[arg(
        long,
        value_name = "TEXT",
        requires = "add_task",
        allow_hyphen_values = true
    )]
    pub title: Option<String>,
    /// The new task's Goal
    #[arg(
        long,
        value_name = "TEXT",
        requires = "add_task",
        allow_hyphen_values = true
    )]
    pub goal: Option<String>,
    /// The new task's Context
    #[arg(
        long,
        value_name = "TEXT",
        requires = "add_task",
        allow_hyphen_values = true
    )]
    pub context: Option<String>,
    /// The new task's Touched Surface
    #[arg(
        long,
        value_name = "TEXT",
        requires = "add_task",
        allow_hyphen_values = true
    )]
    pub touched_surface: Option<String>,
    /// One acceptance criterion of the new task (repeatable)
    #[arg(
        long,
        value_name = "TEXT",
        requires = "add_task",
        allow_hyphen_values = true
    )]
    pub acceptance: Vec<String>,
    /// The command that validates the new task
    #[arg(
        long,
        value_name = "CMD",
        requires = "add_task",
        allow_hyphen_values = true
    )]
    pub validation: Option<String>,
    /// Agent name (updated_by on a skip, and the journal)
    #[arg(long, value_name = "NAME")]
    pub agent: Option<String>,
    /// Model name (updated_by on a skip, and the journal)
    #[arg(long, value_name = "NAME")]
    pub model: Option<String>,
    #[command(flatten)]
    pub guard: super::wait::GuardArgs,
}

pub(super) fn run(args: Args, ctx: &Context) -> anyhow::Result<ExitCode> {
    crate::redact_output_for(&ctx.cwd.join(&args.plan_dir));
    let action = match args.skip {
        Some(task) => RefineAction::Skip {
            task,
            reason: args.reason.clone().unwrap_or_default(),
            authority: args.authority.clone().unwrap_or_default(),
        },
        None => RefineAction::AddTask {
            draft: TaskDraft {
                title: args.title.clone().unwrap_or_default(),
                goal: args.goal.clone(),
                context: args.context.clone(),
                touched_surface: args.touched_surface.clone(),
                acceptance: args.acceptance.clone(),
                validation: args.validation.clone(),
            },
            reason: args.reason.clone(),
        },
    };
    let req = RefineRequest {
        plan_dir: ctx.cwd.join(&args.plan_dir),
        action,
        expected_sha256: args.guard.expected_sha256.clone(),
        dry_run: args.guard.dry_run,
        agent: args.agent.clone(),
        model: args.model.clone(),
        clock: Clock::from_env()?,
    };
    let outcome = args
        .guard
        .wait
        .run(|| refine::refine(req.clone()).map_err(error))?;
    let applied = (outcome.result == "applied").then_some(&outcome.confirmation);
    super::outcome::deliver(ctx, &outcome, &outcome.to_text(), applied)
}
