//! `planseal verify`: the read-only conformance report (`docs/verify.md`), as text, JSON or a
//! CI format (`docs/ci.md`). Exit 0 CONFORMANT, 1 NOT CONFORMANT, 2 UNVERIFIED or usage error,
//! whatever the format.

use super::Context;
use crate::{print_json, print_out};
use planseal::report::ci::{Locator, github, junit, sarif};
use planseal::report::redact::EnvRedactor;
use planseal::report::{ExitCode, HintedError, json, text};
use planseal::verify::{VerifyOptions, repository_root, verify};
use std::path::PathBuf;

#[derive(clap::Args, Debug)]
#[command(
    after_help = "Examples:\n  planseal verify                          every plan of this repository (and GSD/Reversa/checkpoint files)\n  planseal verify .dwp/plans/PLAN_x        one plan folder\n  planseal verify --plan PLAN_x --json     one plan, as JSON\n  planseal verify --format github          GitHub Actions annotations (docs/ci.md)\n  planseal verify --format sarif > planseal.sarif\n  planseal verify --format junit > planseal-junit.xml\n\nExit codes: 0 CONFORMANT, 1 NOT CONFORMANT, 2 UNVERIFIED (something could not be read) or usage error — the same in every format."
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
    /// The report's format: text, json (as --json), github (workflow commands), sarif (SARIF
    /// 2.1.0), junit (JUnit XML); files are named from the repository root
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub format: Option<Format>,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(super) enum Format {
    Text,
    Json,
    Github,
    Sarif,
    Junit,
}

pub(super) fn run(args: Args, ctx: &Context) -> anyhow::Result<ExitCode> {
    let format = match (args.format, ctx.json) {
        (None, false) => Format::Text,
        (None | Some(Format::Json), true) => Format::Json,
        (Some(f), false) => f,
        (Some(_), true) => {
            return Err(
                HintedError::usage("--json and --format name two different formats")
                    .hint("drop --json (it is --format json), or drop --format")
                    .into(),
            );
        }
    };
    // A `.env` value quoted in a plan file, a log or a commit subject is never printed.
    let target = target(&args, ctx);
    crate::redact_output_for(&target);
    let report = report(args, ctx)?;
    let code = report.verdict().exit_code();
    if matches!(format, Format::Github | Format::Sarif | Format::Junit) {
        // These formats encode text (`%0A`, `&amp;`): a value is hidden before it is encoded.
        let report = EnvRedactor::for_target(&target).clean_report(report);
        let locator = Locator::new(&ctx.cwd, repository_root(&target));
        match format {
            Format::Github => print_out(&github::render(&report, &locator)),
            Format::Sarif => crate::print_foreign_json(sarif::to_value(&report, &locator)),
            _ => print_out(&junit::render(&report, &locator)),
        }
        return Ok(code);
    }
    if format == Format::Json {
        print_json(document(&report));
    } else {
        print_out(&text::render(&report, text::Style { color: ctx.color }));
    }
    Ok(code)
}

/// The path whose `.env` values are hidden from the output.
pub(super) fn target(args: &Args, ctx: &Context) -> PathBuf {
    ctx.cwd
        .join(args.path.as_deref().unwrap_or(std::path::Path::new(".")))
}

/// The conformance report (the verdict in it), or the usage error that kept it from being made.
pub(super) fn report(args: Args, ctx: &Context) -> anyhow::Result<planseal::report::Report> {
    let opts = VerifyOptions {
        cwd: ctx.cwd.clone(),
        path: args.path,
        plan: args.plan,
        dwp_dir: args.dwp_dir.filter(|d| !d.as_os_str().is_empty()),
        gsd: args.gsd,
    };
    Ok(verify(&opts).map_err(|e| HintedError::usage(e.to_string()).hint(e.hint()))?)
}

/// The `--json` document of the report (what `verify --json` prints and the MCP tool returns).
pub(super) fn document(report: &planseal::report::Report) -> serde_json::Value {
    planseal::report::envelope::seal(json::to_value(report), "ok")
}
