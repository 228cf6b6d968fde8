//! The pure side of the two Reversa writes: given the file as read, compute the new bytes.
//! Only the changed values are spliced in; every other byte stays (Reversa's rule: never remove
//! a field, only add or update).

use super::checks::check_value;
use super::history::{Violation, compare};
use super::model::{ReadError, StateFile, Vocabulary, phase_position};
use super::splice::{SpliceError, set_path, set_top_level};
use crate::report::{Finding, RefusalKind, Severity};
use serde_json::{Map, Value};

/// Why a write was refused; [`EditError::kind`] is the stable refusal kind.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum EditError {
    /// The file, or the text after the edit, is not a state file: not UTF-8, not JSON, or not an
    /// object (`state-unreadable`).
    #[error("{0}")]
    Read(#[from] ReadError),
    /// The file's top level cannot be edited in place: not an object, or a duplicate key
    /// (`state-unreadable`).
    #[error("{0}")]
    Splice(#[from] SpliceError),
    /// `--phase-done` names no phase of the file's vocabulary (`unknown-phase`).
    #[error("`{name}` is not a Reversa phase; this file uses {vocabulary}")]
    UnknownPhase {
        /// The phase as given.
        name: String,
        /// The vocabulary the file uses and its phase names, for the message.
        vocabulary: String,
    },
    /// The phase is not the one that can be marked done now (`phase-out-of-order`).
    #[error("phase `{name}` cannot be marked done: {why}")]
    OutOfOrder {
        /// The phase as given.
        name: String,
        /// Why not: it is already completed, or another phase is current.
        why: String,
    },
    /// All five phases are completed: there is nothing left to advance (`phase-out-of-order`).
    #[error("every phase is already completed")]
    AlreadyFinished,
    /// `phase`, `completed` and `pending` contradict each other, so the next phase cannot be
    /// told (`state-invalid`); the value says how.
    #[error("the phase bookkeeping is broken: {0}")]
    StateInvalid(String),
    /// The change would remove a field, move a phase backwards or drop a created file
    /// (`never-remove-violation`); `set` lets it through only with `force`.
    #[error("the change would break the never-remove rule")]
    WouldViolate(Vec<Violation>),
    /// The new value makes a check fail that passed before (`invalid-value`); `set` lets it
    /// through only with `force`.
    #[error("the new value makes the file fail its checks")]
    InvalidValue(Vec<Finding>),
    /// The field name is empty, holds a `.` or a control character (`invalid-field`).
    #[error("`{0}` is not a field name")]
    BadFieldName(String),
}

impl EditError {
    /// The stable refusal kind this error is reported as.
    pub fn kind(&self) -> RefusalKind {
        match self {
            EditError::Read(_) => RefusalKind::StateUnreadable,
            EditError::Splice(_) => RefusalKind::StateUnreadable,
            EditError::UnknownPhase { .. } => RefusalKind::UnknownPhase,
            EditError::OutOfOrder { .. } => RefusalKind::PhaseOutOfOrder,
            EditError::AlreadyFinished => RefusalKind::PhaseOutOfOrder,
            EditError::StateInvalid(_) => RefusalKind::StateInvalid,
            EditError::WouldViolate(_) => RefusalKind::NeverRemoveViolation,
            EditError::InvalidValue(_) => RefusalKind::InvalidValue,
            EditError::BadFieldName(_) => RefusalKind::InvalidField,
        }
    }
}

/// A computed write: the new bytes and what the change did.
#[derive(Debug, Clone, PartialEq)]
pub struct Edit {
    /// The whole new file: the old bytes with only the changed values spliced in (BOM kept).
    pub new_bytes: Vec<u8>,
    /// One line per changed field: `field: old → new`.
    pub changes: Vec<String>,
    /// Violations let through by `--force` (to be journaled with the reason).
    pub forced: Vec<Violation>,
}

fn apply(
    state: &StateFile,
    fields: &[(&str, Value)],
) -> Result<(String, Map<String, Value>), EditError> {
    let mut text = state.text.clone();
    let mut object = state.object.clone();
    for (k, v) in fields {
        text = set_top_level(&text, k, v)?;
        object.insert((*k).to_string(), v.clone());
    }
    Ok((text, object))
}

fn describe(state: &StateFile, fields: &[(&str, Value)]) -> Vec<String> {
    fields
        .iter()
        .filter(|(k, v)| state.get(k) != Some(v))
        .map(|(k, v)| {
            let old = state
                .get(k)
                .map(Value::to_string)
                .unwrap_or_else(|| "(absent)".into());
            format!("{k}: {old} → {v}")
        })
        .collect()
}

/// The checkpoint of the agent that finished the phase: `checkpoints.<agent>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentCheckpoint {
    /// The agent's key in `checkpoints` (`scout`, `archaeologist`, …).
    pub agent: String,
    /// When it finished (`YYYY-MM-DDTHH:MM:SSZ`, as Reversa writes it).
    pub completed_at: String,
    /// The files it wrote, relative to the project root.
    pub files: Vec<String>,
}

