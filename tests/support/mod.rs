//! Shared helpers of the integration tests. Each test binary (`tests/*/main.rs`) declares this
//! module once at its root; the test files reach it as `crate::support::…`.
#![allow(dead_code)] // each binary uses only part of it

pub mod finalize;
pub mod fs;
pub mod gitrepo;
pub mod hermetic_run;
pub mod plans;
pub mod update;
pub mod verify;

use std::path::Path;
use std::process::Output;

/// Runs the built binary in `cwd` with `args`.
pub fn planseal(cwd: &Path, args: &[&str]) -> Output {
    assert_cmd::Command::new(env!("CARGO_BIN_EXE_planseal"))
        .current_dir(cwd)
        .env("NO_COLOR", "1")
        .env_remove("PLANSEAL_FAKE_NOW")
        .args(args)
        .output()
        .expect("planseal runs")
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).expect("utf-8 stdout")
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).expect("utf-8 stderr")
}
