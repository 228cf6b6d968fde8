//! Decisions: from what was read to the new state, with no I/O of their own.
//!
//! - [`update`]: one guarded transition of a task (the DWP helper's `update-state.py` rules,
//!   and planseal's stricter ones).
//! - [`rebuild`]: state.json regenerated from the markdown, git and the journal.
//! - [`amendment`]: what an amendment does to a task's evidence.
//! - [`insert_task`]: a task inserted before the Final Review (`refine --add-task`).
//! - [`promotion`]: the phases of a Lite → Full promotion (`promote`).

pub mod amendment;
pub mod insert_task;
pub mod promotion;
pub mod rebuild;
pub mod update;
