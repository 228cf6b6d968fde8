//! GSD `.planning/STATE.md` (SPEC §2): the hook-compatible reader and statusline, the faithful
//! document reader, status and progress rules, verify findings, sync and recovery.
//!
//! Two readers on purpose: [`compat`] reproduces the line patterns of GSD's statusline hook
//! exactly, quirks included, so `planseal gsd statusline` prints byte for byte what the hook
//! prints; [`document`] reads the whole file faithfully (frontmatter keys in order with their
//! quoting, body fields in all their spellings, sections) for everything else.
//!
//! ```
//! use planseal::gsd::statusline::{render_text, Format};
//! let text = "---\nmilestone: v2.0\nstatus: executing\nactive_phase: \"4.5\"\n---\n";
//! assert_eq!(render_text(text, Format::Full), "v2.0 · Phase 4.5 executing");
//! assert_eq!(render_text(text, Format::Compact), "v2.0 · P4.5 · executing");
//! ```
//!
//! ## Limitations
//! - Workstream resolution honours `GSD_WORKSTREAM` and the shared `.planning/active-workstream`
//!   pointer, not GSD's per-session pointer files under the temp directory.

pub mod compat;
pub mod rules;
pub mod statusline;

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
