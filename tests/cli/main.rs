//! Whole-command tests: each runs the built `planseal` binary on fixture plans and repositories
//! (verify, diff, log, rebuild, checkpoint, reversa, gsd, secrets, help, demo).
//!
//! Each file here is a module of this one binary, not a binary of its own: linking a test binary
//! against planseal and gix is most of the suite's build time. Nothing here changes process-wide
//! state (environment, current directory): every setting goes to the child `Command`, so the
//! modules can share the test threads.

// A test binary has no API: tests/support is `pub` only so that every test module reaches it.
#![allow(missing_docs, unreachable_pub)]

#[path = "../support/mod.rs"]
mod support;

mod amend_cli;
mod approve_cli;
mod checkpoint_cli;
mod checkpoint_writers;
mod cli_usage;
mod completions_cli;
mod demo_run;
mod diff_cli;
mod dwp_helper_acceptance;
mod git_config;
mod gsd_check;
mod gsd_exit_code;
mod gsd_recover;
mod gsd_recover_ids;
mod gsd_rules;
mod gsd_statusline;
mod gsd_statusline_whole;
mod gsd_sync;
mod gsd_writers;
mod gsd_writers_vectors;
mod help_examples;
mod hook_session_start;
mod hook_stop;
mod hooks_claude;
mod hooks_git;
mod journal_place;
mod log_cli;
mod mcp_cli;
mod promote_cli;
mod rebuild_cli;
mod rebuild_history;
mod refine_add_task_cli;
mod refine_cli;
mod report_browser;
mod report_cli;
mod reversa_array_style;
mod reversa_checkpoint;
mod reversa_cli;
mod schema_cli;
mod secrets_all_cli;
mod secrets_cli;
mod snapshots;
mod startup_fast_path;
mod status_cli;
mod stdout_failure;
mod task_done_cli;
mod verify_ci_formats;
mod verify_cli;
mod verify_drift;
mod verify_fixtures;
mod verify_history;
mod verify_hostile;
mod verify_summaries;
mod verify_threads;
mod verify_vectors;
mod writer_input_io;
