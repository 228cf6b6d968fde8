//! One function per `planseal gsd` command: typed options in, a typed outcome out (its JSON form
//! is its `Serialize`, its text form a pure method), or a [`GsdError`]. Files and git are read
//! here; every write goes through [`crate::write::Writer`]. Nothing here prints.

mod record;
mod recover;
mod status;
mod statusline;
mod sync;

pub use record::{Record, RecordOptions, RecordOutcome, record};
pub use recover::{Picks, RecoverOptions, RecoverOutcome, Restore, recover};
pub use status::{
    BodyFieldRow, Disagreement, PercentReport, StatusOptions, StatusOutcome, StatusReport,
    StatuslinePair, status,
};
pub use statusline::{
    LineOptions, STDIN_LIMIT, STDIN_TIMEOUT, StatuslineOptions, StatuslineOutcome,
    read_stdin_bounded, statusline, statusline_line,
};

pub use sync::{SyncOptions, SyncOutcome, sync};

use super::derive::{self, Derivation};
use super::document::Document;
use super::error::GsdError;
use super::layout;
use crate::report::text::{self as report_text, Style};
use crate::report::{HintedError, Report};
use crate::write::{Committed, JournalEntry, Writer};
use serde::{Serialize, Serializer};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The STATE.md a command works on, and its name as the user sees it (relative to where the
/// command runs, when inside it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StateFile {
    /// Where the file is (the path the command reads and writes).
    pub path: PathBuf,
    /// How messages and the report name it.
    pub shown: String,
}

/// `gsd check`: the GSD section of `planseal verify` for one file, named as the user sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckOutcome {
    /// The checks of the one file, as one section named as the user sees it.
    pub report: Report,
}

/// The report's own JSON form (the one `verify --json` prints).
/// Serialised as `verify --json` serialises its report, so described by the same document.
impl schemars::JsonSchema for CheckOutcome {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "CheckOutcome".into()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        <crate::report::json::ReportDocument<'static> as schemars::JsonSchema>::json_schema(
            generator,
        )
    }
}

impl Serialize for CheckOutcome {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        crate::report::json::to_value(&self.report).serialize(s)
    }
}

impl CheckOutcome {
    /// The text form, as `verify` prints it: the section and its verdict line (`color`: paint with
    /// ANSI colours).
    pub fn to_text(&self, color: bool) -> String {
        report_text::render(&self.report, Style { color })
    }

    /// 0 CONFORMANT, 1 NOT CONFORMANT, 2 UNVERIFIED.
    pub fn exit_code(&self) -> crate::report::ExitCode {
        self.report.verdict().exit_code()
    }
}

/// `gsd check`: the checks `verify` runs on a STATE.md, for this one file.
pub fn check(state: &StateFile) -> CheckOutcome {
    let mut section = super::check(&state.path);
    section.name = state.shown.clone();
    CheckOutcome {
        report: Report {
            sections: vec![section],
        },
    }
}

/// The file's bytes and text (read once), for a command that only reads: an I/O error is exit 2.
fn read_state(path: &Path) -> Result<(Vec<u8>, String), GsdError> {
    read_state_for(path, false)
}

/// [`read_state`]; an I/O error is exit 3 (nothing applied) when the command writes (`writing`).
fn read_state_for(path: &Path, writing: bool) -> Result<(Vec<u8>, String), GsdError> {
    let bytes =
        planseal_recovery::read::read_existing(path, planseal_recovery::read::Kind::Document)
            .map_err(|e| super::locate::unreadable_state(&e, writing))?;
    let text = String::from_utf8_lossy(&bytes).into_owned();
    Ok((bytes, text))
}

/// A git read failure of a command that writes: exit 3, nothing applied — the file is never
/// written from a guess of what its history holds. A command that only reads keeps the error.
fn git_input(path: &Path, writing: bool) -> impl FnOnce(GsdError) -> GsdError + '_ {
    move |e| match e {
        GsdError::Git(g) if writing => {
            HintedError::git_input(&path.display().to_string(), &g).into()
        }
        other => other,
    }
}

