//! `planseal hooks install|uninstall --claude|--git|--merge`: register (or remove) what planseal
//! hooks into a repository — Claude Code's status line and hooks (docs/claude-code.md),
//! planseal's git hooks (docs/git-hooks.md) and the merge driver for plan state files
//! (docs/merge.md). The arguments and
//! the printing; the command itself is `planseal::hooks::ops`. A kind of hook is a flag of both
//! commands (`--merge`), so later kinds are added beside it.

use super::Context;
use planseal::clock::Clock;
use planseal::hooks::claude::Scope;
use planseal::hooks::git::GitHook;
use planseal::hooks::ops::{Action, HooksError, HooksRequest, hooks};
use planseal::report::ExitCode;

#[derive(clap::Subcommand, Debug)]
pub(super) enum Command {
    /// Register the hooks named by the flags in this repository
    #[command(after_help = "\
--claude registers planseal in a Claude Code settings file (--scope local: \
.claude/settings.local.json, the default; project: .claude/settings.json; user: \
~/.claude/settings.json): the statusLine `<planseal> gsd statusline --stdin`, the SessionStart \
hook `<planseal> hook session-start` and the Stop hook `<planseal> hook stop`. The entries are \
inserted as text: every other key, hook and byte of the file stays. A statusLine that runs \
something else is refused (claude-statusline-taken), and so is a file that is not one JSON \
object (claude-settings-unparseable). See docs/claude-code.md.\n\n\
--merge writes the merge driver's section into the repository's git config (the shared \
`config` of every linked work tree):\n\n  [merge \"planseal\"]\n  \
\tname = planseal: plan state files merged by meaning\n  \
\tdriver = <this planseal> merge-driver %O %A %B %L %P %S %X %Y\n\n\
and the lines that route the plan state files to it into the work tree's .gitattributes. \
Running it again changes nothing; `hooks uninstall --merge` removes exactly these lines. No \
journal line is written (neither file is plan state).\n\n\
--git writes planseal's git hook (pre-commit unless --git-hook names others) into the folder \
git runs hooks from (core.hooksPath when set, relative to the work tree; else the .git/hooks \
every linked work tree shares), executable, running `<this planseal> hook <name>`. A hook that \
is already there and is not planseal's is moved to <hook>.pre-planseal and run first \
(docs/git-hooks.md); refused when that cannot be done safely (git-hook-chained-exists, \
git-hook-not-a-file).\n\n\
Examples:\n  planseal hooks install --claude                   .claude/settings.local.json\n  \
planseal hooks install --claude --scope user      ~/.claude/settings.json\n  \
planseal hooks install --git                      the pre-commit hook\n  \
planseal hooks install --git --git-hook pre-commit --git-hook commit-msg --git-hook pre-push\n  \
planseal hooks install --merge\n  planseal hooks install --merge --dry-run      \
show the diff, write nothing\n  planseal hooks install --merge --json\n\n\
Exit codes: 0 applied (or already so), 1 refused (nothing written), 2 usage error, 3 I/O error \
before the commit point, 4 applied but not confirmed.")]
    Install(Args),
    /// Remove the hooks named by the flags from this repository
    #[command(after_help = "\
--claude removes planseal's statusLine, SessionStart and Stop entries from the Claude Code \
settings file of --scope (whatever planseal path they name), cutting out exactly the text the \
install inserted; a file left with nothing else is removed, and its .claude folder when empty.\n\n\
--merge removes the merge driver's entries from the repository's git config and its lines \
from .gitattributes, leaving every other byte of both files as it was (a .gitattributes that \
holds nothing else is removed).\n\n\
--git removes planseal's git hooks named by --git-hook (pre-commit by default) and puts back, \
byte for byte and with its mode, the hook each one chained (<hook>.pre-planseal); a hook that \
is not planseal's is left alone, and refused (git-hook-replaced) when putting the chained one \
back would lose it.\n\n\
Examples:\n  planseal hooks uninstall --claude\n  planseal hooks uninstall --claude --scope project --dry-run\n  \
planseal hooks uninstall --git --git-hook pre-commit --git-hook commit-msg\n  \
planseal hooks uninstall --merge\n  planseal hooks uninstall --merge --dry-run\n\n\
Exit codes: 0 applied (or already so), 1 refused (nothing written), 2 usage error, 3 I/O error \
before the commit point, 4 applied but not confirmed.")]
    Uninstall(Args),
}

