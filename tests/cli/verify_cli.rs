//! `planseal verify` as a command: discovery (PATH, `--plan`, `--dwp-dir`, `DWP_DIR`, `-C`,
//! orchestrator-hub children), the text and JSON output, colour, and the exit codes.

use crate::support::verify::*;
use std::path::Path;

fn good_plans() -> std::path::PathBuf {
    repo_root().join("fixtures/dwp/good/.dwp/plans")
}

/// A workspace: a root plan, a hub child repository with one plan, and a nested source folder.
fn workspace() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    copy_dir(
        &good_plans().join("PLAN_csv_export"),
        &tmp.path().join(".dwp/plans/PLAN_csv_export"),
    );
    copy_dir(
        &good_plans().join("PLAN_cli_color_flag"),
        &tmp.path()
            .join("repositories/tally/.dwp/plans/PLAN_cli_color_flag"),
    );
    std::fs::create_dir_all(tmp.path().join("src/deep")).unwrap();
    tmp
}

fn section_names(run: &Run) -> Vec<String> {
    run.json()["sections"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn finds_every_plan_from_anywhere_inside_the_workspace() {
    let tmp = workspace();
    for cwd in [
        tmp.path().to_path_buf(),
        tmp.path().join("src/deep"),
        tmp.path().join(".dwp/plans/PLAN_csv_export"),
    ] {
        let run = planseal(&cwd, &["--json", "verify"]);
        assert_eq!(run.code, 0, "{}", run.stdout);
        assert_eq!(
            section_names(&run),
            ["PLAN_csv_export", "tally:PLAN_cli_color_flag"]
        );
    }
}

#[test]
fn global_c_flag_and_explicit_paths() {
    let tmp = workspace();
    let root = tmp.path().to_str().unwrap();
    let run = planseal(Path::new("/"), &["--json", "-C", root, "verify"]);
    assert_eq!(
        section_names(&run),
        ["PLAN_csv_export", "tally:PLAN_cli_color_flag"]
    );
    for (path, want) in [
        (".dwp/plans/PLAN_csv_export", vec!["PLAN_csv_export"]),
        (
            ".dwp/plans/PLAN_csv_export/state.json",
            vec!["PLAN_csv_export"],
        ),
        (".dwp", vec!["PLAN_csv_export"]),
        ("repositories/tally", vec!["tally:PLAN_cli_color_flag"]),
        (".", vec!["PLAN_csv_export", "tally:PLAN_cli_color_flag"]),
    ] {
        let run = planseal(tmp.path(), &["--json", "verify", path]);
        assert_eq!(run.code, 0, "{path}: {}{}", run.stdout, run.stderr);
        assert_eq!(section_names(&run), want, "{path}");
    }
}

#[test]
fn plan_filter_dwp_dir_and_env() {
    let tmp = workspace();
    let run = planseal(
        tmp.path(),
        &["--json", "verify", "--plan", "PLAN_cli_color_flag"],
    );
    assert_eq!(section_names(&run), ["tally:PLAN_cli_color_flag"]);
    let run = planseal(tmp.path(), &["--json", "verify", "--plan", "csv_export"]);
    assert_eq!(section_names(&run), ["PLAN_csv_export"]);
    let run = planseal(
        &tmp.path().join("src"),
        &[
            "--json",
            "verify",
            "--dwp-dir",
            "../repositories/tally/.dwp",
        ],
    );
    assert_eq!(section_names(&run), ["tally:PLAN_cli_color_flag"]);
    let out = Planseal::new()
        .args(["--json", "verify"])
        .cwd(tmp.path())
        .env("DWP_DIR", "repositories/tally/.dwp")
        .output();
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(v["sections"].as_array().unwrap().len(), 1);
    assert_eq!(v["sections"][0]["name"], "tally:PLAN_cli_color_flag");
}

#[test]
fn usage_errors_exit_2_with_a_hint() {
    let tmp = workspace();
    let run = planseal(tmp.path(), &["verify", "--plan", "PLAN_nope"]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("no plan named PLAN_nope"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("hint:"));
    assert!(run.stdout.is_empty());

    let run = planseal(tmp.path(), &["verify", "no/such/dir"]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("no such file or directory"),
        "{}",
        run.stderr
    );

    let empty = tempfile::tempdir().unwrap();
    let run = planseal(empty.path(), &["verify"]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("nothing to verify"), "{}", run.stderr);
    let run = planseal(empty.path(), &["--json", "verify"]);
    assert_eq!(run.code, 2);
    assert_eq!(run.json()["result"], "error");

    let run = planseal(tmp.path(), &["verify", "--gsd", "missing/STATE.md"]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("--gsd"), "{}", run.stderr);

    let run = planseal(tmp.path(), &["verify", "--no-such-flag"]);
    assert_eq!(run.code, 2);
}

#[test]
fn gsd_flag_adds_a_section() {
    let tmp = workspace();
    std::fs::create_dir_all(tmp.path().join(".planning")).unwrap();
    std::fs::write(
        tmp.path().join(".planning/STATE.md"),
        "---\nstatus: planning\n---\n",
    )
    .unwrap();
    let run = planseal(
        tmp.path(),
        &[
            "--json",
            "verify",
            "--plan",
            "PLAN_csv_export",
            "--gsd",
            ".planning/STATE.md",
        ],
    );
    let v = run.json();
    let systems: Vec<&str> = v["sections"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["system"].as_str().unwrap())
        .collect();
    assert_eq!(systems, ["dwp", "gsd"]);
}

#[test]
fn text_output_layout() {
    let tmp = tempfile::tempdir().unwrap();
    let plan = tmp.path().join(".dwp/plans/PLAN_csv_export");
    copy_dir(&good_plans().join("PLAN_csv_export"), &plan);
    let run = planseal(tmp.path(), &["verify"]);
    assert_eq!(run.code, 0);
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(lines[0], "Plan: PLAN_csv_export");
    assert!(
        lines[1..lines.len() - 2]
            .iter()
            .all(|l| l.starts_with("  [x] ") || l.starts_with("  [~] "))
    );
    assert_eq!(lines[lines.len() - 2], "");
    assert!(
        lines.last().unwrap().starts_with("Verdict: CONFORMANT ("),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("(SHOULD)"));

    // Two gate records of different tasks missing `last_run`: one line, "(and 1 more record(s) alike)".
    let state = std::fs::read_to_string(plan.join("state.json")).unwrap();
    let broken = state
        .replace("\"last_run\": \"2026-11-03T10:10:00+00:00\",", "")
        .replace("\"last_run\": \"2026-11-04T10:05:00+00:00\",", "");
    std::fs::write(plan.join("state.json"), broken).unwrap();
    let run = planseal(tmp.path(), &["verify"]);
    assert_eq!(run.code, 1);
    assert!(
        run.stdout.contains("(and 1 more record(s) alike)"),
        "{}",
        run.stdout
    );
    let fail_line = run
        .stdout
        .lines()
        .position(|l| l.starts_with("  [ ] "))
        .unwrap();
    assert!(
        run.stdout
            .lines()
            .nth(fail_line + 1)
            .unwrap()
            .starts_with("      hint: ")
    );
    assert!(
        run.stdout
            .contains("\nVerdict: NOT CONFORMANT — 2 issue(s) ("),
        "{}",
        run.stdout
    );
    // JSON lists each record.
    let json = planseal(tmp.path(), &["--json", "verify"]);
    assert_eq!(json.failing().len(), 2);
}

#[test]
fn json_document_has_every_field() {
    let tmp = tempfile::tempdir().unwrap();
    let plan = tmp.path().join(".dwp/plans/PLAN_csv_export");
    copy_dir(&good_plans().join("PLAN_csv_export"), &plan);
    std::fs::remove_file(plan.join("2.task_export_command.md")).unwrap();
    let run = planseal(tmp.path(), &["--json", "verify"]);
    assert_eq!(run.code, 1);
    let v = run.json();
    assert_eq!(v["verdict"], "NOT CONFORMANT");
    assert_eq!(v["exit_code"], 1);
    assert_eq!(v["counts"]["failed"], 2);
    let f = v["sections"][0]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["id"] == "task-file-missing")
        .unwrap();
    assert_eq!(f["severity"], "fail");
    assert_eq!(f["plan"], "PLAN_csv_export");
    assert_eq!(f["task"], 2);
    assert_eq!(f["file"], "2.task_export_command.md");
    assert!(f["message"].as_str().unwrap().contains("missing"));
    assert!(f["hint"].is_string());
    assert_eq!(v["sections"][0]["path"], ".dwp/plans/PLAN_csv_export");
}

#[test]
fn colour_follows_the_flag_and_no_color() {
    let tmp = workspace();
    let run_with = |args: &[&str], no_color: Option<&str>| {
        let mut c = Planseal::new()
            .args(args)
            .cwd(tmp.path())
            .env_remove("NO_COLOR");
        if let Some(v) = no_color {
            c = c.env("NO_COLOR", v);
        }
        c.output().stdout
    };
    assert!(run_with(&["--color", "always", "verify"], None).contains("\x1b[32m[x]\x1b[0m"));
    assert!(run_with(&["--color", "always", "verify"], Some("1")).contains('\x1b'));
    assert!(!run_with(&["--color", "never", "verify"], None).contains('\x1b'));
    // auto: stdout is a pipe here, so no colour
    assert!(!run_with(&["verify"], None).contains('\x1b'));
    assert!(!run_with(&["--color", "auto", "verify"], Some("1")).contains('\x1b'));
}

/// In a git work tree, a plan whose tasks record commits makes commits; a completed
/// task without one fails unless its log says `Commit: none — <reason>`. Outside a work tree
/// the same plan passes. (`.git` is only looked at, never run.)
#[test]
fn completed_task_without_commit_in_a_plan_that_makes_commits() {
    let tmp = tempfile::tempdir().unwrap();
    let plan = tmp.path().join(".dwp/plans/PLAN_csv_export_done");
    copy_dir(&good_plans().join("PLAN_csv_export_done"), &plan);
    let state = std::fs::read_to_string(plan.join("state.json")).unwrap();
    std::fs::write(
        plan.join("state.json"),
        state.replace("      \"commit\": \"7d01e9f0aa\",\n", ""),
    )
    .unwrap();
    let run = planseal(tmp.path(), &["--json", "verify"]);
    assert_eq!(
        run.failing_ids(),
        ["receipt-mismatch"],
        "no git work tree: no commit rule"
    );

    std::fs::create_dir(tmp.path().join(".git")).unwrap();
    let run = planseal(tmp.path(), &["--json", "verify"]);
    assert_eq!(
        run.failing(),
        [
            ("receipt-mismatch".to_string(), None),
            ("completed-task-without-commit".to_string(), Some(2)),
        ]
    );

    let task = plan.join("2.task_export_command.md");
    let text = std::fs::read_to_string(&task).unwrap();
    std::fs::write(
        &task,
        format!("{text}- **Commit:** none — squashed into task 3's commit\n"),
    )
    .unwrap();
    let run = planseal(tmp.path(), &["--json", "verify"]);
    assert_eq!(run.failing_ids(), ["receipt-mismatch"]);
}

/// A state-less (legacy) plan: without git the state layer is required (state.json replaces the
/// git log); inside a
/// git work tree the same plan is checked by the legacy path and passes. (An empty `.git`
/// folder is no repository git can open: that plan is UNVERIFIED, `git-unreadable`.)
#[test]
fn stateless_plan_needs_git() {
    let tmp = tempfile::tempdir().unwrap();
    let plan = tmp.path().join(".dwp/plans/PLAN_log_rotation");
    copy_dir(&good_plans().join("PLAN_log_rotation"), &plan);
    std::fs::remove_file(plan.join("state.json")).unwrap();
    let run = planseal(tmp.path(), &["--json", "verify"]);
    assert_eq!(run.code, 1);
    assert_eq!(run.failing_ids(), ["state-layer-required"]);
    std::fs::create_dir(tmp.path().join(".git")).unwrap();
    let run = planseal(tmp.path(), &["--json", "verify"]);
    assert_eq!(run.code, 2, "{}", run.stdout);
    assert_eq!(run.verdict(), "UNVERIFIED");
    std::fs::remove_dir(tmp.path().join(".git")).unwrap();
    crate::support::gitrepo::git(
        tmp.path(),
        &["init", "-q", "--template=", "-b", "main", "."],
    );
    let run = planseal(tmp.path(), &["--json", "verify"]);
    assert_eq!(run.code, 0, "{}", run.stdout);
}

/// A checkbox inside a task record that mentions another task does not corrupt
/// the index (the original checker counts it); planseal only notes it when it contradicts.
#[test]
fn checkbox_outside_the_task_list_does_not_pollute_the_index() {
    let tmp = tempfile::tempdir().unwrap();
    let plan = tmp.path().join(".dwp/plans/PLAN_cli_color_flag");
    copy_dir(&good_plans().join("PLAN_cli_color_flag"), &plan);
    let readme = std::fs::read_to_string(plan.join("README.md")).unwrap();
    let polluted = readme.replace(
        "- `--color never` reaches the options object as `never`.",
        "- [x] Task 2 of the plan can rely on `--color never` reaching the options object.",
    );
    assert_ne!(polluted, readme);
    std::fs::write(plan.join("README.md"), polluted).unwrap();
    let run = planseal(tmp.path(), &["--json", "verify"]);
    assert_eq!(run.code, 0, "{}", run.stdout);
    let advisory = run.json()["sections"][0]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .any(|f| f["id"] == "readme-checkbox-elsewhere-contradicts" && f["task"] == 2);
    assert!(advisory, "{}", run.stdout);
}
