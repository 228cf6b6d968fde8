//! `planseal reversa …` on the fixtures in `fixtures/reversa/`: status verdicts and finding ids,
//! writes that keep every other byte, refusals that keep every byte, and `history` on a
//! repository whose history breaks the never-remove rule.

use crate::support::fs::copy_dir;
use crate::support::gitrepo;
use crate::support::run::{self, json};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// (exit code, stdout, stderr) of `planseal ARGS` in `dir`, through the hermetic runner.
fn planseal(dir: &Path, args: &[&str]) -> (i32, String, String) {
    run::planseal(dir, args).into_parts()
}

const STATE: &str = ".reversa/state.json";

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/reversa")
        .join(name)
}

/// A scratch copy of a fixture project.
fn project(name: &str) -> tempfile::TempDir {
    let tmp = tempfile::tempdir().expect("tempdir");
    copy_dir(&fixture(name), tmp.path());
    tmp
}

fn failing(doc: &Value) -> Vec<String> {
    doc["failing"]
        .as_array()
        .expect("failing list")
        .iter()
        .map(|v| v.as_str().expect("id").to_string())
        .collect()
}

fn advisories(doc: &Value) -> Vec<String> {
    doc["sections"][0]["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter(|f| f["severity"] == "advisory")
        .map(|f| f["id"].as_str().expect("id").to_string())
        .collect()
}

fn read(dir: &Path) -> Vec<u8> {
    std::fs::read(dir.join(STATE)).expect("state file")
}

#[test]
fn good_fixtures_are_conformant_and_untouched() {
    for name in [
        "good-in-progress",
        "good-english-finished",
        "good-not-started",
    ] {
        let p = project(name);
        let before = read(p.path());
        let (code, out, _) = planseal(p.path(), &["reversa", "status", "--exit-code"]);
        assert_eq!(code, 0, "{name}: {out}");
        assert!(out.contains("Verdict: CONFORMANT"), "{name}: {out}");
        let (code, out, _) = planseal(p.path(), &["--json", "reversa", "status"]);
        assert_eq!(code, 0);
        let doc = json(&out);
        assert_eq!(doc["verdict"], "CONFORMANT", "{name}");
        assert_eq!(read(p.path()), before, "{name}: status never writes");
    }
}

#[test]
fn status_summarises_where_the_analysis_stands() {
    let p = project("good-in-progress");
    let (_, out, _) = planseal(p.path(), &["reversa", "status"]);
    assert!(out.starts_with(
        "project: loja-legada (Reversa 1.0.0)\nprogress: in progress — current phase escavacao (1 of 5 completed, Portuguese phase names)\ncompleted: reconhecimento\npending: escavacao, interpretacao, geracao, revisao\nnext: planseal reversa advance --phase-done escavacao\n"
    ), "{out}");
    assert!(out.contains("[x] extra fields are legal and kept: forward_folder, redator_progress"));
    let (_, out, _) = planseal(p.path(), &["--json", "reversa", "status"]);
    let doc = json(&out);
    assert_eq!(doc["summary"]["progress"], "in-progress");
    assert_eq!(doc["summary"]["vocabulary"], "portuguese");
    assert_eq!(doc["summary"]["next_to_finish"], "escavacao");
    let p = project("good-english-finished");
    let (_, out, _) = planseal(p.path(), &["--json", "reversa", "status"]);
    let doc = json(&out);
    assert_eq!(doc["summary"]["progress"], "finished");
    assert_eq!(doc["summary"]["vocabulary"], "english");
    let p = project("good-not-started");
    let (_, out, _) = planseal(p.path(), &["--json", "reversa", "status"]);
    assert_eq!(json(&out)["summary"]["progress"], "not-started");
}

#[test]
fn broken_fixtures_name_their_findings() {
    let cases: [(&str, &[&str]); 5] = [
        (
            "broken-mixed-vocabulary",
            &["reversa-phase-vocabulary-mixed"],
        ),
        (
            "broken-order",
            &[
                "reversa-phase-completed-and-pending",
                "reversa-completed-out-of-order",
            ],
        ),
        (
            "broken-paths",
            &[
                "reversa-checkpoint-file-missing",
                "reversa-created-file-outside",
                "reversa-created-file-outside",
            ],
        ),
        (
            "broken-types",
            &["reversa-field-type", "reversa-field-value"],
        ),
        ("broken-json", &["reversa-parse"]),
    ];
    for (name, expected) in cases {
        let p = project(name);
        let before = read(p.path());
        let (code, out, _) = planseal(p.path(), &["--json", "reversa", "status"]);
        assert_eq!(code, 0, "{name}: a report command exits 0 when it ran");
        let doc = json(&out);
        assert_eq!(doc["verdict"], "NOT CONFORMANT", "{name}");
        assert_eq!(failing(&doc), expected, "{name}");
        let (code, text, _) = planseal(p.path(), &["reversa", "status", "--exit-code"]);
        assert_eq!(code, 1, "{name}: --exit-code exits 1 on a violation");
        assert!(text.contains("  [ ] "), "{name}: {text}");
        assert_eq!(read(p.path()), before);
    }
}

#[test]
fn text_layout_of_a_broken_state() {
    let p = project("broken-order");
    let (code, out, _) = planseal(p.path(), &["reversa", "status"]);
    assert_eq!(code, 0);
    assert_eq!(
        out,
        "project: p (Reversa 1.0.0)\nprogress: in progress — current phase geracao (2 of 5 completed, Portuguese phase names)\ncompleted: reconhecimento, interpretacao\npending: escavacao, interpretacao, geracao, revisao\n\nReversa: .reversa/state.json\n  [x] state.json parses as a JSON object\n  [x] known fields have their documented types and values\n  [ ] phase `interpretacao` is both completed and pending\n      hint: a finished phase leaves `pending`: remove it there\n  [ ] `completed` is [reconhecimento, interpretacao]: phases must finish in order, each after the one before it\n      hint: phases run reconhecimento → escavacao → interpretacao → geracao → revisao\n\nVerdict: NOT CONFORMANT — 2 issue(s) (2 passed, 0 advisory)\n"
    );
}

#[test]
fn advisories_fixture() {
    let p = project("advisories");
    let (code, out, _) = planseal(p.path(), &["--json", "reversa", "status", "--exit-code"]);
    assert_eq!(code, 0);
    let doc = json(&out);
    assert_eq!(doc["verdict"], "CONFORMANT");
    assert_eq!(
        advisories(&doc),
        ["reversa-doc-level-unset", "reversa-spec-decision-in-state"]
    );
}

#[test]
fn created_files_leaving_through_a_symlink_are_caught() {
    let p = project("good-not-started");
    let outside = tempfile::tempdir().expect("tempdir");
    std::os::unix::fs::symlink(outside.path(), p.path().join("vendor")).expect("symlink");
    let text = String::from_utf8(read(p.path())).expect("utf8").replace(
        "\"created_files\": [\".reversa/state.json\"]",
        "\"created_files\": [\".reversa/state.json\", \"vendor/CLAUDE.md\"]",
    );
    std::fs::write(p.path().join(STATE), text).expect("write");
    let (_, out, _) = planseal(p.path(), &["--json", "reversa", "status"]);
    let doc = json(&out);
    assert_eq!(failing(&doc), ["reversa-created-file-outside"]);
    assert!(out.contains("symlink"), "{out}");
}

#[test]
fn advance_changes_only_the_three_values_and_journals() {
    let p = project("good-in-progress");
    let before = String::from_utf8(read(p.path())).expect("utf8");
    std::fs::set_permissions(
        p.path().join(STATE),
        std::os::unix::fs::PermissionsExt::from_mode(0o640),
    )
    .expect("chmod");
    let (code, out, err) = planseal(
        p.path(),
        &["reversa", "advance", "--phase-done", "escavacao"],
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("phase: \"escavacao\" → \"interpretacao\""),
        "{out}"
    );
    let expected = before
        .replace("\"phase\": \"escavacao\"", "\"phase\": \"interpretacao\"")
        .replace(
            "\"completed\": [\"reconhecimento\"]",
            "\"completed\": [\"reconhecimento\", \"escavacao\"]",
        )
        .replace(
            "\"pending\": [\"escavacao\", \"interpretacao\", \"geracao\", \"revisao\"]",
            "\"pending\": [\"interpretacao\", \"geracao\", \"revisao\"]",
        );
    assert_ne!(expected, before);
    assert_eq!(String::from_utf8(read(p.path())).expect("utf8"), expected);
    assert!(
        !expected.ends_with('\n'),
        "no trailing newline, as the original writes"
    );
    let mode = std::os::unix::fs::PermissionsExt::mode(
        &std::fs::metadata(p.path().join(STATE))
            .expect("meta")
            .permissions(),
    );
    assert_eq!(mode & 0o777, 0o640, "permission bits kept");
    let journal = std::fs::read_to_string(p.path().join(".reversa/state.json.journal.ndjson"))
        .expect("journal");
    let line: Value = serde_json::from_str(journal.trim_end()).expect("one JSON line");
    assert_eq!(line["operation"], "reversa-advance");
    assert_eq!(line["phase_done"], "escavacao");
    assert_eq!(line["time"], "2026-10-05T09:00:00+00:00");
    assert!(!p.path().join(".reversa/state.json.lock").exists());
}

/// A folder where the journal file should be is refused before anything is written
/// (`not-a-regular-file`, `docs/reading.md`): a write whose journal line is known in advance to
/// have nowhere to go does not start. (A journal that fails during the append itself — EIO,
/// ENOSPC — is still a warning after the write.)
#[test]
fn a_folder_in_the_journals_place_is_refused_before_the_write() {
    let p = project("good-in-progress");
    std::fs::create_dir(p.path().join(".reversa/state.json.journal.ndjson")).expect("mkdir");
    let before = read(p.path());
    let (code, _out, err) = planseal(
        p.path(),
        &["reversa", "advance", "--phase-done", "escavacao"],
    );
    assert_eq!(code, 1, "{err}");
    assert!(err.starts_with("not-a-regular-file: "), "{err}");
    assert!(err.contains("state.json.journal.ndjson"), "{err}");
    assert_eq!(read(p.path()), before);
    assert!(!p.path().join(".reversa/state.json.lock").exists());
}

#[test]
fn a_write_that_fails_on_the_file_system_is_an_error_not_a_refusal() {
    let p = project("good-in-progress");
    // A file name so long that its lock `<name>.lock` cannot be created (ENAMETOOLONG).
    let long = format!("{}.json", "s".repeat(247));
    std::fs::copy(p.path().join(STATE), p.path().join(&long)).expect("copy");
    let before = std::fs::read(p.path().join(&long)).expect("read");
    let (code, _out, err) = planseal(
        p.path(),
        &[
            "reversa",
            "advance",
            "--phase-done",
            "escavacao",
            "--file",
            &long,
        ],
    );
    assert_eq!(
        code, 3,
        "an I/O failure before the commit point exits 3, a refusal 1: {err}"
    );
    assert!(err.contains("nothing was written"), "{err}");
    assert_eq!(std::fs::read(p.path().join(&long)).expect("read"), before);
}

#[test]
fn escape_sequences_in_the_file_are_shown_escaped_never_sent_to_the_terminal() {
    let p = project("good-in-progress");
    let text = String::from_utf8(read(p.path())).expect("utf8");
    let hostile = text.replacen(
        "\"phase\": \"escavacao\"",
        "\"phase\": \"\\u001b[2J\\u001b]0;pwned\\u0007\"",
        1,
    );
    assert_ne!(hostile, text);
    std::fs::write(p.path().join(STATE), hostile).expect("write");
    let (code, out, err) = planseal(p.path(), &["reversa", "status"]);
    assert_eq!(code, 0, "{err}");
    assert!(!out.contains('\u{1b}') && !out.contains('\u{7}'), "{out:?}");
    assert!(out.contains("\\u{1b}[2J"), "{out}");
    let (code, _out, err) = planseal(
        p.path(),
        &["reversa", "advance", "--phase-done", "escavacao"],
    );
    assert_eq!(code, 1, "{err}");
    assert!(!err.contains('\u{1b}') && !err.contains('\u{7}'), "{err:?}");
}

#[test]
fn advance_keeps_bom_crlf_and_the_english_names() {
    let p = project("good-english-finished");
    let finished = read(p.path());
    let (code, _, err) = planseal(p.path(), &["reversa", "advance", "--phase-done", "review"]);
    assert_eq!(code, 1);
    assert!(err.starts_with("phase-out-of-order: "), "{err}");
    assert_eq!(read(p.path()), finished);
    let text = String::from_utf8(finished).expect("utf8");
    let in_progress = text
        .replace("\"phase\": null", "\"phase\": \"review\"")
        .replace(
            "    \"generation\",\r\n    \"review\"\r\n",
            "    \"generation\"\r\n",
        )
        .replace("\"pending\": []", "\"pending\": [\r\n    \"review\"\r\n  ]");
    std::fs::write(p.path().join(STATE), &in_progress).expect("write");
    let (code, _, err) = planseal(p.path(), &["reversa", "advance", "--phase-done", "review"]);
    assert_eq!(code, 0, "{err}");
    let after = String::from_utf8(read(p.path())).expect("utf8");
    assert!(after.starts_with('\u{feff}'), "BOM kept");
    let expected = in_progress
        .replace("\"phase\": \"review\"", "\"phase\": null")
        .replace(
            "    \"generation\"\r\n",
            "    \"generation\",\r\n    \"review\"\r\n",
        )
        .replace("\"pending\": [\r\n    \"review\"\r\n  ]", "\"pending\": []");
    assert_eq!(after, expected);
}

#[test]
fn advance_refusals_leave_every_byte() {
    let p = project("good-in-progress");
    let before = read(p.path());
    let cases: [(&[&str], &str); 4] = [
        (&["--phase-done", "geracao"], "phase-out-of-order"),
        (&["--phase-done", "reconhecimento"], "phase-out-of-order"),
        (&["--phase-done", "excavation"], "unknown-phase"),
        (&["--phase-done", "deploy"], "unknown-phase"),
    ];
    for (args, kind) in cases {
        let mut full = vec!["reversa", "advance"];
        full.extend_from_slice(args);
        let (code, _, err) = planseal(p.path(), &full);
        assert_eq!(code, 1, "{args:?}");
        assert!(
            err.starts_with(&format!("{kind}: .reversa/state.json: ")),
            "{err}"
        );
        assert!(err.contains("  hint: "), "{err}");
        assert_eq!(read(p.path()), before);
    }
    assert!(!p.path().join(".reversa/state.json.journal.ndjson").exists());
    let (code, out, _) = planseal(
        p.path(),
        &["--json", "reversa", "advance", "--phase-done", "geracao"],
    );
    assert_eq!(code, 1);
    assert_eq!(json(&out)["kind"], "phase-out-of-order");
    let p = project("broken-mixed-vocabulary");
    let (code, _, err) = planseal(
        p.path(),
        &["reversa", "advance", "--phase-done", "excavation"],
    );
    assert_eq!(code, 1);
    assert!(err.starts_with("state-invalid: "), "{err}");
}

#[test]
fn expected_sha256_and_locks_guard_the_write() {
    let p = project("good-in-progress");
    let before = read(p.path());
    let (code, _, err) = planseal(
        p.path(),
        &[
            "reversa",
            "advance",
            "--phase-done",
            "escavacao",
            "--expected-sha256",
            &"0".repeat(64),
        ],
    );
    assert_eq!(code, 1);
    assert!(err.starts_with("stale-snapshot: "), "{err}");
    std::fs::create_dir(p.path().join(".reversa/state.json.lock")).expect("lock dir");
    let (code, _, err) = planseal(
        p.path(),
        &["reversa", "advance", "--phase-done", "escavacao"],
    );
    assert_eq!(code, 1);
    assert!(err.starts_with("lock-present: "), "{err}");
    assert_eq!(read(p.path()), before);
    std::fs::remove_dir(p.path().join(".reversa/state.json.lock")).expect("unlock");
    let sha = planseal::recovery::hash::sha256_hex(&before);
    let (code, out, err) = planseal(
        p.path(),
        &[
            "reversa",
            "advance",
            "--phase-done",
            "escavacao",
            "--expected-sha256",
            &sha,
            "--dry-run",
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("not written (--dry-run)"));
    assert_eq!(read(p.path()), before);
    let (code, _, err) = planseal(
        p.path(),
        &[
            "reversa",
            "advance",
            "--phase-done",
            "escavacao",
            "--expected-sha256",
            &sha,
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert_ne!(read(p.path()), before);
}

#[test]
fn set_adds_or_updates_one_value_and_keeps_the_rest() {
    let p = project("good-not-started");
    let before = String::from_utf8(read(p.path())).expect("utf8");
    let (code, _, err) = planseal(p.path(), &["reversa", "set", "doc_level", "\"completo\""]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        String::from_utf8(read(p.path())).expect("utf8"),
        before.replace("\"doc_level\": null", "\"doc_level\": \"completo\"")
    );
    let (code, _, err) = planseal(
        p.path(),
        &["reversa", "set", "forward_folder", "\"_forward\""],
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        String::from_utf8(read(p.path())).expect("utf8"),
        before
            .replace("\"doc_level\": null", "\"doc_level\": \"completo\"")
            .replace(
                "\"created_files\": [\".reversa/state.json\"]\n}",
                "\"created_files\": [\".reversa/state.json\"],\n  \"forward_folder\": \"_forward\"\n}"
            )
    );
}

#[test]
fn set_refuses_what_history_would_flag_unless_forced_with_a_reason() {
    let p = project("good-in-progress");
    let before = read(p.path());
    let (code, out, err) = planseal(
        p.path(),
        &["--json", "reversa", "set", "phase", "\"reconhecimento\""],
    );
    assert_eq!(code, 1);
    assert!(err.starts_with("never-remove-violation: "), "{err}");
    assert!(err.contains("--force --reason"), "{err}");
    assert_eq!(json(&out)["details"][0]["id"], "reversa-phase-backwards");
    let (code, _, err) = planseal(
        p.path(),
        &["reversa", "set", "created_files", "[\"CLAUDE.md\"]"],
    );
    assert_eq!(code, 1);
    assert!(err.contains("reversa-created-file-dropped"), "{err}");
    let (code, _, err) = planseal(p.path(), &["reversa", "set", "checkpoints", "{}"]);
    assert_eq!(code, 1);
    assert!(
        err.contains("reversa-field-removed") && err.contains("checkpoints.scout"),
        "{err}"
    );
    let (code, _, err) = planseal(p.path(), &["reversa", "set", "answer_mode", "\"voice\""]);
    assert_eq!(code, 1);
    assert!(err.starts_with("invalid-value: "), "{err}");
    let (code, _, err) = planseal(p.path(), &["reversa", "set", "doc_level", "completo"]);
    assert_eq!(code, 1);
    assert!(
        err.contains("is not JSON") && err.contains("'\"completo\"'"),
        "{err}"
    );
    let (code, _, _) = planseal(
        p.path(),
        &["reversa", "set", "phase", "\"reconhecimento\"", "--force"],
    );
    assert_eq!(code, 2, "--force needs --reason");
    assert_eq!(read(p.path()), before);

    let (code, _, err) = planseal(
        p.path(),
        &[
            "reversa",
            "set",
            "phase",
            "\"reconhecimento\"",
            "--force",
            "--reason",
            "redo the scout after the monorepo split",
        ],
    );
    assert_eq!(code, 0, "{err}");
    let journal = std::fs::read_to_string(p.path().join(".reversa/state.json.journal.ndjson"))
        .expect("journal");
    let line: Value = serde_json::from_str(journal.trim_end()).expect("JSON line");
    assert_eq!(line["reason"], "redo the scout after the monorepo split");
    assert_eq!(line["forced"][0]["id"], "reversa-phase-backwards");
    assert_eq!(line["forced"][0]["old_value"], "escavacao");
}

#[test]
fn every_subcommand_has_examples_in_its_help() {
    let dir = tempfile::tempdir().expect("tempdir");
    for sub in ["status", "advance", "set", "history"] {
        let (code, out, _) = planseal(dir.path(), &["reversa", sub, "--help"]);
        assert_eq!(code, 0);
        assert!(out.contains("Examples:"), "{sub}: {out}");
    }
    let (code, _, err) = planseal(dir.path(), &["reversa", "status"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("no .reversa/state.json") && err.contains("hint:"),
        "{err}"
    );
}

#[test]
fn history_of_an_uncommitted_file_says_so() {
    let repo = gitrepo::FixtureRepo::new();
    let good = std::fs::read_to_string(fixture("good-not-started").join(STATE)).expect("fixture");
    repo.write(STATE, &good);
    let (code, out, err) = planseal(
        repo.path(),
        &["--json", "reversa", "history", "--exit-code"],
    );
    assert_eq!(code, 0, "{err}");
    let doc = json(&out);
    assert_eq!(doc["versions"], 0);
    assert_eq!(advisories(&doc), ["reversa-history-empty"]);
    let outside = project("good-not-started");
    let (code, _, err) = planseal(outside.path(), &["reversa", "history"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("not inside a git repository") && err.contains("hint:"),
        "{err}"
    );
}

#[test]
fn history_reports_the_commit_the_field_and_the_old_value() {
    let mut repo = gitrepo::FixtureRepo::new();
    let good = std::fs::read_to_string(fixture("good-in-progress").join(STATE)).expect("fixture");
    repo.write(STATE, &good);
    repo.commit("reversa: scout done");
    // the installer's update: version changes and created_files is reconciled → advisory
    let updated = good
        .replace("\"version\": \"1.0.0\"", "\"version\": \"1.1.0\"")
        .replace("    \".agents/skills/reversa/SKILL.md\",\n", "");
    repo.write(STATE, &updated);
    repo.commit("reversa: update to 1.1.0");
    // an agent rewrites the file and drops a field and a file entry
    let clobbered = updated
        .replace("  \"forward_folder\": \"_forward\",\n", "")
        .replace("    \"CLAUDE.md\",\n", "");
    repo.write(STATE, &clobbered);
    let bad = repo.commit("agent: rewrite state");
    let backwards = clobbered.replace("\"phase\": \"escavacao\"", "\"phase\": \"reconhecimento\"");
    repo.write(STATE, &backwards);
    repo.commit("agent: start over");

    let (code, out, err) = planseal(
        repo.path(),
        &["--json", "reversa", "history", "--exit-code"],
    );
    assert_eq!(code, 1, "{err}");
    let doc = json(&out);
    assert_eq!(doc["versions"], 4);
    let flagged = doc["flagged"].as_array().expect("flagged");
    let got: Vec<(String, String, String, Value)> = flagged
        .iter()
        .map(|f| {
            (
                f["subject"].as_str().expect("s").to_string(),
                f["kind"].as_str().expect("k").to_string(),
                f["field"].as_str().expect("f").to_string(),
                f["old_value"].clone(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            (
                "reversa: update to 1.1.0".into(),
                "created-file-dropped".into(),
                "created_files".into(),
                Value::from(".agents/skills/reversa/SKILL.md")
            ),
            (
                "agent: rewrite state".into(),
                "field-removed".into(),
                "forward_folder".into(),
                Value::from("_forward")
            ),
            (
                "agent: rewrite state".into(),
                "created-file-dropped".into(),
                "created_files".into(),
                Value::from("CLAUDE.md")
            ),
            (
                "agent: start over".into(),
                "phase-backwards".into(),
                "phase".into(),
                Value::from("escavacao")
            ),
        ]
    );
    assert_eq!(flagged[0]["severity"], "advisory");
    assert_eq!(flagged[1]["severity"], "fail");
    assert_eq!(flagged[1]["commit"], &bad[..7]);
    let (code, text, _) = planseal(repo.path(), &["reversa", "history"]);
    assert_eq!(code, 0, "without --exit-code a report command exits 0");
    assert!(text.contains(&format!(
        "[ ] commit {} \"agent: rewrite state\": field `forward_folder` was removed (it held \"_forward\")",
        &bad[..7]
    )), "{text}");
    assert!(text.contains("[~] commit "), "{text}");
}