/// Records `cp` in `text`: a new `checkpoints.<agent>` record `{completed_at, files}`, or an
/// existing one's `completed_at` set and its `files` extended (its other keys kept). Returns
/// the text and the change line.
fn record_checkpoint(
    state: &StateFile,
    text: &str,
    cp: &AgentCheckpoint,
) -> Result<(String, String), EditError> {
    let existing = state
        .get("checkpoints")
        .and_then(|c| c.get(&cp.agent))
        .and_then(Value::as_object);
    let path = |key: &'static str| ["checkpoints", cp.agent.as_str(), key];
    let Some(record) = existing else {
        let mut m = Map::new();
        m.insert(
            "completed_at".into(),
            Value::String(cp.completed_at.clone()),
        );
        m.insert(
            "files".into(),
            Value::Array(cp.files.iter().cloned().map(Value::String).collect()),
        );
        let value = Value::Object(m);
        let text = set_path(text, &["checkpoints", cp.agent.as_str()], &value)?;
        return Ok((
            text,
            format!("checkpoints.{}: (absent) → {value}", cp.agent),
        ));
    };
    let mut files: Vec<Value> = match record.get("files") {
        Some(Value::Array(a)) => a.clone(),
        _ => Vec::new(),
    };
    for f in &cp.files {
        if !files.iter().any(|v| v.as_str() == Some(f)) {
            files.push(Value::String(f.clone()));
        }
    }
    let text = set_path(
        text,
        &path("completed_at"),
        &Value::String(cp.completed_at.clone()),
    )?;
    let text = set_path(&text, &path("files"), &Value::Array(files.clone()))?;
    Ok((
        text,
        format!(
            "checkpoints.{}: completed_at {}, files {}",
            cp.agent,
            cp.completed_at,
            Value::Array(files)
        ),
    ))
}

