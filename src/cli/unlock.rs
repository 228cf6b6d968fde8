//! `planseal unlock` (not built yet).

use super::Context;

#[derive(clap::Args, Debug)]
pub struct Args {}

pub fn run(_args: Args, _ctx: &Context) -> anyhow::Result<i32> {
    super::not_yet("unlock")
}
