//! `gsd decision add`, `gsd blocker add|resolve`, `gsd session record`: GSD's own record
//! commands, each editing only its lines of the body ([`crate::gsd::edit`]), with the frontmatter
//! brought in line as `gsd sync --write` does (`last_updated` stamped), under GSD's lock.

use super::sync::baseline;
use super::{StateFile, derive_with_phases_checked, read_state_for, write_locked};
use crate::clock::{Clock, TimestampShape, format_timestamp, format_utc};
use crate::gsd::document::Document;
use crate::gsd::edit::{self, BodyEdit, EditError, SessionRecord};
use crate::gsd::error::GsdError;
use crate::gsd::sync::{self as planner, KeyUpdate};
use crate::recovery::hash::sha256_hex;
use crate::report::text::{printable, unified_diff};
use crate::report::{Refusal, RefusalKind};
use crate::write::{Committed, JournalEntry};
use serde::Serialize;
use std::time::Duration;

/// What to record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Record {
    /// `gsd decision add --phase P --summary S [--rationale R]`.
    Decision {
        /// The phase the decision belongs to (`?` when not given, as GSD writes it).
        phase: Option<String>,
        /// What was decided.
        summary: String,
        /// Why (written after ` — `).
        rationale: Option<String>,
    },
    /// `gsd blocker add --text T`.
    AddBlocker {
        /// The blocker, one line.
        text: String,
    },
    /// `gsd blocker resolve --text T`: every blocker line containing T goes.
    ResolveBlocker {
        /// Text the blocker lines to remove contain (case-insensitive).
        text: String,
    },
    /// `gsd session record [--stopped-at S] [--resume-file F]`.
    Session {
        /// Where the work stopped.
        stopped_at: Option<String>,
        /// The file to resume from.
        resume_file: Option<String>,
    },
}

impl Record {
    /// The command's name in the journal and the lock's owner record.
    pub fn operation(&self) -> &'static str {
        match self {
            Record::Decision { .. } => "gsd decision add",
            Record::AddBlocker { .. } => "gsd blocker add",
            Record::ResolveBlocker { .. } => "gsd blocker resolve",
            Record::Session { .. } => "gsd session record",
        }
    }

    /// Every text the caller gave, with its flag (checked to be one line).
    fn texts(&self) -> Vec<(&'static str, &str)> {
        let given: [(&'static str, Option<&String>); 3] = match self {
            Record::Decision {
                phase,
                summary,
                rationale,
            } => [
                ("--phase", phase.as_ref()),
                ("--summary", Some(summary)),
                ("--rationale", rationale.as_ref()),
            ],
            Record::AddBlocker { text } | Record::ResolveBlocker { text } => {
                [("--text", Some(text)), ("", None), ("", None)]
            }
            Record::Session {
                stopped_at,
                resume_file,
            } => [
                ("--stopped-at", stopped_at.as_ref()),
                ("--resume-file", resume_file.as_ref()),
                ("", None),
            ],
        };
        given
            .into_iter()
            .filter_map(|(flag, v)| v.map(|v| (flag, v.as_str())))
            .collect()
    }
}

/// A record command: which STATE.md, what to record, and how to write it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordOptions {
    /// The STATE.md.
    pub state: StateFile,
    /// What to record.
    pub record: Record,
    /// Show the change as a unified diff; write nothing.
    pub dry_run: bool,
    /// The SHA-256 of STATE.md as the caller last read it (compare-and-swap).
    pub expected_sha256: Option<String>,
    /// How long to wait for a live writer's lock before refusing.
    pub lock_wait: Duration,
}

