//! The checks of one `.reversa/state.json` (`docs/reversa.md`). [`check_value`] is pure;
//! [`check_paths`] looks at the project folder (checkpoint files exist, `created_files` stay
//! inside).

use super::model::{KNOWN_FIELDS, Phases, SPEC_DECISION_FIELDS, StateFile, phase_position};
use crate::report::Finding;
use planseal_recovery::paths::{PathError, check_relative, resolve_inside};
use serde_json::{Map, Value};
use std::path::Path;

/// The JSON type a known field must have.
#[derive(Clone, Copy)]
enum Shape {
    Str,
    StrOrNull,
    StrList,
    Checkpoints,
}

fn shape_of(field: &str) -> Shape {
    match field {
        "doc_level" | "phase" => Shape::StrOrNull,
        "completed" | "pending" | "engines" | "agents" | "created_files" => Shape::StrList,
        "checkpoints" => Shape::Checkpoints,
        _ => Shape::Str,
    }
}

fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Fields whose absence breaks the phase bookkeeping: a failure, not an advisory.
const CORE_FIELDS: [&str; 3] = ["phase", "completed", "pending"];

fn check_types(obj: &Map<String, Value>, out: &mut Vec<Finding>) {
    let mut bad = 0;
    for field in KNOWN_FIELDS {
        let Some(v) = obj.get(field) else {
            let f = if CORE_FIELDS.contains(&field) {
                Finding::fail(
                    "reversa-field-missing",
                    format!("field `{field}` is missing"),
                )
            } else {
                Finding::advisory(
                    "reversa-field-missing",
                    format!("field `{field}` is missing"),
                )
            };
            out.push(f.hint(format!(
                "add `\"{field}\"` with its value (planseal reversa set {field} JSON)"
            )));
            continue;
        };
        let problem = match (shape_of(field), v) {
            (Shape::Str, Value::String(_)) => None,
            (Shape::StrOrNull, Value::String(_) | Value::Null) => None,
            (Shape::StrList, Value::Array(a)) => a
                .iter()
                .position(|x| !x.is_string())
                .map(|i| format!("`{field}[{i}]` is {}, expected a string", type_name(&a[i]))),
            (Shape::Checkpoints, Value::Object(m)) => check_checkpoints_shape(m),
            (Shape::Str, other) => Some(format!(
                "`{field}` is {}, expected a string",
                type_name(other)
            )),
            (Shape::StrOrNull, other) => Some(format!(
                "`{field}` is {}, expected a string or null",
                type_name(other)
            )),
            (Shape::StrList, other) => Some(format!(
                "`{field}` is {}, expected an array of strings",
                type_name(other)
            )),
            (Shape::Checkpoints, other) => Some(format!(
                "`checkpoints` is {}, expected an object of agent records",
                type_name(other)
            )),
        };
        if let Some(msg) = problem {
            bad += 1;
            out.push(
                Finding::fail("reversa-field-type", msg)
                    .hint("fix the value's JSON type (docs/reversa.md lists each field's type)"),
            );
        }
    }
    let enum_field = |field: &str, allowed: &[&str], nullable: bool, out: &mut Vec<Finding>| {
        match obj.get(field) {
            Some(Value::String(s)) if !allowed.contains(&s.as_str()) => {
                out.push(
                    Finding::fail(
                        "reversa-field-value",
                        format!(
                            "`{field}` is \"{s}\", expected one of {}",
                            allowed.join(", ")
                        ),
                    )
                    .hint(format!(
                        "planseal reversa set {field} '\"{}\"'",
                        allowed.first().copied().unwrap_or_default()
                    )),
                );
                true
            }
            Some(Value::Null) if !nullable => true,
            _ => false,
        }
    };
    if enum_field("answer_mode", &["chat", "file"], false, out) {
        bad += 1;
    }
    if enum_field(
        "doc_level",
        &["essencial", "completo", "detalhado"],
        true,
        out,
    ) {
        bad += 1;
    }
    if bad == 0 {
        out.push(Finding::pass(
            "reversa-field-types",
            "known fields have their documented types and values",
        ));
    }
}

