//! `planseal reversa …` (not built yet).

use super::Context;

#[derive(clap::Subcommand, Debug)]
pub enum Command {
    /// Show the state (not built yet)
    Status,
}

pub fn run(_command: Command, _ctx: &Context) -> anyhow::Result<i32> {
    super::not_yet("reversa")
}
