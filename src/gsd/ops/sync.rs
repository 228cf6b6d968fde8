//! `gsd sync`: derive the frontmatter from the body and the phase folders, show the diff, and
//! with `write` apply it under GSD's lock.

use super::{StateFile, derive_with_phases_checked, git_input, read_state_for, write_locked};
use crate::clock::{Clock, TimestampShape, format_timestamp, format_utc};
use crate::gsd::document::Document;
use crate::gsd::error::GsdError;
use crate::gsd::layout;
use crate::gsd::sync::{self as planner, Baseline, Drift, KeyUpdate};
use crate::recovery::git::Repo;
use crate::report::text::{printable, unified_diff};
use crate::report::{HintedError, Refusal, RefusalKind};
use crate::write::{Committed, JournalEntry};
use serde::Serialize;
use std::fmt::Write;
use std::path::Path;
use std::time::Duration;

/// `gsd sync`: which STATE.md, whether to write, and how long to wait for GSD's lock.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyncOptions {
    /// The STATE.md to sync.
    pub state: StateFile,
    /// Apply the change (otherwise only show it).
    pub write: bool,
    /// How long to wait for a live writer's lock before refusing.
    pub lock_wait: Duration,
}

/// What `gsd sync` found and did; its JSON form is the `--json` document.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct SyncOutcome {
    /// The STATE.md, as the user sees it.
    pub file: String,
    /// Whether the frontmatter differs from what the body gives.
    pub changed: bool,
    /// Whether the new text was written (only with `write`, and only when something changes).
    pub written: bool,
    /// The keys the sync sets (or would set), in the order they are written.
    pub updates: Vec<KeyUpdate>,
    /// The disagreements it keeps, each with the reason.
    pub drift: Vec<Drift>,
    /// What the preservation rule compared with (planseal's last write, or git HEAD).
    pub baseline: Option<String>,
    /// The unified diff from the current text to the synced one; `None` when nothing changes.
    pub diff: Option<String>,
    /// The write, when one was made (its journal line may have failed).
    #[serde(skip)]
    pub committed: Option<Committed>,
}

/// `clock` stamps `last_updated` (GSD's spelling) and the journal line.
pub fn sync(opts: &SyncOptions, clock: &mut Clock) -> Result<SyncOutcome, GsdError> {
    let path = &opts.state.path;
    let (bytes, text) = read_state_for(path, opts.write)?;
    if std::str::from_utf8(&bytes).is_err() {
        return Err(Refusal::new(
            RefusalKind::NotUtf8,
            format!(
                "{}: STATE.md is not valid UTF-8; nothing was written",
                path.display()
            ),
        )
        .hint("re-save the file as UTF-8 first")
        .into());
    }
    let doc = Document::parse(text);
    let derivation = derive_with_phases_checked(&doc, path, opts.write)?;
    let baseline = baseline(path, opts.write)?;
    // GSD's own spelling: JavaScript's `toISOString()`.
    let now = format_utc(clock.now(), TimestampShape::JsMillisZ);
    let plan = planner::plan(&doc, &derivation, baseline.as_ref(), &now).map_err(|e| {
        Refusal::new(RefusalKind::ShapeError, format!("{}: {e}", path.display()))
            .hint("add the closing `---` line after the frontmatter, then run sync again")
    })?;
    let file = opts.state.shown.clone();
    let diff = plan
        .new_text
        .as_ref()
        .map(|new| unified_diff(&doc.text, new, &file));
    let mut committed = None;
    if opts.write
        && let Some(new_text) = &plan.new_text
    {
        let entry = JournalEntry::for_file(
            format_timestamp(clock.now()),
            "gsd sync",
            &path.display().to_string(),
        )
        .with(
            "changes",
            serde_json::to_value(&plan.updates).unwrap_or_default(),
        )
        .with(
            "sources",
            serde_json::to_value(planner::source_lines(&derivation)).unwrap_or_default(),
        );
        committed = Some(write_locked(path, &bytes, new_text, entry, opts.lock_wait)?);
    }
    Ok(SyncOutcome {
        file,
        changed: plan.new_text.is_some(),
        written: committed.is_some(),
        updates: plan.updates,
        drift: plan.drift,
        baseline: baseline.map(|b| b.origin),
        diff,
        committed,
    })
}

