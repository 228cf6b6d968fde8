//! Checkpoint protocol `PROJECT-CHECKPOINT.md`: sections, project resolution, generated sections
//! (SPEC §4).

pub mod doc;
pub mod generate;
pub mod resolve;
pub mod stories;

use crate::report::Section;
use std::path::{Path, PathBuf};

/// The checkpoint files `verify` should check when run at `root`.
pub fn detect(root: &Path) -> Vec<PathBuf> {
    resolve::existing(root)
        .into_iter()
        .map(|t| t.checkpoint)
        .collect()
}

/// The verify section for one PROJECT-CHECKPOINT.md.
pub fn check(path: &Path) -> Section {
    Section::new(
        crate::report::System::Checkpoint,
        path.display().to_string(),
        path.display().to_string(),
    )
}
