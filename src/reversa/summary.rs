//! What `reversa status` shows above the findings: where the analysis stands.

use super::model::{self, Phases, Progress, StateFile, Vocabulary};

/// The state file at a glance.
#[derive(Debug, Clone, serde::Serialize, schemars::JsonSchema)]
pub struct Summary {
    /// The `project` field, when it is a string.
    pub project: Option<String>,
    /// The `version` field (Reversa's version), when it is a string.
    pub version: Option<String>,
    /// The language the phase names are in; `None` when the file names no phase, or mixes both.
    pub vocabulary: Option<Vocabulary>,
    /// Where the analysis stands, from `phase` and `completed`.
    pub progress: Progress,
    /// `phase`, `completed` and `pending` as read.
    #[serde(flatten)]
    pub phases: Phases,
    /// The phase `advance --phase-done` expects next, if any.
    pub next_to_finish: Option<String>,
    /// The `doc_level` field, when it is a string (it is null until chosen).
    pub doc_level: Option<String>,
    /// The `answer_mode` field (`chat` or `file`), when it is a string.
    pub answer_mode: Option<String>,
    /// Top-level fields Reversa does not document (legal, and listed), in file order.
    pub extra_fields: Vec<String>,
}

impl Summary {
    /// The summary of a parsed state file.
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

    /// The summary lines, as taken from the file (the caller makes them printable).
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        let project = self.project.as_deref().unwrap_or("(unnamed)");
        let version = self
            .version
            .as_deref()
            .map(|v| format!(" (Reversa {v})"))
            .unwrap_or_default();
        out.push_str(&format!("project: {project}{version}\n"));
        let phase = match (&self.phases.phase, self.progress) {
            (Some(p), _) => format!("{} — current phase {p}", self.progress.label()),
            (None, p) => p.label().to_string(),
        };
        let names = self
            .vocabulary
            .map(|v| format!(", {} phase names", v.label()))
            .unwrap_or_default();
        out.push_str(&format!(
            "progress: {phase} ({} of 5 completed{names})\n",
            self.phases.completed.len()
        ));
        if !self.phases.completed.is_empty() {
            out.push_str(&format!(
                "completed: {}\n",
                self.phases.completed.join(", ")
            ));
        }
        if !self.phases.pending.is_empty() {
            out.push_str(&format!("pending: {}\n", self.phases.pending.join(", ")));
        }
        if let Some(n) = &self.next_to_finish {
            out.push_str(&format!(
                "next: planseal reversa advance --phase-done {n}\n"
            ));
        }
        out
    }
}