/// The kinds of hook (one flag each) and how to run.
#[derive(clap::Args, Debug)]
#[command(group(clap::ArgGroup::new("kind").required(true).multiple(true)))]
pub(super) struct Args {
    /// Claude Code: statusLine, SessionStart and Stop hooks in the settings file of --scope
    #[arg(long, group = "kind")]
    pub claude: bool,
    /// Which Claude Code settings file --claude edits
    #[arg(long, value_enum, default_value_t = ScopeArg::Local, value_name = "SCOPE", requires = "claude")]
    pub scope: ScopeArg,
    /// The merge driver for plan state files (git config + .gitattributes)
    #[arg(long, group = "kind")]
    pub merge: bool,
    /// planseal's git hooks in the repository's hooks folder (core.hooksPath honoured)
    #[arg(long, group = "kind")]
    pub git: bool,
    /// Which git hook (with --git; repeatable; default pre-commit)
    #[arg(long, value_enum, value_name = "HOOK", requires = "git")]
    pub git_hook: Vec<GitHookArg>,
    /// Print the change as a unified diff; write nothing
    #[arg(long)]
    pub dry_run: bool,
}

/// `--scope`: local (`.claude/settings.local.json`), project (`.claude/settings.json`) or user
/// (`~/.claude/settings.json`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(super) enum ScopeArg {
    /// .claude/settings.local.json of the project (yours only)
    Local,
    /// .claude/settings.json of the project (shared through the repository)
    Project,
    /// ~/.claude/settings.json (every project)
    User,
}

/// The git hooks `--git-hook` names.
#[derive(Copy, Clone, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(super) enum GitHookArg {
    PreCommit,
    PrePush,
    CommitMsg,
}

impl From<GitHookArg> for GitHook {
    fn from(h: GitHookArg) -> Self {
        match h {
            GitHookArg::PreCommit => GitHook::PreCommit,
            GitHookArg::PrePush => GitHook::PrePush,
            GitHookArg::CommitMsg => GitHook::CommitMsg,
        }
    }
}

pub(super) fn run(command: Command, ctx: &Context) -> anyhow::Result<ExitCode> {
    let (action, args) = match command {
        Command::Install(a) => (Action::Install, a),
        Command::Uninstall(a) => (Action::Uninstall, a),
    };
    let program = std::env::current_exe()?;
    let program = program.canonicalize().unwrap_or(program);
    let req = HooksRequest {
        action,
        merge: args.merge,
        claude: args.claude,
        scope: match args.scope {
            ScopeArg::Local => Scope::Local,
            ScopeArg::Project => Scope::Project,
            ScopeArg::User => Scope::User,
        },
        home: std::env::var_os("HOME")
            .filter(|h| !h.is_empty())
            .map(std::path::PathBuf::from),
        git: args.git,
        git_hooks: args.git_hook.iter().map(|h| GitHook::from(*h)).collect(),
        dir: ctx.cwd.clone(),
        program: program.display().to_string(),
        dry_run: args.dry_run,
        clock: Clock::from_env()?,
    };
    let outcome = hooks(&req).map_err(|e| match e {
        HooksError::Write(w) => anyhow::Error::from(w),
        HooksError::Git(g) => anyhow::Error::from(g),
    })?;
    let applied = outcome.written.then_some(&outcome.confirmation);
    super::outcome::deliver(ctx, &outcome, &outcome.to_text(), applied)
}
