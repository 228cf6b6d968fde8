//! `rebuild`: state.json regenerated from the README, the task logs and the git log (the rules
//! are in docs/history.md). Without `write` it only says, one line per field, what would change.

use super::OpError;
use crate::clock::Clock;
use crate::dwp::decide::rebuild::{Change, gather, rebuild as decide, write};
use crate::dwp::layout;
use crate::dwp::locate::{Git, GitProgress, open_plan};
use crate::report::{Refusal, RefusalKind};
use serde::Serialize;
use serde_json::Value;
use std::path::PathBuf;

/// `planseal rebuild PLAN_DIR [--write]`.
#[derive(Debug, Clone)]
pub struct RebuildOptions {
    /// The directory the command runs in; relative paths are taken from here.
    pub cwd: PathBuf,
    /// The plan folder as given.
    pub plan_dir: PathBuf,
    /// Write the rebuilt state.json (and a reconciliation entry in PROGRESS.md) when it differs.
    pub write: bool,
}

/// What the rebuild found and did (the `--json` document).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RebuildOutcome {
    /// The plan folder's name (`PLAN_x`).
    pub plan: String,
    /// state.json (and PROGRESS.md) were written: `write` was asked for and something changed.
    pub written: bool,
    /// The rebuilt state differs from the current one.
    pub changed: bool,
    /// The fields that change, in order.
    pub changes: Vec<Change>,
    /// Values kept against a conflicting source, and values that could not be recovered.
    pub reports: Vec<Change>,
    /// One line per change, as the text form prints them.
    pub lines: Vec<String>,
    /// The rebuilt state.
    pub state: Value,
    /// The SHA-256 of the state.json written; `None` when nothing was.
    pub state_sha256: Option<String>,
}

/// Rebuilds the plan's state (stamped with the clock's time) and, when asked and it differs,
/// writes it. Refused while a publication is interrupted: the two would race.
pub fn rebuild(
    opts: &RebuildOptions,
    clock: &mut Clock,
    progress: Option<GitProgress>,
) -> Result<RebuildOutcome, OpError> {
    let mut plan = open_plan(&opts.cwd, &opts.plan_dir, Git::Skip)?;
    if plan.dir.join(layout::MARKER_FILE).exists() {
        return Err(Refusal::new(
            RefusalKind::MarkerPresent,
            format!(
                "{}: a publication was interrupted ({}); a rebuild would race it",
                plan.dir.display(),
                layout::MARKER_FILE
            ),
        )
        .hint(format!(
            "run `planseal recover {}` first",
            plan.dir.display()
        ))
        .into());
    }
    plan.open_git(progress)?;
    let inputs = gather(&plan.dir, plan.repo.as_ref())?;
    let now = clock.now_iso();
    let rebuilt = decide(&inputs, &now);
    let written = if opts.write && rebuilt.changed() {
        Some(write(&plan.dir, &inputs, &rebuilt, &now)?)
    } else {
        None
    };
    Ok(RebuildOutcome {
        plan: inputs.plan,
        written: written.is_some(),
        changed: rebuilt.changed(),
        lines: rebuilt.changes.iter().map(Change::line).collect(),
        changes: rebuilt.changes,
        reports: rebuilt.reports,
        state: rebuilt.state,
        state_sha256: written.map(|w| w.after_sha256),
    })
}

impl RebuildOutcome {
    /// One line per change and per report, then what was (or would be) done.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        for c in self.changes.iter().chain(&self.reports) {
            out.push_str(&c.line());
            out.push('\n');
        }
        match (&self.state_sha256, self.changed) {
            (_, false) => out.push_str(
                "state.json already agrees with the markdown and git; nothing to change\n",
            ),
            (Some(sha), true) => out.push_str(&format!(
                "wrote state.json ({} change(s), sha256 {}) and a reconciliation entry in PROGRESS.md\n",
                self.changes.len(),
                &sha[..12]
            )),
            (None, true) => out.push_str(&format!(
                "{} change(s); nothing written (run with --write to apply)\n",
                self.changes.len()
            )),
        }
        out
    }
}
