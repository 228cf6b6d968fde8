//! Reversa `.reversa/state.json`: model, phase rules, checks, guarded update (docs/reversa.md).
//!
//! [`layout`] names the files, [`locate`] finds them, [`ops`] runs the `reversa` commands.
//!
//! ```
//! use planseal::reversa::{model::StateFile, edit};
//! let text = br#"{"phase": "reconhecimento", "completed": [], "pending": ["reconhecimento", "escavacao", "interpretacao", "geracao", "revisao"], "mine": 1}"#;
//! let state = StateFile::parse(text).unwrap();
//! let e = edit::advance(&state, "reconhecimento", None).unwrap();
//! assert_eq!(
//!     String::from_utf8(e.new_bytes).unwrap(),
//!     r#"{"phase": "escavacao", "completed": ["reconhecimento"], "pending": ["escavacao", "interpretacao", "geracao", "revisao"], "mine": 1}"#
//! );
//! ```
//!
//! ## Limitations
//! - `set` changes top-level fields only; nested values are replaced whole.

pub mod checks;
pub mod edit;
pub mod git;
pub mod history;
pub mod layout;
pub mod locate;
pub mod model;
pub mod ops;
pub mod splice;
pub mod summary;

pub use layout::{STATE_PATH, state_target};
pub use locate::project_root;
pub use summary::Summary;

use crate::report::{Finding, Section, System};
use model::StateFile;
use std::path::{Path, PathBuf};

/// The Reversa state files `verify` should check when run at `root`.
pub fn detect(root: &Path) -> Vec<PathBuf> {
    let p = root.join(STATE_PATH);
    if p.exists() { vec![p] } else { Vec::new() }
}

/// Every finding for one state file's bytes, `root` being the project folder.
pub fn findings(state: &StateFile, root: &Path) -> Vec<Finding> {
    let mut out = vec![Finding::pass(
        "reversa-parse",
        "state.json parses as a JSON object",
    )];
    out.extend(checks::check_value(state));
    out.extend(checks::check_paths(state, root));
    out
}

/// The verify section for one `.reversa/state.json`.
pub fn check(path: &Path) -> Section {
    let name = path.display().to_string();
    let mut section = Section::new(System::Reversa, name.clone(), name);
    match planseal_recovery::read::read_existing(path, planseal_recovery::read::Kind::Document) {
        Ok(bytes) => {
            let root = project_root(path);
            let redactor = crate::report::redact::EnvRedactor::for_folder(&root);
            section.findings = findings_for_bytes(&bytes, &root)
                .into_iter()
                .map(|f| redactor.clean_finding(f))
                .collect();
        }
        Err(e) => {
            section.unverified = Some(format!("cannot read {}: {}", path.display(), e.reason()))
        }
    }
    section
}

/// Findings for raw bytes: a parse failure is itself a finding.
pub fn findings_for_bytes(bytes: &[u8], root: &Path) -> Vec<Finding> {
    match StateFile::parse(bytes) {
        Ok(state) => findings(&state, root),
        Err(e) => vec![
            Finding::fail("reversa-parse", format!("state.json cannot be read: {e}"))
                .hint("fix the JSON (the original tool writes 2-space JSON; a BOM is accepted)"),
        ],
    }
}
