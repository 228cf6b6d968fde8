//! Reversa's `.reversa/state.json`, merged under its own law — never remove a field, only add
//! or update (`docs/merge.md`):
//!
//! - a field either side has stays (one side removing it does not remove it);
//! - lists are unions (`completed`, `created_files`, `engines`, `agents`, a checkpoint's
//!   `files`…), phase names in phase order; `pending` keeps what neither side took out of it and
//!   loses every phase the merge completed;
//! - objects (`checkpoints`, one agent's record) merge key by key, by the same law;
//! - `phase` moves forward: both sides moved it ⇒ the one further on;
//! - a scalar both sides changed differently is a conflict.
//!
//! The merged file is ours' text with the changed top-level values spliced in
//! ([`crate::reversa::splice`]), so ours' layout stays. It is then checked: a failure of
//! Reversa's own checks that neither side had, or a break of the never-remove rule against
//! either side, makes it a conflict.

use super::json::{Conflict, Step, mark, merge_keys, merge_set, sentinel, shown};
use super::text::Markers;
use super::{Merged, Sides};
use crate::jsonfmt::JsonStyle;
use crate::report::{Finding, Severity};
use crate::reversa::checks::check_value;
use crate::reversa::history::compare;
use crate::reversa::model::{Phases, StateFile, phase_position};
use crate::reversa::splice::set_top_level;
use serde_json::{Map, Value};

/// The merge (see the module comment); `None` when ours or theirs is not a JSON object.
pub fn merge(sides: &Sides<'_>, markers: &Markers) -> Option<Merged> {
    let ours = StateFile::parse(sides.ours).ok()?;
    let theirs = StateFile::parse(sides.theirs).ok()?;
    let base = StateFile::parse(sides.base).ok().map(|b| b.object);
    let mut conflicts = Vec::new();
    let merged = merge_object(
        base.as_ref(),
        &ours.object,
        &theirs.object,
        &mut Vec::new(),
        &mut conflicts,
    );
    let mut merged = Value::Object(merged);
    settle_phases(
        &mut merged,
        base.as_ref(),
        &ours.object,
        &theirs.object,
        &mut conflicts,
    );
    let style = JsonStyle::detect(sides.ours);
    let markers = markers.for_text(&ours.text);
    let mut text = ours.text.clone();
    // Conflicts are shown per top-level field.
    let conflicted: Vec<&str> = conflicts.iter().filter_map(|c| top_key(&c.path)).collect();
    let mut shown_conflicts: Vec<Conflict> = Vec::new();
    if let Value::Object(m) = &merged {
        for (key, value) in m {
            let value = if conflicted.contains(&key.as_str()) {
                let notes: Vec<String> = conflicts
                    .iter()
                    .filter(|c| top_key(&c.path) == Some(key))
                    .flat_map(|c| c.notes.clone())
                    .collect();
                shown_conflicts.push(Conflict {
                    path: vec![Step::Key(key.clone())],
                    ours: ours.object.get(key).cloned(),
                    theirs: theirs.object.get(key).cloned(),
                    notes,
                });
                sentinel(shown_conflicts.len() - 1)
            } else {
                value.clone()
            };
            if ours.object.get(key) != Some(&value) {
                text = set_top_level(&text, key, &value).ok()?;
            }
        }
    }
    if !shown_conflicts.is_empty() {
        let notes = shown_conflicts
            .iter()
            .flat_map(|c| c.notes.clone())
            .collect();
        let body = if style.indent.is_none() {
            let text = |s: &StateFile| s.text.clone();
            markers.block(&[], &text(&ours), &text(&theirs))
        } else {
            mark(&text, &shown_conflicts, &style, &markers)
        };
        return Some(Merged::conflicted(ours.with_bom(&body), notes));
    }
    let merged_file = StateFile::parse(&ours.with_bom(&text)).ok()?;
    let notes = new_failures(&merged_file, &ours, &theirs);
    if !notes.is_empty() {
        let body = markers.block(&notes, &ours.text, &theirs.text);
        return Some(Merged::conflicted(ours.with_bom(&body), notes));
    }
    Some(Merged::clean(ours.with_bom(&text)))
}

fn top_key(path: &[Step]) -> Option<&str> {
    match path.first() {
        Some(Step::Key(k)) => Some(k),
        _ => None,
    }
}

/// Objects by the never-remove law, key by key.
fn merge_object(
    base: Option<&Map<String, Value>>,
    ours: &Map<String, Value>,
    theirs: &Map<String, Value>,
    path: &mut Vec<Step>,
    conflicts: &mut Vec<Conflict>,
) -> Map<String, Value> {
    merge_keys(base, ours, theirs, path, |_, b, o, t, path| match (o, t) {
        (Some(o), Some(t)) => Some(merge_value(b, o, t, path, conflicts)),
        // Present on one side only: added there, or removed on the other — kept either way.
        (v, None) | (None, v) => v.cloned(),
    })
}

fn merge_value(
    base: Option<&Value>,
    ours: &Value,
    theirs: &Value,
    path: &mut Vec<Step>,
    conflicts: &mut Vec<Conflict>,
) -> Value {
    if ours == theirs || base == Some(theirs) {
        return ours.clone();
    }
    if base == Some(ours) && !matches!(ours, Value::Array(_) | Value::Object(_)) {
        return theirs.clone();
    }
    match (ours, theirs) {
        (Value::Object(o), Value::Object(t)) => Value::Object(merge_object(
            base.and_then(Value::as_object),
            o,
            t,
            path,
            conflicts,
        )),
        (Value::Array(o), Value::Array(t)) => {
            let mut out = o.clone();
            out.extend(t.iter().filter(|v| !o.contains(v)).cloned());
            Value::Array(out)
        }
        _ => {
            conflicts.push(Conflict::new(
                path.clone(),
                Some(ours),
                Some(theirs),
                format!(
                    "`{}` was changed differently on both sides",
                    &shown(path)[2..]
                ),
            ));
            ours.clone()
        }
    }
}

