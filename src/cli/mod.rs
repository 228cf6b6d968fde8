//! Command-line definitions: the global flags, one module per command, and the one place where
//! errors become exit codes (0 success, 1 refused / NOT CONFORMANT, 2 usage error / UNVERIFIED,
//! 3 a writer's I/O error before its commit point, 4 applied but not confirmed).

mod abbrev;
mod amend;
mod approve;
mod checkpoint;
mod completions;
mod demo;
mod diff;
mod dwp;
mod errors;
mod fast;
mod finalize;
mod gsd;
mod hook;
mod hooks;
mod lazy;
mod log;
mod man;
mod mcp;
mod merge_driver;
mod outcome;
mod promote;
mod publish_check;
mod rebuild;
mod recover;
mod refine;
mod report;
mod reversa;
mod schema;
mod status;
mod task;
mod unlock;
mod update;
mod verify;
mod wait;

use clap::{Parser, Subcommand, ValueEnum};
pub(crate) use errors::{refusal_ref, render_refusal};
use errors::{report_error, report_usage_error};
use planseal::report::{ExitCode, HintedError};
use std::io::IsTerminal;
use std::path::PathBuf;

#[derive(Parser, Debug)]
#[command(
    name = "planseal",
    version,
    about = "Keep AI agents' plan state honest: verify, guard, finalize and recover plan files",
    long_about = "planseal checks and guards the state files that AI coding agents keep: Deep Work \
Plan (.dwp/plans), GSD (.planning/STATE.md), Reversa (.reversa/state.json) and the checkpoint \
protocol (PROJECT-CHECKPOINT.md).\n\nExit codes: 0 success / CONFORMANT, 1 refused / NOT \
CONFORMANT (nothing was written), 2 usage error / UNVERIFIED, 3 I/O error before the \
commit point (nothing was applied), 4 applied but not confirmed.",
    after_help = "Examples:\n  planseal verify                      check every plan in this repository\n  planseal verify --json               the same as one JSON document\n  planseal update .dwp/plans/PLAN_x/state.json --task 1 --status in_progress\n  planseal demo                        walk a plan's whole life cycle in a scratch repository"
)]
struct Cli {
    #[command(flatten)]
    pub global: Global,
    #[command(subcommand)]
    pub command: Command,
}

