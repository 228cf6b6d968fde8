//! `planseal diff PLAN_DIR`: state.json vs the markdown and git (default), every file vs the
//! receipt (`--since-publication`), the plan at a revision vs now
//! (`--against REV`), or a candidate state vs the current one (`--candidate FILE`). Text (coloured
//! on a terminal), `--json`, or `--format markdown` for a pull-request comment. The arguments and
//! the printing; the command itself is `planseal::dwp::ops::diff`.

use super::Context;
use super::dwp::{error, git_progress};
use crate::{print_json, print_out};
use clap::ValueEnum;
use planseal::dwp::ops::diff::{self, DiffMode, DiffOptions};
use planseal::report::ExitCode;
use std::path::PathBuf;

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub(super) enum Format {
    Text,
    Markdown,
}

#[derive(clap::Args, Debug)]
#[command(
    after_help = "Examples:\n  planseal diff .dwp/plans/PLAN_x                        state.json (and git) against the markdown\n  planseal diff .dwp/plans/PLAN_x --since-publication    every file against the receipt's hashes\n  planseal diff .dwp/plans/PLAN_x --against HEAD~3       the plan's files at a revision against now\n  planseal diff .dwp/plans/PLAN_x --candidate cand.json  what finalize would publish\n  planseal diff .dwp/plans/PLAN_x --format markdown      for a pull-request comment\n\nExit codes: 0 when it ran; with --exit-code, 1 when it found a difference."
)]
pub(super) struct Args {
    /// The plan folder (.dwp/plans/PLAN_<name>)
    pub plan_dir: PathBuf,
    /// Compare the plan's files at this revision with now (the plan must be tracked by git)
    #[arg(long, value_name = "REV", conflicts_with_all = ["candidate", "since_publication"])]
    pub against: Option<String>,
    /// Compare a candidate state.json with the current one (what finalize would publish)
    #[arg(long, value_name = "FILE", conflicts_with = "since_publication")]
    pub candidate: Option<PathBuf>,
    /// Compare every file the receipt covers with the hash it recorded at publication (the
    /// line diff where git holds the published bytes; hashes only when .dwp/ is untracked)
    #[arg(long)]
    pub since_publication: bool,
    /// Output format of the text report (`--json` overrides it)
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Exit 1 when a difference was found (like `git diff --exit-code`)
    #[arg(long)]
    pub exit_code: bool,
}

pub(super) fn run(args: Args, ctx: &Context) -> anyhow::Result<ExitCode> {
    // A `.env` value quoted in a plan file, a log or a commit subject is never printed.
    crate::redact_output_for(&ctx.cwd.join(&args.plan_dir));
    let (format, exit_code) = (args.format, args.exit_code);
    let outcome = outcome(args, ctx)?;
    if ctx.json {
        print_json(super::outcome::read_document(&outcome)?);
    } else if format == Format::Markdown {
        print_out(&outcome.to_markdown());
    } else {
        print_out(&outcome.to_text(ctx.color));
    }
    Ok(ExitCode::failed_if(exit_code && outcome.differs()))
}

/// What the comparison found, or the error that kept it from running.
pub(super) fn outcome(args: Args, ctx: &Context) -> anyhow::Result<diff::DiffOutcome> {
    let mode = match (args.against, args.candidate) {
        (Some(rev), _) => DiffMode::Against(rev),
        (None, Some(file)) => DiffMode::Candidate(file),
        (None, None) if args.since_publication => DiffMode::SincePublication,
        (None, None) => DiffMode::StateVsMarkdown,
    };
    let opts = DiffOptions {
        cwd: ctx.cwd.clone(),
        plan_dir: args.plan_dir,
        mode,
    };
    diff::diff(&opts, git_progress()).map_err(error)
}
