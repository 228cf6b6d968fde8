//! `planseal hook session-start|stop`: Claude Code's SessionStart and Stop hooks
//! (docs/claude-code.md). Both read the hook input Claude Code sends on stdin (bounded; empty
//! stdin is allowed) and look at the project named by its `cwd` (else the working folder).
//!
//! - `session-start` prints what `planseal status` prints and, when a checkpoint file exists,
//!   what `planseal checkpoint context` prints — the same renderers, nothing of its own — as
//!   plain stdout, which Claude Code adds to the session's context (plain text rather than the
//!   JSON `additionalContext` form: the output stays byte-identical with the two commands and
//!   readable in a terminal, and Claude Code treats both forms alike).
//! - `stop` blocks with exit 2 and the reasons on stderr — Claude Code's documented blocking
//!   form, which it feeds back to Claude — rather than the JSON `decision` form, so a block
//!   never depends on stdout being parsed. It never blocks when `stop_hook_active` is set.
//!
//! Neither ever fails open silently nor exits 2 on its own error: a planseal error (malformed
//! stdin, an unreadable plan) is printed on stderr with exit 1, which Claude Code shows without
//! blocking.

use super::super::Context;
use crate::{print_err, print_json, print_out};
use planseal::dwp::ops::status::{StatusError, StatusOptions, status};
use planseal::hooks::claude::{HookInput, read_hook_input, stop_decision};
use planseal::report::{ExitCode, HintedError};
use std::io::IsTerminal;
use std::path::PathBuf;

pub(super) const SESSION_START_HELP: &str = "\
Run by Claude Code at the start of a session (planseal hooks install --claude registers it). \
Reads the hook's JSON on stdin (empty stdin is fine; a terminal is not read) and prints, for \
the project in its `cwd`, what `planseal status` prints and, when PROJECT-CHECKPOINT.md exists, \
what `planseal checkpoint context` prints. Claude Code adds that plain stdout to the session's \
context. A folder with no plan prints nothing.\n\n\
Examples:\n  planseal hook session-start < /dev/null\n  \
echo '{\"cwd\": \"/work/app\"}' | planseal hook session-start\n  \
planseal hook session-start --json < /dev/null      {\"result\":\"ok\",\"additional_context\":…}\n\n\
Exit codes: 0 printed (or nothing to print); 1 planseal could not read the input or the plans \
(the error on stderr; Claude Code shows it and goes on).";

pub(super) const STOP_HELP: &str = "\
Run by Claude Code when Claude is about to stop (planseal hooks install --claude registers it). \
Reads the hook's JSON on stdin (session_id, transcript_path, cwd, hook_event_name, \
stop_hook_active) and blocks the stop — exit 2, the reasons and the commands that fix them on \
stderr, which Claude Code hands back to Claude — when a plan of the project in `cwd`:\n  \
- was interrupted mid-publication (.finalizing.json): planseal recover PLAN\n  \
- has a lock whose owner is provably gone: planseal unlock PLAN\n  \
- says completed in state.json while verify finds it NOT CONFORMANT: planseal verify PLAN\n\
It never blocks when stop_hook_active is true (Claude is already continuing because of a Stop \
hook). Only plans that claim completion are verified; for the others it reads the marker, the lock \
and state.json's status, less than `planseal status` reads.\n\n\
Examples:\n  \
planseal hook stop < input.json      the JSON Claude Code sends (docs/claude-code.md)\n  \
echo '{\"cwd\": \"/work/app\", \"stop_hook_active\": false}' | planseal hook stop\n  \
planseal hook stop --json < /dev/null      {\"result\":\"ok\",\"decision\":\"pass\",…}\n\n\
Exit codes: 0 the stop may go on; 2 the stop is blocked (reasons on stderr); 1 planseal could \
not decide — malformed stdin (hook-input-malformed), an unreadable state.json — reported on \
stderr, never a silent pass and never a block.";

/// Reports `err` as every command does, but never with exit 2 (which Claude Code reads as a
/// block): a hook's own error is exit 1.
fn failed(err: anyhow::Error, ctx: &Context) -> ExitCode {
    match super::super::errors::report_error(&err, ctx.json) {
        ExitCode::UsageOrUnverified => ExitCode::Failed,
        code => code,
    }
}