/// What a record command did (or, with `--dry-run`, would do); its JSON form is the `--json`
/// document.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct RecordOutcome {
    /// `applied`, or `ok` for a dry run.
    pub result: &'static str,
    /// Nothing was written: the change is what a run without `--dry-run` would make.
    pub dry_run: bool,
    /// The STATE.md, as the user sees it.
    pub file: String,
    /// `gsd decision add`, `gsd blocker add`, `gsd blocker resolve`, `gsd session record`.
    pub operation: &'static str,
    /// The lines added (a decision, a blocker) or removed (resolved blockers).
    pub lines: Vec<String>,
    /// The session fields set, in GSD's names (`Last session`, `Stopped At`, `Resume File`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub updated: Vec<&'static str>,
    /// A section was created because the file had none of its names.
    pub created: bool,
    /// The frontmatter keys set, as `gsd sync --write` sets them.
    pub frontmatter: Vec<KeyUpdate>,
    /// The unified diff of the change.
    pub diff: String,
    /// SHA-256 of STATE.md before.
    pub sha256_before: String,
    /// SHA-256 of STATE.md after (what it is, or would be).
    pub sha256_after: String,
    /// The write, when one was made.
    #[serde(skip)]
    pub committed: Option<Committed>,
}

impl RecordOutcome {
    /// The text output: what changed, the diff on a dry run; file text quoted with
    /// [`printable`].
    pub fn to_text(&self) -> String {
        let verb = match (self.operation, self.committed.is_some()) {
            ("gsd blocker resolve", true) => "removed",
            ("gsd blocker resolve", false) => "would remove",
            ("gsd session record", true) => "set",
            ("gsd session record", false) => "would set",
            (_, true) => "added",
            (_, false) => "would add",
        };
        let mut out = String::new();
        if self.operation == "gsd session record" {
            out.push_str(&format!(
                "{}: {verb} {}\n",
                self.file,
                self.updated.join(", ")
            ));
        } else {
            for l in &self.lines {
                out.push_str(&format!("{}: {verb} {l}\n", self.file));
            }
        }
        if self.created {
            out.push_str("  (a new section: the file had none)\n");
        }
        if self.committed.is_none() {
            out.push_str(&self.diff);
            out.push_str("nothing written (--dry-run)\n");
        } else {
            out.push_str(&format!("written (sha256 {})\n", self.sha256_after));
        }
        printable(&out).into_owned()
    }
}

/// Records the change (see the module comment). `clock` stamps `Last session`, `last_updated`
/// and the journal line with one instant.
pub fn record(opts: &RecordOptions, clock: &mut Clock) -> Result<RecordOutcome, GsdError> {
    for (flag, text) in opts.record.texts() {
        check_text(flag, text)?;
    }
    let path = &opts.state.path;
    let file = opts.state.shown.clone();
    let writing = !opts.dry_run;
    let (bytes, text) = read_state_for(path, writing)?;
    if std::str::from_utf8(&bytes).is_err() {
        return Err(Refusal::new(
            RefusalKind::NotUtf8,
            format!("{file}: STATE.md is not valid UTF-8; nothing was written"),
        )
        .hint("re-save the file as UTF-8 first")
        .into());
    }
    let before_sha = sha256_hex(&bytes);
    if let Some(expected) = &opts.expected_sha256
        && !expected.trim().eq_ignore_ascii_case(&before_sha)
    {
        return Err(Refusal::new(
            RefusalKind::StaleSnapshot,
            format!("{file}: its SHA-256 is {before_sha}, not the expected {expected}; nothing was written"),
        )
        .hint("STATE.md changed since you read it: read it again, then retry with the new hash")
        .into());
    }
    let instant = clock.now();
    let now = format_utc(instant, TimestampShape::JsMillisZ);
    let doc = Document::parse(text);
    if doc
        .frontmatter
        .as_ref()
        .is_some_and(|f| f.deviations.unclosed)
    {
        return Err(Refusal::new(
            RefusalKind::ShapeError,
            format!("{file}: the frontmatter has no closing `---` line; nothing was written"),
        )
        .hint("add the closing `---` line after the frontmatter, then retry")
        .into());
    }
    let edit = body_edit(&doc, &opts.record, &now).map_err(|e| refusal(e, &file))?;
    let edited = Document::parse(edit.text.clone());
    let derivation = derive_with_phases_checked(&edited, path, writing)?;
    let base = baseline(path, writing)?;
    let plan = planner::plan_after_body_change(&edited, &derivation, base.as_ref(), &now)
        .map_err(|e| Refusal::new(RefusalKind::ShapeError, format!("{file}: {e}")))?;
    let new_text = plan.new_text.clone().unwrap_or(edit.text);
    let diff = unified_diff(&doc.text, &new_text, &file);
    let mut outcome = RecordOutcome {
        result: "ok",
        dry_run: true,
        file,
        operation: opts.record.operation(),
        lines: edit.lines.clone(),
        updated: edit.updated.clone(),
        created: edit.created,
        frontmatter: plan.updates.clone(),
        diff,
        sha256_before: before_sha,
        sha256_after: sha256_hex(new_text.as_bytes()),
        committed: None,
    };
    if opts.dry_run {
        return Ok(outcome);
    }
    let entry = JournalEntry::for_file(
        format_timestamp(instant),
        opts.record.operation(),
        &path.display().to_string(),
    )
    .with("lines", edit.lines)
    .with("updated", edit.updated)
    .with("created", edit.created)
    .with(
        "changes",
        serde_json::to_value(&plan.updates).unwrap_or_default(),
    )
    .with(
        "sources",
        serde_json::to_value(planner::source_lines(&derivation)).unwrap_or_default(),
    );
    outcome.committed = Some(write_locked(
        path,
        &bytes,
        &new_text,
        entry,
        opts.lock_wait,
    )?);
    outcome.result = "applied";
    outcome.dry_run = false;
    Ok(outcome)
}

