//! `verify --format github|sarif|junit` (and text/json) on a CONFORMANT, a NOT CONFORMANT and an
//! UNVERIFIED workspace: the exit code is verify's in every format, the SARIF log is valid
//! against the vendored SARIF 2.1.0 schema (Python `jsonschema`), the JUnit document against
//! Jenkins' junit-10.xsd (`xmllint --schema`), every annotation and result names a file that
//! exists, relative to the repository root, and no `.env` value survives the encodings.
//!
//! python3 with jsonschema and xmllint must be installed (scripts/test installs them): a missing
//! tool fails the test, it is never skipped.

use crate::support::gitrepo::git;
use crate::support::run::{Planseal, Run, hermetic};
use crate::support::verify::{copy_dir, repo_root, tree_hash};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Stdio;

fn schemas() -> PathBuf {
    repo_root().join("fixtures/schemas")
}

fn good_plans() -> PathBuf {
    repo_root().join("fixtures/dwp/good/.dwp/plans")
}

/// A git repository (empty history) holding the good plans: CONFORMANT.
fn conformant() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    copy_dir(&good_plans(), &tmp.path().join(".dwp/plans"));
    git(tmp.path(), &["init", "-q"]);
    tmp
}

/// One plan with a task file deleted, and a GSD state whose `next_phases` is a block list (an
/// advisory on a known line): NOT CONFORMANT.
fn not_conformant() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    let plan = tmp.path().join(".dwp/plans/PLAN_csv_export");
    copy_dir(&good_plans().join("PLAN_csv_export"), &plan);
    std::fs::remove_file(plan.join("2.task_export_command.md")).unwrap();
    std::fs::create_dir_all(tmp.path().join(".planning")).unwrap();
    std::fs::copy(
        repo_root().join("fixtures/gsd/check/block-list.md"),
        tmp.path().join(".planning/STATE.md"),
    )
    .unwrap();
    git(tmp.path(), &["init", "-q"]);
    tmp
}

/// A state-less (legacy) plan next to a `.git` folder no git can open: UNVERIFIED.
fn unverified() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    let plan = tmp.path().join(".dwp/plans/PLAN_log_rotation");
    copy_dir(&good_plans().join("PLAN_log_rotation"), &plan);
    std::fs::remove_file(plan.join("state.json")).unwrap();
    std::fs::create_dir(tmp.path().join(".git")).unwrap();
    tmp
}

fn verify(dir: &Path, format: &[&str]) -> Run {
    Planseal::new().cwd(dir).arg("verify").args(format).output()
}

/// Runs `program` with `stdin`; (exit code, stdout + stderr).
fn tool(program: &str, args: &[&str], stdin: &[u8]) -> (i32, String) {
    use std::io::Write;
    let mut child = hermetic(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {program} (scripts/test installs it): {e}"));
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
    )
}

/// The SARIF log on stdin checked against the vendored schema (draft 4, with format checks).
const SARIF_CHECK: &str = r#"
import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
errors = list(jsonschema.Draft4Validator(schema, format_checker=jsonschema.FormatChecker()).iter_errors(json.load(sys.stdin)))
for e in errors[:10]:
    print(list(e.absolute_path), e.message)
sys.exit(1 if errors else 0)
"#;

fn sarif_is_valid(log: &str) -> Result<(), String> {
    let schema = schemas().join("sarif-schema-2.1.0.json");
    let (code, out) = tool(
        "python3",
        &["-c", SARIF_CHECK, schema.to_str().unwrap()],
        log.as_bytes(),
    );
    if code == 0 { Ok(()) } else { Err(out) }
}

fn junit_is_valid(xml: &str) -> Result<(), String> {
    let xsd = schemas().join("junit-10.xsd");
    let (code, out) = tool(
        "xmllint",
        &["--noout", "--schema", xsd.to_str().unwrap(), "-"],
        xml.as_bytes(),
    );
    if code == 0 { Ok(()) } else { Err(out) }
}

/// The findings of a `--json` run that did not hold: (severity, id, section path).
fn not_held(json: &Value) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for s in json["sections"].as_array().unwrap() {
        for f in s["findings"].as_array().unwrap() {
            if f["severity"] != "pass" {
                out.push((
                    f["severity"].as_str().unwrap().to_string(),
                    f["id"].as_str().unwrap().to_string(),
                ));
            }
        }
    }
    out
}

