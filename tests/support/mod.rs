//! Shared helpers of the integration tests. Each test binary (`tests/*/main.rs`) declares this
//! module once at its root; the test files reach it as `crate::support::…`.
//!
//! Every child process a test starts goes through [`run`]: planseal through `run::Planseal`,
//! git and bash through `run::hermetic` (as `gitrepo` does).
#![allow(dead_code)] // each binary uses only part of it

pub mod chain;
pub mod finalize;
pub mod fs;
pub mod gitrepo;
pub mod plans;
pub mod reshape;
pub mod run;
pub mod update;
pub mod verify;

use run::Run;
use std::path::Path;

/// Runs the built binary in `cwd` with `args`.
pub fn planseal(cwd: &Path, args: &[&str]) -> Run {
    run::planseal(cwd, args)
}

pub fn stdout(o: &Run) -> String {
    o.stdout.clone()
}

pub fn stderr(o: &Run) -> String {
    o.stderr.clone()
}
