//! Strict JSON reading (duplicate keys refused, nesting bounded by serde_json's recursion limit)
//! and the closed-schema shape of state.json and manifest.json (SPEC §1.2, §1.3, §1.5): every
//! problem with its JSON path.
//!
//! Interim home: `dwp::model` / `dwp::schema` (branch dwp-model) own these; the checks call this
//! module so that switching to them is a change of one file.

use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};
use std::fmt;

/// A JSON value whose objects never repeat a key.
struct Strict(Value);

impl<'de> serde::Deserialize<'de> for Strict {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(StrictVisitor).map(Strict)
    }
}

struct StrictVisitor;

impl<'de> Visitor<'de> for StrictVisitor {
    type Value = Value;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Value, E> {
        serde_json::Number::from_f64(v)
            .map(Value::Number)
            .ok_or_else(|| E::custom("number out of range"))
    }
    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_string()))
    }
    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut out = Vec::new();
        while let Some(Strict(v)) = seq.next_element()? {
            out.push(v);
        }
        Ok(Value::Array(out))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            let Strict(v) = map.next_value()?;
            if out.contains_key(&key) {
                return Err(de::Error::custom(format!("duplicate key \"{key}\"")));
            }
            out.insert(key, v);
        }
        Ok(Value::Object(out))
    }
}

/// Parses JSON bytes; refuses invalid UTF-8, duplicate keys, numbers out of range and nesting
/// deeper than serde_json's recursion limit (128).
pub fn parse_strict(bytes: &[u8]) -> Result<Value, String> {
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let Strict(v) = serde::Deserialize::deserialize(&mut de).map_err(|e| e.to_string())?;
    de.end().map_err(|e| e.to_string())?;
    Ok(v)
}

/// Schema generation of a state or manifest URL.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Era {
    V1,
    V2,
    V5,
}

impl Era {
    pub fn label(self) -> &'static str {
        match self {
            Era::V1 => "v1",
            Era::V2 => "v2",
            Era::V5 => "v5",
        }
    }
}

pub const STATE_SCHEMAS: [&str; 3] = [
    "https://deepworkplan.com/schema/plan-state/v1.json",
    "https://deepworkplan.com/schema/plan-state/v2.json",
    "https://deepworkplan.com/schema/plan-state/v5.json",
];
pub const MANIFEST_SCHEMAS: [&str; 3] = [
    "https://deepworkplan.com/schema/plan-manifest/v1.json",
    "https://deepworkplan.com/schema/plan-manifest/v2.json",
    "https://deepworkplan.com/schema/plan-manifest/v5.json",
];

/// The era of a schema URL from one of the two lists.
pub fn era_of(url: &str, list: &[&str; 3]) -> Option<Era> {
    list.iter()
        .position(|u| *u == url)
        .map(|i| [Era::V1, Era::V2, Era::V5][i])
}

/// One shape problem: a JSON path and what is wrong there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShapeError {
    pub path: String,
    pub problem: String,
}

impl ShapeError {
    /// The path with every index blanked, plus the problem: errors alike share it.
    pub fn group_key(&self) -> String {
        let mut key = String::new();
        let mut in_index = false;
        for c in self.path.chars() {
            match c {
                '[' => {
                    in_index = true;
                    key.push_str("[]");
                }
                ']' => in_index = false,
                _ if in_index => {}
                _ => key.push(c),
            }
        }
        format!("{key}: {}", self.problem)
    }
    /// The task number of a `$.tasks[i]…` path (1-based position).
    pub fn task(&self) -> Option<u64> {
        let rest = self.path.strip_prefix("$.tasks[")?;
        let end = rest.find(']')?;
        rest[..end].parse::<u64>().ok().map(|i| i + 1)
    }
    pub fn inside_gates(&self) -> bool {
        self.path.contains(".gates[")
    }
}

#[derive(Clone, Copy)]
enum Kind {
    Str(usize),
    Int,
    Bool,
    Enum(&'static [&'static str]),
    Any,
}

struct Field {
    name: &'static str,
    required: bool,
    kind: Kind,
    nullable: bool,
}

