//! `planseal gsd statusline --stdin` against every recorded vector of GSD's whole statusline
//! (fixtures/vectors/gsd-statusline/, recorded from gsd-core's hook by
//! scripts/record-statusline-vectors.sh): stdout byte for byte and the temp folder (the
//! `claude-ctx-<session>.json` bridge file) byte for byte, with and without `NO_COLOR` (the hook
//! has no colour switch, so both must print the same). Then the edge cases the hook never
//! meets: malformed, huge or endless input, HOME unset, `--strict`.

use crate::support::run::{Planseal, hermetic};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The instant the vectors were recorded at (the bridge file's `timestamp`, 1790000000).
const RECORDED_AT: &str = "2026-09-21T14:13:20+00:00";

fn vectors_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/vectors/gsd-statusline")
}

/// Every file under `dir`, by path relative to it.
fn tree(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                let rel = p.strip_prefix(dir).unwrap().to_string_lossy().into_owned();
                out.insert(rel, std::fs::read(&p).unwrap());
            }
        }
    }
    out
}

fn copy_tree(from: &Path, to: &Path) {
    for (rel, bytes) in tree(from) {
        let dest = to.join(rel);
        std::fs::create_dir_all(dest.parent().unwrap()).unwrap();
        std::fs::write(dest, bytes).unwrap();
    }
}

/// The case's scratch folder, laid out as the recording script lays it out.
fn materialize(case: &Path, root: &Path) {
    for d in ["home", "tmp", "cwd", "work"] {
        std::fs::create_dir_all(root.join(d)).unwrap();
    }
    copy_tree(&case.join("files"), root);
    let setup = case.join("setup.sh");
    if setup.exists() {
        let status = hermetic("bash")
            .arg(&setup)
            .current_dir(root)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .status()
            .unwrap();
        assert!(status.success(), "{}: setup.sh failed", case.display());
    }
}

fn run_case(case: &Path, root: &Path, no_color: bool) -> (Vec<u8>, i32) {
    let root_text = root.to_str().unwrap();
    let stdin = std::fs::read_to_string(case.join("stdin.json"))
        .unwrap()
        .replace("@ROOT@", root_text);
    let mut run = Planseal::new()
        .cwd(root.join("cwd"))
        .clock(RECORDED_AT)
        .env("HOME", root.join("home"))
        .env("TMPDIR", root.join("tmp"))
        .args(["gsd", "statusline", "--stdin"])
        .stdin(stdin);
    run = if no_color {
        run.env("NO_COLOR", "1").env("FORCE_COLOR", "0")
    } else {
        run.env_remove("NO_COLOR")
    };
    if let Ok(env) = std::fs::read_to_string(case.join("env")) {
        for line in env.lines() {
            let (k, v) = line.split_once('=').unwrap();
            run = run.env(k, v.replace("@ROOT@", root_text));
        }
    }
    let out = run.output();
    (out.stdout.into_bytes(), out.code)
}

