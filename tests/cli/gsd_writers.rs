//! `planseal gsd decision add | blocker add | blocker resolve | session record` on files people
//! edit by hand: every byte the writer does not own stays (frontmatter key order, quoting,
//! comments, CRLF, non-ASCII, prose), `--dry-run` prints the diff and writes nothing, refusals
//! leave the file byte-identical, the journal gets its line, and GSD's lock is honoured with
//! `--wait` (and its older spelling `--lock-wait`). The comparison with GSD's own writers is
//! `gsd_writers_vectors.rs`.

use crate::support::run::Planseal;
use serde_json::Value;
use std::path::Path;

const NOW: &str = "2026-10-05T09:00:00+00:00";

/// Hand-edited: odd key order, a comment, quoting, an unknown key, non-ASCII, prose in the
/// Decisions section, CRLF line ends.
const BEFORE: &str = "---\r\n# kept by hand\r\nstatus: executing\r\nmilestone_name: 'Importação'\r\nmilestone: v1.1\r\nowner: \"Ana\" # reviewer\r\ngsd_state_version: '1.0'\r\n---\r\n# Project State\r\n\r\n## Current Position\r\n\r\nPhase: 2 of 3 (Análise)\r\nStatus: Executing Phase 2\r\n\r\n## Accumulated Context\r\n\r\n### Decisions\r\n\r\nNotas à mão ficam.\r\n\r\nNone yet.\r\n\r\n### Blockers/Concerns\r\n\r\n- Falta acesso ao banco\r\n- CI lento\r\n\r\n## Session Continuity\r\n\r\nLast session: 2026-10-01\r\nStopped at: revisão\r\nResume file: None\r\n";

fn project(text: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir_all(dir.path().join(".planning")).expect("mkdir");
    std::fs::write(dir.path().join(".planning/STATE.md"), text).expect("write");
    dir
}

fn state(dir: &Path) -> String {
    String::from_utf8(std::fs::read(dir.join(".planning/STATE.md")).expect("read")).expect("utf8")
}

fn run(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Planseal::new().cwd(dir).clock(NOW).args(args).output();
    (out.code, out.stdout, out.stderr)
}

fn journal(dir: &Path) -> Vec<Value> {
    std::fs::read_to_string(dir.join(".planning/STATE.md.journal.ndjson"))
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).expect("json line"))
        .collect()
}

/// The frontmatter planseal writes on `BEFORE` after any record: the derived keys in GSD's
/// order, `last_updated` stamped, every other line as written.
const FRONTMATTER_AFTER: &str = "---\r\ngsd_state_version: '1.0'\r\nmilestone: v1.1\r\nmilestone_name: 'Importação'\r\ncurrent_phase: \"2\"\r\ncurrent_phase_name: Análise\r\n# kept by hand\r\nstatus: executing\r\nstopped_at: revisão\r\nlast_updated: \"2026-10-05T09:00:00.000Z\"\r\nowner: \"Ana\" # reviewer\r\n---\r\n";

fn body_of(text: &str) -> &str {
    &text[text[4..].find("---\r\n").expect("closing fence") + 9..]
}

#[test]
fn decision_add_keeps_every_other_byte() {
    let dir = project(BEFORE);
    let (code, out, err) = run(
        dir.path(),
        &[
            "gsd",
            "decision",
            "add",
            "--phase",
            "2",
            "--summary",
            "Índices em português",
            "--rationale",
            "o time lê melhor",
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        out.starts_with(
            ".planning/STATE.md: added - [Phase 2]: Índices em português — o time lê melhor\n"
        ),
        "{out}"
    );
    let after = state(dir.path());
    assert_eq!(
        after,
        format!(
            "{FRONTMATTER_AFTER}{}",
            body_of(BEFORE).replace(
                "Notas à mão ficam.\r\n\r\nNone yet.\r\n",
                "Notas à mão ficam.\r\n\r\n- [Phase 2]: Índices em português — o time lê melhor\r\n"
            )
        )
    );
    let lines = journal(dir.path());
    assert_eq!(lines.len(), 1);
    assert_eq!(lines[0]["operation"], "gsd decision add");
    assert_eq!(
        lines[0]["lines"][0],
        "- [Phase 2]: Índices em português — o time lê melhor"
    );
    assert_eq!(lines[0]["sources"]["stopped_at"], "Stopped at: revisão");
    assert!(!dir.path().join(".planning/STATE.md.lock").exists());
}

#[test]
fn blocker_add_and_resolve() {
    let dir = project(BEFORE);
    let (code, _, err) = run(
        dir.path(),
        &["gsd", "blocker", "add", "--text", "Esperando chaves"],
    );
    assert_eq!(code, 0, "{err}");
    let after = state(dir.path());
    assert!(
        body_of(&after).contains(
            "- Falta acesso ao banco\r\n- CI lento\r\n- Esperando chaves\r\n\r\n## Session"
        ),
        "{after}"
    );
    let (code, out, err) = run(
        dir.path(),
        &["gsd", "blocker", "resolve", "--text", "BANCO"],
    );
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("removed - Falta acesso ao banco"), "{out}");
    let after = state(dir.path());
    assert!(
        body_of(&after).contains(
            "### Blockers/Concerns\r\n\r\n- CI lento\r\n- Esperando chaves\r\n\r\n## Session"
        ),
        "{after}"
    );
    for text in ["lento", "chaves"] {
        assert_eq!(
            run(dir.path(), &["gsd", "blocker", "resolve", "--text", text]).0,
            0
        );
    }
    assert!(
        body_of(&state(dir.path())).contains("### Blockers/Concerns\r\n\r\nNone\r\n\r\n## Session")
    );
    assert_eq!(journal(dir.path()).len(), 4);
}

