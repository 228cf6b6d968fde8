//! The write path through the CLI: `update`, `finalize`, `recover`, `unlock` and the journal
//! they append, on the recorded vectors in scratch folders.
//!
//! Each file here is a module of this one binary, not a binary of its own: linking a test binary
//! against planseal and gix is most of the suite's build time. Every setting (clock, `FAILPOINTS`)
//! goes to the child `Command`, never to this process, so the modules can share the test threads.

// A test binary has no API: tests/support is `pub` only so that every test module reaches it.
#![allow(missing_docs, unreachable_pub)]

#[path = "../support/mod.rs"]
mod support;

mod clock_reaches_publication;
mod finalize_git;
mod finalize_log_status;
mod finalize_vectors;
mod git_unreadable;
mod hint_chain;
mod journal_lines;
mod read_what_is_needed;
mod reading;
mod recover_dry_run;
mod recover_vectors;
mod store_journal;
mod store_journal_symlink;
mod store_unlock;
mod update_lifecycle;
mod update_refusals;
mod update_reopen_amendment;
mod update_scope_rules;
mod update_stricter;
