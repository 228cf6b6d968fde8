//! The one shape of every `--json` document (`docs/json.md`): a JSON object whose first key is
//! `result`, one of a closed list, followed by `kind`, `message` and `hint` when the result has
//! them, then the command's own fields.
//!
//! | `result` | when |
//! |---|---|
//! | `ok` | a read-only command ran (verify, status, diff, log, …), or a dry run |
//! | `applied` | a writer's change is in place |
//! | `applied-unconfirmed` | the change is in place, but something after its commit point was not confirmed (exit 4) |
//! | `unchanged` | a writer had nothing to change |
//! | `refused` | a rule said no; nothing was written (exit 1) |
//! | `error` | the command could not get past an error (exit 2 or 3) |

use super::Refusal;
use serde_json::{Map, Value};

/// Every `result` a document may carry, in the order `docs/json.md` lists them.
pub const RESULTS: [&str; 6] = [
    "ok",
    "applied",
    "applied-unconfirmed",
    "unchanged",
    "refused",
    "error",
];

/// `doc` in the envelope: `result` first (`default` when the document has none), then `kind`,
/// `message` and `hint` when present, then every other field in its order. A document that is
/// not an object becomes the `value` of an `ok` one.
pub fn seal(doc: Value, default: &str) -> Value {
    let mut fields = match doc {
        Value::Object(map) => map,
        other => {
            let mut map = Map::new();
            map.insert("value".into(), other);
            map
        }
    };
    let result = fields
        .remove("result")
        .unwrap_or_else(|| Value::String(default.to_string()));
    let mut out = Map::new();
    out.insert("result".into(), result);
    for key in ["kind", "message", "hint"] {
        if let Some(v) = fields.remove(key) {
            out.insert(key.into(), v);
        }
    }
    out.extend(fields);
    Value::Object(out)
}

/// Whether `doc` is in the envelope: an object whose first key is `result`, from [`RESULTS`].
pub fn is_sealed(doc: &Value) -> bool {
    doc.as_object()
        .and_then(|m| m.iter().next())
        .is_some_and(|(k, v)| k == "result" && v.as_str().is_some_and(|r| RESULTS.contains(&r)))
}

/// A refusal's document: `result: refused`, its kind, message and hint at the top, then the lock
/// owner's state and the details when it has them.
pub fn refused(refusal: &Refusal) -> Value {
    let mut doc = serde_json::to_value(refusal).unwrap_or_default();
    if let Value::Object(map) = &mut doc {
        map.insert("result".into(), "refused".into());
    }
    seal(doc, "refused")
}

/// An error's document: `result: error`, its kind (`usage-error`, `io-error`, `error`), message
/// and hint, then `fields`.
pub fn error(kind: &str, message: &str, hint: Option<&str>, fields: Map<String, Value>) -> Value {
    let mut map = Map::new();
    map.insert("result".into(), "error".into());
    map.insert("kind".into(), kind.into());
    map.insert("message".into(), message.into());
    if let Some(h) = hint {
        map.insert("hint".into(), h.into());
    }
    map.extend(fields);
    Value::Object(map)
}

/// The `result` of a command that ran to its end: everything but `refused` and `error`.
pub const SUCCESS_RESULTS: [&str; 4] = ["ok", "applied", "applied-unconfirmed", "unchanged"];

/// The `kind` of an `error` document.
pub const ERROR_KINDS: [&str; 3] = ["usage-error", "io-error", "error"];

/// The JSON Schema (draft 2020-12) of every document one command prints with `--json`: one of
/// its success documents (`successes`, schemas the generator made, each in the envelope with a
/// success `result`), a refusal, or an error. `generator` holds the definitions the successes
/// refer to; they go under `$defs`.
pub fn schema(
    title: &str,
    successes: Vec<schemars::Schema>,
    generator: &mut schemars::SchemaGenerator,
) -> Value {
    use serde_json::json;
    let refusal = generator.subschema_for::<Refusal>();
    let success = json!({
        "title": "success",
        "allOf": [
            { "anyOf": successes },
            {
                "type": "object",
                "required": ["result"],
                "properties": {
                    "result": { "enum": SUCCESS_RESULTS },
                    // Only in `applied-unconfirmed`: the result the run would have had, and
                    // what was not confirmed after the commit point.
                    "applied": { "enum": ["applied", "unchanged", "ok"] },
                    "unconfirmed": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "required": ["kind", "path", "reason", "message", "hint"],
                            "properties": {
                                "kind": { "type": "string" },
                                "path": { "type": "string" },
                                "reason": { "type": "string" },
                                "message": { "type": "string" },
                                "hint": { "type": "string" }
                            },
                            "additionalProperties": false
                        }
                    }
                }
            }
        ]
    });
    let refused = json!({
        "title": "refused",
        "allOf": [
            refusal,
            {
                "type": "object",
                "required": ["result", "kind", "message"],
                "properties": { "result": { "const": "refused" } }
            }
        ]
    });
    let error = json!({
        "title": "error",
        "type": "object",
        "required": ["result", "kind", "message"],
        "properties": {
            "result": { "const": "error" },
            "kind": { "enum": ERROR_KINDS },
            "message": { "type": "string" },
            "hint": { "type": "string" },
            "arguments": { "type": "array", "items": { "type": "string" } }
        },
        "additionalProperties": false
    });
    let defs: Map<String, Value> = generator.take_definitions(true).into_iter().collect();
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": title,
        "oneOf": [success, refused, error],
        "$defs": defs,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::RefusalKind;
    use serde_json::json;

    #[test]
    fn result_comes_first_then_kind_message_hint() {
        let doc = seal(
            json!({"plan": "PLAN_x", "hint": "h", "result": "applied", "kind": "k"}),
            "ok",
        );
        let keys: Vec<&str> = doc
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(keys, ["result", "kind", "hint", "plan"]);
        assert!(is_sealed(&doc));
        assert_eq!(seal(json!({"a": 1}), "ok")["result"], "ok");
        assert_eq!(
            seal(json!("line"), "ok"),
            json!({"result": "ok", "value": "line"})
        );
        assert!(!is_sealed(&json!({"result": "dry-run"})));
        assert!(!is_sealed(&json!({"a": 1, "result": "ok"})));
    }

    #[test]
    fn a_refusal_is_at_the_top_level() {
        let r = Refusal::new(RefusalKind::LockPresent, "held").hint("wait");
        assert_eq!(
            refused(&r),
            json!({"result": "refused", "kind": "lock-present", "message": "held", "hint": "wait"})
        );
    }
}