fn check_checkpoints_shape(m: &Map<String, Value>) -> Option<String> {
    for (agent, rec) in m {
        let Some(rec) = rec.as_object() else {
            return Some(format!(
                "`checkpoints.{agent}` is {}, expected an object",
                type_name(rec)
            ));
        };
        if let Some(v) = rec.get("completed_at")
            && !v.is_string()
        {
            return Some(format!(
                "`checkpoints.{agent}.completed_at` is {}, expected a string",
                type_name(v)
            ));
        }
        if let Some(v) = rec.get("files") {
            match v.as_array() {
                Some(a) if a.iter().all(Value::is_string) => {}
                _ => {
                    return Some(format!(
                        "`checkpoints.{agent}.files` must be an array of strings"
                    ));
                }
            }
        }
    }
    None
}

fn check_phases(p: &Phases, out: &mut Vec<Finding>) {
    let before = out.len();
    let vocabulary = match p.vocabulary() {
        Ok(v) => v,
        Err((a, b)) => {
            out.push(
                Finding::fail(
                    "reversa-phase-vocabulary-mixed",
                    format!("phase names mix {} and {} names", a.label(), b.label()),
                )
                .hint(format!(
                    "use one vocabulary throughout: {} or {}",
                    a.names().join(" → "),
                    b.names().join(" → ")
                )),
            );
            None
        }
    };
    for name in p.all_names() {
        if phase_position(name).is_none() {
            out.push(
                Finding::fail(
                    "reversa-unknown-phase",
                    format!("`{name}` is not a Reversa phase"),
                )
                .hint(format!(
                    "phases are {}",
                    vocabulary
                        .unwrap_or(super::model::Vocabulary::Portuguese)
                        .names()
                        .join(" → ")
                )),
            );
        }
    }
    let pos = |n: &String| phase_position(n).map(|(_, i)| i);
    for (label, list) in [("completed", &p.completed), ("pending", &p.pending)] {
        let mut seen = std::collections::HashSet::new();
        for n in list {
            if !seen.insert(n) {
                out.push(Finding::fail(
                    "reversa-phase-duplicate",
                    format!("`{n}` is listed twice in `{label}`"),
                ));
            }
        }
    }
    let pending: std::collections::HashSet<&String> = p.pending.iter().collect();
    for n in &p.completed {
        if pending.contains(n) {
            out.push(
                Finding::fail(
                    "reversa-phase-completed-and-pending",
                    format!("phase `{n}` is both completed and pending"),
                )
                .hint("a finished phase leaves `pending`: remove it there"),
            );
        }
    }
    let done: Vec<usize> = p.completed.iter().filter_map(pos).collect();
    let prefix_ok = done.iter().enumerate().all(|(i, &d)| d == i);
    if !prefix_ok {
        out.push(
            Finding::fail(
                "reversa-completed-out-of-order",
                format!(
                    "`completed` is [{}]: phases must finish in order, each after the one before it",
                    p.completed.join(", ")
                ),
            )
            .hint(format!(
                "phases run {}",
                vocabulary
                    .unwrap_or(super::model::Vocabulary::Portuguese)
                    .names()
                    .join(" → ")
            )),
        );
    }
    match &p.phase {
        Some(current) => {
            if p.completed.contains(current) {
                out.push(
                    Finding::fail(
                        "reversa-phase-inconsistent",
                        format!("the current phase `{current}` is also listed as completed"),
                    )
                    .hint("`phase` moves to the next phase when one finishes"),
                );
            } else if prefix_ok
                && let Some(i) = pos(current)
                && i != done.len()
            {
                out.push(
                    Finding::fail(
                        "reversa-phase-inconsistent",
                        format!(
                            "the current phase `{current}` is not the one after the {} completed phase(s)",
                            done.len()
                        ),
                    )
                    .hint("finish the phases in order (planseal reversa advance --phase-done PHASE)"),
                );
            }
        }
        None => {
            if p.progress() == super::model::Progress::Inconsistent {
                out.push(
                    Finding::fail(
                        "reversa-phase-inconsistent",
                        format!(
                            "`phase` is null but only {} of 5 phases are completed (null means not started or finished)",
                            p.completed.len()
                        ),
                    )
                    .hint("set `phase` to the next phase (planseal reversa set phase '\"NAME\"')"),
                );
            }
        }
    }
    // Every phase is somewhere: completed, current or pending.
    if let Some(v) = vocabulary {
        for (i, name) in v.names().iter().enumerate() {
            let placed = done.contains(&i)
                || p.phase.as_deref().and_then(phase_position).map(|x| x.1) == Some(i)
                || p.pending.iter().filter_map(pos).any(|x| x == i);
            if !placed && p.progress() != super::model::Progress::NotStarted {
                out.push(
                    Finding::fail(
                        "reversa-phase-missing",
                        format!("phase `{name}` is neither completed, current nor pending"),
                    )
                    .hint(format!("add \"{name}\" to `pending`")),
                );
            }
        }
    }
    if out.len() == before {
        out.push(Finding::pass(
            "reversa-phases",
            format!(
                "phase bookkeeping is consistent ({}, {} of 5 completed)",
                p.progress().label(),
                p.completed.len()
            ),
        ));
    }
}

