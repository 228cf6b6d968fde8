//! # planseal
//!
//! The trusted layer under the plan state files that AI coding agents keep: Deep Work Plan
//! (`.dwp/plans/PLAN_*/state.json` + markdown), GSD (`.planning/STATE.md`), Reversa
//! (`.reversa/state.json`) and the checkpoint protocol (`PROJECT-CHECKPOINT.md`).
//!
//! The library reads, models, checks and decides; it never prints. The binary (`src/main.rs`,
//! `src/cli/`) owns the terminal, and every write goes through the store of the
//! `planseal-recovery` crate.
//!
//! ```
//! use planseal::report::{Finding, Report, Section, System, Verdict};
//! let mut section = Section::new(System::Dwp, "PLAN_demo", ".dwp/plans/PLAN_demo");
//! section.push(Finding::pass("plan-identity", "plan identity matches the folder"));
//! assert_eq!(Report { sections: vec![section] }.verdict(), Verdict::Conformant);
//! ```
//!
//! ## Limitations
//! - planseal never runs a stored gate command: it checks what the records say, not that the
//!   commands really ran.

pub mod checkpoint;
pub mod clock;
pub mod demo;
pub mod dotenv;
pub mod dwp;
pub mod gsd;
pub mod hooks;
pub mod jsonfmt;
pub(crate) mod jsonscan;
pub mod markdown;
pub mod merge;
pub(crate) mod parallel;
pub use parallel::process_ends_with_its_command;
pub mod picture;
pub mod report;
pub mod reversa;
pub mod unlock;
pub mod verify;
pub mod write;

pub use planseal_recovery as recovery;

/// The version written into owner records, markers and receipts.
pub const TOOL_VERSION: &str = concat!("planseal ", env!("CARGO_PKG_VERSION"));
