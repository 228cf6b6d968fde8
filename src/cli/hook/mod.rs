//! `planseal hook <NAME>`: what planseal does when a hook it installed runs it
//! (`planseal hooks install`). One variant per hook; each program's hooks live in a module of
//! their own — git's in [`git`] (`docs/git-hooks.md`). This file only dispatches.

mod git;

pub(super) use git::{MessageDocument, PlansDocument};

use super::Context;
use planseal::report::ExitCode;

#[derive(clap::Subcommand, Debug)]
pub(super) enum Command {
    /// git pre-commit: verify the plans the commit touches (every plan when .dwp/ is ignored)
    PreCommit(git::PreCommitArgs),
    /// git pre-push: verify every plan of the work tree
    PrePush(git::PrePushArgs),
    /// git commit-msg: a `- Task N of PLAN_x` subject must name a task in progress
    CommitMsg(git::CommitMsgArgs),
}

pub(super) fn run(command: Command, ctx: &Context) -> anyhow::Result<ExitCode> {
    match command {
        Command::PreCommit(a) => git::pre_commit(a, ctx),
        Command::PrePush(a) => git::pre_push(a, ctx),
        Command::CommitMsg(a) => git::commit_msg(a, ctx),
    }
}