/// Flags every command takes. They match only when written in full, so they never make a
/// prefix of the DWP helper's own options ambiguous.
#[derive(clap::Args, Debug, Clone)]
struct Global {
    /// Print one JSON document on stdout instead of text
    #[arg(long, global = true)]
    pub json: bool,
    /// When to colour the text output
    #[arg(long, global = true, value_enum, default_value_t = ColorChoice::Auto, value_name = "WHEN")]
    pub color: ColorChoice,
    /// Run as if started in DIR
    #[arg(short = 'C', global = true, value_name = "DIR")]
    pub directory: Option<PathBuf>,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
enum ColorChoice {
    Auto,
    Always,
    Never,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Read-only conformance check of every plan (and GSD, Reversa, checkpoint files) found here
    Verify(verify::Args),
    /// Apply one guarded transition to a DWP state.json (drop-in for the DWP helper)
    Update(Box<update::Args>),
    /// Record the user's approval of a DWP plan (state.json, README Approval line, PROGRESS.md)
    Approve(approve::Args),
    /// A DWP task's close-out: `task done` writes its log, README box, PROGRESS entry, then the state
    #[command(subcommand)]
    Task(task::Command),
    /// Record an amendment of a DWP task and apply it (invalidated evidence, reopen)
    Amend(Box<amend::Args>),
    /// List everything still missing before a DWP plan can be published, each with its fix
    PublishCheck(publish_check::Args),
    /// Change a DWP plan's scope: skip a task (the user's decision) or add one before the Final Review
    Refine(Box<refine::Args>),
    /// Promote a Lite DWP plan to Full: each inline record into its task file, resumable
    Promote(promote::Args),
    /// Show who holds a lock and remove it when its owner is provably gone
    Unlock(unlock::Args),
    /// Publish a plan's completed state through the verified finalization transaction
    Finalize(finalize::Args),
    /// Finish or roll back an interrupted publication (a leftover .finalizing.json)
    Recover(recover::Args),
    /// Regenerate state.json from the markdown and the git history
    Rebuild(rebuild::Args),
    /// Report what changed and what disagrees between state.json, the markdown and git
    Diff(diff::Args),
    /// The plan's timeline from git: which commit completed which task
    Log(log::Args),
    /// The resume view: current task, checkpoint, blocker, lock, marker, receipt, next command
    Status(status::Args),
    /// A self-contained HTML page of every plan: timeline, gates, commits, findings, drift
    Report(report::Args),
    /// GSD .planning/STATE.md: statusline, status, check, sync, recover, decision, blocker, session
    #[command(
        subcommand,
        after_help = "Examples:\n  planseal gsd statusline\n  planseal gsd check --json\n  planseal gsd sync --write\n\nRun `planseal gsd <COMMAND> --help` for each command's examples."
    )]
    Gsd(gsd::Command),
    /// Reversa .reversa/state.json: status, advance, set, history
    #[command(
        subcommand,
        after_help = "Examples:\n  planseal reversa status\n  planseal reversa advance --phase-done reconhecimento\n  planseal reversa history --exit-code\n\nRun `planseal reversa <COMMAND> --help` for each command's examples."
    )]
    Reversa(reversa::Command),
    /// Checkpoint protocol PROJECT-CHECKPOINT.md: status, init, refresh, diff, session, context, restore
    #[command(
        subcommand,
        after_help = "Examples:\n  planseal checkpoint status\n  planseal checkpoint refresh --write\n  planseal checkpoint diff --against HEAD~5\n\nRun `planseal checkpoint <COMMAND> --help` for each command's examples."
    )]
    Checkpoint(checkpoint::Command),
    /// Walk a small plan's whole life cycle in a throw-away repository, with narration
    Demo(demo::Args),
    /// Git's merge driver for plan state files: merge by meaning, or a readable conflict
    MergeDriver(merge_driver::Args),
    /// What an installed hook runs: Claude Code's session-start and stop; git's pre-commit, pre-push, commit-msg
    #[command(
        subcommand,
        after_help = "Examples:\n  planseal hook session-start < /dev/null\n  echo '{\"cwd\":\".\",\"stop_hook_active\":false}' | planseal hook stop\n  planseal hook pre-commit\n  planseal hook commit-msg .git/COMMIT_EDITMSG\n\nInstalled by `planseal hooks install --claude` and `--git`; run `planseal hook <COMMAND> --help` for each hook's input, checks and exit codes."
    )]
    Hook(hook::Command),
    /// Register planseal's hooks (--claude: Claude Code's settings; --git: git hooks; --merge: the merge driver)
    #[command(
        subcommand,
        after_help = "Examples:\n  planseal hooks install --claude\n  planseal hooks install --git --git-hook pre-commit --git-hook commit-msg\n  planseal hooks install --merge\n  planseal hooks uninstall --merge --dry-run\n\nRun `planseal hooks <COMMAND> --help` for each command's examples."
    )]
    Hooks(hooks::Command),
    /// Print the shell completion script (bash, zsh, fish, powershell, elvish)
    Completions(completions::Args),
    /// Print the manual page, or write one page per command with --out DIR
    Man(man::Args),
    /// Print the JSON Schema of a command's --json output (every command's without one)
    Schema(schema::Args),
    /// Serve the Model Context Protocol on stdio: verify, status, diff, log and the guarded writers as tools
    Mcp(mcp::Args),
}

/// What every command needs to know about how it was run.
pub(crate) struct Context {
    pub json: bool,
    /// Colour on stdout.
    pub color: bool,
    /// The directory the command runs in (`-C` applied).
    pub cwd: PathBuf,
}

impl Context {
    fn from_global(g: &Global) -> std::io::Result<Self> {
        let color = match g.color {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => {
                std::io::stdout().is_terminal()
                    && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
            }
        };
        let base = std::env::current_dir()?;
        let cwd = match &g.directory {
            Some(d) => base.join(d),
            None => base,
        };
        Ok(Self {
            json: g.json,
            color,
            cwd,
        })
    }
}

