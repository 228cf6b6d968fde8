//! `planseal::reversa::ops` called as a library: the outcomes' JSON shape and text, the clock
//! read only when a write happens, and errors that carry their hint apart from the message.

use planseal::clock::Clock;
use planseal::report::RefusalKind;
use planseal::report::text::Style;
use planseal::reversa::ops::{
    self, AdvanceOptions, Place, ReversaError, SetOptions, WriteGuard, WriteResult,
};
use serde_json::Value;
use std::path::Path;

const STATE: &str = r#"{
  "version": "1.0.0",
  "project": "p",
  "phase": "escavacao",
  "completed": ["reconhecimento"],
  "pending": ["escavacao", "interpretacao", "geracao", "revisao"],
  "doc_level": "completo"
}"#;

fn project() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir_all(tmp.path().join(".reversa")).expect("mkdir");
    std::fs::write(tmp.path().join(".reversa/state.json"), STATE).expect("write");
    tmp
}

fn place(dir: &Path) -> Place {
    Place {
        cwd: dir.to_path_buf(),
        file: None,
    }
}

fn clock() -> Clock {
    Clock::fixed("2026-10-05T09:00:00+00:00".parse().expect("instant"), 0)
}

fn keys(v: &Value) -> Vec<&str> {
    v.as_object()
        .expect("object")
        .keys()
        .map(String::as_str)
        .collect()
}

#[test]
fn status_serialises_the_report_first_then_its_own_fields() {
    let p = project();
    let o = ops::status(&place(p.path())).expect("status");
    let doc = serde_json::to_value(&o).expect("json");
    assert_eq!(
        keys(&doc),
        [
            "verdict",
            "exit_code",
            "counts",
            "failing",
            "sections",
            "file",
            "sha256",
            "summary"
        ]
    );
    assert_eq!(doc["file"], ".reversa/state.json");
    assert_eq!(doc["summary"]["next_to_finish"], "escavacao");
    assert!(!o.failed());
    let text = o.to_text(Style { color: false });
    assert!(
        text.starts_with(
            "project: p (Reversa 1.0.0)\nprogress: in progress — current phase escavacao"
        ),
        "{text}"
    );
    assert!(
        text.contains("\n\nReversa: .reversa/state.json\n"),
        "{text}"
    );
    assert!(text.contains("\nVerdict: CONFORMANT ("), "{text}");
}

#[test]
fn a_dry_run_reads_no_clock_and_writes_nothing() {
    let p = project();
    let mut clock = clock();
    let opts = AdvanceOptions {
        phase_done: "escavacao".into(),
        agent: None,
        files: Vec::new(),
        guard: WriteGuard {
            expected_sha256: None,
            dry_run: true,
        },
    };
    let o = ops::advance(&place(p.path()), &opts, &mut clock).expect("dry run");
    assert_eq!(o.result, WriteResult::DryRun);
    assert_eq!(clock.calls(), 0);
    assert!(o.committed.is_none());
    assert_eq!(
        std::fs::read_to_string(p.path().join(".reversa/state.json")).expect("read"),
        STATE
    );
    let doc = serde_json::to_value(&o).expect("json");
    assert_eq!(
        keys(&doc),
        [
            "result",
            "file",
            "operation",
            "changes",
            "sha256_before",
            "sha256_after",
            "diff",
            "advisories"
        ]
    );
    assert_eq!(doc["result"], "ok");
    assert_eq!(doc["sha256_after"], Value::Null);
    assert!(
        o.to_text()
            .ends_with(".reversa/state.json: not written (--dry-run)\n")
    );
}

#[test]
fn a_write_stamps_its_journal_line_with_one_clock_reading() {
    let p = project();
    let mut clock = clock();
    let opts = SetOptions {
        field: "phase".into(),
        value: "\"reconhecimento\"".into(),
        force: true,
        reason: Some("redo the scout".into()),
        guard: WriteGuard::default(),
    };
    let o = ops::set(&place(p.path()), &opts, &mut clock).expect("forced set");
    assert_eq!(o.result, WriteResult::Written);
    assert_eq!(clock.calls(), 1);
    let after = std::fs::read(p.path().join(".reversa/state.json")).expect("read");
    assert_eq!(
        o.sha256_after.as_deref(),
        Some(planseal::recovery::hash::sha256_hex(&after).as_str())
    );
    let journal = std::fs::read_to_string(p.path().join(".reversa/state.json.journal.ndjson"))
        .expect("journal");
    let line: Value = serde_json::from_str(journal.trim_end()).expect("one line");
    assert_eq!(line["time"], "2026-10-05T09:00:00+00:00");
    assert_eq!(line["operation"], "reversa-set");
    assert_eq!(line["reason"], "redo the scout");
    assert_eq!(line["forced"][0]["id"], "reversa-phase-backwards");
    assert_eq!(line["field"], "phase");
}

#[test]
fn refusals_and_errors_keep_their_hint_apart() {
    let p = project();
    let opts = AdvanceOptions {
        phase_done: "geracao".into(),
        agent: None,
        files: Vec::new(),
        guard: WriteGuard::default(),
    };
    match ops::advance(&place(p.path()), &opts, &mut clock()) {
        Err(ReversaError::Refused(r)) => {
            assert_eq!(r.kind, RefusalKind::PhaseOutOfOrder);
            assert!(
                r.message.starts_with(".reversa/state.json: "),
                "{}",
                r.message
            );
            assert!(r.hint.is_some());
        }
        other => panic!("expected a refusal, got {other:?}"),
    }
    let empty = tempfile::tempdir().expect("tempdir");
    match ops::status(&place(empty.path())) {
        Err(ReversaError::Hinted(h)) => {
            assert!(!h.message.contains("hint:"), "{}", h.message);
            assert_eq!(
                h.hint.as_deref(),
                Some("run inside a project that Reversa analyses, or pass --file PATH")
            );
        }
        other => panic!("expected a hinted error, got {other:?}"),
    }
    // The temp dir is not inside a repository.
    match ops::history(&place(p.path())) {
        Err(ReversaError::Hinted(h)) => {
            assert!(
                h.message.ends_with("is not inside a git repository"),
                "{}",
                h.message
            );
            assert!(h.hint.expect("hint").contains("commit it first"));
        }
        other => panic!("expected a hinted error, got {other:?}"),
    }
}
