//! The publication marker `.finalizing.json`, written atomically at step 6 of the transaction.
//!
//! The DWP helper writes one line, `{"candidate_sha256": "<hex>", "artifacts_sha256": "<hex>"}`,
//! with `", "` / `": "` separators and no trailing newline. planseal writes the same two keys first,
//! in the same layout, then its own: the hash of the state before, the tool version, the start
//! time and the candidate's exact text, so that recovery is bound to the very bytes that were being
//! published. The original tools only test whether the file exists.

use crate::dwp::layout;
use planseal_recovery::hash::{is_sha256_hex, sha256_hex};
use serde_json::Value;

/// File name of the marker inside the plan folder.
pub const MARKER_FILE: &str = layout::MARKER_FILE;

/// Version of planseal's extension of the marker; a newer one is never rewritten.
pub const MARKER_VERSION: u64 = 1;

/// What a marker says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Marker {
    /// SHA-256 of the state bytes being published.
    pub candidate_sha256: String,
    /// The artifact fingerprint the candidate was validated against.
    pub artifacts_sha256: String,
    /// planseal's part; `None` for a marker left by the original helper.
    pub planseal: Option<MarkerExtension>,
}

/// planseal's keys after the helper's two.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MarkerExtension {
    /// The extension's version, [`MARKER_VERSION`] when planseal writes it (a marker that omits
    /// it reads as that version).
    pub marker_version: u64,
    /// SHA-256 of state.json when the transaction started.
    pub state_sha256_before: String,
    /// The planseal that wrote the marker (`planseal X.Y.Z`).
    pub tool_version: String,
    /// When the transaction started (UTC ISO-8601, `+00:00`).
    pub started_at: String,
    /// The candidate's exact text; its SHA-256 equals `candidate_sha256`.
    pub candidate: String,
    /// Plan files the same publication writes with state.json (`rebuild --write`: the
    /// PROGRESS.md reconciliation entry, the copy of an unparseable state.json), before and
    /// after, so that `recover` finishes or rolls back all of it. Written only when not empty.
    pub companions: Vec<Companion>,
}

/// A plan file written inside the publication, before state.json.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Companion {
    /// Its plan-relative name (`PROGRESS.md`).
    pub file: String,
    /// Its bytes before the publication; `None` when it did not exist.
    pub before: Option<Vec<u8>>,
    /// Its bytes once published.
    pub after: Vec<u8>,
}

/// Why a marker could not be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MarkerError {
    /// The bytes are not JSON, or not an object; the text says why.
    #[error("the marker is not a JSON object: {0}")]
    NotJson(String),
    /// The key whose value is missing or not 64 hex digits.
    #[error("the marker has no valid `{0}` (64 hex digits expected)")]
    MissingHash(&'static str),
    /// The key of planseal's extension whose value is missing or not a string.
    #[error("the marker's `{0}` is not a string")]
    BadField(&'static str),
    /// The stored candidate is not the one the marker's hash names: it cannot bind a recovery.
    #[error(
        "the candidate stored in the marker hashes to {actual}, not to its candidate_sha256 {expected}"
    )]
    CandidateHashMismatch {
        /// The marker's `candidate_sha256`.
        expected: String,
        /// The SHA-256 of the stored `candidate` text.
        actual: String,
    },
    /// The marker's `marker_version`, newer than [`MARKER_VERSION`].
    #[error("the marker was written by a newer planseal (marker version {0})")]
    NewerVersion(u64),
}