/// The hook input on stdin (nothing read from a terminal) and the folder it names.
fn input(ctx: &Context) -> anyhow::Result<(HookInput, PathBuf)> {
    let stdin = std::io::stdin();
    let input = if stdin.is_terminal() {
        HookInput::default()
    } else {
        read_hook_input(stdin.lock())?
    };
    let dir = match &input.cwd {
        Some(d) => ctx.cwd.join(d),
        None => ctx.cwd.clone(),
    };
    if !dir.is_dir() {
        return Err(HintedError::usage(format!(
            "the hook input's cwd {} is not a folder",
            dir.display()
        ))
        .hint("Claude Code sends the session's working folder; run the hook from there")
        .into());
    }
    crate::redact_output_for(&dir);
    Ok((input, dir))
}

/// `hook session-start --json`: the context the hook gives Claude Code.
#[derive(serde::Serialize, schemars::JsonSchema)]
pub(in crate::cli) struct SessionStartDocument<'a> {
    result: &'static str,
    /// `planseal status`, then `planseal checkpoint context` where a checkpoint exists.
    additional_context: &'a str,
}

/// `hook stop --json`: the decision and what it rests on.
#[derive(serde::Serialize, schemars::JsonSchema)]
pub(in crate::cli) struct StopDocument<'a> {
    result: &'static str,
    /// `block` (the stop is refused, exit 2) or `pass`.
    decision: &'static str,
    /// The text Claude reads when the stop is blocked.
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<String>,
    /// Set when Claude Code said a Stop hook already blocked this stop: never blocked twice.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    stop_hook_active: bool,
    /// The reasons, the plans verified and what could not be read (absent when nothing was
    /// looked at).
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    found: Option<&'a planseal::hooks::claude::StopDecision>,
}

impl<'a> StopDocument<'a> {
    fn passed_on_active() -> Self {
        StopDocument {
            result: "ok",
            decision: "pass",
            reason: None,
            stop_hook_active: true,
            found: None,
        }
    }

    fn of(decision: &'a planseal::hooks::claude::StopDecision) -> Self {
        let blocked = !decision.block.is_empty();
        StopDocument {
            result: "ok",
            decision: if blocked { "block" } else { "pass" },
            reason: blocked.then(|| decision.reason_text()),
            stop_hook_active: false,
            found: Some(decision),
        }
    }
}

pub(super) fn session_start(ctx: &Context) -> ExitCode {
    match session_start_text(ctx) {
        Ok(text) => {
            if ctx.json {
                print_json(
                    serde_json::to_value(SessionStartDocument {
                        result: "ok",
                        additional_context: &text,
                    })
                    .unwrap_or_default(),
                );
            } else {
                print_out(&text);
            }
            ExitCode::Ok
        }
        Err(e) => failed(e, ctx),
    }
}

fn session_start_text(ctx: &Context) -> anyhow::Result<String> {
    let (_, dir) = input(ctx)?;
    let opts = StatusOptions {
        cwd: dir.clone(),
        path: None,
        plan: None,
        dwp_dir: std::env::var_os("DWP_DIR")
            .filter(|d| !d.is_empty())
            .map(PathBuf::from),
    };
    let mut text = match status(&opts) {
        Ok(view) => view.to_text(),
        Err(StatusError::NothingFound(_)) => String::new(),
        Err(e) => return Err(HintedError::usage(e.to_string()).hint(e.hint()).into()),
    };
    let root = planseal::dwp::locate::find_root(&dir);
    if !planseal::checkpoint::detect(&root).is_empty() {
        let context = planseal::checkpoint::ops::context(&dir, None)
            .map_err(super::super::checkpoint::lift)?;
        text.push_str(&context.to_text());
    }
    Ok(text)
}

pub(super) fn stop(ctx: &Context) -> ExitCode {
    let (input, dir) = match input(ctx) {
        Ok(x) => x,
        Err(e) => return failed(e, ctx),
    };
    if input.stop_hook_active {
        if ctx.json {
            print_json(serde_json::to_value(StopDocument::passed_on_active()).unwrap_or_default());
        }
        return ExitCode::Ok;
    }
    let decision = match stop_decision(&dir) {
        Ok(d) => d,
        Err(e) => return failed(e.into(), ctx),
    };
    let blocked = !decision.block.is_empty();
    if ctx.json {
        print_json(serde_json::to_value(StopDocument::of(&decision)).unwrap_or_default());
    }
    let mut errors = String::new();
    for e in &decision.errors {
        errors.push_str(&format!("planseal: error: {e}\n"));
    }
    if !errors.is_empty() {
        errors.push_str("  hint: run `planseal status` in the project and fix what it reports\n");
    }
    if blocked {
        print_err(&format!("{}{errors}", decision.reason_text()));
        // Claude Code's blocking exit code: the stop is refused and stderr goes to Claude.
        return ExitCode::UsageOrUnverified;
    }
    if !errors.is_empty() {
        print_err(&errors);
        return ExitCode::Failed;
    }
    ExitCode::Ok
}