#[test]
fn session_record_sets_its_fields_in_place() {
    let dir = project(BEFORE);
    let (code, _, err) = run(
        dir.path(),
        &["gsd", "session", "record", "--stopped-at", "índice pronto"],
    );
    assert_eq!(code, 0, "{err}");
    let after = state(dir.path());
    assert!(after.contains("stopped_at: índice pronto\r\n"), "{after}");
    assert!(after.ends_with("Last session: 2026-10-05T09:00:00.000Z\r\nStopped at: índice pronto\r\nResume file: None\r\n"), "{after}");
    assert_eq!(
        journal(dir.path())[0]["updated"],
        serde_json::json!(["Last session", "Stopped At"])
    );
}

#[test]
fn dry_run_prints_the_diff_and_writes_nothing() {
    let dir = project(BEFORE);
    let (code, out, err) = run(
        dir.path(),
        &["gsd", "blocker", "add", "--text", "x", "--dry-run"],
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("--- a/.planning/STATE.md\n+++ b/.planning/STATE.md\n"),
        "{out}"
    );
    // the text output shows a carriage return as `\u{d}`
    assert!(out.contains("+- x\\u{d}\n"), "{out}");
    assert!(out.ends_with("nothing written (--dry-run)\n"), "{out}");
    assert_eq!(state(dir.path()), BEFORE);
    assert!(journal(dir.path()).is_empty());
    let (code, out, _) = run(
        dir.path(),
        &["--json", "gsd", "session", "record", "--dry-run"],
    );
    assert_eq!(code, 0);
    let v: Value = serde_json::from_str(&out).expect("json");
    assert_eq!(v["result"], "ok");
    assert_eq!(v["dry_run"], true);
    assert_eq!(v["updated"], serde_json::json!(["Last session"]));
    assert_eq!(state(dir.path()), BEFORE);
}

#[test]
fn refusals_leave_the_file_byte_identical() {
    let dir = project(BEFORE);
    let cases: &[(&[&str], &str)] = &[
        (
            &["gsd", "blocker", "resolve", "--text", "nada"],
            "blocker-not-found",
        ),
        (
            &[
                "gsd",
                "blocker",
                "add",
                "--text",
                "x",
                "--expected-sha256",
                "00",
            ],
            "stale-snapshot",
        ),
        (
            &["gsd", "decision", "add", "--summary", "two\nlines"],
            "usage-error",
        ),
    ];
    for (args, kind) in cases {
        let (code, _, err) = run(dir.path(), args);
        assert_eq!(code, 1, "{args:?}: {err}");
        assert!(err.starts_with(&format!("{kind}: ")), "{args:?}: {err}");
        assert_eq!(state(dir.path()), BEFORE, "{args:?}");
    }
    let (_, _, err) = run(dir.path(), &["gsd", "blocker", "resolve", "--text", "nada"]);
    assert!(
        err.contains("hint: the open blockers are: Falta acesso ao banco | CI lento"),
        "{err}"
    );
    let bare = project("---\nstatus: planning\n---\n# S\n");
    let (code, _, err) = run(bare.path(), &["gsd", "session", "record"]);
    assert_eq!(code, 1);
    assert!(err.starts_with("session-fields-missing: "), "{err}");
    assert!(journal(dir.path()).is_empty() && journal(bare.path()).is_empty());
}

#[test]
fn a_live_writers_lock_is_waited_for_and_then_refused() {
    let dir = project(BEFORE);
    let lock = dir.path().join(".planning/STATE.md.lock");
    std::fs::write(&lock, std::process::id().to_string()).expect("lock");
    for wait in [&["--wait=200ms"][..], &["--lock-wait", "0"][..]] {
        let mut args = vec!["gsd", "blocker", "add", "--text", "x"];
        args.extend_from_slice(wait);
        let start = std::time::Instant::now();
        let (code, _, err) = run(dir.path(), &args);
        assert_eq!(code, 1, "{err}");
        assert!(err.contains("lock-present"), "{err}");
        if wait[0] == "--wait=200ms" {
            assert!(start.elapsed() >= std::time::Duration::from_millis(200));
        }
        assert_eq!(state(dir.path()), BEFORE);
        assert!(lock.exists(), "a live writer's lock is never taken over");
    }
    // The lock goes while we wait: the write goes through.
    let remover = {
        let lock = lock.clone();
        std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(300));
            std::fs::remove_file(lock).expect("release");
        })
    };
    let (code, _, err) = run(
        dir.path(),
        &["gsd", "blocker", "add", "--text", "x", "--wait=10s"],
    );
    remover.join().expect("thread");
    assert_eq!(code, 0, "{err}");
    assert!(state(dir.path()).contains("- x\r\n"));
    let (code, _, err) = run(
        dir.path(),
        &[
            "gsd",
            "blocker",
            "add",
            "--text",
            "y",
            "--wait=1s",
            "--lock-wait",
            "1",
        ],
    );
    assert_eq!(code, 2, "--wait and --lock-wait are one setting: {err}");
}
