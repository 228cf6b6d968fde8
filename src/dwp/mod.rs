//! Deep Work Plan: `.dwp/plans/PLAN_*/` — `manifest.json`, `state.json` and the markdown plan.
//!
//! The folders are the stages of every command, in pipeline order:
//!
//! ```text
//! locate → read → model → check → decide → publish
//! ```
//!
//! - [`layout`]: every file name of a plan folder, the lock and the journal, once.
//! - [`locate`]: finding plan folders (a repository, a `.dwp` folder, a hub of repositories), or
//!   the one a command names, with the repository around it.
//! - [`read`]: the plan folder read once, bytes and all, with every path kept inside the plan.
//! - [`model`]: typed, read-only views of the manifest, the state, the markdown, the receipt and
//!   the artifact fingerprint — pure, no I/O.
//! - [`check`]: the conformance checks — pure functions from the read plan to findings.
//! - [`history`]: what git remembers: commits naming tasks, drift, the timeline, diffs.
//! - [`decide`]: update transitions and rebuild merges — pure, from facts to a new state.
//! - [`publish`]: the finalization transaction, recovery of an interrupted one, the marker.
//! - [`ops`]: the commands on top of the stages, one function each, typed options in and a
//!   typed outcome (its JSON, its text) out.
//!
//! Every write goes through [`crate::write`].

pub mod check;
pub mod decide;
pub mod history;
pub mod layout;
pub mod locate;
pub mod model;
pub mod ops;
pub mod publish;
pub mod read;
