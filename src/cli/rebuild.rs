//! `planseal rebuild PLAN_DIR [--write]`: regenerate state.json from the markdown and the git log
//! (SPEC §1.11). Without `--write` it prints the change it would make, one line per field.

use super::Context;
use super::log::{open_repo, plan_folder};
use crate::{print_json, print_out};
use planseal::dwp::decide::rebuild::{Change, gather, rebuild, write};
use planseal::report::ExitCode;
use planseal::report::{Refusal, RefusalKind};

#[derive(clap::Args, Debug)]
#[command(
    after_help = "Examples:\n  planseal rebuild .dwp/plans/PLAN_x             each field that would change, and why\n  planseal rebuild .dwp/plans/PLAN_x --write     write it and note it in PROGRESS.md\n  planseal finalize .dwp/plans/PLAN_x            then re-seal a published plan's receipt\n\nExit codes: 0 when it ran (and, with --write, wrote); 1 refused; \
with --exit-code and without --write, 1 when state.json would change."
)]
pub struct Args {
    /// The plan folder (.dwp/plans/PLAN_<name>)
    pub plan_dir: std::path::PathBuf,
    /// Write the rebuilt state.json (lock, compare-and-swap, atomic write) and append a dated
    /// reconciliation entry to PROGRESS.md
    #[arg(long)]
    pub write: bool,
    /// Without --write: exit 1 when state.json would change (like `git diff --exit-code`)
    #[arg(long, conflicts_with = "write")]
    pub exit_code: bool,
}

pub fn run(args: Args, ctx: &Context) -> anyhow::Result<ExitCode> {
    // A `.env` value quoted in a plan file, a log or a commit subject is never printed.
    crate::redact_output_for(&ctx.cwd.join(&args.plan_dir));
    let plan_dir = plan_folder(&ctx.cwd, &args.plan_dir)?;
    if plan_dir.join(".finalizing.json").exists() {
        return Err(Refusal::new(
            RefusalKind::MarkerPresent,
            format!(
                "{}: a publication was interrupted (.finalizing.json); a rebuild would race it",
                plan_dir.display()
            ),
        )
        .hint(format!(
            "run `planseal recover {}` first",
            plan_dir.display()
        ))
        .into());
    }
    let repo = open_repo(&plan_dir)?;
    let inputs = gather(&plan_dir, repo.as_ref())?;
    let mut clock = planseal::clock::Clock::from_env()?;
    let now = clock.now_iso();
    let rebuilt = rebuild(&inputs, &now);

    let written = if args.write && rebuilt.changed() {
        Some(write(&plan_dir, &inputs, &rebuilt, &now)?)
    } else {
        None
    };

    if ctx.json {
        let doc = serde_json::json!({
            "plan": inputs.plan,
            "written": written.is_some(),
            "changed": rebuilt.changed(),
            "changes": rebuilt.changes,
            "reports": rebuilt.reports,
            "lines": rebuilt.changes.iter().map(Change::line).collect::<Vec<_>>(),
            "state": rebuilt.state,
            "state_sha256": written.as_ref().map(|w| w.after_sha256.clone()),
        });
        print_json(doc);
    } else {
        let mut out = String::new();
        for c in &rebuilt.changes {
            out.push_str(&c.line());
            out.push('\n');
        }
        for r in &rebuilt.reports {
            out.push_str(&r.line());
            out.push('\n');
        }
        match (&written, rebuilt.changed()) {
            (_, false) => out.push_str("state.json already agrees with the markdown and git; nothing to change\n"),
            (Some(w), true) => out.push_str(&format!(
                "wrote state.json ({} change(s), sha256 {}) and a reconciliation entry in PROGRESS.md\n",
                rebuilt.changes.len(),
                &w.after_sha256[..12]
            )),
            (None, true) => out.push_str(&format!(
                "{} change(s); nothing written (run with --write to apply)\n",
                rebuilt.changes.len()
            )),
        }
        print_out(&out);
    }
    Ok(ExitCode::failed_if(args.exit_code && rebuilt.changed()))
}
