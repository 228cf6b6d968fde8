//! Every command and subcommand explains itself: `--help` shows examples.

use crate::support;

#[test]
fn every_command_help_has_examples() {
    let commands: &[&[&str]] = &[
        &[],
        &["verify"],
        &["update"],
        &["refine"],
        &["promote"],
        &["unlock"],
        &["finalize"],
        &["recover"],
        &["demo"],
        &["rebuild"],
        &["diff"],
        &["log"],
        &["status"],
        &["report"],
        &["gsd"],
        &["gsd", "statusline"],
        &["gsd", "status"],
        &["gsd", "check"],
        &["gsd", "sync"],
        &["gsd", "recover"],
        &["gsd", "decision"],
        &["gsd", "decision", "add"],
        &["gsd", "blocker"],
        &["gsd", "blocker", "add"],
        &["gsd", "blocker", "resolve"],
        &["gsd", "session"],
        &["gsd", "session", "record"],
        &["reversa"],
        &["reversa", "status"],
        &["reversa", "advance"],
        &["reversa", "set"],
        &["reversa", "history"],
        &["checkpoint"],
        &["checkpoint", "status"],
        &["checkpoint", "init"],
        &["checkpoint", "refresh"],
        &["checkpoint", "diff"],
        &["checkpoint", "session"],
        &["checkpoint", "session", "add"],
        &["checkpoint", "context"],
        &["checkpoint", "restore"],
        &["completions"],
        &["man"],
        &["mcp"],
    ];
    let dir = tempfile::tempdir().unwrap();
    for command in commands {
        let mut args = command.to_vec();
        args.push("--help");
        let out = support::planseal(dir.path(), &args);
        let text = support::stdout(&out);
        assert_eq!(out.status.code(), Some(0), "{args:?}");
        let examples = text
            .split_once("Examples:\n")
            .map(|(_, rest)| rest)
            .unwrap_or_else(|| panic!("`planseal {}` has no examples:\n{text}", args.join(" ")));
        // The first example line runs planseal with this very command.
        let first = examples.lines().next().unwrap_or_default().trim();
        let expected = ["planseal"]
            .iter()
            .chain(command.iter())
            .copied()
            .collect::<Vec<_>>()
            .join(" ");
        assert!(
            first.starts_with(&expected) || first.contains(&format!("| {expected}")),
            "`{expected} --help`: first example is `{first}`"
        );
    }
}
