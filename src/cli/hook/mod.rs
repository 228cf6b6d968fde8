//! `planseal hook <EVENT>`: the commands agent tools and git run as hooks. This module only
//! dispatches; each family of hooks has its own module: [`claude`] — Claude Code's
//! `session-start` and `stop` (docs/claude-code.md).

pub(in crate::cli) mod claude;

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
}

pub(super) fn run(command: Command, ctx: &Context) -> anyhow::Result<ExitCode> {
    match command {
        Command::SessionStart => Ok(claude::session_start(ctx)),
        Command::Stop => Ok(claude::stop(ctx)),
    }
}
