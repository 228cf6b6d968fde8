//! The never-remove rule between two versions of a state.json (`docs/reversa.md`): a removed field,
//! a phase moved backwards, a dropped `created_files` entry. Pure: `reversa history` feeds it
//! consecutive versions from git, `reversa set` feeds it the file before and after the change.

use super::model::{Phases, phase_position};
use crate::report::Severity;
use serde_json::{Map, Value};
use std::collections::HashSet;

/// Which part of the never-remove rule a change broke.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum ViolationKind {
    /// A field (at any depth of nested objects) that the older version had is gone.
    FieldRemoved,
    /// A phase left `completed`, or `phase` moved to an earlier phase.
    PhaseBackwards,
    /// A `created_files` entry is gone (an advisory when the change also changed `version`: the
    /// installer's own update reconciles the list).
    CreatedFileDropped,
}

impl ViolationKind {
    /// The stable finding id.
    pub fn id(self) -> &'static str {
        match self {
            ViolationKind::FieldRemoved => "reversa-field-removed",
            ViolationKind::PhaseBackwards => "reversa-phase-backwards",
            ViolationKind::CreatedFileDropped => "reversa-created-file-dropped",
        }
    }
}

/// One break of the never-remove rule between two versions.
#[derive(Debug, Clone, PartialEq, serde::Serialize, schemars::JsonSchema)]
pub struct Violation {
    /// Which part of the rule was broken.
    pub kind: ViolationKind,
    /// `Fail`, except a `created_files` entry dropped by a change of `version` (`Advisory`).
    pub severity: Severity,
    /// Dotted path of the field (`checkpoints.scout`, `phase`, `created_files`).
    pub field: String,
    /// What the older version held there.
    pub old_value: Value,
    /// What the newer version holds (absent when the field is gone).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub new_value: Option<Value>,
}

impl Violation {
    /// One sentence for the user: the field and what happened to its value.
    pub fn describe(&self) -> String {
        match self.kind {
            ViolationKind::FieldRemoved => {
                format!(
                    "field `{}` was removed (it held {})",
                    self.field, self.old_value
                )
            }
            ViolationKind::PhaseBackwards => format!(
                "`{}` moved backwards: {} → {}",
                self.field,
                self.old_value,
                self.new_value
                    .as_ref()
                    .map(Value::to_string)
                    .unwrap_or_else(|| "(gone)".into())
            ),
            ViolationKind::CreatedFileDropped => {
                format!("created_files entry {} was dropped", self.old_value)
            }
        }
    }
}

fn removed_fields(
    prefix: &str,
    old: &Map<String, Value>,
    new: &Map<String, Value>,
    out: &mut Vec<Violation>,
) {
    for (k, ov) in old {
        let path = if prefix.is_empty() {
            k.clone()
        } else {
            format!("{prefix}.{k}")
        };
        match new.get(k) {
            None => out.push(Violation {
                kind: ViolationKind::FieldRemoved,
                severity: Severity::Fail,
                field: path,
                old_value: ov.clone(),
                new_value: None,
            }),
            Some(nv) => {
                if let (Some(om), Some(nm)) = (ov.as_object(), nv.as_object()) {
                    removed_fields(&path, om, nm, out);
                }
            }
        }
    }
}

