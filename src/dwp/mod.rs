//! Deep Work Plan: the plan model (manifest, state v1/v2/v5), markdown readers, conformance
//! checks, guarded update, finalization and rebuild (SPEC §1).
//!
//! Pipeline: `discover` finds plan folders → `model`/`schema`/`markdown` read them (pure) →
//! `semantics`/`gates`/`checks` judge them (pure) → `update`/`finalize`/`recover`/`rebuild`
//! decide and write through the store of `planseal-recovery`.

pub mod checks;
pub mod diff;
pub mod discover;
pub mod finalize;
pub mod fingerprint;
pub mod gates;
pub mod history;
pub mod layout;
pub mod markdown;
pub mod model;
pub mod rebuild;
pub mod recover;
pub mod schema;
pub mod semantics;
pub mod update;
