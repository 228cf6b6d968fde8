//! `planseal gsd statusline`: GSD's whole status line for Claude Code (`--stdin`), or the GSD
//! state segment alone; the arguments and the printing.

use super::{Context, error};
use crate::{print_json, print_out};
use planseal::clock::Clock;
use planseal::gsd::locate::Lookup;
use planseal::gsd::ops;
use planseal::report::ExitCode;
use std::path::PathBuf;

#[derive(clap::Args, Debug)]
pub(in crate::cli) struct StatuslineArgs {
    /// The STATE.md to render (default: find .planning/STATE.md walking up from here)
    pub file: Option<PathBuf>,
    /// GSD's compact form (default: `statusline.state_format` in .planning/config.json)
    #[arg(long)]
    pub compact: bool,
    /// Read Claude Code's statusline JSON on stdin and print GSD's whole line for it
    #[arg(long, conflicts_with = "file")]
    pub stdin: bool,
    /// With --stdin: print only the GSD state segment, starting from the JSON's workspace folder
    #[arg(long, requires = "stdin")]
    pub segment: bool,
    /// Fail (exit 2) when there is no readable STATE.md instead of printing nothing (not with
    /// the whole line)
    #[arg(long)]
    pub strict: bool,
}

/// `gsd statusline --json`: the line the statusline prints.
#[derive(serde::Serialize, schemars::JsonSchema)]
pub(in crate::cli) struct StatuslineDocument<'a> {
    result: &'static str,
    /// The line, as printed without `--json`.
    line: &'a str,
}

pub(in crate::cli) fn statusline(
    args: &StatuslineArgs,
    ctx: &Context,
    lookup: Lookup,
) -> anyhow::Result<ExitCode> {
    if args.stdin && !args.segment {
        return whole_line(args, ctx);
    }
    let mut stdin = std::io::stdin();
    let opts = ops::StatuslineOptions {
        cwd: ctx.cwd.clone(),
        file: args.file.clone(),
        stdin: args.stdin.then_some(&mut stdin as &mut dyn std::io::Read),
        compact: args.compact,
        strict: args.strict,
        lookup,
    };
    let outcome = ops::statusline(opts).map_err(error)?;
    crate::redact_output_with(outcome.redactor);
    print_line(ctx, &outcome.text)
}

/// `--stdin`: the hook's whole line; the bridge file is written by the library.
fn whole_line(args: &StatuslineArgs, ctx: &Context) -> anyhow::Result<ExitCode> {
    if args.strict {
        return Err(planseal::report::HintedError::usage(
            "--strict applies to the state segment only",
        )
        .hint("use --stdin --segment --strict, or drop --strict")
        .into());
    }
    let input = ops::read_stdin_bounded(ops::STDIN_LIMIT, ops::STDIN_TIMEOUT).map_err(error)?;
    let now = Clock::from_env()?.now().as_second();
    let opts = ops::LineOptions {
        input,
        env: planseal::gsd::hookline::Environment::from_process(ctx.cwd.clone(), now),
        compact: args.compact,
    };
    let outcome = ops::statusline_line(opts).map_err(error)?;
    crate::redact_output_with(outcome.redactor);
    print_line(ctx, &outcome.text)
}

/// The statusline's line: in its document with `--json`, else as it is (nothing for an empty
/// line).
fn print_line(ctx: &Context, line: &str) -> anyhow::Result<ExitCode> {
    if ctx.json {
        print_json(serde_json::to_value(StatuslineDocument {
            result: "ok",
            line,
        })?);
    } else if !line.is_empty() {
        print_out(line);
    }
    Ok(ExitCode::Ok)
}