#[test]
fn every_vector_in_both_colour_modes() {
    let mut cases: Vec<PathBuf> = std::fs::read_dir(vectors_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    cases.sort();
    assert!(cases.len() >= 40, "{} vectors", cases.len());
    let mut failures = Vec::new();
    for case in &cases {
        let name = case.file_name().unwrap().to_string_lossy();
        let expected = std::fs::read(case.join("expected-stdout")).unwrap();
        let expected_tmp = tree(&case.join("expected-tmp"));
        for no_color in [false, true] {
            let dir = tempfile::tempdir().unwrap();
            let root = dir.path();
            materialize(case, root);
            let (stdout, code) = run_case(case, root, no_color);
            if stdout != expected || code != 0 {
                failures.push(format!(
                    "{name} (NO_COLOR={no_color}): exit {code}\n  expected {:?}\n  got      {:?}",
                    String::from_utf8_lossy(&expected),
                    String::from_utf8_lossy(&stdout)
                ));
            }
            let tmp = tree(&root.join("tmp"));
            if tmp != expected_tmp {
                failures.push(format!(
                    "{name} (NO_COLOR={no_color}): temp folder\n  expected {:?}\n  got      {:?}",
                    show(&expected_tmp),
                    show(&tmp)
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

fn show(t: &BTreeMap<String, Vec<u8>>) -> Vec<(String, String)> {
    t.iter()
        .map(|(k, v)| (k.clone(), String::from_utf8_lossy(v).into_owned()))
        .collect()
}

fn whole(dir: &Path, stdin: impl Into<Vec<u8>>) -> crate::support::run::Run {
    Planseal::new()
        .cwd(dir)
        .env("HOME", dir.join("home"))
        .env("TMPDIR", dir)
        .args(["gsd", "statusline", "--stdin"])
        .stdin(stdin)
        .output()
}

#[test]
fn malformed_json_is_a_clear_error_and_nothing_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let out = whole(
        dir.path(),
        r#"{"session_id":"s1","context_window":{"remaining_percentage":50}"#,
    );
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(out.stdout.is_empty());
    assert!(
        out.stderr.contains("standard input is not JSON"),
        "{}",
        out.stderr
    );
    assert!(out.stderr.contains("hint:"), "{}", out.stderr);
    assert!(!dir.path().join("claude-ctx-s1.json").exists());
}

#[test]
fn huge_input_is_refused_without_reading_it_all() {
    let dir = tempfile::tempdir().unwrap();
    let mut big = b"{\"x\":\"".to_vec();
    big.resize(3 * 1024 * 1024, b'a');
    big.extend_from_slice(b"\"}");
    let out = whole(dir.path(), big);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(
        out.stderr.contains("larger than 1024 KiB"),
        "{}",
        out.stderr
    );
}

#[test]
fn input_that_never_closes_ends_after_three_seconds() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = hermetic(crate::support::run::BIN)
        .args(["gsd", "statusline", "--stdin"])
        .current_dir(dir.path())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let _keep_open = child.stdin.take();
    let started = std::time::Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            assert_eq!(status.code(), Some(2));
            break;
        }
        assert!(
            started.elapsed() < std::time::Duration::from_secs(10),
            "hangs"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

/// A GSD project `proj` under `dir` whose STATE.md names `milestone`, and the statusline JSON
/// Claude Code would send from it.
fn gsd_project(dir: &Path, milestone: &str) -> String {
    std::fs::create_dir_all(dir.join("proj/.planning")).unwrap();
    std::fs::write(
        dir.join("proj/.planning/STATE.md"),
        format!("---\nmilestone: {milestone}\nstatus: planning\n---\n"),
    )
    .unwrap();
    format!(
        r#"{{"model":{{"display_name":"M"}},"workspace":{{"current_dir":"{}"}}}}"#,
        dir.join("proj").display()
    )
}

#[test]
fn home_unset_still_prints_the_line() {
    let dir = tempfile::tempdir().unwrap();
    let json = gsd_project(dir.path(), "v1");
    let out = Planseal::new()
        .cwd(dir.path())
        .env_remove("HOME")
        .env("CLAUDE_CONFIG_DIR", dir.path().join("no-claude"))
        .args(["gsd", "statusline", "--stdin"])
        .stdin(json)
        .output();
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(
        out.stdout,
        "\x1b[2mM\x1b[0m │ \x1b[2mv1 · planning\x1b[0m │ \x1b[2mproj\x1b[0m"
    );
}

#[test]
fn strict_is_for_the_segment_only() {
    let dir = tempfile::tempdir().unwrap();
    let out = Planseal::new()
        .cwd(dir.path())
        .args(["gsd", "statusline", "--stdin", "--strict"])
        .stdin("{}")
        .output();
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("--segment"), "{}", out.stderr);
}

#[test]
fn json_null_prints_nothing_as_the_hook_does() {
    let dir = tempfile::tempdir().unwrap();
    let out = whole(dir.path(), "null");
    assert_eq!((out.code, out.stdout.as_str()), (0, ""));
}

#[test]
fn an_unwritable_temp_folder_changes_nothing_printed() {
    let dir = tempfile::tempdir().unwrap();
    let json = r#"{"model":{"display_name":"M"},"session_id":"s","context_window":{"remaining_percentage":100}}"#;
    let out = Planseal::new()
        .cwd(dir.path())
        .env("TMPDIR", dir.path().join("missing/folder"))
        .args(["gsd", "statusline", "--stdin"])
        .stdin(json)
        .output();
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.ends_with(" 0%\x1b[0m"), "{:?}", out.stdout);
}

#[test]
fn json_wraps_the_whole_line_in_the_envelope() {
    let dir = tempfile::tempdir().unwrap();
    let out = Planseal::new()
        .cwd(dir.path())
        .env("HOME", dir.path())
        .args(["--json", "gsd", "statusline", "--stdin"])
        .stdin(r#"{"model":{"display_name":"M"},"workspace":{"current_dir":"/x/proj"}}"#)
        .output();
    assert_eq!(out.code, 0, "{}", out.stderr);
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(v["result"], "ok");
    assert_eq!(v["line"], "\x1b[2mM\x1b[0m │ \x1b[2mproj\x1b[0m");
}

#[test]
fn segment_needs_stdin() {
    let dir = tempfile::tempdir().unwrap();
    let out = Planseal::new()
        .cwd(dir.path())
        .args(["gsd", "statusline", "--segment"])
        .output();
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("--stdin"), "{}", out.stderr);
}

#[test]
fn a_dotenv_value_in_the_state_is_redacted_in_the_whole_line() {
    let dir = tempfile::tempdir().unwrap();
    let json = gsd_project(dir.path(), "sk-live-123456");
    std::fs::write(dir.path().join("proj/.env"), "API_TOKEN=sk-live-123456\n").unwrap();
    let out = whole(dir.path(), json);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(!out.stdout.contains("sk-live-123456"), "{}", out.stdout);
    assert!(
        out.stdout.contains("[redacted .env value]"),
        "{}",
        out.stdout
    );
}