/// Parses, runs and maps the outcome to an exit code.
pub(crate) fn main() -> ExitCode {
    // `update` accepts the DWP helper's abbreviated long options (argparse's allow_abbrev).
    let argv = abbrev::expand_abbreviations(std::env::args_os().collect());
    // `--json` is matched only when written in full, so a raw scan finds it even when parsing fails.
    let json_requested = argv.iter().skip(1).any(|a| a == "--json");
    if let Some(code) = fast::try_answer(&argv) {
        return code;
    }
    let parsed = match lazy::try_parse(&argv) {
        Some(cli) => Ok(cli),
        None => Cli::try_parse_from(argv),
    };
    let cli = match parsed {
        Ok(cli) => cli,
        Err(e) if !e.use_stderr() => {
            // --help and --version: not errors.
            let _ = e.print();
            return ExitCode::Ok;
        }
        Err(e) => return report_usage_error(&e, json_requested),
    };
    // One command per process, but for the MCP server, which serves many.
    if !matches!(cli.command, Command::Mcp(_)) {
        planseal::process_ends_with_its_command();
    }
    let ctx = match context(&cli.global, json_requested) {
        Ok(ctx) => ctx,
        Err(code) => return code,
    };
    let result = match cli.command {
        Command::Verify(a) => verify::run(a, &ctx),
        Command::Update(a) => update::run(*a, &ctx),
        Command::Approve(a) => approve::run(a, &ctx),
        Command::Task(c) => task::run(c, &ctx),
        Command::Amend(a) => amend::run(*a, &ctx),
        Command::PublishCheck(a) => publish_check::run(a, &ctx),
        Command::Refine(a) => refine::run(*a, &ctx),
        Command::Promote(a) => promote::run(a, &ctx),
        Command::Unlock(a) => unlock::run(a, &ctx),
        Command::Finalize(a) => finalize::run(a, &ctx),
        Command::Recover(a) => recover::run(a, &ctx),
        Command::Rebuild(a) => rebuild::run(a, &ctx),
        Command::Diff(a) => diff::run(a, &ctx),
        Command::Log(a) => log::run(a, &ctx),
        Command::Status(a) => status::run(a, &ctx),
        Command::Report(a) => report::run(a, &ctx),
        Command::Gsd(c) => gsd::run(c, &ctx),
        Command::Reversa(c) => reversa::run(c, &ctx),
        Command::Checkpoint(c) => checkpoint::run(c, &ctx),
        Command::Demo(a) => demo::run(a, &ctx),
        Command::MergeDriver(a) => merge_driver::run(a, &ctx),
        Command::Hook(c) => hook::run(c, &ctx),
        Command::Hooks(c) => hooks::run(c, &ctx),
        Command::Completions(a) => completions::run(a, &ctx),
        Command::Man(a) => man::run(a, &ctx),
        Command::Schema(a) => schema::run(a, &ctx),
        Command::Mcp(a) => mcp::run(a, &ctx),
    };
    match result {
        Ok(code) => code,
        Err(err) => report_error(&err, ctx.json),
    }
}

/// The context of a run, or the exit code of why there is none (no current directory, or a
/// `-C` that is no folder).
fn context(global: &Global, json_requested: bool) -> Result<Context, ExitCode> {
    let ctx = Context::from_global(global).map_err(|e| {
        let err = HintedError::usage(format!("cannot read the current directory: {e}"));
        report_error(&err.into(), json_requested)
    })?;
    if !ctx.cwd.is_dir() {
        let err = HintedError::usage(format!("-C {}: not a directory", ctx.cwd.display()))
            .hint("pass a folder that exists");
        return Err(report_error(&err.into(), ctx.json));
    }
    Ok(ctx)
}

/// A path as the user should see it: relative to the working directory when inside it.
pub(crate) fn shown(path: &std::path::Path, ctx: &Context) -> String {
    path.strip_prefix(&ctx.cwd)
        .unwrap_or(path)
        .display()
        .to_string()
}
