//! Shared helpers of the integration tests.
#![allow(dead_code)]

pub mod fs;
pub mod gitrepo;
pub mod plans;

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
