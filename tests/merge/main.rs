//! The merge driver and its registration through the CLI: real `git merge`, `git rebase` and
//! `git cherry-pick` in scripted repositories with `planseal merge-driver` registered, the
//! driver run by hand on each format, `hooks install|uninstall --merge`, and the property test
//! of the DWP state merge (valid or a conflict, never an invalid clean merge; symmetric).

// A test binary has no API: tests/support is `pub` only so that every test module reaches it.
#![allow(missing_docs, unreachable_pub)]

#[path = "../support/mod.rs"]
mod support;

mod driver_cli;
mod dwp_git;
mod formats_git;
mod hooks_cli;
mod props;
mod repo;