impl Marker {
    /// The marker's bytes: the helper's two keys in the helper's layout, then planseal's keys in
    /// the same layout, one line, no trailing newline.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = String::with_capacity(200);
        out.push('{');
        push_pair(
            &mut out,
            "candidate_sha256",
            &json_str(&self.candidate_sha256),
            true,
        );
        push_pair(
            &mut out,
            "artifacts_sha256",
            &json_str(&self.artifacts_sha256),
            false,
        );
        if let Some(ext) = &self.planseal {
            push_pair(
                &mut out,
                "marker_version",
                &ext.marker_version.to_string(),
                false,
            );
            push_pair(
                &mut out,
                "state_sha256_before",
                &json_str(&ext.state_sha256_before),
                false,
            );
            push_pair(
                &mut out,
                "tool_version",
                &json_str(&ext.tool_version),
                false,
            );
            push_pair(&mut out, "started_at", &json_str(&ext.started_at), false);
            push_pair(&mut out, "candidate", &json_str(&ext.candidate), false);
            if !ext.companions.is_empty() {
                let list: Vec<Value> = ext.companions.iter().map(companion_value).collect();
                push_pair(
                    &mut out,
                    "companions",
                    &Value::Array(list).to_string(),
                    false,
                );
            }
        }
        out.push('}');
        out.into_bytes()
    }

    /// Reads a marker written by either tool. A planseal marker whose stored candidate does not
    /// hash to `candidate_sha256` is refused: it cannot bind a recovery.
    pub fn parse(bytes: &[u8]) -> Result<Self, MarkerError> {
        let value: Value =
            serde_json::from_slice(bytes).map_err(|e| MarkerError::NotJson(e.to_string()))?;
        let Value::Object(map) = value else {
            return Err(MarkerError::NotJson("not an object".into()));
        };
        let hash = |key: &'static str| -> Result<String, MarkerError> {
            match map.get(key) {
                Some(Value::String(s)) if is_sha256_hex(s) => Ok(s.to_ascii_lowercase()),
                _ => Err(MarkerError::MissingHash(key)),
            }
        };
        let candidate_sha256 = hash("candidate_sha256")?;
        let artifacts_sha256 = hash("artifacts_sha256")?;
        let planseal = if map.contains_key("candidate") || map.contains_key("marker_version") {
            let version = map
                .get("marker_version")
                .and_then(Value::as_u64)
                .unwrap_or(MARKER_VERSION);
            if version > MARKER_VERSION {
                return Err(MarkerError::NewerVersion(version));
            }
            let text = |key: &'static str| -> Result<String, MarkerError> {
                match map.get(key) {
                    Some(Value::String(s)) => Ok(s.clone()),
                    _ => Err(MarkerError::BadField(key)),
                }
            };
            let candidate = text("candidate")?;
            let actual = sha256_hex(candidate.as_bytes());
            if actual != candidate_sha256 {
                return Err(MarkerError::CandidateHashMismatch {
                    expected: candidate_sha256,
                    actual,
                });
            }
            Some(MarkerExtension {
                marker_version: version,
                state_sha256_before: hash("state_sha256_before")?,
                tool_version: text("tool_version")?,
                started_at: text("started_at")?,
                candidate,
                companions: match map.get("companions") {
                    None => Vec::new(),
                    Some(Value::Array(list)) => list
                        .iter()
                        .map(companion_of)
                        .collect::<Option<Vec<_>>>()
                        .ok_or(MarkerError::BadField("companions"))?,
                    Some(_) => return Err(MarkerError::BadField("companions")),
                },
            })
        } else {
            None
        };
        Ok(Self {
            candidate_sha256,
            artifacts_sha256,
            planseal,
        })
    }
}

/// A companion as the marker stores it: its bytes as text when they are UTF-8, else as hex
/// (`"encoding": "hex"`).
fn companion_value(c: &Companion) -> Value {
    let utf8 = std::str::from_utf8(&c.after).is_ok()
        && c.before
            .as_deref()
            .is_none_or(|b| std::str::from_utf8(b).is_ok());
    let encode = |bytes: &[u8]| -> Value {
        if utf8 {
            Value::String(String::from_utf8_lossy(bytes).into_owned())
        } else {
            Value::String(planseal_recovery::hash::to_hex(bytes))
        }
    };
    serde_json::json!({
        "file": c.file,
        "encoding": if utf8 { "utf-8" } else { "hex" },
        "before": c.before.as_deref().map(encode),
        "after": encode(&c.after),
    })
}

fn companion_of(v: &Value) -> Option<Companion> {
    let hex = v["encoding"] == "hex";
    let decode = |v: &Value| -> Option<Vec<u8>> {
        let text = v.as_str()?;
        if !hex {
            return Some(text.as_bytes().to_vec());
        }
        (0..text.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(text.get(i..i + 2)?, 16).ok())
            .collect()
    };
    let file = v["file"].as_str()?;
    // A name that leaves the plan folder is never one planseal wrote.
    if file.is_empty() || file.starts_with('/') || file.split('/').any(|p| p == "..") {
        return None;
    }
    Some(Companion {
        file: file.to_string(),
        before: match &v["before"] {
            Value::Null => None,
            b => Some(decode(b)?),
        },
        after: decode(&v["after"])?,
    })
}

