//! Where a Reversa project keeps its state, and how planseal writes it — every name once, here.
//!
//! ```text
//! <project>/                           the project Reversa analyses (its `.env` is never printed)
//!   .reversa/
//!     state.json                       the analysis state planseal checks and guards
//!     state.json.lock/                 the writers' lock, owner record inside
//!     state.json.journal.ndjson        one line per write (docs/journal.md)
//! ```

use crate::recovery::store::LockStyle;
use crate::write::Target;
use std::path::Path;

/// Where the state file lives inside a project.
pub const STATE_PATH: &str = ".reversa/state.json";

/// A Reversa state file as a write target: a lock folder `<file>.lock/` with an owner record, and
/// the journal `<file>.journal.ndjson` beside it.
pub fn state_target(path: &Path) -> Target {
    Target::journal_beside(path, LockStyle::Directory)
}
