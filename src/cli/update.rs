//! `planseal update STATE.json --task N --status S [flags]`: one guarded transition of a DWP
//! state.json, a drop-in for the DWP helper `update-state.py` (SPEC §1.7, §1.8).
//!
//! Compatibility: the helper's exact flag set, and — like its argument parser — any unambiguous
//! prefix of its long options (`--stat` = `--status`). planseal's global flags (`--json`,
//! `--color`, `-C`) match only when written in full, so they never make a helper prefix
//! ambiguous (`--co` stays `--commit`). [`expand_abbreviations`] rewrites the prefixes before
//! clap sees the command line.

use super::Context;
use crate::{print_err, print_json, print_out};
use planseal::clock::Clock;
use planseal::dwp::decide::update::UpdateRequest;
use planseal::dwp::model::TaskStatus;
use planseal::dwp::ops::update;
use planseal::report::ExitCode;
use std::ffi::OsString;
use std::path::PathBuf;

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
pub fn expand_abbreviations(args: Vec<OsString>) -> Vec<OsString> {
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
        if !text.starts_with("--") || text == "--json" || text.starts_with("--color=") {
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

/// The task statuses the helper accepts.
#[derive(Copy, Clone, Debug, PartialEq, Eq, clap::ValueEnum)]
#[value(rename_all = "snake_case")]
pub enum StatusArg {
    Pending,
    InProgress,
    Completed,
    Blocked,
    Skipped,
}

impl From<StatusArg> for TaskStatus {
    fn from(s: StatusArg) -> Self {
        match s {
            StatusArg::Pending => TaskStatus::Pending,
            StatusArg::InProgress => TaskStatus::InProgress,
            StatusArg::Completed => TaskStatus::Completed,
            StatusArg::Blocked => TaskStatus::Blocked,
            StatusArg::Skipped => TaskStatus::Skipped,
        }
    }
}

#[derive(clap::Args, Debug)]
#[command(
    after_help = "Examples:\n  planseal update .dwp/plans/PLAN_x/state.json --task 1 --status in_progress\n  \
planseal update STATE --task 1 --status completed --commit 3f2a9c1 \\\n      \
--gate \"cargo test|0|analysis_results/logs/task1.log\" --worked \"limiter in place\"\n  \
planseal update STATE --task 2 --status blocked --block-reason \"needs an API key\"\n  \
planseal update STATE --task 2 --status in_progress --resolve-blocker --expected-sha256 HEX\n\n\
Completing the last task publishes the plan through the finalization transaction.\n\
Exit codes: 0 applied, 1 refused (nothing written; the refusal kind \
leads stderr), 2 usage error.\nLong options may be abbreviated to any unambiguous prefix \
(--stat = --status), as with the DWP helper update-state.py.\nTest clock: \
PLANSEAL_FAKE_NOW=2026-10-05T09:00:00+00:00 (step PLANSEAL_FAKE_NOW_STEP_US, default 1250000)."
)]
pub struct Args {
    /// The plan's state.json
    #[arg(value_name = "STATE")]
    pub state: PathBuf,
    /// Task id
    #[arg(long, allow_negative_numbers = true)]
    pub task: i64,
    /// New task status
    #[arg(long, value_enum)]
    pub status: StatusArg,
    /// Append a gate record "command|exit_code|evidence" (repeatable)
    #[arg(long, value_name = "SPEC", allow_hyphen_values = true)]
    pub gate: Vec<String>,
    /// Append a whole gate record given as a JSON object (repeatable)
    #[arg(long = "gate-json", value_name = "JSON", allow_hyphen_values = true)]
    pub gate_json: Vec<String>,
    /// Why the task is blocked (with --status blocked)
    #[arg(long = "block-reason", value_name = "TEXT", allow_hyphen_values = true)]
    pub block_reason: Option<String>,
    /// What would unblock it
    #[arg(long = "block-needs", value_name = "TEXT", allow_hyphen_values = true)]
    pub block_needs: Option<String>,
    /// Resolve this task's own blocker (with --status in_progress or completed)
    #[arg(long = "resolve-blocker")]
    pub resolve_blocker: bool,
    /// Why a completed task is reopened (journaled)
    #[arg(
        long = "reopen-reason",
        value_name = "TEXT",
        allow_hyphen_values = true
    )]
    pub reopen_reason: Option<String>,
    /// SHA-256 of the state.json bytes you last read (compare-and-swap)
    #[arg(long = "expected-sha256", value_name = "HEX")]
    pub expected_sha256: Option<String>,
    /// What worked (outcome.worked, ≤ 500 characters)
    #[arg(long, value_name = "TEXT", allow_hyphen_values = true)]
    pub worked: Option<String>,
    /// Notes (outcome.notes, ≤ 1000 characters)
    #[arg(long, value_name = "TEXT", allow_hyphen_values = true)]
    pub notes: Option<String>,
    /// The commit that completes the task (7–40 lower-case hex)
    #[arg(long, value_name = "SHA")]
    pub commit: Option<String>,
    /// Checkpoint step (default `start`)
    #[arg(
        long = "checkpoint-step",
        value_name = "TEXT",
        allow_hyphen_values = true
    )]
    pub checkpoint_step: Option<String>,
    /// Checkpoint note (default `Task N closed. Next: Task M.`)
    #[arg(
        long = "checkpoint-note",
        value_name = "TEXT",
        allow_hyphen_values = true
    )]
    pub checkpoint_note: Option<String>,
    /// Agent name for updated_by
    #[arg(long, value_name = "NAME")]
    pub agent: Option<String>,
    /// Model name for updated_by
    #[arg(long, value_name = "NAME")]
    pub model: Option<String>,
}

