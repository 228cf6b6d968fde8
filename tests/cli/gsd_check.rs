//! The GSD findings of `planseal verify`, through `planseal gsd check` (the same
//! `planseal::gsd::check` that `verify` calls), one fixture STATE.md per finding: its id, its
//! severity, a hint on every failure and advisory, the exit code, and no file changed.

use crate::support::run::Planseal;
use serde_json::Value;
use std::path::{Path, PathBuf};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/gsd/check")
        .join(name)
}

fn check_json(file: &Path) -> (Value, i32) {
    let before = std::fs::read(file).unwrap();
    let out = Planseal::new()
        .args(["--json", "gsd", "check"])
        .arg(file)
        .output();
    assert_eq!(std::fs::read(file).unwrap(), before, "check must not write");
    (
        serde_json::from_str(&out.stdout).expect("JSON on stdout"),
        out.status.code().unwrap(),
    )
}

fn non_pass(report: &Value) -> Vec<(String, String, String)> {
    report["sections"][0]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["severity"] != "pass")
        .map(|f| {
            (
                f["id"].as_str().unwrap().to_string(),
                f["severity"].as_str().unwrap().to_string(),
                f["hint"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect()
}

#[test]
fn clean_file_is_conformant() {
    let (report, code) = check_json(&fixture("clean.md"));
    assert_eq!(code, 0);
    assert_eq!(report["verdict"], "CONFORMANT");
    assert!(non_pass(&report).is_empty());
    assert!(report["counts"]["passed"].as_u64().unwrap() >= 5);
}

#[test]
fn every_finding_has_its_fixture() {
    let cases: &[(&str, &str, &str)] = &[
        ("bom.md", "gsd-frontmatter-bom", "fail"),
        ("leading-blank.md", "gsd-frontmatter-leading-blank", "fail"),
        ("fence-space.md", "gsd-frontmatter-fence-space", "fail"),
        ("unclosed.md", "gsd-frontmatter-unclosed", "fail"),
        ("no-frontmatter.md", "gsd-frontmatter-missing", "fail"),
        ("nul.md", "gsd-nul-bytes", "fail"),
        ("too-long.md", "gsd-too-long", "advisory"),
        ("progress-gap.md", "gsd-progress-gap", "fail"),
        ("percent-quoted.md", "gsd-percent-quoted", "fail"),
        ("percent-mismatch.md", "gsd-percent-mismatch", "fail"),
        ("status-drift.md", "gsd-status-drift", "fail"),
        ("phase-drift.md", "gsd-phase-drift", "fail"),
        ("zero-progress.md", "gsd-template-zero-progress", "advisory"),
        ("version-missing.md", "gsd-state-version-missing", "fail"),
        ("status-missing.md", "gsd-status-missing", "fail"),
        ("next-action-invalid.md", "gsd-next-action-invalid", "fail"),
        ("next-action-pairing.md", "gsd-next-action-pairing", "fail"),
        ("next-while-active.md", "gsd-next-while-active", "fail"),
        ("active-status.md", "gsd-active-status", "fail"),
        ("resume-missing.md", "gsd-resume-file-missing", "fail"),
        ("block-list.md", "gsd-next-phases-block-list", "advisory"),
        ("inline-comment.md", "gsd-inline-comment", "advisory"),
    ];
    for (file, id, severity) in cases {
        let (report, code) = check_json(&fixture(file));
        let found = non_pass(&report);
        assert_eq!(
            found
                .iter()
                .map(|(i, s, _)| (i.as_str(), s.as_str()))
                .collect::<Vec<_>>(),
            vec![(*id, *severity)],
            "{file}: exactly this finding"
        );
        assert!(found[0].2.len() > 10, "{file}: {id} carries a hint");
        let expected_code = if *severity == "fail" { 1 } else { 0 };
        assert_eq!(code, expected_code, "{file}: exit code");
        assert_eq!(report["exit_code"], expected_code);
    }
}

#[test]
fn text_output_names_the_finding_and_its_hint() {
    let out = Planseal::new()
        .args(["gsd", "check"])
        .arg(fixture("percent-quoted.md"))
        .output();
    let text = out.stdout;
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text.contains("progress.percent is quoted (\"38\")"),
        "{text}"
    );
    assert!(
        text.contains("hint: write it as a bare number: `percent: 38`"),
        "{text}"
    );
    assert!(text.contains("NOT CONFORMANT"), "{text}");
}

#[test]
fn resume_file_that_exists_passes() {
    let dir = tempfile::tempdir().unwrap();
    let planning = dir.path().join(".planning");
    std::fs::create_dir_all(planning.join("phases/04-obs")).unwrap();
    std::fs::write(planning.join("phases/04-obs/.continue-here.md"), "x").unwrap();
    let text = std::fs::read_to_string(fixture("resume-missing.md")).unwrap();
    std::fs::write(planning.join("STATE.md"), text).unwrap();
    let (report, code) = check_json(&planning.join("STATE.md"));
    assert_eq!((code, non_pass(&report)), (0, vec![]));
}

#[test]
fn detect_finds_flat_and_workstream_files() {
    let dir = tempfile::tempdir().unwrap();
    let planning = dir.path().join(".planning");
    std::fs::create_dir_all(planning.join("workstreams/b")).unwrap();
    std::fs::create_dir_all(planning.join("workstreams/a")).unwrap();
    std::fs::create_dir_all(planning.join("workstreams/empty")).unwrap();
    for p in [
        "STATE.md",
        "workstreams/b/STATE.md",
        "workstreams/a/STATE.md",
    ] {
        std::fs::write(planning.join(p), "---\nstatus: x\n---\n").unwrap();
    }
    let found = planseal::gsd::detect(dir.path());
    assert_eq!(
        found,
        vec![
            planning.join("STATE.md"),
            planning.join("workstreams/a/STATE.md"),
            planning.join("workstreams/b/STATE.md"),
        ]
    );
    let section = planseal::gsd::check(&dir.path().join("nope/STATE.md"));
    assert!(section.unverified.is_some());
}