fn strings(v: Option<&Value>) -> Vec<&str> {
    v.and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

/// Every violation of the never-remove rule going from `old` to `new`.
pub fn compare(old: &Map<String, Value>, new: &Map<String, Value>) -> Vec<Violation> {
    let mut out = Vec::new();
    removed_fields("", old, new, &mut out);

    let (op, np) = (Phases::from_object(old), Phases::from_object(new));
    let positions = |p: &Phases| -> Vec<usize> {
        p.completed
            .iter()
            .filter_map(|c| phase_position(c).map(|x| x.1))
            .collect()
    };
    let new_done: HashSet<usize> = positions(&np).into_iter().collect();
    let mut un_completed = false;
    for name in &op.completed {
        if let Some((_, i)) = phase_position(name)
            && !new_done.contains(&i)
            && new.contains_key("completed")
        {
            un_completed = true;
            out.push(Violation {
                kind: ViolationKind::PhaseBackwards,
                severity: Severity::Fail,
                field: "completed".into(),
                old_value: Value::String(name.clone()),
                new_value: new.get("completed").cloned(),
            });
        }
    }
    if !un_completed && new.contains_key("phase") && np.rank() < op.rank() {
        out.push(Violation {
            kind: ViolationKind::PhaseBackwards,
            severity: Severity::Fail,
            field: "phase".into(),
            old_value: old.get("phase").cloned().unwrap_or(Value::Null),
            new_value: new.get("phase").cloned(),
        });
    }

    if new.contains_key("created_files") {
        // A set: the lists grow with the project, and a scan per entry made this quadratic.
        let kept: HashSet<&str> = strings(new.get("created_files")).into_iter().collect();
        let version_changed = old.get("version") != new.get("version");
        for entry in strings(old.get("created_files")) {
            if !kept.contains(&entry) {
                out.push(Violation {
                    kind: ViolationKind::CreatedFileDropped,
                    // The installer's own update reconciles the list when it changes `version`.
                    severity: if version_changed {
                        Severity::Advisory
                    } else {
                        Severity::Fail
                    },
                    field: "created_files".into(),
                    old_value: Value::String(entry.to_string()),
                    new_value: None,
                });
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn obj(v: Value) -> Map<String, Value> {
        v.as_object().cloned().expect("object")
    }

    #[test]
    fn removal_backwards_and_dropped_entries() {
        let old = obj(
            json!({"version":"1","phase":"escavacao","completed":["reconhecimento"],
            "checkpoints":{"scout":{"files":[]}},"created_files":["a","b"],"forward_folder":"x"}),
        );
        let new = obj(
            json!({"version":"1","phase":"reconhecimento","completed":["reconhecimento"],
            "checkpoints":{},"created_files":["a"]}),
        );
        let v = compare(&old, &new);
        let got: Vec<(ViolationKind, &str)> =
            v.iter().map(|x| (x.kind, x.field.as_str())).collect();
        assert_eq!(
            got,
            [
                (ViolationKind::FieldRemoved, "checkpoints.scout"),
                (ViolationKind::FieldRemoved, "forward_folder"),
                (ViolationKind::PhaseBackwards, "phase"),
                (ViolationKind::CreatedFileDropped, "created_files"),
            ]
        );
        assert_eq!(v[1].old_value, json!("x"));
        assert_eq!(v[3].severity, Severity::Fail);
    }

    #[test]
    fn installer_update_only_advises() {
        let old = obj(json!({"version":"1","created_files":["a","b"]}));
        let new = obj(json!({"version":"2","created_files":["a"]}));
        let v = compare(&old, &new);
        assert_eq!(v.len(), 1);
        assert_eq!(v[0].severity, Severity::Advisory);
    }

    #[test]
    fn moving_forward_is_fine() {
        let old = obj(
            json!({"phase":"escavacao","completed":["reconhecimento"],"pending":["escavacao"]}),
        );
        let new = obj(
            json!({"phase":"interpretacao","completed":["reconhecimento","escavacao"],"pending":[],"extra":1}),
        );
        assert!(compare(&old, &new).is_empty());
        let finished = obj(
            json!({"phase":null,"completed":["reconhecimento","escavacao","interpretacao","geracao","revisao"],"pending":[],"extra":2}),
        );
        assert!(compare(&new, &finished).is_empty());
        let reset = obj(json!({"phase":null,"completed":[]}));
        let backwards = compare(&finished, &reset)
            .into_iter()
            .filter(|v| v.kind == ViolationKind::PhaseBackwards)
            .count();
        assert_eq!(backwards, 5);
    }
}

/// One version of the state file at one commit, oldest first when walked.
#[derive(Debug, Clone)]
pub struct Version {
    /// The commit's short id.
    pub commit: String,
    /// The first line of the commit's message.
    pub subject: String,
    /// `None` when the file does not exist at that commit.
    pub bytes: Option<Vec<u8>>,
}

/// A violation introduced by one commit.
#[derive(Debug, Clone, PartialEq, serde::Serialize, schemars::JsonSchema)]
pub struct Flagged {
    /// The short id of the commit whose version broke the rule.
    pub commit: String,
    /// The first line of its message.
    pub subject: String,
    /// What it broke, against the previous readable version.
    #[serde(flatten)]
    pub violation: Violation,
}

/// What a walk over the file's history found.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, schemars::JsonSchema)]
pub struct Walk {
    /// How many versions were compared (the commits where the file exists).
    pub versions: usize,
    /// Every violation, with the commit that introduced it, oldest first.
    pub flagged: Vec<Flagged>,
    /// Commits whose version could not be parsed (compared around, not against).
    pub unreadable: Vec<String>,
}

/// Compares each readable version with the previous readable one (oldest first).
pub fn walk(versions: &[Version]) -> Walk {
    let mut out = Walk::default();
    let mut previous: Option<Map<String, Value>> = None;
    for v in versions {
        let Some(bytes) = &v.bytes else { continue };
        out.versions += 1;
        let Ok(state) = super::model::StateFile::parse(bytes) else {
            out.unreadable.push(v.commit.clone());
            continue;
        };
        if let Some(prev) = &previous {
            for violation in compare(prev, &state.object) {
                out.flagged.push(Flagged {
                    commit: v.commit.clone(),
                    subject: v.subject.clone(),
                    violation,
                });
            }
        }
        previous = Some(state.object);
    }
    out
}