const fn f(name: &'static str, required: bool, kind: Kind) -> Field {
    Field {
        name,
        required,
        kind,
        nullable: false,
    }
}
const fn n(name: &'static str, kind: Kind) -> Field {
    Field {
        name,
        required: false,
        kind,
        nullable: true,
    }
}

const TASK_STATUS: &[&str] = &["pending", "in_progress", "completed", "blocked", "skipped"];
const PLAN_STATUS: &[&str] = &["pending", "in_progress", "completed", "blocked"];

struct Checker {
    errors: Vec<ShapeError>,
}

impl Checker {
    fn push(&mut self, path: &str, problem: impl Into<String>) {
        self.errors.push(ShapeError {
            path: path.to_string(),
            problem: problem.into(),
        });
    }

    fn object(&mut self, path: &str, v: &Value, fields: &[Field], open: bool) -> bool {
        let Some(obj) = v.as_object() else {
            self.push(path, "not an object");
            return false;
        };
        for fd in fields {
            match obj.get(fd.name) {
                None => {
                    if fd.required {
                        self.push(path, format!("missing {}", fd.name));
                    }
                }
                Some(Value::Null) if fd.nullable => {}
                Some(val) => self.kind(&format!("{path}.{}", fd.name), val, fd.kind),
            }
        }
        if !open {
            for key in obj.keys() {
                if !fields.iter().any(|fd| fd.name == key) {
                    self.push(path, format!("unknown field {key}"));
                }
            }
        }
        true
    }

    fn kind(&mut self, path: &str, v: &Value, kind: Kind) {
        match kind {
            Kind::Any => {}
            Kind::Bool => {
                if !v.is_boolean() {
                    self.push(path, "not a boolean");
                }
            }
            Kind::Int => {
                if !(v.is_i64() || v.is_u64()) {
                    self.push(path, "not an integer (or out of range)");
                }
            }
            Kind::Str(max) => match v.as_str() {
                None => self.push(path, "not a string"),
                Some(s) if s.chars().count() > max => {
                    self.push(path, format!("longer than {max} characters"))
                }
                Some(_) => {}
            },
            Kind::Enum(values) => match v.as_str() {
                Some(s) if values.contains(&s) => {}
                _ => self.push(
                    path,
                    format!("{} is not one of {}", short(v), values.join(" | ")),
                ),
            },
        }
    }
}

fn short(v: &Value) -> String {
    let s = v.to_string();
    if s.chars().count() > 40 {
        format!("{}…", s.chars().take(40).collect::<String>())
    } else {
        s
    }
}

