//! GSD `.planning/STATE.md`: parser, statusline, status and progress rules, sync, checks (SPEC §2).

use crate::report::Section;
use std::path::{Path, PathBuf};

/// The GSD state files `verify` should check when run at `root` (none yet).
pub fn detect(_root: &Path) -> Vec<PathBuf> {
    Vec::new()
}

/// The verify section for one STATE.md.
pub fn check(path: &Path) -> Section {
    Section::new(
        crate::report::System::Gsd,
        path.display().to_string(),
        path.display().to_string(),
    )
}
