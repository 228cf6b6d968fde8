//! Every file and folder name of a GSD project, the lock and the journal — written once, here.
//!
//! ```text
//! <project>/
//!   .env                                  its values never appear in planseal's output
//!   .planning/
//!     STATE.md                            the state file (frontmatter + body)
//!     STATE.md.lock                       GSD's O_EXCL pid file, taken by every writer
//!     STATE.md.journal.ndjson             planseal's journal outside git (docs/journal.md); in a
//!                                         git work tree it is <git dir>/planseal/journals/
//!                                         <path>/STATE.md.journal.ndjson
//!     ROADMAP.md                          `## Phase N:` headings per milestone
//!     config.json                         `statusline.state_format`
//!     active-workstream                   the shared pointer to the active workstream
//!     phases/<NN-name>/                   NN-PLAN.md, NN-SUMMARY.md, plans/, summaries/
//!     workstreams/<name>/STATE.md         workstream mode: one state file per workstream
//! ```

use crate::recovery::store::LockStyle;
use crate::write::Target;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The folder GSD keeps its planning files in, at the project root.
pub const PLANNING_DIR: &str = ".planning";
/// The state file, in `.planning/` or in a workstream's folder.
pub const STATE_FILE: &str = "STATE.md";
/// The roadmap beside the state file: its `## Phase N:` headings count towards `total_phases`.
pub const ROADMAP_FILE: &str = "ROADMAP.md";
/// GSD's settings (the statusline format among them).
pub const CONFIG_FILE: &str = "config.json";
/// The folder of the phase folders.
pub const PHASES_DIR: &str = "phases";
/// Inside a phase folder: every file here is a plan.
pub const PHASE_PLANS_DIR: &str = "plans";
/// Inside a phase folder: the summaries of its plans.
pub const PHASE_SUMMARIES_DIR: &str = "summaries";
/// A plan file: `PLAN.md`, or `<stem>-PLAN.md`.
pub const PLAN_FILE: &str = "PLAN.md";
/// The end of a plan file's name after its stem.
pub const PLAN_SUFFIX: &str = "-PLAN.md";
/// A summary file: `SUMMARY.md`, or `<stem>-SUMMARY.md` (paired with the plan of that stem).
pub const SUMMARY_FILE: &str = "SUMMARY.md";
/// The end of a summary file's name after its stem.
pub const SUMMARY_SUFFIX: &str = "-SUMMARY.md";
/// Workstream mode: one folder per workstream, each with its own STATE.md.
pub const WORKSTREAMS_DIR: &str = "workstreams";
/// The shared pointer file naming the active workstream.
pub const ACTIVE_WORKSTREAM_FILE: &str = "active-workstream";
/// The environment variable that picks the workstream (it wins over the pointer file).
pub const WORKSTREAM_ENV: &str = "GSD_WORKSTREAM";

/// `<root>/.planning`.
pub fn planning_dir(root: &Path) -> PathBuf {
    root.join(PLANNING_DIR)
}

/// `<planning>/STATE.md`, the flat (non-workstream) state file.
pub fn flat_state(planning: &Path) -> PathBuf {
    planning.join(STATE_FILE)
}

/// `<planning>/workstreams/<name>/STATE.md`.
pub fn workstream_state(planning: &Path, name: &str) -> PathBuf {
    planning.join(WORKSTREAMS_DIR).join(name).join(STATE_FILE)
}

/// The folder whose `phases/` and `ROADMAP.md` belong to a STATE.md: the one it is in (the
/// `.planning` folder, or a workstream's folder).
pub fn state_dir(state: &Path) -> PathBuf {
    state.parent().unwrap_or(Path::new(".")).to_path_buf()
}

/// GSD's STATE.md as a write target: GSD's own O_EXCL pid file `STATE.md.lock` (waiting up to
/// `wait` for a live writer, taking over a dead one's, as GSD's tools do), and the journal in
/// the work tree's git directory (`STATE.md.journal.ndjson` beside it outside git).
pub fn state_target(path: &Path, wait: Duration) -> Target {
    Target::journal_in_git_dir(path, LockStyle::PidFile { wait })
}

/// Which of GSD's two statusline renderings (its `statusline.state_format` setting).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// GSD's default form (`formatGsdState`).
    Full,
    /// The compact form (`formatGsdStateCompact`), chosen by `--compact` or
    /// `statusline.state_format: "compact"`.
    Compact,
}
