//! GSD `.planning/STATE.md` (docs/gsd.md): the hook-compatible reader and statusline, the
//! faithful document reader, status and progress rules, verify findings, sync and recovery.
//!
//! Two readers on purpose: [`compat`] reproduces the line patterns of GSD's statusline hook
//! exactly, quirks included, so `planseal gsd statusline` prints byte for byte what the hook
//! prints; [`document`] reads the whole file faithfully (frontmatter keys in order with their
//! quoting, body fields in all their spellings, sections) for everything else.
//!
//! [`ops`] holds one function per `planseal gsd` command; [`layout`] names every file, [`locate`]
//! finds them.
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

pub mod checks;
pub mod compat;
pub mod derive;
pub mod document;
pub mod edit;
mod error;
pub mod hookline;
pub mod layout;
pub mod locate;
pub mod ops;
pub mod recover;
pub mod rules;
pub mod statusline;
pub mod sync;

pub use error::GsdError;
pub use locate::{detect, project_root};

use crate::report::{Section, System};
use std::path::Path;

/// The verify section for one STATE.md (`GSD: <path>`); unreadable ⇒ UNVERIFIED.
pub fn check(path: &Path) -> Section {
    let shown = path.display().to_string();
    let mut section = Section::new(System::Gsd, shown.clone(), shown);
    let bytes =
        match planseal_recovery::read::read_existing(path, planseal_recovery::read::Kind::Document)
        {
            Ok(b) => b,
            Err(e) => {
                section.unverified =
                    Some(format!("cannot read {}: {}", path.display(), e.reason()));
                return section;
            }
        };
    let text = String::from_utf8_lossy(&bytes);
    let root = project_root(path);
    let state_dir = layout::state_dir(path);
    let exists = |p: &str| {
        let p = Path::new(p);
        if p.is_absolute() {
            p.exists()
        } else {
            root.join(p).exists() || state_dir.join(p).exists()
        }
    };
    let env = checks::CheckEnv {
        resume_file_exists: &exists,
    };
    if std::str::from_utf8(&bytes).is_err() {
        section.push(
            crate::report::Finding::fail("gsd-not-utf8", "STATE.md is not valid UTF-8")
                .hint("re-save the file as UTF-8"),
        );
    }
    for finding in checks::check_text(&text, &env) {
        section.push(finding);
    }
    section
}
