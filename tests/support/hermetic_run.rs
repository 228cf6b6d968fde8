//! Runs the built binary in a folder with a hermetic environment (fixed clock, no user git
//! configuration, no colour) and returns exit code, stdout and stderr as text.

use serde_json::Value;
use std::path::Path;
use std::process::Command;

pub fn planseal(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_planseal"))
        .current_dir(dir)
        .env("PLANSEAL_FAKE_NOW", "2026-10-05T09:00:00+00:00")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("NO_COLOR", "1")
        .args(args)
        .output()
        .expect("the planseal binary runs");
    (
        out.status.code().expect("exit code"),
        String::from_utf8(out.stdout).expect("utf8 stdout"),
        String::from_utf8(out.stderr).expect("utf8 stderr"),
    )
}

pub fn json(stdout: &str) -> Value {
    serde_json::from_str(stdout).expect("one JSON document")
}
