//! The DWP helper's abbreviated long options: like Python's argparse (`allow_abbrev`), `update`
//! accepts any unambiguous prefix of the helper's options (`--stat` = `--status`).
//! planseal's global flags (`--json`, `--color`, `-C`) match only when written in full, so they
//! never make a helper prefix ambiguous (`--co` stays `--commit`).

use std::ffi::OsString;

/// The helper's long options: (name, takes a value).
const HELPER_OPTIONS: &[(&str, bool)] = &[
    ("--task", true),
    ("--status", true),
    ("--gate", true),
    ("--gate-json", true),
    ("--block-reason", true),
    ("--block-needs", true),
    ("--resolve-blocker", false),
    ("--reopen-reason", true),
    ("--expected-sha256", true),
    ("--worked", true),
    ("--notes", true),
    ("--commit", true),
    ("--checkpoint-step", true),
    ("--checkpoint-note", true),
    ("--agent", true),
    ("--model", true),
    ("--help", false),
];

/// Global flags: exact matches only, never prefixes.
const GLOBAL_WITH_VALUE: &[&str] = &["--color", "-C"];

/// Rewrites unambiguous prefixes of the helper's long options after the `update` subcommand into
/// the full names, the way Python's argparse (`allow_abbrev`) reads them. An ambiguous prefix is
/// left as it is, so clap refuses it as a usage error (exit 2). Everything before `update`, and
/// everything after a bare `--`, is untouched.
pub(super) fn expand_abbreviations(args: Vec<OsString>) -> Vec<OsString> {
    let Some(sub) = subcommand_position(&args) else {
        return args;
    };
    if args[sub] != "update" {
        return args;
    }
    let mut out: Vec<OsString> = args[..=sub].to_vec();
    let mut i = sub + 1;
    while i < args.len() {
        let arg = &args[i];
        i += 1;
        let Some(text) = arg.to_str() else {
            out.push(arg.clone());
            continue;
        };
        if text == "--" {
            out.extend(args[i - 1..].iter().cloned());
            break;
        }
        if GLOBAL_WITH_VALUE.contains(&text) {
            out.push(arg.clone());
            if let Some(v) = args.get(i) {
                out.push(v.clone());
                i += 1;
            }
            continue;
        }
        if !text.starts_with("--")
            || text == "--json"
            || text.starts_with("--color=")
            || text == "--wait"
            || text.starts_with("--wait=")
        {
            out.push(arg.clone());
            continue;
        }
        let (name, inline_value) = match text.split_once('=') {
            Some((n, v)) => (n, Some(v)),
            None => (text, None),
        };
        let resolved = resolve_option(name);
        let takes_value = resolved.is_some_and(|(_, v)| v);
        let full = resolved.map_or(name, |(n, _)| n);
        match inline_value {
            Some(v) => out.push(OsString::from(format!("{full}={v}"))),
            None => out.push(OsString::from(full)),
        }
        // The value of an option is never an option itself, whatever it looks like.
        if takes_value
            && inline_value.is_none()
            && let Some(v) = args.get(i)
        {
            out.push(v.clone());
            i += 1;
        }
    }
    out
}

/// The full option a (possibly abbreviated) name stands for, when it is exact or unambiguous.
fn resolve_option(name: &str) -> Option<(&'static str, bool)> {
    if let Some(exact) = HELPER_OPTIONS.iter().find(|(n, _)| *n == name) {
        return Some(*exact);
    }
    if name.len() <= 2 {
        return None;
    }
    let mut matches = HELPER_OPTIONS.iter().filter(|(n, _)| n.starts_with(name));
    match (matches.next(), matches.next()) {
        (Some(only), None) => Some(*only),
        _ => None,
    }
}

/// Index of the subcommand: the first argument that is not a global flag or its value.
fn subcommand_position(args: &[OsString]) -> Option<usize> {
    let mut i = 1;
    while i < args.len() {
        let a = args[i].to_str()?;
        if GLOBAL_WITH_VALUE.contains(&a) {
            i += 2;
        } else if a.starts_with('-') {
            i += 1;
        } else {
            return Some(i);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::expand_abbreviations;
    use std::ffi::OsString;

    fn expand(args: &[&str]) -> Vec<String> {
        let argv: Vec<OsString> = args.iter().map(OsString::from).collect();
        expand_abbreviations(argv)
            .into_iter()
            .map(|a| a.into_string().unwrap())
            .collect()
    }

    #[test]
    fn prefixes_expand_only_after_update_and_only_when_unambiguous() {
        assert_eq!(
            expand(&[
                "planseal",
                "--json",
                "update",
                "s.json",
                "--ta",
                "1",
                "--stat=blocked",
                "--block-r",
                "x"
            ]),
            [
                "planseal",
                "--json",
                "update",
                "s.json",
                "--task",
                "1",
                "--status=blocked",
                "--block-reason",
                "x"
            ]
        );
        // ambiguous, global or unknown: left for clap to refuse
        assert_eq!(
            expand(&["p", "update", "--check", "--js", "--b"]),
            ["p", "update", "--check", "--js", "--b"]
        );
        // an option's value is never expanded, even when it looks like an option
        assert_eq!(
            expand(&[
                "p", "-C", "d", "update", "--notes", "--stat", "--co", "abc1234"
            ]),
            [
                "p", "-C", "d", "update", "--notes", "--stat", "--commit", "abc1234"
            ]
        );
        // other commands and everything after `--` are untouched
        assert_eq!(
            expand(&["p", "verify", "--stat"]),
            ["p", "verify", "--stat"]
        );
        assert_eq!(
            expand(&["p", "update", "--", "--stat"]),
            ["p", "update", "--", "--stat"]
        );
    }

    /// Every prefix of every helper option: expanded exactly when no other option shares it.
    #[test]
    fn every_prefix_expands_iff_unambiguous() {
        for (name, _) in super::HELPER_OPTIONS {
            for len in 3..=name.len() {
                let prefix = &name[..len];
                let sharing = super::HELPER_OPTIONS
                    .iter()
                    .filter(|(other, _)| other.starts_with(prefix))
                    .count();
                let exact = super::HELPER_OPTIONS.iter().any(|(o, _)| *o == prefix);
                let got = expand(&["p", "update", prefix]);
                let want = if sharing == 1 || exact { *name } else { prefix };
                if exact && prefix != *name {
                    continue; // a prefix that is itself an option (`--gate` of `--gate-json`)
                }
                assert_eq!(got[2], want, "{prefix}");
            }
        }
    }
}
