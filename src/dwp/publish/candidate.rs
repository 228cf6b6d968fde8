//! The bytes a candidate is published as.
//!
//! The DWP helper parses the candidate it is given and writes its own serialisation of it
//! (2-space indent, non-ASCII raw, key order kept, a trailing newline); its marker's
//! `candidate_sha256` and its receipt's `state_sha256` are the hash of those bytes, not of the
//! file it was handed. planseal publishes the same bytes, so both tools seal the same state for
//! the same candidate, and a recovery accepts a candidate file whose raw bytes *or* whose
//! serialisation carries the marker's hash.
//!
//! ```
//! use planseal::dwp::publish::candidate::published_bytes;
//! let compact = br#"{"status":"completed","tasks":[]}"#;
//! let published = published_bytes(compact).unwrap();
//! assert_eq!(published, b"{\n  \"status\": \"completed\",\n  \"tasks\": []\n}\n");
//! // Already in that layout: the same bytes.
//! assert_eq!(published_bytes(&published).unwrap(), published);
//! ```

use crate::jsonfmt;
use planseal_recovery::hash::sha256_hex;
use serde_json::Value;

/// The candidate as the helper would write it, or `None` when it is not JSON.
pub fn published_bytes(raw: &[u8]) -> Option<Vec<u8>> {
    let value: Value = serde_json::from_slice(raw).ok()?;
    Some(jsonfmt::to_python_pretty(&value))
}

/// Of the candidate's raw bytes and its published serialisation, the one whose SHA-256 is
/// `sha256` (raw first: planseal's own markers hash exactly what they publish).
pub fn bytes_with_hash(raw: &[u8], sha256: &str) -> Option<Vec<u8>> {
    if sha256_hex(raw).eq_ignore_ascii_case(sha256) {
        return Some(raw.to_vec());
    }
    published_bytes(raw).filter(|b| sha256_hex(b).eq_ignore_ascii_case(sha256))
}

/// Where two states differ, as short paths (`status`, `tasks[3].outcome`, `updated_at`), at
/// most `limit` of them; an empty list means they hold the same values and differ only in
/// layout.
pub fn differences(a: &Value, b: &Value, limit: usize) -> Vec<String> {
    let mut out = Vec::new();
    walk(a, b, String::new(), &mut out, limit);
    out
}

fn walk(a: &Value, b: &Value, path: String, out: &mut Vec<String>, limit: usize) {
    if out.len() >= limit || a == b {
        return;
    }
    let at = |key: &str| {
        if path.is_empty() {
            key.to_string()
        } else {
            format!("{path}.{key}")
        }
    };
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            for (key, va) in x {
                match y.get(key) {
                    Some(vb) => walk(va, vb, at(key), out, limit),
                    None => push(out, limit, format!("{} (only in state.json)", at(key))),
                }
            }
            for key in y.keys().filter(|k| !x.contains_key(*k)) {
                push(out, limit, format!("{} (only in the candidate)", at(key)));
            }
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
            for (i, (va, vb)) in x.iter().zip(y).enumerate() {
                walk(va, vb, format!("{path}[{i}]"), out, limit);
            }
        }
        _ => push(
            out,
            limit,
            if path.is_empty() {
                "the whole document".to_string()
            } else {
                path
            },
        ),
    }
}

fn push(out: &mut Vec<String>, limit: usize, item: String) {
    if out.len() < limit {
        out.push(item);
    }
}
