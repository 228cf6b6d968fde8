//! Reversa `.reversa/state.json`: model, phase rules, checks, guarded update (SPEC §3).
//!
//! ```
//! use planseal::reversa::{model::StateFile, edit};
//! let text = br#"{"phase": "reconhecimento", "completed": [], "pending": ["reconhecimento", "escavacao", "interpretacao", "geracao", "revisao"], "mine": 1}"#;
//! let state = StateFile::parse(text).unwrap();
//! let e = edit::advance(&state, "reconhecimento").unwrap();
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
pub mod history;
pub mod model;
pub mod splice;

use crate::report::{Finding, Section, System};
use model::{Phases, Progress, StateFile, Vocabulary};
use std::path::{Path, PathBuf};

/// Where the state file lives inside a project.
pub const STATE_PATH: &str = ".reversa/state.json";

/// The Reversa state files `verify` should check when run at `root`.
pub fn detect(root: &Path) -> Vec<PathBuf> {
    let p = root.join(STATE_PATH);
    if p.is_file() { vec![p] } else { Vec::new() }
}

/// The project folder of a state file: the parent of `.reversa/`.
pub fn project_root(state_path: &Path) -> PathBuf {
    match state_path.parent().and_then(Path::parent) {
        // `.reversa/state.json` given relative to the project itself
        Some(p) if p.as_os_str().is_empty() => PathBuf::from("."),
        Some(p) => p.to_path_buf(),
        None => PathBuf::from("."),
    }
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
    match std::fs::read(path) {
        Ok(bytes) => {
            let root = project_root(path);
            let redactor = crate::report::redact::EnvRedactor::for_folder(&root);
            section.findings = findings_for_bytes(&bytes, &root)
                .into_iter()
                .map(|f| redactor.clean_finding(f))
                .collect();
        }
        Err(e) => section.unverified = Some(format!("cannot read {}: {e}", path.display())),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn project_root_of_relative_paths() {
        assert_eq!(
            project_root(Path::new(".reversa/state.json")),
            PathBuf::from(".")
        );
        assert_eq!(
            project_root(Path::new("a/.reversa/state.json")),
            PathBuf::from("a")
        );
        assert_eq!(
            project_root(Path::new("/p/.reversa/state.json")),
            PathBuf::from("/p")
        );
    }
}

/// What `reversa status` shows beside the findings.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Summary {
    pub project: Option<String>,
    pub version: Option<String>,
    pub vocabulary: Option<Vocabulary>,
    pub progress: Progress,
    #[serde(flatten)]
    pub phases: Phases,
    /// The phase `advance --phase-done` expects next, if any.
    pub next_to_finish: Option<String>,
    pub doc_level: Option<String>,
    pub answer_mode: Option<String>,
    pub extra_fields: Vec<String>,
}

impl Summary {
    pub fn of(state: &StateFile) -> Self {
        let phases = state.phases();
        let vocabulary = phases.vocabulary().ok().flatten();
        let in_order = phases
            .completed
            .iter()
            .enumerate()
            .all(|(i, c)| model::phase_position(c).is_some_and(|(_, p)| p == i));
        // only when `advance` could take it: completed is a clean prefix of one vocabulary
        let next_to_finish = phases
            .next_position()
            .filter(|_| in_order && phases.vocabulary().is_ok())
            .map(|i| vocabulary.unwrap_or(Vocabulary::Portuguese).names()[i].to_string());
        Self {
            project: state.str_field("project").map(str::to_string),
            version: state.str_field("version").map(str::to_string),
            vocabulary,
            progress: phases.progress(),
            next_to_finish,
            phases,
            doc_level: state.str_field("doc_level").map(str::to_string),
            answer_mode: state.str_field("answer_mode").map(str::to_string),
            extra_fields: state
                .object
                .keys()
                .filter(|k| !model::KNOWN_FIELDS.contains(&k.as_str()))
                .cloned()
                .collect(),
        }
    }
}

/// A Reversa state file as a write target: a lock folder `<file>.lock/` with an owner record, and
/// the journal `<file>.journal.ndjson` beside it.
pub fn state_target(path: &std::path::Path) -> crate::write::Target {
    crate::write::Target::journal_beside(path, crate::recovery::store::LockStyle::Directory)
}
