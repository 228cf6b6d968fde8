//! Reversa `.reversa/state.json`: model, phase rules, checks, guarded update (SPEC §3).

use crate::report::Section;
use std::path::{Path, PathBuf};

/// The Reversa state files `verify` should check when run at `root` (none yet).
pub fn detect(_root: &Path) -> Vec<PathBuf> {
    Vec::new()
}

/// The verify section for one `.reversa/state.json`.
pub fn check(path: &Path) -> Section {
    Section::new(
        crate::report::System::Reversa,
        path.display().to_string(),
        path.display().to_string(),
    )
}