/// What the body and the phase folders beside the file imply.
fn derive_with_phases(doc: &Document, state: &Path) -> Derivation {
    let phases = derive::count_phases(&layout::state_dir(state), doc.scalar("milestone"));
    derive::derive(doc, phases)
}

/// [`derive_with_phases`] for `gsd sync`: a phase folder, plan or ROADMAP.md that is there but
/// cannot be read stops it (exit 3 when `writing`, else 2) — the frontmatter is never derived
/// from a partial count.
fn derive_with_phases_checked(
    doc: &Document,
    state: &Path,
    writing: bool,
) -> Result<Derivation, GsdError> {
    let phases = derive::count_phases_checked(&layout::state_dir(state), doc.scalar("milestone"))
        .map_err(|e| {
        if writing {
            HintedError::input_io(e.to_string())
        } else {
            HintedError::usage(e.to_string()).hint("check the file's permissions and its disk")
        }
    })?;
    Ok(derive::derive(doc, phases))
}

/// Replaces STATE.md under GSD's pid-file lock (waiting up to `lock_wait` for a live writer) if
/// it still holds `before`, and journals `entry` beside it.
fn write_locked(
    path: &Path,
    before: &[u8],
    new_text: &str,
    entry: JournalEntry,
    lock_wait: Duration,
) -> Result<Committed, GsdError> {
    let target = layout::state_target(path, lock_wait);
    Ok(Writer::from_env().commit(&target, Some(before), new_text.as_bytes(), entry)?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::Clock;
    use crate::gsd::locate::Lookup;
    use crate::report::{ExitCode, RefusalKind};

    const STATE: &str = "---\nmilestone: v2.0\nstatus: planning\n---\n# Project State\n\nPhase: 2 of 2 (Build)\nStatus: Executing Phase 2\n";

    fn project(state: &str) -> (tempfile::TempDir, StateFile) {
        let dir = tempfile::tempdir().expect("tempdir");
        let planning = dir.path().join(layout::PLANNING_DIR);
        std::fs::create_dir_all(&planning).expect("mkdir");
        let path = layout::flat_state(&planning);
        std::fs::write(&path, state).expect("write");
        let shown = ".planning/STATE.md".to_string();
        (dir, StateFile { path, shown })
    }

    fn keys(v: &serde_json::Value) -> Vec<&str> {
        v.as_object()
            .expect("an object")
            .keys()
            .map(String::as_str)
            .collect()
    }

    fn clock() -> Clock {
        Clock::fixed("2026-10-05T09:00:00+00:00".parse().expect("instant"), 0)
    }

    #[test]
    fn status_serialises_to_the_documented_document() {
        let (_dir, state) = project(STATE);
        let out = status(&StatusOptions {
            state,
            exit_code: true,
        })
        .expect("status");
        let v = serde_json::to_value(&out).expect("json");
        assert_eq!(
            keys(&v),
            [
                "file",
                "frontmatter",
                "body_fields",
                "status",
                "percent",
                "phases",
                "disagreements",
                "statusline"
            ]
        );
        assert_eq!(v["status"]["normalized"], "executing");
        assert_eq!(v["disagreements"][0]["key"], "current_phase");
        assert_eq!(out.exit_code, ExitCode::Failed);
        let text = out.to_text();
        assert!(text.starts_with("GSD: .planning/STATE.md\nfrontmatter:\n  milestone: \"v2.0\"\n"));
        assert!(
            text.ends_with("statusline: v2.0 · planning · Build (2/2)\n"),
            "{text}"
        );
    }

    #[test]
    fn sync_shows_the_change_and_writes_it_only_when_asked() {
        let (dir, state) = project(STATE);
        let opts = |write| SyncOptions {
            state: state.clone(),
            write,
            lock_wait: Duration::ZERO,
        };
        let shown = sync(&opts(false), &mut clock()).expect("sync");
        assert_eq!(
            keys(&serde_json::to_value(&shown).expect("json")),
            [
                "file", "changed", "written", "updates", "drift", "baseline", "diff"
            ]
        );
        assert!(shown.changed && !shown.written && shown.committed.is_none());
        assert!(
            shown
                .to_text()
                .ends_with("not written (pass --write to apply)\n")
        );
        assert_eq!(std::fs::read_to_string(&state.path).expect("read"), STATE);

        let written = sync(&opts(true), &mut clock()).expect("sync --write");
        assert!(written.written);
        assert!(written.to_text().contains("written: .planning/STATE.md ("));
        let journal = dir.path().join(".planning/STATE.md.journal.ndjson");
        let line = std::fs::read_to_string(journal).expect("journal");
        assert_eq!(line.lines().count(), 1);
        assert!(line.contains("\"gsd sync\""), "{line}");
    }

    #[test]
    fn refusals_and_errors_keep_their_hint_apart() {
        let (_dir, state) = project(STATE);
        let missing = StateFile {
            path: state.path.with_file_name("NOPE.md"),
            shown: "NOPE.md".into(),
        };
        match status(&StatusOptions {
            state: missing,
            exit_code: false,
        }) {
            Err(GsdError::Hinted(e)) => {
                assert!(!e.message.contains("hint"), "{}", e.message);
                assert_eq!(
                    e.hint.as_deref(),
                    Some("check the path and its permissions")
                );
            }
            other => panic!("expected a hinted error, got {other:?}"),
        }
        // A temporary folder inside no repository: recover has no history to read.
        if crate::recovery::git::Repo::discover(&state.path)
            .ok()
            .flatten()
            .is_none()
        {
            let opts = RecoverOptions {
                state,
                from: None,
                restore: None,
                exit_code: false,
            };
            match recover(&opts, &mut clock()) {
                Err(GsdError::Refused(r)) => {
                    assert_eq!(r.kind, RefusalKind::NoGit);
                    assert!(r.hint.is_some());
                }
                other => panic!("expected no-git, got {other:?}"),
            }
        }
    }

    #[test]
    fn statusline_renders_and_hides_the_project_env() {
        let (dir, state) = project(STATE);
        std::fs::write(dir.path().join(".env"), "NAME=v2.0\n").expect("env");
        let out = statusline(StatuslineOptions {
            cwd: dir.path().to_path_buf(),
            file: Some(state.path.clone()),
            stdin: None,
            compact: true,
            strict: false,
            lookup: Lookup::default(),
        })
        .expect("statusline");
        assert_eq!(out.text, "v2.0 · P2/2 · planning");
        assert_eq!(
            out.redactor.clean(&out.text),
            "[redacted .env value] · P2/2 · planning"
        );
        let strict = statusline(StatuslineOptions {
            cwd: dir.path().to_path_buf(),
            file: Some("nope.md".into()),
            stdin: None,
            compact: false,
            strict: true,
            lookup: Lookup::default(),
        });
        assert!(matches!(strict, Err(GsdError::Hinted(e)) if e.hint.is_some()));
    }

    #[test]
    fn recover_text_cuts_long_labels() {
        let long = "x".repeat(70);
        let out = RecoverOutcome {
            file: "STATE.md".into(),
            versions_read: 1,
            lost: vec![crate::gsd::recover::LostPiece {
                id: "decision:1-abc".into(),
                kind: crate::gsd::recover::PieceKind::Decision,
                label: long,
                text: "- x\n".into(),
                commit: "1234567".into(),
                subject: "s".into(),
                date: "2026-10-05T09:00:00+00:00".into(),
                placement: None,
            }],
            restored: Vec::new(),
            written: false,
            restore_requested: false,
            committed: None,
            exit_code: ExitCode::Ok,
        };
        let text = out.to_text();
        assert!(text.contains(&format!(
            "  decision:1-abc  {}…  (last seen",
            "x".repeat(60)
        )));
        assert!(
            text.ends_with("restore with: planseal gsd recover --write --pick ID… (or --all)\n")
        );
    }
}
