//! `planseal checkpoint session add`, `checkpoint context`, `checkpoint restore`: the
//! protocol's session entry, the session-start summary, and lost sections back from git
//! (docs/checkpoint.md). The arguments and the printing; the commands are
//! `planseal::checkpoint::ops`.

use super::super::Context;
use super::TargetArgs;
use planseal::checkpoint::ops::{self, Place};
use planseal::clock::Clock;
use planseal::report::ExitCode;

#[derive(clap::Subcommand, Debug)]
pub(in crate::cli) enum SessionCommand {
    /// Add a `### Sessão <date>` entry to Ultimo Trabalho Realizado (the protocol's format)
    #[command(
        after_help = "Examples:\n  planseal checkpoint session add --story 3.1 --did \"wired the SSO callback\" --did \"added token refresh\" --files src/sso.rs src/token.rs --tests 4/120\n  \
planseal checkpoint session add --project cw --story CW-3.1 --did \"fixed the redirect\" --files src/sso.rs --tests 1/121 --dry-run\n\n\
Writes, in the session of today's date (a new `### Sessão YYYY-MM-DD` at the top when there is\n\
none; else at the end of that date's session):\n\n  **Story X.Y — <title>** (<status>):\n  - <each --did>\n  - Arquivos: <files>\n  - Testes: N novos, T total\n\n\
The title and status come from the story file (`title:` or its `# ` heading; `status:`). The protocol\n\
asks for 2–3 --did bullets; one is accepted with an advisory. Sessions beyond the 3 most recent are\n\
pruned; their text goes to the journal. Test clock: PLANSEAL_FAKE_NOW=2026-10-05T09:00:00+00:00.\n\n\
Exit codes: 0 written (or shown with --dry-run), 1 refused (nothing written), 2 usage error,\n\
3 I/O error before the commit point, 4 written but not confirmed."
    )]
    Add(SessionArgs),
}

#[derive(clap::Args, Debug)]
pub(in crate::cli) struct SessionArgs {
    #[command(flatten)]
    pub target: TargetArgs,
    /// The story worked on (its id or file name: 3.1, CW-3.1)
    #[arg(long, value_name = "ID")]
    pub story: String,
    /// What was done, one bullet each (2–3 asked by the protocol)
    #[arg(long, value_name = "TEXT", required = true)]
    pub did: Vec<String>,
    /// The files created or changed
    #[arg(long, value_name = "PATH", num_args = 1.., required = true)]
    pub files: Vec<String>,
    /// Tests: new ones and the total, NEW/TOTAL (e.g. 4/120)
    #[arg(long, value_name = "NEW/TOTAL", value_parser = parse_tests)]
    pub tests: (u64, u64),
    /// Print the change as a unified diff; write nothing
    #[arg(long)]
    pub dry_run: bool,
    /// Refuse unless the checkpoint's current SHA-256 is this
    #[arg(long, value_name = "HEX")]
    pub expected_sha256: Option<String>,
    #[command(flatten)]
    pub wait: super::super::wait::WaitArg,
}

fn parse_tests(s: &str) -> Result<(u64, u64), String> {
    let (new, total) = s
        .split_once('/')
        .ok_or_else(|| format!("`{s}`: write NEW/TOTAL, e.g. 4/120"))?;
    let n = |v: &str| {
        v.trim()
            .parse::<u64>()
            .map_err(|_| format!("`{s}`: NEW and TOTAL are whole numbers, e.g. 4/120"))
    };
    let (new, total) = (n(new)?, n(total)?);
    if new > total {
        return Err(format!("`{s}`: NEW cannot exceed TOTAL"));
    }
    Ok((new, total))
}

#[derive(clap::Args, Debug)]
pub(in crate::cli) struct ContextArgs {
    #[command(flatten)]
    pub target: TargetArgs,
}

#[derive(clap::Args, Debug)]
pub(in crate::cli) struct RestoreArgs {
    #[command(flatten)]
    pub target: TargetArgs,
    /// The revision to take the sections from (a commit, branch, tag, HEAD~N)
    #[arg(long, value_name = "REV")]
    pub from: String,
    /// A section to put back (its heading, accents and case ignored); none: list what was lost
    #[arg(long, value_name = "NAME")]
    pub section: Vec<String>,
    /// Print the change as a unified diff; write nothing
    #[arg(long)]
    pub dry_run: bool,
    /// Refuse unless the checkpoint's current SHA-256 is this
    #[arg(long, value_name = "HEX")]
    pub expected_sha256: Option<String>,
    #[command(flatten)]
    pub wait: super::super::wait::WaitArg,
}

pub(super) fn session(a: SessionArgs, ctx: &Context) -> anyhow::Result<ExitCode> {
    let place = Place {
        cwd: ctx.cwd.clone(),
        project: a.target.project,
    };
    let opts = ops::SessionOptions {
        story: a.story,
        did: a.did,
        files: a.files,
        tests: a.tests,
        dry_run: a.dry_run,
        expected_sha256: a.expected_sha256,
    };
    let clock = Clock::from_env()?;
    let o = a
        .wait
        .run(|| ops::session_add(&place, &opts, &mut clock.clone()).map_err(super::lift))?;
    let applied = o.written.as_ref().map(|w| &w.committed.confirmation);
    super::super::outcome::deliver(ctx, &o, &o.to_text(), applied)
}

pub(super) fn context(a: ContextArgs, ctx: &Context) -> anyhow::Result<ExitCode> {
    let o = ops::context(&ctx.cwd, a.target.project.as_deref()).map_err(super::lift)?;
    super::print(ctx, &o, ops::ContextOutcome::to_text)?;
    Ok(ExitCode::Ok)
}

pub(super) fn restore(a: RestoreArgs, ctx: &Context) -> anyhow::Result<ExitCode> {
    let place = Place {
        cwd: ctx.cwd.clone(),
        project: a.target.project,
    };
    let opts = ops::RestoreOptions {
        from: a.from,
        sections: a.section,
        dry_run: a.dry_run,
        expected_sha256: a.expected_sha256,
    };
    let clock = Clock::from_env()?;
    let o = a
        .wait
        .run(|| ops::restore(&place, &opts, &mut clock.clone()).map_err(super::lift))?;
    let applied = o.written.as_ref().map(|w| &w.committed.confirmation);
    super::super::outcome::deliver(ctx, &o, &o.to_text(), applied)
}
