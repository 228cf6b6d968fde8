//! `planseal hook pre-commit|pre-push|commit-msg`: git runs these through the hook scripts
//! `planseal hooks install --git` writes (`docs/git-hooks.md`). The checks are
//! `planseal::hooks::git_check`'s; this module parses and prints.

use super::super::Context;
use crate::{print_json, print_out};
use planseal::hooks::git_check::MessageChecked;
use planseal::hooks::git_check::{self, MessageError, PlansChecked};
use planseal::report::json::ReportDocument;
use planseal::report::{ExitCode, Verdict, text};
use std::io::{IsTerminal, Read};
use std::path::PathBuf;

#[derive(clap::Args, Debug)]
#[command(after_help = "\
Verifies, with the checks of `planseal verify`, every plan that has a file staged for this \
commit, and every plan whose .dwp/ folder is ignored by git (the usual set-up: no plan file is \
then ever staged, so the plans are checked against the commit as a whole). The index is read \
through gix, as git left it for the hook (GIT_INDEX_FILE).\n\n\
Examples:\n  planseal hooks install --git                 install it as git's pre-commit hook\n  \
planseal hook pre-commit                     what git runs before each commit\n  \
planseal hook pre-commit --json\n\n\
Exit codes: 0 CONFORMANT or no plan to verify (the commit goes on), 1 NOT CONFORMANT, 2 \
UNVERIFIED or not in a git work tree (git stops the commit on anything but 0).")]
pub(in crate::cli) struct PreCommitArgs {}

#[derive(clap::Args, Debug)]
#[command(after_help = "\
Verifies every plan of the work tree. git passes the remote's name and URL, and the refs \
being pushed on stdin; they are read and not needed.\n\n\
Examples:\n  planseal hooks install --git --git-hook pre-push\n  \
planseal hook pre-push origin https://example.com/repo.git < /dev/null\n\n\
Exit codes: 0 CONFORMANT or no plan (the push goes on), 1 NOT CONFORMANT, 2 UNVERIFIED or not \
in a git work tree.")]
pub(in crate::cli) struct PrePushArgs {
    /// The remote's name (passed by git; not used)
    #[arg(value_name = "REMOTE")]
    pub remote: Option<String>,
    /// The remote's URL (passed by git; not used)
    #[arg(value_name = "URL")]
    pub url: Option<String>,
}

#[derive(clap::Args, Debug)]
#[command(after_help = "\
When the message's subject (its first line that is not blank or a # comment) ends in \
`- Task N of PLAN_x` (docs/history.md), PLAN_x must be a plan of this work tree, N one of its \
tasks, and that task in_progress in its state.json. A plan with no state.json records no task \
in progress: the subject passes, with a note. Any other message passes.\n\n\
Examples:\n  planseal hooks install --git --git-hook commit-msg\n  \
planseal hook commit-msg .git/COMMIT_EDITMSG\n\n\
Exit codes: 0 the message passes, 1 refused (plan-not-found, unknown-task, \
task-not-in-progress: git does not commit), 2 the message or the plan could not be read.")]
pub(in crate::cli) struct CommitMsgArgs {
    /// The file holding the commit message (git passes it)
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
}

/// `hook pre-commit|pre-push --json`: the plans verified, why each, the verdict, and verify's
/// own document of them (left out when none was verified).
#[derive(serde::Serialize, schemars::JsonSchema)]
pub(in crate::cli) struct PlansDocument<'a> {
    result: &'static str,
    /// `pre-commit` or `pre-push`.
    hook: &'static str,
    /// CONFORMANT when no plan was verified.
    verdict: Verdict,
    #[serde(flatten)]
    checked: &'a PlansChecked,
    /// `planseal verify --json`'s document of the plans verified (without its `result`).
    #[serde(skip_serializing_if = "Option::is_none")]
    verify: Option<ReportDocument<'a>>,
}

/// `hook commit-msg --json`: the subject and, when it names a task, the task's plan, number and
/// status.
#[derive(serde::Serialize, schemars::JsonSchema)]
pub(in crate::cli) struct MessageDocument<'a> {
    result: &'static str,
    /// `commit-msg`.
    hook: &'static str,
    #[serde(flatten)]
    checked: &'a MessageChecked,
}

/// Prints what pre-commit or pre-push verified; the exit code is the verdict's.
fn deliver(ctx: &Context, hook: &'static str, checked: &PlansChecked) -> anyhow::Result<ExitCode> {
    crate::redact_output_for(&ctx.cwd);
    let verdict = checked.verdict();
    if ctx.json {
        print_json(serde_json::to_value(PlansDocument {
            result: "ok",
            hook,
            verdict,
            checked,
            verify: (!checked.plans.is_empty()).then(|| ReportDocument::of(&checked.report)),
        })?);
        return Ok(verdict.exit_code());
    }
    if checked.plans.is_empty() {
        return Ok(ExitCode::Ok);
    }
    let names = checked.plans.join(", ");
    if verdict == Verdict::Conformant {
        print_out(&format!("planseal {hook}: CONFORMANT: {names}\n"));
        return Ok(ExitCode::Ok);
    }
    let what = if hook == "pre-push" { "push" } else { "commit" };
    let mut out = text::render(&checked.report, text::Style { color: ctx.color });
    out.push_str(&format!(
        "planseal {hook}: {}: the {what} is stopped; fix the findings above (`planseal verify`), or skip the hook once with `git {what} --no-verify`\n",
        verdict.as_str()
    ));
    print_out(&out);
    Ok(verdict.exit_code())
}

pub(super) fn pre_commit(_args: PreCommitArgs, ctx: &Context) -> anyhow::Result<ExitCode> {
    let checked = git_check::pre_commit(&ctx.cwd)?;
    deliver(ctx, "pre-commit", &checked)
}

pub(super) fn pre_push(_args: PrePushArgs, ctx: &Context) -> anyhow::Result<ExitCode> {
    // git writes the refs being pushed on stdin; read them so that git never writes into a
    // closed pipe. A terminal is never read (nothing would end it).
    let stdin = std::io::stdin();
    if !stdin.is_terminal() {
        let _ = stdin.lock().read_to_end(&mut Vec::new());
    }
    let checked = git_check::pre_push(&ctx.cwd)?;
    deliver(ctx, "pre-push", &checked)
}

pub(super) fn commit_msg(args: CommitMsgArgs, ctx: &Context) -> anyhow::Result<ExitCode> {
    let checked = match git_check::commit_msg(&ctx.cwd, &args.file) {
        Ok(c) => c,
        Err(MessageError::Refused(r)) => return Err(r.into()),
        Err(MessageError::Error(e)) => return Err(e.into()),
    };
    if ctx.json {
        print_json(serde_json::to_value(MessageDocument {
            result: "ok",
            hook: "commit-msg",
            checked: &checked,
        })?);
    } else if let (Some(plan), Some(task)) = (&checked.plan, checked.task) {
        match &checked.note {
            Some(note) => print_out(&format!("planseal commit-msg: {note}\n")),
            None => print_out(&format!(
                "planseal commit-msg: task {task} of {plan} is in progress\n"
            )),
        }
    }
    Ok(ExitCode::Ok)
}