/// Checks that need no file system: types, enums, phases, advisories.
pub fn check_value(state: &StateFile) -> Vec<Finding> {
    let mut out = Vec::new();
    if let Err(e) = super::splice::layout(&state.text) {
        out.push(Finding::fail("reversa-duplicate-key", e.to_string()));
    }
    check_types(&state.object, &mut out);
    check_phases(&state.phases(), &mut out);
    let scout_done = state
        .get("checkpoints")
        .and_then(Value::as_object)
        .is_some_and(|m| m.contains_key("scout"));
    if scout_done && matches!(state.get("doc_level"), Some(Value::Null)) {
        out.push(
            Finding::advisory(
                "reversa-doc-level-unset",
                "`doc_level` is still null after the scout checkpoint",
            )
            .hint("ask the user and record it: planseal reversa set doc_level '\"completo\"'"),
        );
    }
    for field in SPEC_DECISION_FIELDS {
        if state.get(field).is_some() {
            out.push(
                Finding::advisory(
                    "reversa-spec-decision-in-state",
                    format!("`{field}` records the spec-organisation decision in state.json"),
                )
                .hint("that decision belongs in .reversa/config.toml [specs]; state.json is runtime state"),
            );
        }
    }
    let extras: Vec<&str> = state
        .object
        .keys()
        .map(String::as_str)
        .filter(|k| !KNOWN_FIELDS.contains(k) && !SPEC_DECISION_FIELDS.contains(k))
        .collect();
    if !extras.is_empty() {
        out.push(Finding::pass(
            "reversa-extra-fields",
            format!("extra fields are legal and kept: {}", extras.join(", ")),
        ));
    }
    out
}