/// `"key": value` with the helper's separators (`", "` between pairs).
fn push_pair(out: &mut String, key: &str, value: &str, first: bool) {
    if !first {
        out.push_str(", ");
    }
    out.push_str(&json_str(key));
    out.push_str(": ");
    out.push_str(value);
}

/// A JSON string literal (control characters escaped, other text raw).
pub(crate) fn json_str(s: &str) -> String {
    serde_json::to_string(s)
        .expect("serialising a &str to JSON cannot fail because it has no map keys")
}

#[cfg(test)]
mod tests {
    use super::*;

    const H1: &str = "800c06975704feddfc170048662d68038c48704611dc728c075b8240f84ba056";
    const H2: &str = "cbc2a4a46459cae00f049b1ec5d928f8653aecddd670ba297ce4d3c86c3a4717";

    #[test]
    fn helper_layout_is_176_bytes_without_newline() {
        let m = Marker {
            candidate_sha256: H1.into(),
            artifacts_sha256: H2.into(),
            planseal: None,
        };
        let bytes = m.to_bytes();
        assert_eq!(bytes.len(), 176);
        assert_eq!(
            String::from_utf8(bytes.clone()).unwrap(),
            format!("{{\"candidate_sha256\": \"{H1}\", \"artifacts_sha256\": \"{H2}\"}}")
        );
        assert_eq!(Marker::parse(&bytes).unwrap(), m);
    }

    #[test]
    fn planseal_marker_round_trips_and_starts_with_the_helper_keys() {
        let candidate = "{\n  \"plan\": \"PLAN_x — ✅\"\n}\n".to_string();
        let m = Marker {
            candidate_sha256: sha256_hex(candidate.as_bytes()),
            artifacts_sha256: H2.into(),
            planseal: Some(MarkerExtension {
                marker_version: MARKER_VERSION,
                state_sha256_before: H1.into(),
                tool_version: "planseal 0.1.0".into(),
                started_at: "2026-10-05T09:00:00+00:00".into(),
                candidate: candidate.clone(),
                companions: vec![
                    Companion {
                        file: "PROGRESS.md".into(),
                        before: Some(b"# Progress\n".to_vec()),
                        after: b"# Progress\n\n- rebuilt\n".to_vec(),
                    },
                    Companion {
                        file: "state.json.corrupt-1".into(),
                        before: None,
                        after: vec![0xff, 0x00, b'{'],
                    },
                ],
            }),
        };
        let bytes = m.to_bytes();
        let head = format!(
            "{{\"candidate_sha256\": \"{}\", \"artifacts_sha256\": \"{H2}\", ",
            sha256_hex(candidate.as_bytes())
        );
        assert!(bytes.starts_with(head.as_bytes()));
        assert!(!bytes.ends_with(b"\n"));
        assert_eq!(Marker::parse(&bytes).unwrap(), m);
    }

    #[test]
    fn a_tampered_candidate_is_refused() {
        let text = format!(
            "{{\"candidate_sha256\": \"{H1}\", \"artifacts_sha256\": \"{H2}\", \"marker_version\": 1, \"state_sha256_before\": \"{H2}\", \"tool_version\": \"x\", \"started_at\": \"t\", \"candidate\": \"{{}}\"}}"
        );
        assert!(matches!(
            Marker::parse(text.as_bytes()),
            Err(MarkerError::CandidateHashMismatch { .. })
        ));
    }

    #[test]
    fn garbage_and_missing_hashes_are_refused() {
        assert!(matches!(Marker::parse(b"{"), Err(MarkerError::NotJson(_))));
        assert!(matches!(Marker::parse(b"[]"), Err(MarkerError::NotJson(_))));
        assert_eq!(
            Marker::parse(format!("{{\"candidate_sha256\": \"{H1}\"}}").as_bytes()),
            Err(MarkerError::MissingHash("artifacts_sha256"))
        );
    }
}