impl Args {
    fn request(&self) -> UpdateRequest {
        UpdateRequest {
            task: self.task,
            status: self.status.into(),
            gates: self.gate.clone(),
            gate_jsons: self.gate_json.clone(),
            block_reason: self.block_reason.clone(),
            block_needs: self.block_needs.clone(),
            resolve_blocker: self.resolve_blocker,
            reopen_reason: self.reopen_reason.clone(),
            expected_sha256: self.expected_sha256.clone(),
            worked: self.worked.clone(),
            notes: self.notes.clone(),
            commit: self.commit.clone(),
            checkpoint_step: self.checkpoint_step.clone(),
            checkpoint_note: self.checkpoint_note.clone(),
            agent: self.agent.clone(),
            model: self.model.clone(),
        }
    }
}

pub fn run(args: Args, ctx: &Context) -> anyhow::Result<ExitCode> {
    // A `.env` value quoted in a plan file, a log or a commit subject is never printed.
    crate::redact_output_for(&ctx.cwd.join(&args.state));
    let clock = Clock::from_env()?;
    let planned = update::plan(
        &ctx.cwd.join(&args.state),
        &args.state,
        args.request(),
        clock,
    )
    .map_err(lift)?;
    // Shown before the write, so a refusal that follows has its context.
    for advisory in &planned.transition.advisories {
        print_err(&format!(
            "advisory: {}: {}\n",
            advisory.id, advisory.message
        ));
    }
    let outcome = update::apply(planned).map_err(lift)?;
    if let Some(e) = &outcome.journal_error {
        print_err(&format!(
            "warning: state.json was written but its journal line was not: {e}\n"
        ));
    }
    if ctx.json {
        print_json(serde_json::to_value(&outcome)?);
    } else {
        print_out(&format!("{}\n", outcome.line));
    }
    Ok(ExitCode::Ok)
}

/// The library's error as the one error mapping of `cli` reads it.
fn lift(e: update::UpdateError) -> anyhow::Error {
    match e {
        update::UpdateError::Refused(r) => r.into(),
        update::UpdateError::Write(w) => w.into(),
        update::UpdateError::Publish(p) => p.into(),
        update::UpdateError::Input(h) => h.into(),
    }
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
