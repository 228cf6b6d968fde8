//! Crash and concurrency tests of the write path: `update` and `finalize` ended like `kill -9`
//! at every crash point, and eight writers racing on one state.json.
//!
//! The crash modules need the crash points (`--features failpoints`) and are compiled out
//! without them, as before; `concurrency_update` runs either way. They are a binary of their own
//! because they start the most child processes and lean on timing (eight racing writers, a pause
//! armed with `FAILPOINTS=…=sleep(ms)` that another write must land in): here they share the test
//! threads only with each other. `FAILPOINTS` is only ever set on the child `Command`.
//!
//! `cargo test --features failpoints --test crash` runs them alone.

// A test binary has no API: tests/support is `pub` only so that every test module reaches it.
#![allow(missing_docs, unreachable_pub)]

#[path = "../support/mod.rs"]
mod support;

mod concurrency_update;
mod crash_debris;
mod crash_finalize;
mod crash_rebuild;
mod crash_task_done;
mod crash_update;
mod lock_release_faults;
mod truth_after_commit;
mod wait_for_writers;
