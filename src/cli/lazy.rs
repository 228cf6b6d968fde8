//! Parsing with only the named command's definitions built. Building clap's whole tree — every
//! command with its arguments, help and examples — takes longer than a guarded update's own
//! work on a small plan, and each run uses one command. So the command named on the command
//! line is built alone, under the same global flags, and parsed; whatever that parse does not
//! accept (help, `--version`, `help`, a misspelt command, a usage error) goes to the whole tree,
//! which answers exactly as it always did. A parse accepted here is the parse the whole tree
//! gives: the top level has no arguments of its own but the global flags, so the first token
//! that is not one of them names the command in both trees, and that command's definitions are
//! the same ones.

use super::{
    Cli, Global, amend, approve, checkpoint, completions, demo, diff, finalize, gsd, hook, hooks,
    log, man, mcp, merge_driver, promote, publish_check, rebuild, recover, refine, report, reversa,
    schema, status, task, unlock, update, verify,
};
use clap::{Args, FromArgMatches, Subcommand};
use std::ffi::OsString;

/// The parse of `argv` (program name first) with only its command built; `None` when that
/// parse does not accept it, for the whole tree to answer.
pub(super) fn try_parse(argv: &[OsString]) -> Option<Cli> {
    let words = super::fast::words(argv)?;
    // Help and version are the whole tree's to print, wherever they are asked for.
    if words
        .iter()
        .any(|w| matches!(*w, "-h" | "--help" | "-V" | "--version"))
    {
        return None;
    }
    let command = command_named(command_word(&words)?)?;
    let root = <Global as Args>::augment_args(clap::Command::new("planseal"))
        .subcommand_required(true)
        .arg_required_else_help(true)
        .subcommand(command);
    let matches = root.try_get_matches_from(argv).ok()?;
    Cli::from_arg_matches(&matches).ok()
}

/// The first word that is not a global flag (`--json`, `--color WHEN`, `-C DIR` and their
/// joined forms) or its value.
fn command_word<'a>(words: &[&'a str]) -> Option<&'a str> {
    let mut rest = words.iter();
    while let Some(&word) = rest.next() {
        match word {
            "--json" => {}
            "--color" | "-C" => {
                rest.next()?;
            }
            w if w.starts_with("--color=") || (w.starts_with("-C") && w.len() > 2) => {}
            w => return Some(w),
        }
    }
    None
}

/// The command called `name`, built as the derived tree builds it; `None` for a name that is
/// no command (and for `help`, which lists every command).
fn command_named(name: &str) -> Option<clap::Command> {
    let built = |name: &'static str, augment: fn(clap::Command) -> clap::Command| {
        augment(clap::Command::new(name))
    };
    Some(match name {
        "verify" => built("verify", verify::Args::augment_args),
        "update" => built("update", update::Args::augment_args),
        "approve" => built("approve", approve::Args::augment_args),
        "task" => built("task", group::<task::Command>),
        "amend" => built("amend", amend::Args::augment_args),
        "publish-check" => built("publish-check", publish_check::Args::augment_args),
        "refine" => built("refine", refine::Args::augment_args),
        "promote" => built("promote", promote::Args::augment_args),
        "unlock" => built("unlock", unlock::Args::augment_args),
        "finalize" => built("finalize", finalize::Args::augment_args),
        "recover" => built("recover", recover::Args::augment_args),
        "rebuild" => built("rebuild", rebuild::Args::augment_args),
        "diff" => built("diff", diff::Args::augment_args),
        "log" => built("log", log::Args::augment_args),
        "status" => built("status", status::Args::augment_args),
        "report" => built("report", report::Args::augment_args),
        "gsd" => built("gsd", group::<gsd::Command>),
        "reversa" => built("reversa", group::<reversa::Command>),
        "checkpoint" => built("checkpoint", group::<checkpoint::Command>),
        "demo" => built("demo", demo::Args::augment_args),
        "merge-driver" => built("merge-driver", merge_driver::Args::augment_args),
        "hook" => built("hook", group::<hook::Command>),
        "hooks" => built("hooks", group::<hooks::Command>),
        "completions" => built("completions", completions::Args::augment_args),
        "man" => built("man", man::Args::augment_args),
        "schema" => built("schema", schema::Args::augment_args),
        "mcp" => built("mcp", mcp::Args::augment_args),
        _ => return None,
    })
}

