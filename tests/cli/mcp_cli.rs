//! `planseal mcp` with a real MCP client: `tests/mcp/client.py` (the Python `mcp` package's
//! stdio client) starts the server in a fixture workspace, lists the tools (names, read-only
//! annotations, no approve or unlock), calls each one on fixture plans and compares every
//! document with what `planseal <cmd> --json` prints for the same inputs, then lists and reads a
//! resource.
//!
//! The `mcp` package is installed by scripts/test; a missing one fails this test (it is never
//! skipped).

use crate::support::gitrepo::project_root;
use crate::support::run::{BIN, Planseal, hermetic};
use std::path::PathBuf;

/// The Python interpreter `python3` names here (the test process's own PATH, so that a version
/// manager's shim resolves), run afterwards in the hermetic environment by its full path.
fn python() -> PathBuf {
    let out = std::process::Command::new("python3")
        .args(["-c", "import sys; print(sys.executable)"])
        .output()
        .expect("python3 runs (scripts/test installs the mcp package)");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    PathBuf::from(String::from_utf8_lossy(&out.stdout).trim())
}

#[test]
fn a_real_mcp_client_gets_the_clis_documents_from_every_tool() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let out = hermetic(python())
        .arg(project_root().join("tests/mcp/client.py"))
        .arg(BIN)
        .arg(project_root())
        .env("TMPDIR", tmp.path())
        .output()
        .expect("python3 runs");
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(out.status.code(), Some(0), "{said}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(!stdout.contains("FAILED"), "{said}");
    let last = stdout.lines().last().unwrap_or_default();
    let (passed, failed) = last
        .strip_suffix(" failed")
        .and_then(|rest| rest.split_once(" passed, "))
        .unwrap_or_else(|| panic!("no closing count: {said}"));
    assert_eq!(failed, "0", "{said}");
    assert!(passed.parse::<u32>().unwrap_or(0) >= 100, "{said}");
    for line in [
        "ok: the tools are verify, status, diff, log, update, finalize, recover, rebuild",
        "ok: approve is not offered",
        "ok: unlock is not offered",
        "ok: verify: read-only annotation True",
        "ok: update: read-only annotation False",
        "ok: status: the .env value is redacted, as the CLI does",
        "ok: reading the resource gives state.json (its .env values hidden)",
    ] {
        assert!(
            stdout.lines().any(|l| l == line),
            "missing {line:?}:\n{said}"
        );
    }
    for tool in [
        "verify", "status", "diff", "log", "update", "finalize", "recover", "rebuild",
    ] {
        assert!(
            stdout
                .lines()
                .any(|l| l.starts_with(&format!("ok: {tool} {{"))
                    && l.contains(": the document `planseal ")),
            "no document compared for {tool}:\n{said}"
        );
    }
    // The guard refuses for each writer that was given a wrong hash.
    for tool in ["update", "finalize", "rebuild", "recover"] {
        assert!(
            stdout
                .lines()
                .any(|l| l.starts_with(&format!("ok: {tool} {{"))
                    && l.contains(&"0".repeat(64))
                    && l.ends_with(": result refused")),
            "no stale-snapshot refusal for {tool}:\n{said}"
        );
    }
}

#[test]
fn the_server_ends_with_0_when_its_client_closes_stdin() {
    let dir = tempfile::tempdir().expect("temp dir");
    let run = Planseal::new()
        .cwd(dir.path())
        .arg("mcp")
        .stdin(Vec::new())
        .spawn()
        .wait_at_most(std::time::Duration::from_secs(20))
        .expect("planseal mcp ends when stdin closes");
    let (code, stdout, _stderr) = run.into_parts();
    assert_eq!(code, 0);
    assert_eq!(stdout, "");
}