/// Every closed-schema problem of a state.json of `era`.
pub fn state_errors(v: &Value, era: Era) -> Vec<ShapeError> {
    let mut c = Checker { errors: Vec::new() };
    let mut top = vec![
        f("schema", true, Kind::Str(200)),
        f("plan", true, Kind::Str(200)),
        f("updated_at", true, Kind::Str(64)),
        n("updated_by", Kind::Any),
        f("status", true, Kind::Enum(PLAN_STATUS)),
        f("completed_count", true, Kind::Int),
        f("task_count", true, Kind::Int),
        f("tasks", true, Kind::Any),
        n("checkpoint", Kind::Any),
        n("blocked", Kind::Any),
    ];
    if era != Era::V1 {
        top.extend([
            f("format", true, Kind::Enum(&["lite", "full"])),
            f(
                "materialization",
                true,
                Kind::Enum(&["materializing", "ready", "promoting"]),
            ),
            f(
                "approval",
                false,
                Kind::Enum(&["pending", "approved", "pre_approved"]),
            ),
            n("promotion", Kind::Any),
        ]);
    }
    if !c.object("$", v, &top, false) {
        return c.errors;
    }
    if let Some(by) = v.get("updated_by").filter(|x| !x.is_null()) {
        c.object(
            "$.updated_by",
            by,
            &[
                f("agent", false, Kind::Str(100)),
                f("model", false, Kind::Str(100)),
            ],
            false,
        );
    }
    if let Some(cp) = v.get("checkpoint").filter(|x| !x.is_null()) {
        c.object(
            "$.checkpoint",
            cp,
            &[
                f("task", true, Kind::Int),
                f("step", true, Kind::Str(200)),
                f("at", false, Kind::Str(64)),
                f("note", false, Kind::Str(500)),
            ],
            false,
        );
    }
    if let Some(b) = v.get("blocked").filter(|x| !x.is_null()) {
        c.object(
            "$.blocked",
            b,
            &[
                f("task", true, Kind::Int),
                f("reason", true, Kind::Str(1000)),
                f("since", false, Kind::Str(64)),
                f("needs", false, Kind::Str(500)),
            ],
            false,
        );
    }
    if let Some(p) = v.get("promotion").filter(|x| !x.is_null()) {
        c.object(
            "$.promotion",
            p,
            &[
                f("from", true, Kind::Enum(&["lite"])),
                f("to", true, Kind::Enum(&["full"])),
                f(
                    "phase",
                    true,
                    Kind::Enum(&["intent", "tasks_written", "switched"]),
                ),
            ],
            true,
        );
    }
    let Some(tasks) = v.get("tasks").and_then(Value::as_array) else {
        if v.get("tasks").is_some() {
            c.push("$.tasks", "not an array");
        }
        return c.errors;
    };
    let locator_field = if era == Era::V1 {
        f("file", true, Kind::Str(300))
    } else {
        f("locator", true, Kind::Any)
    };
    for (i, t) in tasks.iter().enumerate() {
        let path = format!("$.tasks[{i}]");
        let fields = [
            f("id", true, Kind::Int),
            f("title", true, Kind::Str(300)),
            f("status", true, Kind::Enum(TASK_STATUS)),
            n("started_at", Kind::Str(64)),
            n("completed_at", Kind::Str(64)),
            n("commit", Kind::Str(40)),
            f("gates", false, Kind::Any),
            n("outcome", Kind::Any),
            f(
                locator_field.name,
                locator_field.required,
                locator_field.kind,
            ),
        ];
        if !c.object(&path, t, &fields, false) {
            continue;
        }
        if let Some(commit) = t.get("commit").and_then(Value::as_str)
            && !((7..=40).contains(&commit.len())
                && commit
                    .bytes()
                    .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)))
        {
            c.push(&format!("{path}.commit"), "not 7–40 lower-case hex digits");
        }
        if era != Era::V1
            && let Some(loc) = t.get("locator")
            && c.object(
                &format!("{path}.locator"),
                loc,
                &[
                    f("kind", true, Kind::Enum(&["file", "inline"])),
                    f("value", true, Kind::Str(300)),
                ],
                false,
            )
            && let Some(value) = loc.get("value").and_then(Value::as_str)
            && !locator_value_ok(value)
        {
            c.push(
                &format!("{path}.locator.value"),
                format!(
                    "{} is not #task-N or N.task_<slug>.md",
                    short(&Value::from(value))
                ),
            );
        }
        if let Some(o) = t.get("outcome").filter(|x| !x.is_null()) {
            c.object(
                &format!("{path}.outcome"),
                o,
                &[
                    f("tried", false, Kind::Any),
                    f("failed", false, Kind::Any),
                    f("worked", false, Kind::Str(500)),
                    f("notes", false, Kind::Str(1000)),
                ],
                false,
            );
        }
        match t.get("gates") {
            None => {}
            Some(Value::Array(gates)) => {
                for (j, g) in gates.iter().enumerate() {
                    c.object(
                        &format!("{path}.gates[{j}]"),
                        g,
                        &[
                            f("command", true, Kind::Str(500)),
                            f("passes", true, Kind::Bool),
                            f("exit_code", false, Kind::Int),
                            f("last_run", true, Kind::Str(64)),
                            f("evidence", false, Kind::Str(500)),
                        ],
                        false,
                    );
                }
            }
            Some(_) => c.push(&format!("{path}.gates"), "not an array"),
        }
    }
    c.errors
}