fn strings(v: Option<&Value>) -> Vec<&str> {
    v.and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

/// Checks against the project folder `root` (the folder holding `.reversa/`).
pub fn check_paths(state: &StateFile, root: &Path) -> Vec<Finding> {
    let mut out = Vec::new();
    let mut listed = 0usize;
    let before = out.len();
    if let Some(map) = state.get("checkpoints").and_then(Value::as_object) {
        for (agent, rec) in map {
            for file in strings(rec.get("files")) {
                listed += 1;
                match resolve_inside(root, file, true) {
                    Ok(_) => {}
                    Err(PathError::Missing) => out.push(
                        Finding::fail(
                            "reversa-checkpoint-file-missing",
                            format!("checkpoint `{agent}` names `{file}`, which does not exist"),
                        )
                        .file(file)
                        .hint(format!(
                            "restore the file or re-run the `{agent}` agent; its checkpoint claims it was written"
                        )),
                    ),
                    Err(e) => out.push(
                        Finding::fail(
                            "reversa-checkpoint-file-outside",
                            format!("checkpoint `{agent}` names `{file}`: {e}"),
                        )
                        .file(file)
                        .hint("checkpoint files are paths relative to the project root"),
                    ),
                }
            }
        }
    }
    if out.len() == before && listed > 0 {
        out.push(Finding::pass(
            "reversa-checkpoint-files",
            format!("all {listed} checkpoint file(s) exist"),
        ));
    }
    let created = strings(state.get("created_files"));
    let before = out.len();
    for file in &created {
        let verdict =
            check_relative(file).and_then(|_| resolve_inside(root, file, false).map(|_| ()));
        if let Err(e) = verdict {
            out.push(
                Finding::fail(
                    "reversa-created-file-outside",
                    format!("created_files entry `{file}` is unsafe: {e}; an uninstall would delete outside the project"),
                )
                .file(*file)
                .hint("list only paths relative to the project root that stay inside it"),
            );
        }
    }
    if out.len() == before && !created.is_empty() {
        out.push(Finding::pass(
            "reversa-created-files",
            format!(
                "all {} created_files entr(ies) stay inside the project",
                created.len()
            ),
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(text: &str) -> Vec<String> {
        let s = StateFile::parse(text.as_bytes()).expect("parses");
        check_value(&s)
            .into_iter()
            .filter(|f| f.severity != crate::report::Severity::Pass)
            .map(|f| f.id)
            .collect()
    }

    const BASE: &str = r#"{"version":"1.0.0","project":"p","user_name":"u","chat_language":"pt-br","doc_language":"Português","answer_mode":"chat","doc_level":"completo","output_folder":"_reversa_sdd","engines":[],"agents":[],"checkpoints":{},"created_files":[],"#;

    #[test]
    fn consistent_states_pass() {
        assert!(ids(&format!(r#"{BASE}"phase":null,"completed":[],"pending":["reconhecimento","escavacao","interpretacao","geracao","revisao"]}}"#)).is_empty());
        assert!(ids(&format!(r#"{BASE}"phase":"escavacao","completed":["reconhecimento"],"pending":["escavacao","interpretacao","geracao","revisao"]}}"#)).is_empty());
        assert!(ids(&format!(r#"{BASE}"phase":"excavation","completed":["reconnaissance"],"pending":["interpretation","generation","review"]}}"#)).is_empty());
        assert!(ids(&format!(r#"{BASE}"phase":null,"completed":["reconhecimento","escavacao","interpretacao","geracao","revisao"],"pending":[]}}"#)).is_empty());
    }

    #[test]
    fn broken_states_are_named() {
        assert_eq!(
            ids(&format!(
                r#"{BASE}"phase":"escavacao","completed":["reconhecimento"],"pending":["reconhecimento","interpretacao","geracao","revisao"]}}"#
            )),
            ["reversa-phase-completed-and-pending"]
        );
        assert!(ids(&format!(r#"{BASE}"phase":"geracao","completed":["reconhecimento","interpretacao"],"pending":["escavacao","revisao"]}}"#)).contains(&"reversa-completed-out-of-order".to_string()));
        assert_eq!(
            ids(&format!(
                r#"{BASE}"phase":"excavation","completed":["reconhecimento"],"pending":["interpretation","generation","review"]}}"#
            )),
            ["reversa-phase-vocabulary-mixed"]
        );
        assert_eq!(
            ids(&format!(
                r#"{BASE}"phase":null,"completed":["reconhecimento"],"pending":["escavacao","interpretacao","geracao","revisao"]}}"#
            )),
            ["reversa-phase-inconsistent"]
        );
        assert_eq!(
            ids(&format!(
                r#"{BASE}"phase":"escavacao","completed":["reconhecimento"],"pending":["interpretacao","geracao"]}}"#
            )),
            ["reversa-phase-missing"]
        );
    }
}
