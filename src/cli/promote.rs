//! `planseal promote PLAN_DIR`: a Lite DWP plan promoted to Full (docs/promote.md). The
//! arguments and the printing; the command itself is `planseal::dwp::ops::promote`.

use super::Context;
use super::dwp::error;
use planseal::clock::Clock;
use planseal::dwp::ops::promote::{self, PromoteRequest};
use planseal::report::ExitCode;
use std::path::PathBuf;

#[derive(clap::Args, Debug)]
#[command(
    after_help = "Moves each inline record `## Task N: Title {#task-N}` of the README into its \
task file `N.task_<slug>.md` (the last one `N.task_final_review.md`), with its text kept and \
its headings raised one level; the sections a Full task file has and the record lacks (Read \
Before Starting, Instructions, Outputs, Execution Checklist) are added with an explicit \
`TODO:`. The README loses the records, links each index line to its file and says `Plan \
Format: Full`; state.json's locators become `{kind: file, …}` and its format `full`. The \
manifest keeps `plan_format: lite`: it records how the plan was created.\n\n\
state.json records each phase before the next step (promotion.phase intent → tasks_written → \
switched, materialization promoting → ready): interrupted, `planseal verify` names the phase \
and the same command resumes from it. A completed plan is not promoted.\n\n\
Examples:\n  planseal promote .dwp/plans/PLAN_x\n  \
planseal promote .dwp/plans/PLAN_x --dry-run      show every file's diff, write nothing\n  \
planseal promote .dwp/plans/PLAN_x --json\n\n\
Exit codes: 0 applied (or already Full), 1 refused (nothing written), 2 usage error, 3 I/O \
error before the commit point, 4 applied but not confirmed.\nTest clock: \
PLANSEAL_FAKE_NOW=2026-10-05T09:00:00+00:00."
)]
pub(super) struct Args {
    /// The plan folder (.dwp/plans/PLAN_<name>)
    #[arg(value_name = "PLAN_DIR")]
    pub plan_dir: PathBuf,
    #[command(flatten)]
    pub guard: super::wait::GuardArgs,
}

pub(super) fn run(args: Args, ctx: &Context) -> anyhow::Result<ExitCode> {
    crate::redact_output_for(&ctx.cwd.join(&args.plan_dir));
    let req = PromoteRequest {
        plan_dir: ctx.cwd.join(&args.plan_dir),
        expected_sha256: args.guard.expected_sha256.clone(),
        dry_run: args.guard.dry_run,
        clock: Clock::from_env()?,
    };
    let outcome = args
        .guard
        .wait
        .run(|| promote::promote(req.clone()).map_err(error))?;
    let applied = (outcome.result == "applied").then_some(&outcome.confirmation);
    super::outcome::deliver(ctx, &outcome, &outcome.to_text(), applied)
}