/// `reversa advance --phase-done PHASE [--agent NAME --files …]`: PHASE leaves `pending`, joins
/// `completed`, and `phase` moves to the next phase (null after the last); the finishing agent's
/// checkpoint is recorded when given.
pub fn advance(
    state: &StateFile,
    phase_done: &str,
    checkpoint: Option<&AgentCheckpoint>,
) -> Result<Edit, EditError> {
    let phases = state.phases();
    let file_vocabulary = phases.vocabulary().map_err(|(a, b)| {
        EditError::StateInvalid(format!("phase names mix {} and {}", a.label(), b.label()))
    })?;
    let Some((given_vocabulary, index)) = phase_position(phase_done) else {
        let v = file_vocabulary.unwrap_or(Vocabulary::Portuguese);
        return Err(EditError::UnknownPhase {
            name: phase_done.into(),
            vocabulary: format!("{} names: {}", v.label(), v.names().join(" → ")),
        });
    };
    let vocabulary = file_vocabulary.unwrap_or(given_vocabulary);
    if vocabulary != given_vocabulary {
        return Err(EditError::UnknownPhase {
            name: phase_done.into(),
            vocabulary: format!(
                "{} names ({} here)",
                vocabulary.label(),
                vocabulary.names()[index]
            ),
        });
    }
    if let Some(unknown) = phases.all_names().find(|n| phase_position(n).is_none()) {
        return Err(EditError::StateInvalid(format!(
            "`{unknown}` is not a phase"
        )));
    }
    let done: Vec<usize> = phases
        .completed
        .iter()
        .filter_map(|c| phase_position(c).map(|x| x.1))
        .collect();
    if done.iter().enumerate().any(|(i, &d)| i != d) {
        return Err(EditError::StateInvalid(format!(
            "`completed` is out of order: [{}]",
            phases.completed.join(", ")
        )));
    }
    let Some(next) = phases.next_position() else {
        return Err(EditError::AlreadyFinished);
    };
    let names = vocabulary.names();
    if index != next {
        let why = if index < next {
            format!(
                "it is already completed; the next phase to finish is `{}`",
                names[next]
            )
        } else {
            format!("`{}` must finish first", names[next])
        };
        return Err(EditError::OutOfOrder {
            name: phase_done.into(),
            why,
        });
    }
    if let Some(current) = &phases.phase
        && current != phase_done
    {
        return Err(EditError::OutOfOrder {
            name: phase_done.into(),
            why: format!("the current phase is `{current}`"),
        });
    }
    let mut completed: Vec<Value> = match state.get("completed") {
        Some(Value::Array(a)) => a.clone(),
        _ => Vec::new(),
    };
    completed.push(Value::String(phase_done.into()));
    let new_phase = names
        .get(index + 1)
        .map(|n| Value::String((*n).to_string()))
        .unwrap_or(Value::Null);
    let mut fields: Vec<(&str, Value)> = vec![("completed", Value::Array(completed))];
    if let Some(Value::Array(pending)) = state.get("pending") {
        let kept: Vec<Value> = pending
            .iter()
            .filter(|v| v.as_str() != Some(phase_done))
            .cloned()
            .collect();
        fields.push(("pending", Value::Array(kept)));
    }
    fields.push(("phase", new_phase));
    let (text, object) = apply(state, &fields)?;
    let mut changes = describe(state, &fields);
    let (text, object) = match checkpoint {
        Some(cp) => {
            let (text, change) = record_checkpoint(state, &text, cp)?;
            changes.push(change);
            let object = StateFile::parse(text.as_bytes())?.object;
            (text, object)
        }
        None => (text, object),
    };
    let violations: Vec<Violation> = compare(&state.object, &object)
        .into_iter()
        .filter(|v| v.severity == Severity::Fail)
        .collect();
    if !violations.is_empty() {
        return Err(EditError::WouldViolate(violations));
    }
    Ok(Edit {
        new_bytes: state.with_bom(&text),
        changes,
        forced: Vec::new(),
    })
}

fn failures(state: &StateFile) -> Vec<Finding> {
    check_value(state)
        .into_iter()
        .filter(|f| f.severity == Severity::Fail)
        .collect()
}

