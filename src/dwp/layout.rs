//! Every file name of a DWP plan folder, the lock and the journal — written once, here.
//!
//! ```text
//! .dwp/plans/PLAN_<name>/
//!   manifest.json  state.json  README.md  PROGRESS.md  PROMPTS.md  N.<slug>.md …
//!   state.json.lock/                      the writers' lock (owner record inside)
//!   .finalizing.json                      the marker of a publication in flight
//!   analysis_results/
//!     FINALIZATION.json                   the receipt of the last publication
//!     STATE_JOURNAL.ndjson                one line per applied transition
//!     SECURITY_REVIEW.md  SKILLS_CANDIDATES.md  PLAN_ANALYSIS.md  gates/…
//! ```

use crate::recovery::store::{Journal, LockStyle};
use crate::write::Target;
use std::path::{Path, PathBuf};

/// The folder that holds a repository's plans.
pub const DWP_DIR: &str = ".dwp";
/// The plans inside [`DWP_DIR`].
pub const PLANS_DIR: &str = "plans";
/// Every plan folder's name starts with this.
pub const PLAN_PREFIX: &str = "PLAN_";

/// The plan's machine-readable state (task statuses, gates, checkpoint): what `update`,
/// `rebuild` and `finalize` write.
pub const STATE_FILE: &str = "state.json";
/// The plan's identity (`name`, which must equal the folder name) and its schema era.
pub const MANIFEST_FILE: &str = "manifest.json";
/// The human plan: goal, context, approval and the task index (checkboxes).
pub const README_FILE: &str = "README.md";
/// The dated progress log; `rebuild --write` appends its reconciliation entry here.
pub const PROGRESS_FILE: &str = "PROGRESS.md";
/// The request the plan answers and the prompts of its execution.
pub const PROMPTS_FILE: &str = "PROMPTS.md";
/// The marker of an interrupted publication.
pub const MARKER_FILE: &str = ".finalizing.json";
/// The folder of the plan's generated records.
pub const RESULTS_DIR: &str = "analysis_results";
/// The receipt of the last publication.
pub const RECEIPT_FILE: &str = "analysis_results/FINALIZATION.json";
/// The transition journal.
pub const JOURNAL_FILE: &str = "analysis_results/STATE_JOURNAL.ndjson";
/// The security review a completed plan needs (with no open Critical finding).
pub const SECURITY_REVIEW_FILE: &str = "analysis_results/SECURITY_REVIEW.md";
/// Reusable patterns the plan found, each with its evidence and disposition.
pub const SKILLS_CANDIDATES_FILE: &str = "analysis_results/SKILLS_CANDIDATES.md";
/// The analysis made before the tasks (baseline, constraints); the receipt covers it as
/// evidence.
pub const PLAN_ANALYSIS_FILE: &str = "analysis_results/PLAN_ANALYSIS.md";

/// The prefix of the copy `rebuild` keeps of an unparseable state.json before replacing it:
/// `state.json.corrupt-<first 12 hex digits of its SHA-256>`.
pub const CORRUPT_COPY_PREFIX: &str = "state.json.corrupt-";

/// Is `name` (a file name inside a plan folder) the copy `rebuild` kept of an unparseable
/// state.json? Such a copy is a record, not a killed writer's debris, and no fingerprint covers
/// it.
pub fn is_corrupt_copy(name: &str) -> bool {
    name.strip_prefix(CORRUPT_COPY_PREFIX)
        .is_some_and(|hex| !hex.is_empty() && hex.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// `plan_dir/state.json`.
pub fn state_path(plan_dir: &Path) -> PathBuf {
    plan_dir.join(STATE_FILE)
}

/// The plan's journal, bound to the plan folder (never appended through a symlink out of it).
pub fn journal(plan_dir: &Path) -> Journal {
    Journal::inside(plan_dir, plan_dir.join(JOURNAL_FILE))
}

/// state.json as a write target: the helper's lock folder `state.json.lock/` (so the two tools
/// exclude each other), the plan's journal, and every file of a transaction inside the plan.
pub fn state_target(plan_dir: &Path) -> Target {
    Target::new(
        state_path(plan_dir),
        LockStyle::Directory,
        journal(plan_dir),
    )
    .inside(plan_dir)
}

/// The plan folder's name (`PLAN_x`), taken from the resolved path, so `.`, a relative path
/// or a symlink name the real folder.
pub fn plan_name(plan_dir: &Path) -> String {
    let resolved = plan_dir
        .canonicalize()
        .unwrap_or_else(|_| plan_dir.to_path_buf());
    resolved
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_corrupt_copy_is_named_by_the_prefix_and_hex_digits() {
        assert!(is_corrupt_copy("state.json.corrupt-60a8e1d95370"));
        assert!(!is_corrupt_copy("state.json.corrupt-"));
        assert!(!is_corrupt_copy("state.json.corrupt-60a8.tmp"));
        assert!(!is_corrupt_copy("state.json"));
        assert!(!is_corrupt_copy(".state.json.tmp-1234"));
    }
}