/// `#task-N` or `N.task_<slug>.md`.
pub fn locator_value_ok(value: &str) -> bool {
    if let Some(n) = value.strip_prefix("#task-") {
        return !n.is_empty() && !n.starts_with('0') && n.bytes().all(|b| b.is_ascii_digit());
    }
    let Some((num, rest)) = value.split_once(".task_") else {
        return false;
    };
    let Some(slug) = rest.strip_suffix(".md") else {
        return false;
    };
    !num.is_empty()
        && !num.starts_with('0')
        && num.bytes().all(|b| b.is_ascii_digit())
        && !slug.is_empty()
        && slug
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
}

/// Every closed-schema problem of a manifest.json of `era`.
pub fn manifest_errors(v: &Value, era: Era) -> Vec<ShapeError> {
    let mut c = Checker { errors: Vec::new() };
    let mut fields = vec![
        f("schema", true, Kind::Str(200)),
        f("spec_version", true, Kind::Str(32)),
        f("name", true, Kind::Str(200)),
        f(
            "archetype",
            true,
            Kind::Enum(&["individual", "orchestrator-hub", "agent-workspace"]),
        ),
        f("rigor", true, Kind::Enum(&["micro", "standard", "deep"])),
        f("created_at", true, Kind::Str(64)),
        f("task_count", true, Kind::Int),
        f("title", false, Kind::Str(500)),
        f("tags", false, Kind::Any),
        n("created_by", Kind::Any),
        n("parent_plan", Kind::Str(300)),
    ];
    if era != Era::V1 {
        fields.push(f("plan_format", true, Kind::Enum(&["lite", "full"])));
    }
    if c.object("$", v, &fields, false) {
        if let Some(by) = v.get("created_by").filter(|x| !x.is_null()) {
            c.object(
                "$.created_by",
                by,
                &[
                    f("agent", false, Kind::Str(100)),
                    f("model", false, Kind::Str(100)),
                ],
                false,
            );
        }
        if v.get("task_count").and_then(Value::as_u64) == Some(0) {
            c.push("$.task_count", "must be at least 1");
        }
    }
    c.errors
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn strict_parsing() {
        assert!(parse_strict(br#"{"a": 1}"#).is_ok());
        assert!(
            parse_strict(br#"{"a": 1, "a": 2}"#)
                .unwrap_err()
                .contains("duplicate key")
        );
        assert!(parse_strict(br#"{"a": 1e400}"#).is_err());
        assert!(parse_strict(b"{\"a\": \xff}").is_err());
        assert!(parse_strict(br#"{"a": "#).is_err());
        let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
        assert!(parse_strict(deep.as_bytes()).is_err());
    }

    #[test]
    fn paths_and_groups() {
        let v = json!({"schema": "s", "plan": "p", "updated_at": "t", "status": "pending",
        "completed_count": 0, "task_count": 2, "format": "full", "materialization": "ready",
        "approval": "maybe", "extra": 1,
        "tasks": [
            {"id": 1, "locator": {"kind": "file", "value": "1.task_a.md"}, "title": "a", "status": "pending",
             "gates": [{"passes": true, "last_run": "x"}]},
            {"id": 2, "locator": {"kind": "file", "value": "2.task_b.md"}, "title": "b", "status": "pending",
             "gates": [{"passes": true, "last_run": "x"}]}
        ]});
        let errs = state_errors(&v, Era::V5);
        let texts: Vec<String> = errs
            .iter()
            .map(|e| format!("{}: {}", e.path, e.problem))
            .collect();
        assert!(
            texts
                .iter()
                .any(|t| t.starts_with("$.approval: \"maybe\" is not one of"))
        );
        assert!(texts.contains(&"$: unknown field extra".to_string()));
        let gate_errs: Vec<_> = errs.iter().filter(|e| e.inside_gates()).collect();
        assert_eq!(gate_errs.len(), 2);
        assert_eq!(gate_errs[0].group_key(), gate_errs[1].group_key());
        assert_eq!(gate_errs[1].task(), Some(2));
        assert!(
            state_errors(&v, Era::V1)
                .iter()
                .any(|e| e.problem == "unknown field approval")
        );
    }
}
