//! `planseal merge-driver` run by hand, as git runs it: the result in `%A`, the exit code, the
//! markers (`%L` long, labelled `%X` / `%Y`), `--json`, the files that are never merged, the
//! line-based merge of anything else, and that the driver writes nothing but `%A`.

use crate::support::fs::tree;
use crate::support::run::{Planseal, Run};
use std::path::Path;

/// Writes the three versions into a fresh folder and runs the driver there on `path` (`%P`)
/// with `extra` arguments after it.
fn drive(
    base: &str,
    ours: &str,
    theirs: &str,
    path: &str,
    extra: &[&str],
) -> (tempfile::TempDir, Run) {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in [("O", base), ("A", ours), ("B", theirs)] {
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    let run = Planseal::new()
        .cwd(dir.path())
        .args(["merge-driver", "O", "A", "B"])
        .args(extra.iter().take(1))
        .arg(path)
        .args(extra.iter().skip(1))
        .output();
    (dir, run)
}

fn result(dir: &Path) -> String {
    std::fs::read_to_string(dir.join("A")).unwrap()
}

#[test]
fn an_unrecognised_file_is_merged_line_by_line() {
    let (dir, run) = drive(
        "a\nb\nc\n",
        "A\nb\nc\n",
        "a\nb\nC\n",
        "notes/todo.txt",
        &["7"],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(result(dir.path()), "A\nb\nC\n");
    assert_eq!((run.stdout.as_str(), run.stderr.as_str()), ("", ""));
}

#[test]
fn a_line_conflict_has_markers_of_the_given_size_and_labels() {
    let (dir, run) = drive(
        "a\nb\n",
        "a\nours\n",
        "a\ntheirs\n",
        "notes/todo.txt",
        &["9", "base", "HEAD", "feature/x"],
    );
    assert_eq!(run.code, 1);
    assert_eq!(
        result(dir.path()),
        "a\n<<<<<<<<< HEAD\nours\n=========\ntheirs\n>>>>>>>>> feature/x\n"
    );
    assert!(
        run.stderr.contains("CONFLICT in notes/todo.txt (text)"),
        "{}",
        run.stderr
    );
    // Git before 2.44 passes the label placeholders through unreplaced: no label then.
    let (dir, _) = drive("a\n", "b\n", "c\n", "x.txt", &["7", "%S", "%X", "%Y"]);
    assert_eq!(result(dir.path()), "<<<<<<<\nb\n=======\nc\n>>>>>>>\n");
}

#[test]
fn the_json_outcome_names_the_format_and_the_notes() {
    let (dir, run) = drive(
        "{}",
        "{\"a\": 1}\n",
        "{\"a\": 2}\n",
        ".dwp/plans/PLAN_x/manifest.json",
        &["7", "", "HEAD", "topic", "--json"],
    );
    assert_eq!(run.code, 1);
    let doc = run.json();
    assert_eq!(doc["result"], "conflict");
    assert_eq!(doc["format"], "dwp-manifest");
    assert_eq!(doc["path"], ".dwp/plans/PLAN_x/manifest.json");
    let note = "manifest.json differs between the branches, but a plan's manifest is written once when the plan is made and never changes; keep the version of the branch the plan was made on";
    assert_eq!(doc["notes"][0], note);
    assert_eq!(
        result(dir.path()),
        format!(
            "planseal: {note}\n<<<<<<< HEAD\n{{\"a\": 1}}\n=======\n{{\"a\": 2}}\n>>>>>>> topic\n"
        )
    );
}

#[test]
fn the_receipt_and_the_marker_are_never_merged() {
    for (path, hint) in [
        (
            ".dwp/plans/PLAN_x/analysis_results/FINALIZATION.json",
            "re-seal it with `planseal finalize .dwp/plans/PLAN_x`",
        ),
        (
            ".dwp/plans/PLAN_x/.finalizing.json",
            "then run `planseal recover .dwp/plans/PLAN_x`",
        ),
    ] {
        let (dir, run) = drive(
            "{}\n",
            "{\"state_sha256\": \"a\"}\n",
            "{\"state_sha256\": \"b\"}\n",
            path,
            &["7"],
        );
        assert_eq!(run.code, 1, "{path}");
        assert!(
            result(dir.path()).contains(hint),
            "{path}: {}",
            result(dir.path())
        );
    }
}

#[test]
fn the_driver_writes_nothing_but_its_result() {
    let state = |status: &str, count: u64, at: &str| {
        format!(
            "{{\n  \"schema\": \"https://deepworkplan.com/schema/plan-state/v2.json\",\n  \"plan\": \"PLAN_x\",\n  \"updated_at\": \"{at}\",\n  \"status\": \"in_progress\",\n  \"completed_count\": {count},\n  \"task_count\": 2,\n  \"format\": \"lite\",\n  \"materialization\": \"ready\",\n  \"approval\": \"approved\",\n  \"tasks\": [\n    {{\n      \"id\": 1,\n      \"locator\": {{\n        \"kind\": \"inline\",\n        \"value\": \"#task-1\"\n      }},\n      \"title\": \"A\",\n      \"status\": \"{status}\",\n      \"gates\": []\n    }},\n    {{\n      \"id\": 2,\n      \"locator\": {{\n        \"kind\": \"inline\",\n        \"value\": \"#task-2\"\n      }},\n      \"title\": \"B\",\n      \"status\": \"pending\",\n      \"gates\": []\n    }}\n  ]\n}}\n"
        )
    };
    let base = state("in_progress", 0, "2026-10-05T09:00:00+00:00");
    let ours = base.replace("\"title\": \"A\"", "\"title\": \"A (renamed)\"");
    let theirs = base
        .replace("\"title\": \"B\"", "\"title\": \"B (renamed)\"")
        .replace("09:00:00", "09:05:00");
    let (dir, run) = drive(
        &base,
        &ours,
        &theirs,
        ".dwp/plans/PLAN_x/state.json",
        &["7"],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        result(dir.path()),
        ours.replace("\"title\": \"B\"", "\"title\": \"B (renamed)\"")
            .replace("09:00:00", "09:05:00")
    );
    // Only %A changed: no journal, no lock, no temp file.
    let files: Vec<String> = tree(dir.path()).into_keys().collect();
    assert_eq!(files, ["A", "B", "O"]);
}

#[test]
fn a_version_that_cannot_be_read_leaves_ours_in_place() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("A"), "ours\n").unwrap();
    std::fs::write(dir.path().join("B"), "theirs\n").unwrap();
    let run = Planseal::new()
        .cwd(dir.path())
        .args(["merge-driver", "missing", "A", "B", "7", "x.txt"])
        .output();
    assert_eq!(run.code, 3, "{}", run.stderr);
    assert!(run.stderr.contains("missing"), "{}", run.stderr);
    assert_eq!(result(dir.path()), "ours\n");
}