fn body_edit(doc: &Document, record: &Record, now: &str) -> Result<BodyEdit, EditError> {
    Ok(match record {
        Record::Decision {
            phase,
            summary,
            rationale,
        } => edit::add_decision(
            doc,
            &edit::decision_entry(phase.as_deref(), summary, rationale.as_deref()),
        ),
        Record::AddBlocker { text } => edit::add_blocker(doc, text),
        Record::ResolveBlocker { text } => edit::resolve_blocker(doc, text)?,
        Record::Session {
            stopped_at,
            resume_file,
        } => edit::record_session(
            doc,
            &SessionRecord {
                now,
                stopped_at: stopped_at.as_deref(),
                resume_file: resume_file.as_deref(),
            },
        )?,
    })
}

fn refusal(e: EditError, file: &str) -> Refusal {
    match &e {
        EditError::NoBlockersSection => Refusal::new(
            RefusalKind::BlockerNotFound,
            format!("{file}: {e}; nothing was written"),
        )
        .hint("there is no blocker to resolve; `planseal gsd blocker add --text …` records one"),
        EditError::BlockerNotFound { open, .. } => {
            let hint = if open.is_empty() {
                "the Blockers section lists no blocker".to_string()
            } else {
                format!(
                    "the open blockers are: {}; pass a part of one of them",
                    open.iter()
                        .map(|l| l.trim_start_matches("- "))
                        .collect::<Vec<_>>()
                        .join(" | ")
                )
            };
            Refusal::new(
                RefusalKind::BlockerNotFound,
                format!("{file}: {e}; nothing was written"),
            )
            .hint(hint)
        }
        EditError::NoSessionFields => Refusal::new(
            RefusalKind::SessionFieldsMissing,
            format!("{file}: {e}; nothing was written"),
        )
        .hint("pass --stopped-at TEXT (or --resume-file PATH): the missing session lines are then added"),
    }
}

/// A flag's text: one line, not empty, at most 500 characters.
fn check_text(flag: &str, text: &str) -> Result<(), Refusal> {
    if text.trim().is_empty() || text.contains(['\n', '\r']) || text.chars().count() > 500 {
        return Err(Refusal::new(
            RefusalKind::UsageError,
            format!("{flag} must be one line of 1 to 500 characters"),
        )
        .hint(format!("e.g. {flag} \"Use Postgres for the cache\"")));
    }
    Ok(())
}
