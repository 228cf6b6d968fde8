//! Checkpoint protocol `PROJECT-CHECKPOINT.md`: sections, project resolution, generated sections
//! (SPEC §4).

use crate::report::Section;
use std::path::{Path, PathBuf};

/// The checkpoint files `verify` should check when run at `root` (none yet).
pub fn detect(_root: &Path) -> Vec<PathBuf> {
    Vec::new()
}

/// The verify section for one PROJECT-CHECKPOINT.md.
pub fn check(path: &Path) -> Section {
    Section::new(
        crate::report::System::Checkpoint,
        path.display().to_string(),
        path.display().to_string(),
    )
}