/// `completed` in phase order, `pending` without what either side took out of it or the merge
/// completed, `phase` the one further on.
fn settle_phases(
    merged: &mut Value,
    base: Option<&Map<String, Value>>,
    ours: &Map<String, Value>,
    theirs: &Map<String, Value>,
    conflicts: &mut Vec<Conflict>,
) {
    let Value::Object(m) = merged else { return };
    let by_phase = |list: &mut Vec<Value>| {
        list.sort_by_key(|v| {
            v.as_str()
                .and_then(phase_position)
                .map_or(usize::MAX, |p| p.1)
        });
    };
    if let Some(Value::Array(done)) = m.get_mut("completed") {
        by_phase(done);
    }
    let done: Vec<Value> = match m.get("completed") {
        Some(Value::Array(d)) => d.clone(),
        _ => Vec::new(),
    };
    if let (Some(Value::Array(o)), Some(Value::Array(t))) =
        (ours.get("pending"), theirs.get("pending"))
    {
        // Pending shrinks as phases finish: a phase either side took out of it is gone, and so
        // is every phase the merge completed.
        let b = base
            .and_then(|b| b.get("pending"))
            .and_then(Value::as_array)
            .map(Vec::as_slice)
            .unwrap_or(&[]);
        let mut pending = merge_set(b, o, t);
        pending.retain(|v| !done.contains(v));
        by_phase(&mut pending);
        m.insert("pending".into(), Value::Array(pending));
    }
    let (po, pt) = (Phases::from_object(ours), Phases::from_object(theirs));
    if po.phase != pt.phase {
        let further = match po.rank().cmp(&pt.rank()) {
            std::cmp::Ordering::Less => ours_or_theirs(theirs),
            std::cmp::Ordering::Greater => ours_or_theirs(ours),
            std::cmp::Ordering::Equal => None,
        };
        match further {
            Some(phase) => {
                conflicts.retain(|c| top_key(&c.path) != Some("phase"));
                m.insert("phase".into(), phase);
            }
            None if !conflicts.iter().any(|c| top_key(&c.path) == Some("phase")) => {
                conflicts.push(Conflict::new(
                    vec![Step::Key("phase".into())],
                    ours.get("phase"),
                    theirs.get("phase"),
                    "`phase` moved to different phases on both sides",
                ));
            }
            None => {}
        }
    }
}

fn ours_or_theirs(side: &Map<String, Value>) -> Option<Value> {
    side.get("phase").cloned()
}

/// Failures of the merged file that neither side had, and breaks of the never-remove rule from
/// either side to the merge.
fn new_failures(merged: &StateFile, ours: &StateFile, theirs: &StateFile) -> Vec<String> {
    let fails = |s: &StateFile| -> Vec<Finding> {
        check_value(s)
            .into_iter()
            .filter(|f| f.severity == Severity::Fail)
            .collect()
    };
    let known: Vec<String> = fails(ours)
        .into_iter()
        .chain(fails(theirs))
        .map(|f| f.message)
        .collect();
    let mut out: Vec<String> = fails(merged)
        .into_iter()
        .filter(|f| !known.contains(&f.message))
        .map(|f| {
            format!(
                "the merge would break a rule of Reversa's state.json: {}",
                f.message
            )
        })
        .collect();
    for side in [ours, theirs] {
        out.extend(
            compare(&side.object, &merged.object)
                .into_iter()
                .filter(|v| v.severity == Severity::Fail)
                .map(|v| {
                    format!(
                        "the merge would break the never-remove rule: {}",
                        v.describe()
                    )
                }),
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(base: &str, ours: &str, theirs: &str) -> Merged {
        merge(&Sides::texts(base, ours, theirs), &Markers::default()).expect("JSON objects")
    }

    #[test]
    fn lists_grow_on_both_sides_and_nothing_is_removed() {
        let base = "{\n  \"created_files\": [\"a\"],\n  \"agents\": []\n}";
        let ours = "{\n  \"created_files\": [\"a\", \"b\"],\n  \"agents\": [\"scout\"]\n}";
        let theirs = "{\n  \"created_files\": [\"a\", \"c\"],\n  \"extra\": 1\n}";
        let m = run(base, ours, theirs);
        assert!(m.is_clean(), "{:?}", m.notes);
        assert_eq!(
            String::from_utf8(m.bytes).unwrap(),
            "{\n  \"created_files\": [\"a\", \"b\", \"c\"],\n  \"agents\": [\"scout\"],\n  \"extra\": 1\n}"
        );
    }

    #[test]
    fn scalars_changed_differently_conflict() {
        let m = run(
            "{\n  \"doc_level\": null\n}",
            "{\n  \"doc_level\": \"completo\"\n}",
            "{\n  \"doc_level\": \"detalhado\"\n}",
        );
        assert!(!m.is_clean());
        let text = String::from_utf8(m.bytes).unwrap();
        assert!(text.contains("<<<<<<< ours\n  \"doc_level\": \"completo\"\n=======\n  \"doc_level\": \"detalhado\"\n>>>>>>> theirs\n"), "{text}");
    }
}