impl SyncOutcome {
    /// The diff (or that nothing changes), the drift kept, and whether it was written; file text
    /// in it is quoted with [`printable`].
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        match &self.diff {
            None => {
                let _ = writeln!(
                    out,
                    "{}: frontmatter already matches the body; nothing to write",
                    self.file
                );
            }
            Some(d) => out.push_str(d),
        }
        for d in &self.drift {
            let _ = writeln!(
                out,
                "drift: {} is `{}` in the frontmatter but {} gives `{}`; kept: {}",
                d.key, d.frontmatter, d.source, d.derived, d.kept_because
            );
        }
        if self.changed {
            if self.written {
                let _ = writeln!(
                    out,
                    "written: {} ({} key(s) updated)",
                    self.file,
                    self.updates.len()
                );
            } else {
                out.push_str("not written (pass --write to apply)\n");
            }
        }
        printable(&out).into_owned()
    }
}

/// The baseline of the preservation rule: planseal's last journaled write, else git HEAD
/// (`writing`: a journal or repository that cannot be read is exit 3, nothing applied).
pub(super) fn baseline(path: &Path, writing: bool) -> Result<Option<Baseline>, GsdError> {
    match journal_baseline(path, writing)? {
        Some(b) => Ok(Some(b)),
        None => git_head_baseline(path).map_err(git_input(path, writing)),
    }
}

/// The baseline of the preservation rule: the body at the last journaled planseal write (its
/// recorded source lines), when that write is what the file still holds or an ancestor of it.
/// A journal that is there but cannot be read stops the sync (exit 3 when `writing`, else 2):
/// the git baseline in its place would be a guess.
fn journal_baseline(path: &Path, writing: bool) -> Result<Option<Baseline>, GsdError> {
    // The lock wait does not matter for reading the journal.
    // The journal in the git directory first, then the one beside the file (its old place).
    let target = layout::state_target(path, Duration::ZERO);
    let read = target.read_journals().map_err(|e| {
        // The store's error names the journal.
        let message = format!("cannot read the journal {e}");
        if writing {
            HintedError::input_io(message)
        } else {
            HintedError::usage(message).hint("check the journal's permissions and its disk")
        }
    })?;
    Ok(baseline_of(&read))
}

/// The last journaled write's recorded source lines, as the baseline.
fn baseline_of(read: &crate::recovery::store::JournalRead) -> Option<Baseline> {
    let entry = read
        .entries
        .iter()
        .rev()
        .find(|e| e.get("sources").is_some_and(|s| s.is_object()))?;
    let sources = entry["sources"]
        .as_object()?
        .iter()
        .filter_map(|(k, v)| Some((k.clone(), v.as_str()?.to_string())))
        .collect();
    Some(Baseline {
        origin: format!(
            "planseal's last write ({})",
            entry
                .get("time")
                .and_then(|t| t.as_str())
                .unwrap_or("journal")
        ),
        sources,
    })
}

/// The file at git HEAD as the baseline, when the file is tracked there.
fn git_head_baseline(path: &Path) -> Result<Option<Baseline>, GsdError> {
    let Some(repo) = Repo::discover(&layout::state_dir(path))? else {
        return Ok(None);
    };
    let rel = repo.relative_to_work_tree(path)?;
    // The commit HEAD was read as, not `HEAD` again: a second read of the reference that fails
    // would say "`HEAD` is not a revision" instead of naming the file that could not be read.
    let Some(head) = repo.head()?.id else {
        return Ok(None);
    };
    Ok(repo
        .file_at(&head, &rel)?
        .map(|bytes| Baseline::from_text("git HEAD", &String::from_utf8_lossy(&bytes))))
}
