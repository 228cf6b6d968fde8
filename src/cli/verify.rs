//! `planseal verify`: the read-only conformance report (`docs/verify.md`). Exit 0 CONFORMANT,
//! 1 NOT CONFORMANT, 2 UNVERIFIED or usage error.

use super::Context;
use crate::{print_json, print_out};
use planseal::report::{ExitCode, HintedError, json, text};
use planseal::verify::{VerifyOptions, verify};
use std::path::PathBuf;

#[derive(clap::Args, Debug)]
#[command(
    after_help = "Examples:\n  planseal verify                          every plan of this repository (and GSD/Reversa/checkpoint files)\n  planseal verify .dwp/plans/PLAN_x        one plan folder\n  planseal verify --plan PLAN_x --json     one plan, as JSON\n\nExit codes: 0 CONFORMANT, 1 NOT CONFORMANT, 2 UNVERIFIED (something could not be read) or usage error."
)]
pub(super) struct Args {
    /// A plan folder, a .dwp folder or a repository root (default: search from the current directory)
    #[arg(value_name = "PATH")]
    pub path: Option<PathBuf>,
    /// Only the plan with this folder name (PLAN_ prefix optional)
    #[arg(long, value_name = "NAME")]
    pub plan: Option<String>,
    /// The .dwp folder to use instead of searching
    #[arg(long, value_name = "DIR", env = "DWP_DIR")]
    pub dwp_dir: Option<PathBuf>,
    /// Also check this GSD .planning/STATE.md
    #[arg(long, value_name = "FILE")]
    pub gsd: Vec<PathBuf>,
}

pub(super) fn run(args: Args, ctx: &Context) -> anyhow::Result<ExitCode> {
    // A `.env` value quoted in a plan file, a log or a commit subject is never printed.
    crate::redact_output_for(
        &ctx.cwd
            .join(args.path.as_deref().unwrap_or(std::path::Path::new("."))),
    );
    let opts = VerifyOptions {
        cwd: ctx.cwd.clone(),
        path: args.path,
        plan: args.plan,
        dwp_dir: args.dwp_dir.filter(|d| !d.as_os_str().is_empty()),
        gsd: args.gsd,
    };
    let report = verify(&opts).map_err(|e| HintedError::usage(e.to_string()).hint(e.hint()))?;
    if ctx.json {
        print_json(json::to_value(&report));
    } else {
        print_out(&text::render(&report, text::Style { color: ctx.color }));
    }
    Ok(report.verdict().exit_code())
}