/// Every format on one workspace: the same exit code, valid documents, one annotation/result
/// per finding that did not hold, files that exist below `root`.
fn check_every_format(dir: &Path, root: &Path, expected_code: i32, verdict: &str) {
    let before = tree_hash(root);
    let text = verify(dir, &[]);
    let json = verify(dir, &["--json"]);
    let json_format = verify(dir, &["--format", "json"]);
    assert_eq!(text.code, expected_code, "{}{}", text.stdout, text.stderr);
    assert_eq!(json.code, expected_code);
    assert_eq!(json.verdict(), verdict);
    assert_eq!(json_format.stdout, json.stdout, "--format json is --json");
    assert_eq!(
        verify(dir, &["--format", "text"]).stdout,
        text.stdout,
        "--format text is the default"
    );
    let doc = json.json();
    let findings = not_held(&doc);
    let sections = doc["sections"].as_array().unwrap().len();

    // GitHub: one command per finding that did not hold, then the verdict line.
    let github = verify(dir, &["--format", "github"]);
    assert_eq!(github.code, expected_code, "{}", github.stderr);
    let lines: Vec<&str> = github.stdout.lines().collect();
    let (commands, rest) = lines.split_at(lines.len() - 1);
    assert!(
        rest[0].starts_with(&format!("Verdict: {verdict}")),
        "{}",
        github.stdout
    );
    let unreadable_sections = doc["sections"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s.get("unverified").is_some())
        .count();
    assert_eq!(
        commands.len(),
        findings.len() + unreadable_sections,
        "{}",
        github.stdout
    );
    for (line, (severity, id)) in commands.iter().zip(&findings) {
        let level = if severity == "advisory" {
            "::warning "
        } else {
            "::error "
        };
        assert!(line.starts_with(level), "{line}");
        assert!(line.contains(&format!("title={id}")), "{line}");
        let file = line
            .split("file=")
            .nth(1)
            .and_then(|rest| rest.split([',', ':']).next())
            .unwrap_or_else(|| panic!("no file in {line}"));
        assert!(
            root.join(file).exists() || id == "task-file-missing",
            "{line}"
        );
    }

    // SARIF: valid, a result per finding, a rule per id, locations below the root.
    let sarif = verify(dir, &["--format", "sarif"]);
    assert_eq!(sarif.code, expected_code, "{}", sarif.stderr);
    sarif_is_valid(&sarif.stdout)
        .unwrap_or_else(|e| panic!("SARIF invalid: {e}\n{}", sarif.stdout));
    let log = sarif.json();
    let run = &log["runs"][0];
    assert_eq!(run["tool"]["driver"]["name"], "planseal");
    assert_eq!(run["invocations"][0]["exitCode"], expected_code);
    let results = run["results"].as_array().unwrap();
    assert_eq!(results.len(), findings.len());
    let rules: Vec<&str> = run["tool"]["driver"]["rules"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    for (result, (severity, id)) in results.iter().zip(&findings) {
        assert_eq!(result["ruleId"], id.as_str());
        assert_eq!(rules[result["ruleIndex"].as_u64().unwrap() as usize], id);
        let level = match severity.as_str() {
            "fail" => "error",
            "advisory" => "warning",
            _ => "note",
        };
        assert_eq!(result["level"], level);
        let uri = result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
            .as_str()
            .unwrap();
        assert!(!uri.starts_with('/'), "{uri}");
        assert!(
            root.join(uri).exists() || id == "task-file-missing",
            "{uri}"
        );
    }

    // JUnit: valid, a suite per section, a case per finding, failures and errors counted.
    let junit = verify(dir, &["--format", "junit"]);
    assert_eq!(junit.code, expected_code, "{}", junit.stderr);
    junit_is_valid(&junit.stdout)
        .unwrap_or_else(|e| panic!("JUnit invalid: {e}\n{}", junit.stdout));
    assert_eq!(junit.stdout.matches("<testsuite ").count(), sections);
    let fails = findings.iter().filter(|(s, _)| s == "fail").count();
    assert_eq!(junit.stdout.matches("<failure ").count(), fails);
    let advisories = findings.iter().filter(|(s, _)| s == "advisory").count();
    assert_eq!(
        junit.stdout.matches("<property name=\"advisory: ").count(),
        advisories
    );
    assert!(
        junit.stdout.contains(&format!(" failures=\"{fails}\"")),
        "{}",
        junit.stdout
    );

    assert_eq!(tree_hash(root), before, "verify changed a file");
}

#[test]
fn every_format_on_a_conformant_workspace() {
    let tmp = conformant();
    check_every_format(tmp.path(), tmp.path(), 0, "CONFORMANT");
    let github = verify(tmp.path(), &["--format", "github"]);
    assert!(!github.stdout.contains("::error"), "{}", github.stdout);
    assert!(
        github.stdout.contains(
            "::warning file=.dwp/plans/PLAN_cli_color_flag/README.md,title=semantic-review-required::"
        ),
        "{}",
        github.stdout
    );
}

#[test]
fn every_format_on_a_not_conformant_workspace() {
    let tmp = not_conformant();
    check_every_format(tmp.path(), tmp.path(), 1, "NOT CONFORMANT");
    let github = verify(tmp.path(), &["--format", "github"]);
    assert!(github.stdout.contains(
        "::error file=.dwp/plans/PLAN_csv_export/2.task_export_command.md,title=task-file-missing::Plan: PLAN_csv_export: task 2: task file 2.task_export_command.md is missing%0Ahint: restore the task file"
    ), "{}", github.stdout);
    // the GSD advisory knows its line: an annotation on it, a SARIF region
    assert!(
        github.stdout.contains(
            "::warning file=.planning/STATE.md,line=8,title=gsd-next-phases-block-list::"
        ),
        "{}",
        github.stdout
    );
    let sarif = verify(tmp.path(), &["--format", "sarif"]).json();
    let block_list = sarif["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["ruleId"] == "gsd-next-phases-block-list")
        .expect("the GSD result");
    assert_eq!(
        block_list["locations"][0]["physicalLocation"]["region"]["startLine"],
        8
    );
    let junit = verify(tmp.path(), &["--format", "junit"]).stdout;
    assert!(
        junit.contains(
            "<testsuite name=\"Plan: PLAN_csv_export\" tests=\"16\" failures=\"2\" errors=\"0\""
        ),
        "{junit}"
    );
    assert!(junit.contains("<testcase name=\"task-file-missing (task 2)\" classname=\"plan.PLAN_csv_export\">\n      <failure type=\"task-file-missing\""), "{junit}");
}

#[test]
fn every_format_on_an_unverified_workspace() {
    let tmp = unverified();
    check_every_format(tmp.path(), tmp.path(), 2, "UNVERIFIED");
    let sarif = verify(tmp.path(), &["--format", "sarif"]).json();
    assert_eq!(
        sarif["runs"][0]["invocations"][0]["executionSuccessful"],
        false
    );
    let junit = verify(tmp.path(), &["--format", "junit"]).stdout;
    assert!(junit.contains("<error type=\"git-unreadable\""), "{junit}");
}

/// From a subfolder of the repository the files are still named from its root.
#[test]
fn files_are_named_from_the_repository_root_wherever_verify_runs() {
    let tmp = not_conformant();
    let sub = tmp.path().join("docs/deep");
    std::fs::create_dir_all(&sub).unwrap();
    let github = verify(&sub, &["--format", "github"]);
    assert_eq!(github.code, 1);
    assert!(
        github
            .stdout
            .contains("::error file=.dwp/plans/PLAN_csv_export/2.task_export_command.md,"),
        "{}",
        github.stdout
    );
    let run = Planseal::new()
        .cwd(tmp.path())
        .args(["-C", "docs", "verify", "--format", "sarif"])
        .output();
    let uris: Vec<String> = run.json()["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    assert!(
        uris.iter()
            .all(|u| u.starts_with(".dwp/") || u.starts_with(".planning/")),
        "{uris:?}"
    );
}

#[test]
fn json_and_another_format_is_a_usage_error() {
    let tmp = conformant();
    let run = verify(tmp.path(), &["--json", "--format", "sarif"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("--json and --format"), "{}", run.stderr);
    let run = verify(tmp.path(), &["--format", "xml"]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("xml"), "{}", run.stderr);
}

/// Property separators and the characters the runner decodes are escaped in file names.
#[test]
fn github_escapes_file_names_and_messages() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(tmp.path().join(".reversa")).unwrap();
    std::fs::write(
        tmp.path().join(".reversa/state.json"),
        r#"{"version":"1.0","phase":"reconhecimento","checkpoints":{"scout":{"files":["notes/a,b:c%.md"]}}}"#,
    )
    .unwrap();
    let run = verify(tmp.path(), &["--format", "github"]);
    let line = run
        .stdout
        .lines()
        .find(|l| l.contains("reversa-checkpoint-file-missing"))
        .unwrap_or_else(|| panic!("{}", run.stdout));
    assert!(
        line.starts_with(
            "::error file=notes/a%2Cb%3Ac%25.md,title=reversa-checkpoint-file-missing::"
        ),
        "{line}"
    );
    assert!(line.contains("`notes/a,b:c%25.md`"), "{line}");
}

/// A `.env` value a finding quotes is hidden before the text is encoded (`%25`, `&amp;`), so
/// no spelling of it reaches the output.
#[test]
fn no_format_prints_an_env_value() {
    let secret = "PLANTED%41&<b>,x:y";
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join(".env"), format!("RESUME_TOKEN={secret}\n")).unwrap();
    std::fs::create_dir_all(tmp.path().join(".planning")).unwrap();
    let state = std::fs::read_to_string(repo_root().join("fixtures/gsd/check/block-list.md"))
        .unwrap()
        .replace("Resume file: None", &format!("Resume file: {secret}"));
    std::fs::write(tmp.path().join(".planning/STATE.md"), state).unwrap();
    for format in ["text", "json", "github", "sarif", "junit"] {
        let run = verify(tmp.path(), &["--format", format]);
        assert_eq!(run.code, 1, "{format}: {}", run.all());
        assert!(
            run.stdout.contains("gsd-resume-file-missing") || format == "text",
            "{format}: {}",
            run.stdout
        );
        assert!(
            !run.all().contains("PLANTED"),
            "{format} printed the value:\n{}",
            run.all()
        );
    }
}

/// The validators themselves reject what the schemas forbid (so a pass above means something).
#[test]
fn the_schema_checks_reject_invalid_documents() {
    let tmp = conformant();
    let sarif = verify(tmp.path(), &["--format", "sarif"]).stdout;
    let broken = sarif.replacen("\"level\": \"warning\"", "\"level\": \"fatal\"", 1);
    assert_ne!(broken, sarif);
    assert!(sarif_is_valid(&broken).is_err());
    let junit = verify(tmp.path(), &["--format", "junit"]).stdout;
    let broken = junit.replacen("<testcase name=", "<testcase nom=", 1);
    assert!(junit_is_valid(&broken).is_err());
}

/// `.pre-commit-hooks.yaml` offers `planseal-verify`, which runs `planseal verify` without file
/// names on every commit; its entry passes on a CONFORMANT workspace and stops a commit on a NOT
/// CONFORMANT one, as the framework would run it (in the repository root).
#[test]
fn the_pre_commit_hook_runs_verify() {
    let manifest = std::fs::read_to_string(repo_root().join(".pre-commit-hooks.yaml")).unwrap();
    let field = |key: &str| -> String {
        manifest
            .lines()
            .map(|l| l.trim_start_matches("- ").trim())
            .find_map(|l| l.strip_prefix(&format!("{key}: ")))
            .unwrap_or_else(|| panic!("no {key} in .pre-commit-hooks.yaml"))
            .to_string()
    };
    assert!(manifest.starts_with("# ") && manifest.contains("\n- id: planseal-verify\n"));
    assert_eq!(field("entry"), "planseal verify");
    assert_eq!(field("language"), "rust");
    assert_eq!(field("pass_filenames"), "false");
    assert_eq!(field("always_run"), "true");
    // The package the framework builds (`cargo install --path .`) has the binary the entry names.
    let cargo = std::fs::read_to_string(repo_root().join("Cargo.toml")).unwrap();
    assert!(cargo.contains("[[bin]]\nname = \"planseal\""));

    let entry = field("entry");
    let args: Vec<&str> = entry.split_whitespace().skip(1).collect();
    for (tmp, code) in [(conformant(), 0), (not_conformant(), 1), (unverified(), 2)] {
        let run = Planseal::new().cwd(tmp.path()).args(&args).output();
        assert_eq!(run.code, code, "{}{}", run.stdout, run.stderr);
    }
}
