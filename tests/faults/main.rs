//! Fault injection, SQLite-style: every writer of planseal run under `strace -e inject` on a
//! 3-task fixture, failing the N-th main-thread call, for every N, of each write-path syscall
//! (`openat` that writes, `write` to a file, `fsync`, `fdatasync`, `rename`, `renameat2`,
//! `mkdir`, `rmdir`, `unlink`, `unlinkat`) with EIO, ENOSPC and SIGKILL, plus EIO on a sample of
//! the reads; and a kill -9 loop of 100 rounds each for `update` and `finalize`. After every
//! run the invariants of `check::INVARIANTS` are checked, the hinted recovery is followed and
//! they are checked again.
//!
//! update and finalize get the full matrix; every other writer a seeded sample of 50 runs
//! (`PLANSEAL_FAULTS_ALL=1`, as `scripts/faults.sh --all` sets it: everything). Each test prints
//! its counts (points × faults, invariants held/failed) and writes them to
//! `target/tmp/faults/WRITER.txt`; a broken invariant fails the test with the list.
//!
//! Needs strace (scripts/test installs it). `cargo test --test faults` runs them alone.

// A test binary has no API: tests/support is `pub` only so that every test module reaches it.
#![allow(missing_docs, unreachable_pub)]

#[path = "../support/mod.rs"]
mod support;

mod check;
mod fixture;
mod kill_loop;
mod matrix;
mod trace;

/// Prints and files `text` as the counts of `name`.
pub fn publish(name: &str, text: &str) {
    eprint!("{text}");
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("faults");
    std::fs::create_dir_all(&dir).expect("report folder");
    let file = name.replace([' ', '-'], "_");
    std::fs::write(dir.join(format!("{file}.txt")), text).expect("report");
}

fn matrix_of(name: &str) {
    let writer = fixture::writers()
        .into_iter()
        .find(|w| w.name == name)
        .expect("a writer of the suite");
    let report = matrix::run_matrix(&writer);
    let text = report.render();
    publish(name, &text);
    assert!(report.runs > 0, "{name}: no fault point found");
    assert_eq!(report.failed(), 0, "{name}: invariants broken:\n{text}");
}

#[test]
fn faults_update() {
    matrix_of("update");
}

#[test]
fn faults_finalize() {
    matrix_of("finalize");
}

#[test]
fn faults_recover_after_an_interrupted_finalize() {
    matrix_of("recover");
}

#[test]
fn faults_rebuild_write() {
    matrix_of("rebuild --write");
}

#[test]
fn faults_gsd_sync_write() {
    matrix_of("gsd sync --write");
}

#[test]
fn faults_gsd_recover_write() {
    matrix_of("gsd recover --write");
}

#[test]
fn faults_reversa_advance() {
    matrix_of("reversa advance");
}

#[test]
fn faults_reversa_set() {
    matrix_of("reversa set");
}

#[test]
fn faults_checkpoint_init() {
    matrix_of("checkpoint init");
}

#[test]
fn faults_checkpoint_refresh_write() {
    matrix_of("checkpoint refresh --write");
}
