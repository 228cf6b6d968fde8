//! `planseal reversa advance --agent NAME --files PATH…`: the finishing agent's checkpoint
//! (`checkpoints.<agent>` = {completed_at, files}) recorded with the phase, every other byte kept
//! (BOM, CRLF, the original's missing trailing newline, an existing record's extra keys),
//! refusals byte-identical, `--dry-run` printing the diff and writing nothing.

use crate::support::run::Planseal;
use serde_json::Value;
use std::path::Path;

const NOW: &str = "2026-10-05T09:00:00+00:00";

/// BOM, CRLF, no trailing newline, non-ASCII, an extra key inside a checkpoint.
const STATE: &str = "\u{feff}{\r\n  \"version\": \"1.0.0\",\r\n  \"project\": \"loja\",\r\n  \"doc_level\": \"completo\",\r\n  \"phase\": \"escavacao\",\r\n  \"completed\": [\"reconhecimento\"],\r\n  \"pending\": [\"escavacao\", \"interpretacao\", \"geracao\", \"revisao\"],\r\n  \"checkpoints\": {\r\n    \"scout\": {\r\n      \"completed_at\": \"2026-04-26T10:00:00Z\",\r\n      \"files\": [\"_reversa_sdd/inventário.md\"],\r\n      \"notes\": \"41 módulos\"\r\n    }\r\n  },\r\n  \"created_files\": []\r\n}";

fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir_all(dir.path().join(".reversa")).expect("mkdir");
    std::fs::create_dir_all(dir.path().join("_reversa_sdd")).expect("mkdir");
    for f in ["inventário.md", "code-analysis.md", "data-dictionary.md"] {
        std::fs::write(dir.path().join("_reversa_sdd").join(f), "x\n").expect("write");
    }
    std::fs::write(dir.path().join(".reversa/state.json"), STATE).expect("write");
    dir
}

fn state(dir: &Path) -> String {
    String::from_utf8(std::fs::read(dir.join(".reversa/state.json")).expect("read")).expect("utf8")
}

fn run(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Planseal::new().cwd(dir).clock(NOW).args(args).output();
    (out.code, out.stdout, out.stderr)
}

const BOOKKEEPING: [(&str, &str); 3] = [
    ("\"phase\": \"escavacao\"", "\"phase\": \"interpretacao\""),
    (
        "\"completed\": [\"reconhecimento\"]",
        "\"completed\": [\"reconhecimento\", \"escavacao\"]",
    ),
    (
        "\"pending\": [\"escavacao\", \"interpretacao\", \"geracao\", \"revisao\"]",
        "\"pending\": [\"interpretacao\", \"geracao\", \"revisao\"]",
    ),
];

fn advanced() -> String {
    BOOKKEEPING
        .iter()
        .fold(STATE.to_string(), |s, (a, b)| s.replace(a, b))
}

