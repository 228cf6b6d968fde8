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

pub mod checks;
pub mod compat;
pub mod derive;
pub mod document;
pub mod recover;
pub mod rules;
pub mod statusline;
pub mod sync;

use crate::report::{Section, System};
use std::path::{Path, PathBuf};

/// The GSD state files `verify` should check at a repository or workspace root:
/// `.planning/STATE.md` and each workstream's `.planning/workstreams/<ws>/STATE.md`.
pub fn detect(root: &Path) -> Vec<PathBuf> {
    let planning = root.join(".planning");
    let mut found = Vec::new();
    let flat = planning.join("STATE.md");
    if flat.is_file() {
        found.push(flat);
    }
    if let Ok(entries) = std::fs::read_dir(planning.join("workstreams")) {
        let mut streams: Vec<PathBuf> = entries
            .flatten()
            .map(|e| e.path().join("STATE.md"))
            .filter(|p| p.is_file())
            .collect();
        streams.sort();
        found.extend(streams);
    }
    found
}

/// The project root a STATE.md belongs to: the folder holding its `.planning/` (else the file's
/// own folder).
pub fn project_root(state_file: &Path) -> PathBuf {
    let dir = state_file.parent().unwrap_or(Path::new("."));
    dir.ancestors()
        .find(|a| a.file_name().is_some_and(|n| n == ".planning"))
        .and_then(Path::parent)
        .unwrap_or(dir)
        .to_path_buf()
}

/// The verify section for one STATE.md (`GSD: <path>`); unreadable ⇒ UNVERIFIED.
pub fn check(path: &Path) -> Section {
    let shown = path.display().to_string();
    let mut section = Section::new(System::Gsd, shown.clone(), shown);
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) => {
            section.unverified = Some(format!("cannot read {}: {e}", path.display()));
            return section;
        }
    };
    let text = String::from_utf8_lossy(&bytes);
    let root = project_root(path);
    let state_dir = path.parent().unwrap_or(Path::new(".")).to_path_buf();
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

/// GSD's STATE.md as a write target: GSD's own O_EXCL pid file `STATE.md.lock` (waiting up to
/// `wait` for a live writer, taking over a dead one's, as GSD's tools do), and the journal
/// `STATE.md.journal.ndjson` beside it.
pub fn state_target(path: &std::path::Path, wait: std::time::Duration) -> crate::write::Target {
    crate::write::Target::journal_beside(path, crate::recovery::store::LockStyle::PidFile { wait })
}
