//! `planseal completions SHELL`: the shell's completion script, generated from the same
//! definitions that parse the arguments, so it never lags behind a new command or flag
//! (`docs/completions.md`).

use super::Context;
use crate::{print_json, print_out};
use clap::CommandFactory;
use clap_complete::Shell;
use planseal::report::ExitCode;

#[derive(clap::Args, Debug)]
#[command(
    after_help = "Examples:\n  planseal completions bash > ~/.local/share/bash-completion/completions/planseal\n  planseal completions zsh > ~/.zfunc/_planseal          (with fpath+=~/.zfunc before compinit)\n  planseal completions fish > ~/.config/fish/completions/planseal.fish\n  planseal completions powershell >> $PROFILE\n  planseal completions elvish >> ~/.config/elvish/rc.elv\n\nThe script goes to stdout; with --json, inside one JSON document (`script`)."
)]
pub(super) struct Args {
    /// The shell to complete for
    #[arg(value_enum, value_name = "SHELL")]
    pub shell: Shell,
}

pub(super) fn run(args: Args, ctx: &Context) -> anyhow::Result<ExitCode> {
    let script = script(args.shell);
    if ctx.json {
        let doc = CompletionsDocument {
            result: "ok",
            shell: args.shell.to_string(),
            script: &script,
        };
        print_json(serde_json::to_value(doc)?);
    } else {
        print_out(&script);
    }
    Ok(ExitCode::Ok)
}

/// `completions --json`: the shell and its script.
#[derive(serde::Serialize, schemars::JsonSchema)]
pub(super) struct CompletionsDocument<'a> {
    result: &'static str,
    /// The shell the script is for.
    shell: String,
    /// The completion script.
    script: &'a str,
}

/// The completion script of `shell` for the whole command tree.
pub(super) fn script(shell: Shell) -> String {
    let mut cmd = super::Cli::command();
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut cmd, "planseal", &mut out);
    String::from_utf8_lossy(&out).into_owned()
}