/// `reversa set FIELD VALUE`: sets one top-level field (added at the end when new). Refuses a
/// change the history check would flag, or one that makes the file fail a check it passed,
/// unless `force` (the caller journals the reason).
pub fn set(state: &StateFile, field: &str, value: Value, force: bool) -> Result<Edit, EditError> {
    if field.is_empty() || field.contains('.') || field.chars().any(char::is_control) {
        return Err(EditError::BadFieldName(field.into()));
    }
    let fields = [(field, value)];
    let (text, object) = apply(state, &fields)?;
    let violations: Vec<Violation> = compare(&state.object, &object)
        .into_iter()
        .filter(|v| v.severity == Severity::Fail)
        .collect();
    let new_state = StateFile::parse(text.as_bytes())?;
    let old_failures = failures(state);
    let new_failures: Vec<Finding> = failures(&new_state)
        .into_iter()
        .filter(|f| {
            !old_failures
                .iter()
                .any(|o| o.id == f.id && o.message == f.message)
        })
        .collect();
    if !force {
        if !violations.is_empty() {
            return Err(EditError::WouldViolate(violations));
        }
        if !new_failures.is_empty() {
            return Err(EditError::InvalidValue(new_failures));
        }
    }
    Ok(Edit {
        new_bytes: state.with_bom(&text),
        changes: describe(state, &fields),
        forced: violations,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const FILE: &str = "{\n  \"version\": \"1.0.0\",\n  \"phase\": \"escavacao\",\n  \"completed\": [\"reconhecimento\"],\n  \"pending\": [\"escavacao\", \"interpretacao\", \"geracao\", \"revisao\"],\n  \"redator_progress\": {\"x\": 1}\n}";

    fn state(text: &str) -> StateFile {
        StateFile::parse(text.as_bytes()).expect("parses")
    }

    #[test]
    fn advance_moves_one_phase_and_keeps_the_rest() {
        let e = advance(&state(FILE), "escavacao", None).expect("advances");
        assert_eq!(
            String::from_utf8(e.new_bytes).expect("utf8"),
            "{\n  \"version\": \"1.0.0\",\n  \"phase\": \"interpretacao\",\n  \"completed\": [\"reconhecimento\", \"escavacao\"],\n  \"pending\": [\"interpretacao\", \"geracao\", \"revisao\"],\n  \"redator_progress\": {\"x\": 1}\n}"
        );
    }

    #[test]
    fn advance_refusals() {
        let s = state(FILE);
        assert_eq!(
            advance(&s, "geracao", None).map_err(|e| e.kind()),
            Err(RefusalKind::PhaseOutOfOrder)
        );
        assert_eq!(
            advance(&s, "reconhecimento", None).map_err(|e| e.kind()),
            Err(RefusalKind::PhaseOutOfOrder)
        );
        assert_eq!(
            advance(&s, "excavation", None).map_err(|e| e.kind()),
            Err(RefusalKind::UnknownPhase)
        );
        assert_eq!(
            advance(&s, "nope", None).map_err(|e| e.kind()),
            Err(RefusalKind::UnknownPhase)
        );
    }

    #[test]
    fn set_refuses_backwards_unless_forced() {
        let s = state(FILE);
        assert_eq!(
            set(&s, "phase", json!("reconhecimento"), false).map_err(|e| e.kind()),
            Err(RefusalKind::NeverRemoveViolation)
        );
        let forced = set(&s, "phase", json!("reconhecimento"), true).expect("forced");
        assert_eq!(forced.forced.len(), 1);
        let ok = set(&s, "doc_level", json!("completo"), false).expect("adds");
        assert!(
            String::from_utf8(ok.new_bytes)
                .expect("utf8")
                .ends_with("\"redator_progress\": {\"x\": 1},\n  \"doc_level\": \"completo\"\n}")
        );
        assert_eq!(
            set(&s, "answer_mode", json!("voice"), false).map_err(|e| e.kind()),
            Err(RefusalKind::InvalidValue)
        );
    }

    proptest::proptest! {
        // From any consistent state, finishing the next phase gives the next consistent state
        // and changes nothing else; finishing any other phase is refused.
        #[test]
        fn advance_walks_the_phases(
            done in 0usize..5,
            english in proptest::bool::ANY,
            pretty in proptest::bool::ANY,
            current_pending in proptest::bool::ANY,
            extras in proptest::collection::btree_map("[a-z_]{1,8}", "[ -~]{0,6}", 0..4),
            other in 0usize..5,
        ) {
            let names = if english { crate::reversa::model::PHASES_EN } else { crate::reversa::model::PHASES_PT };
            let mut obj = serde_json::Map::new();
            for (k, v) in &extras {
                obj.insert(format!("x_{k}"), json!(v));
            }
            obj.insert("phase".into(), json!(names[done]));
            obj.insert("completed".into(), json!(names[..done]));
            let from = if current_pending { done } else { done + 1 };
            obj.insert("pending".into(), json!(names[from.min(5)..]));
            let value = Value::Object(obj.clone());
            let text = if pretty { serde_json::to_string_pretty(&value).expect("json") } else { value.to_string() };
            let s = state(&text);
            let e = advance(&s, names[done], None).expect("the next phase advances");
            let after = StateFile::parse(&e.new_bytes).expect("parses");
            proptest::prop_assert_eq!(after.get("completed"), Some(&json!(names[..=done])));
            let next = names.get(done + 1).map(|n| json!(n)).unwrap_or(Value::Null);
            proptest::prop_assert_eq!(after.get("phase"), Some(&next));
            for (k, v) in &obj {
                if !["phase", "completed", "pending"].contains(&k.as_str()) {
                    proptest::prop_assert_eq!(after.get(k), Some(v));
                }
            }
            let keys_before: Vec<&String> = obj.keys().collect();
            let keys_after: Vec<&String> = after.object.keys().collect();
            proptest::prop_assert_eq!(keys_before, keys_after);
            let phase_failures: Vec<String> = check_value(&after)
                .into_iter()
                .filter(|f| f.severity == Severity::Fail && f.id.starts_with("reversa-phase"))
                .map(|f| f.message)
                .collect();
            proptest::prop_assert!(phase_failures.is_empty(), "{:?}", phase_failures);
            if other != done {
                proptest::prop_assert!(advance(&s, names[other], None).is_err());
            }
        }
    }
}