#[test]
fn a_new_agent_record_is_added_in_the_files_own_style() {
    let dir = project();
    let (code, out, err) = run(
        dir.path(),
        &[
            "reversa",
            "advance",
            "--phase-done",
            "escavacao",
            "--agent",
            "archaeologist",
            "--files",
            "_reversa_sdd/code-analysis.md",
            "_reversa_sdd/data-dictionary.md",
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains(
            "checkpoints.archaeologist: (absent) → {\"completed_at\":\"2026-10-05T09:00:00Z\""
        ),
        "{out}"
    );
    let expected = advanced().replace(
        "      \"notes\": \"41 módulos\"\r\n    }\r\n  },",
        "      \"notes\": \"41 módulos\"\r\n    },\r\n    \"archaeologist\": {\r\n      \"completed_at\": \"2026-10-05T09:00:00Z\",\r\n      \"files\": [\"_reversa_sdd/code-analysis.md\", \"_reversa_sdd/data-dictionary.md\"]\r\n    }\r\n  },",
    );
    assert_eq!(state(dir.path()), expected);
    let journal = std::fs::read_to_string(dir.path().join(".reversa/state.json.journal.ndjson"))
        .expect("journal");
    let line: Value = serde_json::from_str(journal.lines().next().expect("a line")).expect("json");
    assert_eq!(line["operation"], "reversa-advance");
    assert_eq!(line["agent"], "archaeologist");
}

#[test]
fn an_existing_record_keeps_its_keys_and_gains_the_files() {
    let dir = project();
    let (code, _, err) = run(
        dir.path(),
        &[
            "reversa",
            "advance",
            "--phase-done",
            "escavacao",
            "--agent",
            "scout",
            "--files",
            "_reversa_sdd/code-analysis.md",
            "_reversa_sdd/inventário.md",
        ],
    );
    assert_eq!(code, 0, "{err}");
    let expected = advanced()
        .replace("\"2026-04-26T10:00:00Z\"", "\"2026-10-05T09:00:00Z\"")
        .replace(
            "[\"_reversa_sdd/inventário.md\"]",
            "[\"_reversa_sdd/inventário.md\", \"_reversa_sdd/code-analysis.md\"]",
        );
    assert_eq!(state(dir.path()), expected);
}

#[test]
fn refusals_and_dry_runs_write_nothing() {
    let dir = project();
    let (code, _, err) = run(
        dir.path(),
        &[
            "reversa",
            "advance",
            "--phase-done",
            "escavacao",
            "--agent",
            "a",
            "--files",
            "missing.md",
        ],
    );
    assert_eq!(code, 1);
    assert!(
        err.starts_with("invalid-value: ") && err.contains("missing.md"),
        "{err}"
    );
    let (code, _, err) = run(
        dir.path(),
        &[
            "reversa",
            "advance",
            "--phase-done",
            "escavacao",
            "--agent",
            "a",
            "--files",
            "../outside.md",
        ],
    );
    assert_eq!(code, 1, "{err}");
    let (code, _, err) = run(
        dir.path(),
        &[
            "reversa",
            "advance",
            "--phase-done",
            "escavacao",
            "--agent",
            "a.b",
        ],
    );
    assert_eq!(code, 1);
    assert!(err.starts_with("invalid-field: "), "{err}");
    let (code, _, _) = run(
        dir.path(),
        &[
            "reversa",
            "advance",
            "--phase-done",
            "escavacao",
            "--files",
            "x",
        ],
    );
    assert_eq!(code, 2, "--files needs --agent");
    assert_eq!(state(dir.path()), STATE);
    let (code, out, _) = run(
        dir.path(),
        &[
            "reversa",
            "advance",
            "--phase-done",
            "escavacao",
            "--agent",
            "archaeologist",
            "--dry-run",
        ],
    );
    assert_eq!(code, 0);
    assert!(out.contains("+    \"archaeologist\": {\\u{d}\n"), "{out}");
    assert!(
        out.ends_with(".reversa/state.json: not written (--dry-run)\n"),
        "{out}"
    );
    assert_eq!(state(dir.path()), STATE);
    assert!(
        !dir.path()
            .join(".reversa/state.json.journal.ndjson")
            .exists()
    );
    let (code, out, _) = run(
        dir.path(),
        &[
            "reversa",
            "advance",
            "--phase-done",
            "escavacao",
            "--dry-run",
        ],
    );
    assert_eq!(code, 0);
    assert!(
        out.contains("advisory: no agent checkpoint recorded"),
        "{out}"
    );
}

#[test]
fn advance_waits_for_a_held_lock_then_writes() {
    let dir = project();
    let lock = dir.path().join(".reversa/state.json.lock");
    std::fs::create_dir(&lock).expect("lock");
    let args = [
        "reversa",
        "advance",
        "--phase-done",
        "escavacao",
        "--agent",
        "archaeologist",
        "--wait=10s",
    ];
    let (code, _, err) = run(dir.path(), &args[..6]);
    assert_eq!(code, 1);
    assert!(err.starts_with("lock-present: "), "{err}");
    assert_eq!(state(dir.path()), STATE);
    let remover = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(300));
        std::fs::remove_dir(lock).expect("release");
    });
    let (code, _, err) = run(dir.path(), &args);
    remover.join().expect("thread");
    assert_eq!(code, 0, "{err}");
    assert!(state(dir.path()).contains("\"archaeologist\": {"));
}
