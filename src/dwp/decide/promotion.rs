//! The state.json side of a Lite → Full promotion (`planseal promote`, `docs/promote.md`): the
//! phases it walks, each recorded before the next step starts, so an interrupted promotion is
//! resumed from what state.json says.
//!
//! | step | state.json after it |
//! |---|---|
//! | declare | `materialization: promoting`, `promotion: {from: lite, to: full, phase: intent, tasks: [file names]}` |
//! | task files written | `promotion.phase: tasks_written` |
//! | README switched | `promotion.phase: switched`, every locator `{kind: file, value: N.task_slug.md}`, `format: full` |
//! | done | `materialization: ready`, `promotion: null` |
//!
//! Every edit is in place (key order and unknown keys kept) and stamps `updated_at`.

use crate::dwp::model::PromotionPhase;
use serde_json::{Map, Value, json};

/// Where a promotion stands, as state.json records it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PromotionState {
    /// No promotion record: a Lite plan, ready.
    NotStarted,
    /// A promotion record at this phase, with the task files it declared (when it lists them).
    At {
        /// `promotion.phase`.
        phase: PromotionPhase,
        /// `promotion.tasks`, when it is a list of strings.
        files: Option<Vec<String>>,
    },
}

/// Why state.json's promotion record cannot be followed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PromotionError {
    /// `promotion` is an object without a known `phase`.
    #[error("state.json promotion.phase is {0}, not intent, tasks_written or switched")]
    UnknownPhase(String),
    /// state.json is not an object.
    #[error("state.json is not a JSON object")]
    NotAnObject,
}

/// Reads the promotion record (`null` and absent are [`PromotionState::NotStarted`]).
pub fn promotion_state(state: &Value) -> Result<PromotionState, PromotionError> {
    let Some(record) = state.get("promotion").filter(|p| !p.is_null()) else {
        return Ok(PromotionState::NotStarted);
    };
    let raw = record.get("phase").and_then(Value::as_str).unwrap_or("");
    let phase = PromotionPhase::parse(raw).ok_or_else(|| {
        PromotionError::UnknownPhase(
            record
                .get("phase")
                .map_or("absent".into(), Value::to_string),
        )
    })?;
    let files = record
        .get("tasks")
        .and_then(Value::as_array)
        .and_then(|list| {
            list.iter()
                .map(|v| v.as_str().map(str::to_string))
                .collect::<Option<Vec<_>>>()
        });
    Ok(PromotionState::At { phase, files })
}

fn object(state: &mut Value) -> Result<&mut Map<String, Value>, PromotionError> {
    state.as_object_mut().ok_or(PromotionError::NotAnObject)
}

fn stamp(map: &mut Map<String, Value>, now: &str) {
    if let Some(at) = map.get_mut("updated_at") {
        *at = json!(now);
    }
}

/// Declares the promotion: `materialization: promoting` and the record at phase `intent`,
/// naming the task files it will write (a `promotion` key the state lacks goes after
/// `approval`, else after `materialization`).
pub fn declare(state: &mut Value, files: &[String], now: &str) -> Result<(), PromotionError> {
    let map = object(state)?;
    map.insert("materialization".into(), json!("promoting"));
    let record = json!({"from": "lite", "to": "full", "phase": PromotionPhase::Intent.as_str(), "tasks": files});
    if let Some(slot) = map.get_mut("promotion") {
        *slot = record;
    } else {
        let index_of = |key: &str| map.keys().position(|k| k == key);
        let at = index_of("approval")
            .or_else(|| index_of("materialization"))
            .map(|i| i + 1)
            .unwrap_or(map.len());
        map.shift_insert(at, "promotion".into(), record);
    }
    stamp(map, now);
    Ok(())
}

/// Records that the task files are written (`phase: tasks_written`).
pub fn tasks_written(state: &mut Value, now: &str) -> Result<(), PromotionError> {
    set_phase(state, PromotionPhase::TasksWritten, now)
}

fn set_phase(state: &mut Value, phase: PromotionPhase, now: &str) -> Result<(), PromotionError> {
    let map = object(state)?;
    if let Some(record) = map.get_mut("promotion").and_then(Value::as_object_mut) {
        record.insert("phase".into(), json!(phase.as_str()));
    }
    stamp(map, now);
    Ok(())
}

/// Switches the state to the task files: `phase: switched`, `format: full`, and task `i`'s
/// locator `{kind: file, value: files[i]}` (its key order kept).
pub fn switch_to_files(
    state: &mut Value,
    files: &[String],
    now: &str,
) -> Result<(), PromotionError> {
    set_phase(state, PromotionPhase::Switched, now)?;
    let map = object(state)?;
    if let Some(format) = map.get_mut("format") {
        *format = json!("full");
    }
    if let Some(tasks) = map.get_mut("tasks").and_then(Value::as_array_mut) {
        for (task, file) in tasks.iter_mut().zip(files) {
            let Some(task) = task.as_object_mut() else {
                continue;
            };
            match task.get_mut("locator").and_then(Value::as_object_mut) {
                Some(locator) => {
                    locator.insert("kind".into(), json!("file"));
                    locator.insert("value".into(), json!(file));
                }
                None => {
                    task.insert("locator".into(), json!({"kind": "file", "value": file}));
                }
            }
        }
    }
    Ok(())
}

/// Ends the promotion: `materialization: ready`, `promotion: null`.
pub fn finish(state: &mut Value, now: &str) -> Result<(), PromotionError> {
    let map = object(state)?;
    map.insert("materialization".into(), json!("ready"));
    map.insert("promotion".into(), Value::Null);
    stamp(map, now);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_phases_walk_in_place_and_are_read_back() {
        let mut state = json!({
            "schema": "s", "updated_at": "t0", "status": "pending", "format": "lite",
            "materialization": "ready", "approval": "approved", "x": 1,
            "tasks": [{"id": 1, "locator": {"kind": "inline", "value": "#task-1"}, "title": "A"}]
        });
        assert_eq!(promotion_state(&state), Ok(PromotionState::NotStarted));
        let files = vec!["1.task_final_review.md".to_string()];
        declare(&mut state, &files, "t1").unwrap();
        assert_eq!(
            serde_json::to_string(&state).unwrap(),
            r##"{"schema":"s","updated_at":"t1","status":"pending","format":"lite","materialization":"promoting","approval":"approved","promotion":{"from":"lite","to":"full","phase":"intent","tasks":["1.task_final_review.md"]},"x":1,"tasks":[{"id":1,"locator":{"kind":"inline","value":"#task-1"},"title":"A"}]}"##
        );
        assert_eq!(
            promotion_state(&state),
            Ok(PromotionState::At {
                phase: PromotionPhase::Intent,
                files: Some(files.clone())
            })
        );
        tasks_written(&mut state, "t2").unwrap();
        switch_to_files(&mut state, &files, "t3").unwrap();
        assert_eq!(state["promotion"]["phase"], "switched");
        assert_eq!(state["format"], "full");
        assert_eq!(
            state["tasks"][0]["locator"],
            json!({"kind": "file", "value": "1.task_final_review.md"})
        );
        finish(&mut state, "t4").unwrap();
        assert_eq!(state["materialization"], "ready");
        assert_eq!(state["promotion"], Value::Null);
        assert_eq!(state["updated_at"], "t4");
        state["promotion"] = json!({"phase": "halfway"});
        assert!(matches!(
            promotion_state(&state),
            Err(PromotionError::UnknownPhase(_))
        ));
    }
}
