//! `planseal verify` (DWP checks not built yet; the report plumbing is).

use super::Context;
use crate::print_out;
use planseal::report::{Report, json, text};

#[derive(clap::Args, Debug)]
pub struct Args {}

pub fn run(_args: Args, ctx: &Context) -> anyhow::Result<i32> {
    let report = Report::default();
    if ctx.json {
        print_out(&format!("{:#}\n", json::to_value(&report)));
    } else {
        print_out(&text::render(&report, text::Style { color: ctx.color }));
    }
    Ok(report.verdict().exit_code())
}