/// A command whose work is done by its own subcommands (`planseal gsd …`).
fn group<S: Subcommand>(c: clap::Command) -> clap::Command {
    S::augment_subcommands(c.subcommand_required(true).arg_required_else_help(true))
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::{CommandFactory, Parser};

    /// What parsing depends on in a command: its arguments (id, flags, how many values, whether
    /// required or global) and, in turn, its subcommands.
    fn shape(c: &clap::Command) -> String {
        let mut out = format!(
            "{} required-sub={} else-help={}\n",
            c.get_name(),
            c.is_subcommand_required_set(),
            c.is_arg_required_else_help_set()
        );
        for a in c.get_arguments() {
            out += &format!(
                "  {} {:?} {:?} {:?} {:?} req={} global={} pos={:?}\n",
                a.get_id(),
                a.get_short(),
                a.get_long(),
                a.get_num_args(),
                a.get_action(),
                a.is_required_set(),
                a.is_global_set(),
                a.get_index(),
            );
        }
        for s in c.get_subcommands() {
            out += &shape(s);
        }
        out
    }

    #[test]
    fn every_command_is_built_alone_as_the_whole_tree_builds_it() {
        let whole = Cli::command();
        let mut names = 0;
        for derived in whole.get_subcommands() {
            let name = derived.get_name();
            let alone = command_named(name).unwrap_or_else(|| panic!("{name} is not built alone"));
            assert_eq!(shape(&alone), shape(derived), "{name}");
            names += 1;
        }
        assert!(names >= 27, "{names} commands");
        assert!(command_named("help").is_none());
    }

    #[test]
    fn a_parse_accepted_alone_is_the_whole_trees_parse() {
        let cases: &[&[&str]] = &[
            &["verify"],
            &["verify", "--json", ".dwp/plans/PLAN_x"],
            &["--json", "-C", "/tmp", "verify", "--strict"],
            &["-C/tmp", "--color=never", "status"],
            &["--color", "always", "log", "--json"],
            &[
                "update",
                "s.json",
                "--task",
                "2",
                "--status",
                "completed",
                "--gate",
                "cargo test|0|ran=3/3",
                "--json",
            ],
            &[
                "-C",
                "x",
                "finalize",
                ".dwp/plans/PLAN_x",
                "--candidate",
                "c.json",
            ],
            &["task", "done", "s.json", "--task", "1"],
            &["gsd", "check", "--json"],
            &["checkpoint", "status"],
            &["hooks", "install", "--git", "--dry-run"],
            &["schema", "update"],
        ];
        for case in cases {
            let argv: Vec<OsString> = std::iter::once("planseal")
                .chain(case.iter().copied())
                .map(OsString::from)
                .collect();
            let whole = Cli::try_parse_from(&argv);
            let alone = try_parse(&argv);
            match whole {
                Ok(whole) => assert_eq!(
                    format!("{alone:?}"),
                    format!("{:?}", Some(whole)),
                    "{case:?}"
                ),
                Err(_) => assert!(alone.is_none(), "{case:?}"),
            }
        }
    }

    #[test]
    fn what_the_command_alone_does_not_accept_goes_to_the_whole_tree() {
        for case in [
            &["help"][..],
            &["verify", "--help"],
            &["--version"],
            &["update", "-V"],
            &["verfy"],
            &["update", "--task"],
            &["gsd"],
            &[],
        ] {
            let argv: Vec<OsString> = std::iter::once("planseal")
                .chain(case.iter().copied())
                .map(OsString::from)
                .collect();
            assert!(try_parse(&argv).is_none(), "{case:?}");
        }
    }
}
