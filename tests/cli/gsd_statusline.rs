//! `planseal gsd statusline` against every recorded vector of GSD's hook, byte for byte, in full
//! and compact form, through the built binary; plus the lookup rules (walk up, workstreams,
//! config.json, --stdin --segment, --strict). The whole line of --stdin is
//! gsd_statusline_whole.rs.

use crate::support::run::Planseal;
use serde_json::Value;
use std::path::Path;

fn vectors() -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/vectors/gsd/vectors.json");
    serde_json::from_slice(&std::fs::read(path).expect("vectors.json is in the repository"))
        .expect("vectors.json is valid JSON")
}

fn planseal(cwd: &Path) -> Planseal {
    // HOME outside the test folders, so the walk up is bounded only by the 10 levels.
    Planseal::new().cwd(cwd).env("HOME", "/nonexistent-home")
}

fn statusline(cwd: &Path, args: &[&str]) -> (Vec<u8>, i32) {
    let out = planseal(cwd)
        .arg("gsd")
        .arg("statusline")
        .args(args)
        .output();
    (out.stdout.into_bytes(), out.status.code().unwrap_or(-1))
}

#[test]
fn every_vector_full_and_compact() {
    let dir = tempfile::tempdir().unwrap();
    let cases = vectors()["statusline"].as_array().unwrap().clone();
    assert_eq!(cases.len(), 47);
    let mut failures = Vec::new();
    for (i, case) in cases.iter().enumerate() {
        let name = case["name"].as_str().unwrap();
        let file = dir.path().join(format!("case{i}.md"));
        std::fs::write(&file, case["input"].as_str().unwrap()).unwrap();
        let file_arg = file.to_str().unwrap();
        for (flag, key) in [
            (None, "expected_full"),
            (Some("--compact"), "expected_compact"),
        ] {
            let mut args = vec![file_arg];
            args.extend(flag);
            let (stdout, code) = statusline(dir.path(), &args);
            let expected = case[key].as_str().unwrap();
            if stdout != expected.as_bytes() || code != 0 {
                failures.push(format!(
                    "{name} [{key}]: expected {expected:?}, got {:?} (exit {code})",
                    String::from_utf8_lossy(&stdout)
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

fn write(root: &Path, rel: &str, text: &str) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

const STATE: &str = "---\nmilestone: v2.0\nstatus: executing\nactive_phase: \"4\"\n---\n";

#[test]
fn walks_up_to_the_planning_folder() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), ".planning/STATE.md", STATE);
    let deep = dir.path().join("a/b/c");
    std::fs::create_dir_all(&deep).unwrap();
    let (out, code) = statusline(&deep, &[]);
    assert_eq!(
        (out.as_slice(), code),
        (&b"v2.0 \xc2\xb7 Phase 4 executing"[..], 0)
    );
}

#[test]
fn stops_at_home() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), ".planning/STATE.md", STATE);
    let home = dir.path().join("home");
    let deep = home.join("proj");
    std::fs::create_dir_all(&deep).unwrap();
    let out = planseal(&deep)
        .env("HOME", &home)
        .args(["gsd", "statusline"])
        .output();
    assert_eq!(
        (out.stdout.as_bytes(), out.status.code()),
        (&b""[..], Some(0))
    );
}

#[test]
fn missing_file_prints_nothing_unless_strict() {
    let dir = tempfile::tempdir().unwrap();
    let (out, code) = statusline(dir.path(), &["nope.md"]);
    assert_eq!((out.as_slice(), code), (&b""[..], 0));
    let out = planseal(dir.path())
        .args(["gsd", "statusline", "--strict", "nope.md"])
        .output();
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    assert!(out.stderr.contains("nope.md"));
    let (out, code) = statusline(dir.path(), &[]);
    assert_eq!((out.as_slice(), code), (&b""[..], 0));
    let out = planseal(dir.path())
        .args(["gsd", "statusline", "--strict"])
        .output();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn workstreams() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), ".planning/workstreams/api/STATE.md", STATE);
    write(
        dir.path(),
        ".planning/workstreams/ui/STATE.md",
        "---\nmilestone: v3\nstatus: planning\n---\n",
    );
    let (out, _) = statusline(dir.path(), &[]);
    assert_eq!(out, "no active workstream".as_bytes());
    let out = planseal(dir.path())
        .env("GSD_WORKSTREAM", "ui")
        .args(["gsd", "statusline"])
        .output();
    assert_eq!(out.stdout.as_bytes(), "v3 · planning".as_bytes());
    let out = planseal(dir.path())
        .env("GSD_WORKSTREAM", "../ui")
        .args(["gsd", "statusline"])
        .output();
    assert_eq!(out.stdout.as_bytes(), "no active workstream".as_bytes());
    write(dir.path(), ".planning/active-workstream", "api\n");
    let (out, _) = statusline(dir.path(), &[]);
    assert_eq!(out, "v2.0 · Phase 4 executing".as_bytes());
}

#[test]
fn config_selects_compact_and_flag_overrides_nothing_else() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), ".planning/STATE.md", STATE);
    write(
        dir.path(),
        ".planning/config.json",
        r#"{"statusline": {"state_format": "compact"}}"#,
    );
    let (out, _) = statusline(dir.path(), &[]);
    assert_eq!(out, "v2.0 · P4 · executing".as_bytes());
    let (out, _) = statusline(dir.path(), &[".planning/STATE.md"]);
    assert_eq!(out, "v2.0 · P4 · executing".as_bytes());
    write(
        dir.path(),
        ".planning/config.json",
        r#"{"statusline.state_format": "full"}"#,
    );
    let (out, _) = statusline(dir.path(), &[]);
    assert_eq!(out, "v2.0 · Phase 4 executing".as_bytes());
}

#[test]
fn stdin_json_names_the_workspace() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "proj/.planning/STATE.md", STATE);
    let json = format!(
        r#"{{"model": {{"display_name": "X"}}, "workspace": {{"current_dir": "{}"}}}}"#,
        dir.path().join("proj").display()
    );
    let out = planseal(dir.path())
        .args(["gsd", "statusline", "--stdin", "--segment"])
        .stdin(json.clone())
        .output();
    assert_eq!(out.stdout.as_bytes(), "v2.0 · Phase 4 executing".as_bytes());
    // Without --segment, --stdin prints the hook's whole line around that segment.
    let out = planseal(dir.path())
        .args(["gsd", "statusline", "--stdin"])
        .stdin(json)
        .output();
    assert_eq!(
        out.stdout.as_bytes(),
        "\x1b[2mX\x1b[0m │ \x1b[2mv2.0 · Phase 4 executing\x1b[0m │ \x1b[2mproj\x1b[0m".as_bytes()
    );
    let json = format!(r#"{{"cwd": "{}"}}"#, dir.path().join("proj").display());
    let out = planseal(dir.path())
        .args(["gsd", "statusline", "--stdin", "--segment", "--compact"])
        .stdin(json)
        .output();
    assert_eq!(out.stdout.as_bytes(), "v2.0 · P4 · executing".as_bytes());
}
