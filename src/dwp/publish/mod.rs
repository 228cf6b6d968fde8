//! Publication: the finalization transaction that seals a completed plan, the recovery of an
//! interrupted one, and the marker that binds the two.
//!
//! - [`finalize()`]: read state + candidate → lock → validate every artifact and git → marker →
//!   replace state.json → re-verify → receipt → journal → remove the marker → unlock.
//! - [`recover`]: finish or roll back a publication whose marker was left behind.
//! - [`candidate`]: the bytes a candidate is published as (the helper's serialisation).
//! - [`marker`]: `.finalizing.json`, the commit point of a publication.
//! - `validate`: every check a candidate must pass, and what its receipt covers.

pub mod candidate;
pub(crate) mod files;
pub mod finalize;
pub mod marker;
pub mod recover;
mod validate;

pub use crate::dwp::model::fingerprint::Fingerprint;
pub use crate::dwp::model::receipt::{
    AcceptedException, GitSeal, RECEIPT_FILE, Receipt, ReceiptError, ReceiptExtension,
};
pub use finalize::{
    Candidate, FinalizeError, FinalizeRequest, Published, Step, StepHook, crash_point, finalize,
};
pub use marker::{Companion, MARKER_FILE, Marker, MarkerError, MarkerExtension};
pub use validate::{
    Covered, Validation, ValidationInput, covered_files, fingerprint, fingerprint_names,
    validate_candidate,
};
