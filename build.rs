//! Links the release `planseal` binary of a Linux (glibc) build as a position-dependent
//! executable (`-no-pie`).
//!
//! Why: a position-independent executable is relocated by the loader at every start. planseal's
//! ~28,000 relative relocations write to every page of its ~500 KB of relocated read-only data,
//! and each of those ~120 pages is a copy-on-write page fault before `main` runs — most of the
//! cost of `planseal gsd statusline`, which an agent runs on every prompt. A position-dependent
//! executable has those addresses fixed at link time: its pages stay shared with the page cache
//! until something reads them. The price is that the executable's own image is loaded at a fixed
//! address (libraries, stack and heap are still randomised). For a process that lives a few
//! milliseconds and reads plan files, that is the trade taken; `--version` and the statusline are
//! measured by `scripts/bench.sh all`.
//!
//! Only the release profile and only the binaries: tests, the library and every dependency are
//! built exactly as before (no rustflags, so no cache is invalidated).

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let var = |name: &str| std::env::var(name).unwrap_or_default();
    let release = var("PROFILE") == "release";
    let glibc_linux = var("CARGO_CFG_TARGET_OS") == "linux" && var("CARGO_CFG_TARGET_ENV") == "gnu";
    if release && glibc_linux {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
}
