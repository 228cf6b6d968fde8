//! `planseal hook <NAME>`: what planseal does when a hook it installed runs it
//! (`planseal hooks install`). One variant per hook; each program's hooks live in a module of
//! their own — Claude Code's `session-start` and `stop` in [`claude`] (`docs/claude-code.md`),
//! git's in [`git`] (`docs/git-hooks.md`). This file only dispatches.

pub(in crate::cli) mod claude;
mod git;

pub(super) use git::{MessageDocument, PlansDocument};

use super::Context;
use planseal::report::ExitCode;

#[derive(clap::Subcommand, Debug)]
pub(super) enum Command {
    /// Claude Code SessionStart hook: `planseal status` (and `checkpoint context`) as context
    #[command(after_help = claude::SESSION_START_HELP)]
    SessionStart,
    /// Claude Code Stop hook: block the stop while a plan is mid-publication, stale-locked or falsely complete
    #[command(after_help = claude::STOP_HELP)]
    Stop,
    /// git pre-commit: verify the plans the commit touches (every plan when .dwp/ is ignored)
    PreCommit(git::PreCommitArgs),
    /// git pre-push: verify every plan of the work tree
    PrePush(git::PrePushArgs),
    /// git commit-msg: a `- Task N of PLAN_x` subject must name a task in progress
    CommitMsg(git::CommitMsgArgs),
}

pub(super) fn run(command: Command, ctx: &Context) -> anyhow::Result<ExitCode> {
    match command {
        Command::SessionStart => Ok(claude::session_start(ctx)),
        Command::Stop => Ok(claude::stop(ctx)),
        Command::PreCommit(a) => git::pre_commit(a, ctx),
        Command::PrePush(a) => git::pre_push(a, ctx),
        Command::CommitMsg(a) => git::commit_msg(a, ctx),
    }
}
