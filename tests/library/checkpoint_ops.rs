//! `planseal::checkpoint::ops` called as a library: project resolution refusals, the outcomes'
//! JSON shape and text, one clock reading per write (the checkpoint's date and its journal line
//! agree), and errors that carry their hint apart from the message.

use planseal::checkpoint::ops::{self, CheckpointError, InitResult, Place, RefreshResult};
use planseal::clock::Clock;
use planseal::report::RefusalKind;
use planseal::report::text::Style;
use serde_json::Value;
use std::path::Path;

fn place(dir: &Path, project: Option<&str>) -> Place {
    Place {
        cwd: dir.to_path_buf(),
        project: project.map(str::to_string),
    }
}

fn clock() -> Clock {
    Clock::fixed(
        "2026-10-05T09:00:00+00:00".parse().expect("instant"),
        1_250_000,
    )
}

fn keys(v: &Value) -> Vec<&str> {
    v.as_object()
        .expect("object")
        .keys()
        .map(String::as_str)
        .collect()
}

#[test]
fn project_resolution_refuses_with_the_way_out() {
    let tmp = tempfile::tempdir().expect("tempdir");
    match ops::status(&place(tmp.path(), Some("cw")), None) {
        Err(CheckpointError::Refused(r)) => {
            assert_eq!(r.kind, RefusalKind::UnknownProject);
            assert_eq!(
                r.hint.as_deref(),
                Some("drop --project: this repository uses docs/PROJECT-CHECKPOINT.md")
            );
        }
        other => panic!("expected a refusal, got {other:?}"),
    }
    for id in ["cw", "lmas"] {
        let dir = tmp.path().join("projects").join(id);
        std::fs::create_dir_all(&dir).expect("mkdir");
        std::fs::write(dir.join(".project.yaml"), "prefix: X\n").expect("write");
    }
    match ops::status(&place(tmp.path(), None), None) {
        Err(CheckpointError::Refused(r)) => {
            assert_eq!(r.kind, RefusalKind::ProjectAmbiguous);
            assert!(r.message.ends_with("(projects: cw, lmas)"), "{}", r.message);
            assert_eq!(
                r.hint.as_deref(),
                Some("pass --project ID, or run inside projects/<id>/")
            );
        }
        other => panic!("expected a refusal, got {other:?}"),
    }
    match ops::status(&place(tmp.path(), Some("cw")), None) {
        Err(CheckpointError::Hinted(h)) => {
            assert_eq!(
                h.message,
                "projects/cw/PROJECT-CHECKPOINT.md does not exist"
            );
            assert_eq!(
                h.hint.as_deref(),
                Some("planseal checkpoint init --project cw creates the standard skeleton")
            );
        }
        other => panic!("expected a hinted error, got {other:?}"),
    }
}

#[test]
fn init_then_status_then_refresh() {
    let tmp = tempfile::tempdir().expect("tempdir");
    std::fs::write(tmp.path().join(".env"), "API_KEY=sk-not-shown\n").expect("env");
    let at = place(tmp.path(), None);
    let cp = tmp.path().join("docs/PROJECT-CHECKPOINT.md");

    let mut c = clock();
    let dry = ops::init(&at, true, &mut c).expect("dry run");
    assert_eq!(dry.result, InitResult::DryRun);
    assert!(!cp.exists() && !tmp.path().join("docs").exists());
    let doc = serde_json::to_value(&dry).expect("json");
    assert_eq!(keys(&doc), ["result", "file", "text"]);
    let skeleton = dry.text.clone().expect("text");
    assert!(skeleton.contains("> Ultima atualizacao: 2026-10-05\n"));
    assert!(skeleton.contains("Keys: API_KEY\n") && !skeleton.contains("sk-not-shown"));
    assert_eq!(dry.to_text(), skeleton);

    let mut c = clock();
    let written = ops::init(&at, false, &mut c).expect("init");
    assert_eq!(
        c.calls(),
        1,
        "the date and the journal line share one reading"
    );
    assert_eq!(written.result, InitResult::Written);
    assert_eq!(
        keys(&serde_json::to_value(&written).expect("json")),
        ["result", "file", "sha256_after"]
    );
    assert_eq!(std::fs::read_to_string(&cp).expect("written"), skeleton);
    let journal =
        std::fs::read_to_string(tmp.path().join("docs/PROJECT-CHECKPOINT.md.journal.ndjson"))
            .expect("journal");
    let line: Value = serde_json::from_str(journal.trim_end()).expect("one line");
    assert_eq!(line["time"], "2026-10-05T09:00:00+00:00");
    assert_eq!(line["operation"], "checkpoint-init");
    assert!(
        written
            .to_text()
            .starts_with("docs/PROJECT-CHECKPOINT.md: created (sha256 ")
    );
    match ops::init(&at, false, &mut clock()) {
        Err(CheckpointError::Refused(r)) => assert_eq!(r.kind, RefusalKind::CheckpointExists),
        other => panic!("expected a refusal, got {other:?}"),
    }

    let status = ops::status(&at, None).expect("status");
    let doc = serde_json::to_value(&status).expect("json");
    assert_eq!(
        keys(&doc),
        [
            "verdict",
            "exit_code",
            "counts",
            "failing",
            "sections",
            "file",
            "project",
            "sha256",
            "headings",
            "story_files"
        ]
    );
    assert_eq!(doc["project"], Value::Null);
    assert!(
        status
            .to_text(Style { color: false })
            .starts_with("checkpoint: docs/PROJECT-CHECKPOINT.md\nmode: legacy (docs/)\nsections: 8\nstory files: 0\n\n")
    );

    let opts = ops::RefreshOptions {
        write: true,
        ..Default::default()
    };
    let o = ops::refresh(&at, &opts, &mut clock()).expect("refresh");
    assert_eq!(o.result, RefreshResult::Unchanged);
    assert!(o.written.is_none() && o.diff.is_empty());
    assert_eq!(
        o.to_text(),
        "docs/PROJECT-CHECKPOINT.md: already up to date\n"
    );
    assert_eq!(
        keys(&serde_json::to_value(&o).expect("json")),
        [
            "result",
            "file",
            "changes",
            "diff",
            "sha256_before",
            "sha256_after"
        ]
    );

    match ops::diff(&at, "HEAD") {
        Err(CheckpointError::Hinted(h)) => {
            assert!(
                h.message.ends_with("is not inside a git repository"),
                "{}",
                h.message
            );
            assert_eq!(
                h.hint.as_deref(),
                Some("`checkpoint diff` compares with a git revision")
            );
        }
        other => panic!("expected a hinted error, got {other:?}"),
    }
}
