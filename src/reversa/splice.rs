//! Editing one top-level value of a JSON object *in the text*, so that every other byte — key
//! order, unknown fields, indentation, spacing, line endings, trailing newline — stays as it was.
//! Re-serialising the whole document could not promise that; splicing can.

use crate::jsonscan::{skip_space, string_end, value_end};
use serde_json::Value;

/// Why a text could not be edited.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SpliceError {
    /// The text is not one JSON object (or its top level cannot be scanned).
    #[error("the text is not a JSON object")]
    NotObject,
    /// A top-level key (the value) appears twice: which one to change would be a guess.
    #[error("key `{0}` appears more than once at the top level; remove the duplicate first")]
    DuplicateKey(String),
}

/// Where one top-level entry lies in the text (byte offsets).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Entry {
    pub key: String,
    pub key_start: usize,
    pub value_start: usize,
    pub value_end: usize,
}

/// The top-level layout of an object text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Layout {
    pub entries: Vec<Entry>,
    /// Offset of the closing `}`.
    pub close: usize,
    /// Offset just after the opening `{`.
    pub open_end: usize,
}

/// The file's own style, read from its first entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Style {
    /// `None` for a one-line object.
    pub indent: Option<String>,
    pub newline: &'static str,
    /// What stands between a key's closing quote and its value (`": "` in most files).
    pub colon: String,
    /// What separates the elements of a one-line array or object (`", "` or `","`): taken from
    /// the file's own one-line arrays, else guessed from `colon`.
    pub inline_sep: String,
    /// Space just inside the brackets of a one-line array or object (`[ "a" ]`), usually none.
    pub inline_pad: String,
}

/// Scans the top level of an object text (the caller has already checked it is valid JSON).
pub(crate) fn layout(text: &str) -> Result<Layout, SpliceError> {
    let b = text.as_bytes();
    let mut i = skip_space(b, 0);
    if b.get(i) != Some(&b'{') {
        return Err(SpliceError::NotObject);
    }
    let open_end = i + 1;
    i = skip_space(b, open_end);
    let mut entries: Vec<Entry> = Vec::new();
    loop {
        match b.get(i) {
            Some(b'}') => {
                return Ok(Layout {
                    entries,
                    close: i,
                    open_end,
                });
            }
            Some(b'"') => {
                let key_start = i;
                let key_end = string_end(b, i).ok_or(SpliceError::NotObject)?;
                let key: String = serde_json::from_str(&text[key_start..key_end])
                    .map_err(|_| SpliceError::NotObject)?;
                i = skip_space(b, key_end);
                if b.get(i) != Some(&b':') {
                    return Err(SpliceError::NotObject);
                }
                let value_start = skip_space(b, i + 1);
                let vend = value_end(b, value_start).ok_or(SpliceError::NotObject)?;
                if entries.iter().any(|e| e.key == key) {
                    return Err(SpliceError::DuplicateKey(key));
                }
                entries.push(Entry {
                    key,
                    key_start,
                    value_start,
                    value_end: vend,
                });
                i = skip_space(b, vend);
                if b.get(i) == Some(&b',') {
                    i = skip_space(b, i + 1);
                }
            }
            _ => return Err(SpliceError::NotObject),
        }
    }
}

impl Style {
    /// The style of `text`, read from its first entry and its one-line arrays.
    pub(crate) fn detect(text: &str, layout: &Layout) -> Self {
        let newline = if text.contains("\r\n") { "\r\n" } else { "\n" };
        let Some(first) = layout.entries.first() else {
            return Self {
                indent: Some("  ".into()),
                newline,
                colon: ": ".into(),
                inline_sep: ", ".into(),
                inline_pad: String::new(),
            };
        };
        let before = &text[layout.open_end..first.key_start];
        let indent = before
            .rfind('\n')
            .map(|nl| before[nl + 1..].to_string())
            .filter(|s| !s.is_empty());
        let key_end = string_end(text.as_bytes(), first.key_start).unwrap_or(first.key_start);
        let colon = text[key_end..first.value_start].to_string();
        let guessed_sep = if colon.ends_with(' ') { ", " } else { "," };
        // The first one-line array or object with two elements or more shows the file's habit.
        let inline = layout
            .entries
            .iter()
            .map(|e| &text[e.value_start..e.value_end])
            .find_map(inline_shape);
        let (inline_sep, inline_pad) =
            inline.unwrap_or_else(|| (guessed_sep.to_string(), String::new()));
        Self {
            indent,
            newline,
            colon,
            inline_sep,
            inline_pad,
        }
    }

    /// This style with the inline separator and padding of `old` (a value of the file) when it
    /// shows them, so an edited array keeps its own spacing.
    fn with_inline_of(&self, old: &str) -> Self {
        let mut style = self.clone();
        if let Some((sep, pad)) = inline_shape(old) {
            style.inline_sep = sep;
            style.inline_pad = pad;
        }
        style
    }
}

/// The separator and inner padding of a one-line array or object text with at least two
/// elements (`["a", "b"]` ⇒ `(", ", "")`, `[ "a","b" ]` ⇒ `(",", " ")`).
fn inline_shape(value: &str) -> Option<(String, String)> {
    let b = value.as_bytes();
    if !matches!(b.first(), Some(b'[' | b'{')) || value.contains('\n') {
        return None;
    }
    let pad_len = skip_space(b, 1) - 1;
    let mut depth = 0usize;
    let mut j = 0;
    while j < b.len() {
        match b[j] {
            b'"' => {
                j = string_end(b, j)?;
                continue;
            }
            b'{' | b'[' => depth += 1,
            b'}' | b']' => depth = depth.saturating_sub(1),
            b',' if depth == 1 => {
                let after = skip_space(b, j + 1);
                return Some((
                    value[j..after].to_string(),
                    value[1..1 + pad_len].to_string(),
                ));
            }
            _ => {}
        }
        j += 1;
    }
    None
}

/// The padding before the first element and before the closing bracket of a multi-line array
/// or object text (`[\n    "a"\n  ]` ⇒ `("    ", "  ")`).
fn multiline_pads(value: &str) -> Option<(String, String)> {
    let first_nl = value.find('\n')?;
    let rest = &value[first_nl + 1..];
    let inner: String = rest
        .chars()
        .take_while(|c| *c == ' ' || *c == '\t')
        .collect();
    let last_nl = value.rfind('\n')?;
    let outer = &value[last_nl + 1..value.len().saturating_sub(1)];
    if rest.trim_start().starts_with([']', '}']) || !outer.chars().all(|c| c == ' ' || c == '\t') {
        return None;
    }
    Some((inner, outer.to_string()))
}

/// Renders `value` for depth `depth` (1 = a top-level value). `multiline` chooses between the
/// pretty form (one element per line, the file's indent) and the inline form (`["a", "b"]`).
pub(crate) fn render(value: &Value, style: &Style, depth: usize, multiline: bool) -> String {
    let unit = style.indent.as_deref().unwrap_or("  ");
    let inner_pad = unit.repeat(depth + 1);
    let outer_pad = unit.repeat(depth);
    let sep_inline = style.inline_sep.as_str();
    let pad = style.inline_pad.as_str();
    match value {
        Value::Array(items) if items.is_empty() => "[]".into(),
        Value::Object(map) if map.is_empty() => "{}".into(),
        Value::Array(items) => {
            let parts: Vec<String> = items
                .iter()
                .map(|v| render(v, style, depth + 1, multiline))
                .collect();
            if multiline {
                let nl = style.newline;
                let body: Vec<String> = parts.iter().map(|p| format!("{inner_pad}{p}")).collect();
                format!("[{nl}{}{nl}{outer_pad}]", body.join(&format!(",{nl}")))
            } else {
                format!("[{pad}{}{pad}]", parts.join(sep_inline))
            }
        }
        Value::Object(map) => {
            let colon = if style.colon.is_empty() {
                ":"
            } else {
                style.colon.as_str()
            };
            let parts: Vec<String> = map
                .iter()
                .map(|(k, v)| {
                    format!(
                        "{}{colon}{}",
                        Value::String(k.clone()),
                        render(v, style, depth + 1, multiline)
                    )
                })
                .collect();
            if multiline {
                let nl = style.newline;
                let body: Vec<String> = parts.iter().map(|p| format!("{inner_pad}{p}")).collect();
                format!("{{{nl}{}{nl}{outer_pad}}}", body.join(&format!(",{nl}")))
            } else {
                format!("{{{pad}{}{pad}}}", parts.join(sep_inline))
            }
        }
        scalar => scalar.to_string(),
    }
}

/// Moves a rendered multi-line value from the default pads to the old value's: each line after
/// the first starting with `from_inner` gets `to_inner` instead, the closing line `to_outer`.
fn reindent(
    rendered: &str,
    from_inner: &str,
    to_inner: &str,
    from_outer: &str,
    to_outer: &str,
) -> String {
    let lines: Vec<&str> = rendered.split('\n').collect();
    let last = lines.len() - 1;
    lines
        .iter()
        .enumerate()
        .map(|(i, line)| {
            if i == 0 {
                (*line).to_string()
            } else if i == last {
                format!(
                    "{to_outer}{}",
                    line.strip_prefix(from_outer).unwrap_or(line)
                )
            } else {
                match line.strip_prefix(from_inner) {
                    Some(rest) => format!("{to_inner}{rest}"),
                    None => (*line).to_string(),
                }
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// `value` rendered to replace `old` at `depth`: in the one-line or multi-line form `old` has,
/// with its own separators and, when multi-line, its own element and closing indents.
fn render_in_place(old: &str, value: &Value, style: &Style, depth: usize) -> String {
    let own = style.with_inline_of(old);
    let mut rendered = render(value, &own, depth, old.contains('\n'));
    if let (Some((inner, outer)), Some((new_inner, new_outer))) =
        (multiline_pads(old), multiline_pads(&rendered))
        && (inner != new_inner || outer != new_outer)
    {
        rendered = reindent(&rendered, &new_inner, &inner, &new_outer, &outer);
    }
    rendered
}

/// Sets top-level `key` to `value` in `text`: an existing value is replaced where it stands (in
/// the same one-line or multi-line form it had); a new key is appended after the last entry.
pub fn set_top_level(text: &str, key: &str, value: &Value) -> Result<String, SpliceError> {
    let lay = layout(text)?;
    let style = Style::detect(text, &lay);
    if let Some(e) = lay.entries.iter().find(|e| e.key == key) {
        let rendered = render_in_place(&text[e.value_start..e.value_end], value, &style, 1);
        let mut out = String::with_capacity(text.len() + rendered.len());
        out.push_str(&text[..e.value_start]);
        out.push_str(&rendered);
        out.push_str(&text[e.value_end..]);
        return Ok(out);
    }
    let multiline = style.indent.is_some();
    let rendered = render(value, &style, 1, multiline);
    let colon = if style.colon.is_empty() {
        ": "
    } else {
        style.colon.as_str()
    };
    let entry = format!("{}{colon}{rendered}", Value::String(key.to_string()));
    let mut out = String::with_capacity(text.len() + entry.len() + 8);
    match lay.entries.last() {
        Some(last) => {
            out.push_str(&text[..last.value_end]);
            match &style.indent {
                Some(indent) => {
                    out.push(',');
                    out.push_str(style.newline);
                    out.push_str(indent);
                }
                None => out.push_str(if style.colon.ends_with(' ') {
                    ", "
                } else {
                    ","
                }),
            }
            out.push_str(&entry);
            out.push_str(&text[last.value_end..]);
        }
        None => {
            let nl = style.newline;
            out.push_str(&text[..lay.open_end]);
            out.push_str(&format!("{nl}  {entry}{nl}"));
            out.push_str(&text[lay.close..]);
        }
    }
    Ok(out)
}

/// Sets the value at `path` (keys from the top level down: `["checkpoints", "scout",
/// "files"]`), every object on the way created when absent; every other byte stays. An existing
/// value is replaced where it stands (in its own one-line or multi-line form); a new key is
/// appended after the last entry of its object, in that object's indentation.
pub fn set_path(text: &str, path: &[&str], value: &Value) -> Result<String, SpliceError> {
    let Some((&first, rest)) = path.split_first() else {
        return Err(SpliceError::NotObject);
    };
    if rest.is_empty() {
        return set_top_level(text, first, value);
    }
    let lay = layout(text)?;
    let style = Style::detect(text, &lay);
    let Some(entry) = lay.entries.iter().find(|e| e.key == first) else {
        return set_top_level(text, first, &nested(rest, value));
    };
    let (start, end) = (entry.value_start, entry.value_end);
    let inner = set_in(&text[start..end], rest, value, &style, 2)?;
    Ok(format!("{}{inner}{}", &text[..start], &text[end..]))
}

/// Whether the object writes its lists of strings and numbers on one line (`"files": ["a", "b"]`),
/// so a new record does the same.
fn inline_scalar_arrays(obj: &str) -> bool {
    obj.lines().any(|l| {
        let t = l.trim_end().trim_end_matches(',');
        t.contains(": [") && t.ends_with(']') && !t.contains('{')
    })
}

/// A new value in the multi-line form, its lists of plain values on one line.
fn render_objects_open(value: &Value, style: &Style, depth: usize) -> String {
    match value {
        Value::Object(map) if !map.is_empty() => {
            let unit = style.indent.as_deref().unwrap_or("  ");
            let nl = style.newline;
            let colon = if style.colon.is_empty() {
                ":"
            } else {
                style.colon.as_str()
            };
            let parts: Vec<String> = map
                .iter()
                .map(|(k, v)| {
                    format!(
                        "{}{}{colon}{}",
                        unit.repeat(depth + 1),
                        Value::String(k.clone()),
                        render_objects_open(v, style, depth + 1)
                    )
                })
                .collect();
            format!(
                "{{{nl}{}{nl}{}}}",
                parts.join(&format!(",{nl}")),
                unit.repeat(depth)
            )
        }
        Value::Array(items) if items.iter().all(|i| !i.is_object() && !i.is_array()) => {
            render(value, style, depth, false)
        }
        other => render(other, style, depth, true),
    }
}

/// The object `{k1: {k2: … value}}` a path below a missing key makes.
fn nested(path: &[&str], value: &Value) -> Value {
    path.iter().rev().fold(value.clone(), |v, k| {
        let mut m = serde_json::Map::new();
        m.insert((*k).to_string(), v);
        Value::Object(m)
    })
}

/// [`set_path`] inside `obj`, an object value at `depth` (2 = a value of a top-level key).
fn set_in(
    obj: &str,
    path: &[&str],
    value: &Value,
    style: &Style,
    depth: usize,
) -> Result<String, SpliceError> {
    let lay = layout(obj)?;
    let (&key, rest) = path.split_first().ok_or(SpliceError::NotObject)?;
    if let Some(e) = lay.entries.iter().find(|e| e.key == key) {
        let (start, end) = (e.value_start, e.value_end);
        let old = &obj[start..end];
        let replaced = if rest.is_empty() {
            render_in_place(old, value, style, depth)
        } else {
            set_in(old, rest, value, style, depth + 1)?
        };
        return Ok(format!("{}{replaced}{}", &obj[..start], &obj[end..]));
    }
    let v = if rest.is_empty() {
        value.clone()
    } else {
        nested(rest, value)
    };
    let colon = if style.colon.is_empty() {
        ": "
    } else {
        style.colon.as_str()
    };
    let multiline = style.indent.is_some() && (obj.contains('\n') || lay.entries.is_empty());
    let rendered = if multiline && inline_scalar_arrays(obj) {
        render_objects_open(&v, style, depth)
    } else {
        render(&v, style, depth, multiline)
    };
    let entry = format!("{}{colon}{rendered}", Value::String(key.to_string()));
    let unit = style.indent.as_deref().unwrap_or("  ");
    Ok(match lay.entries.last() {
        Some(last) => {
            let sep = if multiline {
                // The indentation of this object's own entries.
                let before = &obj[..lay.entries[0].key_start];
                let indent = before
                    .rfind('\n')
                    .map_or_else(|| unit.repeat(depth), |nl| before[nl + 1..].to_string());
                format!(",{}{indent}", style.newline)
            } else if style.colon.ends_with(' ') {
                ", ".to_string()
            } else {
                ",".to_string()
            };
            format!(
                "{}{sep}{entry}{}",
                &obj[..last.value_end],
                &obj[last.value_end..]
            )
        }
        None if multiline => {
            let nl = style.newline;
            format!(
                "{}{nl}{}{entry}{nl}{}{}",
                &obj[..lay.open_end],
                unit.repeat(depth),
                unit.repeat(depth - 1),
                &obj[lay.close..]
            )
        }
        None => format!("{}{entry}{}", &obj[..lay.open_end], &obj[lay.close..]),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    #[test]
    fn replaces_only_the_value() {
        let text = "{\n    \"a\": 1,\n    \"phase\": \"x\",\n    \"z\": [\"q\", \"r\"]\n}";
        let out = set_top_level(text, "phase", &json!("y")).expect("edits");
        assert_eq!(
            out,
            "{\n    \"a\": 1,\n    \"phase\": \"y\",\n    \"z\": [\"q\", \"r\"]\n}"
        );
        let out = set_top_level(text, "z", &json!(["q"])).expect("edits");
        assert!(out.ends_with("\"z\": [\"q\"]\n}"));
    }

    #[test]
    fn multiline_arrays_stay_multiline_with_the_file_indent() {
        let text = "{\r\n\t\"list\": [\r\n\t\t\"a\"\r\n\t]\r\n}\r\n";
        let out = set_top_level(text, "list", &json!(["a", "b"])).expect("edits");
        assert_eq!(
            out,
            "{\r\n\t\"list\": [\r\n\t\t\"a\",\r\n\t\t\"b\"\r\n\t]\r\n}\r\n"
        );
    }

    #[test]
    fn new_keys_are_appended() {
        let out = set_top_level("{\n  \"a\": 1\n}", "b", &json!({"c": ["é"]})).expect("edits");
        assert_eq!(
            out,
            "{\n  \"a\": 1,\n  \"b\": {\n    \"c\": [\n      \"é\"\n    ]\n  }\n}"
        );
        let out = set_top_level("{\"a\":1}", "b", &json!(2)).expect("edits");
        assert_eq!(out, "{\"a\":1,\"b\":2}");
        let out = set_top_level("{}", "b", &json!(2)).expect("edits");
        assert_eq!(out, "{\n  \"b\": 2\n}");
    }

    #[test]
    fn edited_arrays_keep_their_own_style() {
        // Compact one-line arrays stay compact even when the keys have `": "`.
        let text = "{\n  \"completed\": [\"a\"],\n  \"pending\": [\"b\",\"c\",\"d\"]\n}";
        let out = set_top_level(text, "pending", &json!(["c", "d"])).expect("edits");
        assert_eq!(
            out,
            "{\n  \"completed\": [\"a\"],\n  \"pending\": [\"c\",\"d\"]\n}"
        );
        // A one-element array takes the style of the file's other one-line arrays.
        let out = set_top_level(text, "completed", &json!(["a", "b"])).expect("edits");
        assert!(out.contains("\"completed\": [\"a\",\"b\"],"), "{out}");
        // Spaced and padded arrays stay so.
        let text = "{\"x\":[ 1,  2 ],\"y\":[3]}";
        let out = set_top_level(text, "x", &json!([1, 2, 3])).expect("edits");
        assert_eq!(out, "{\"x\":[ 1,  2,  3 ],\"y\":[3]}");
        let out = set_top_level(text, "y", &json!([3, 4])).expect("edits");
        assert_eq!(out, "{\"x\":[ 1,  2 ],\"y\":[ 3,  4 ]}");
        // One element per line keeps the array's own indents, even when they differ from the
        // file's indent unit.
        let text = "{\n  \"list\": [\n      \"a\",\n      \"b\"\n    ],\n  \"n\": 1\n}";
        let out = set_top_level(text, "list", &json!(["b", "c", "d"])).expect("edits");
        assert_eq!(
            out,
            "{\n  \"list\": [\n      \"b\",\n      \"c\",\n      \"d\"\n    ],\n  \"n\": 1\n}"
        );
    }

    #[test]
    fn nested_values_keep_every_other_byte() {
        let text = "{\n  \"a\": 1,\n  \"checkpoints\": {\n    \"scout\": {\n      \"completed_at\": \"x\",\n      \"files\": [\"a\"],\n      \"notes\": \"n\"\n    }\n  }\n}";
        let out =
            set_path(text, &["checkpoints", "scout", "files"], &json!(["a", "b"])).expect("edits");
        assert_eq!(out, text.replace("[\"a\"]", "[\"a\", \"b\"]"));
        let out = set_path(
            text,
            &["checkpoints", "digger", "completed_at"],
            &json!("t"),
        )
        .expect("edits");
        assert_eq!(
            out,
            text.replace(
                "\"n\"\n    }\n",
                "\"n\"\n    },\n    \"digger\": {\n      \"completed_at\": \"t\"\n    }\n"
            )
        );
        let out = set_path(
            "{\n  \"checkpoints\": {}\n}",
            &["checkpoints", "s"],
            &json!({"f": []}),
        )
        .expect("edits");
        assert_eq!(
            out,
            "{\n  \"checkpoints\": {\n    \"s\": {\n      \"f\": []\n    }\n  }\n}"
        );
        let out = set_path("{\"a\":1}", &["checkpoints", "s"], &json!(1)).expect("edits");
        assert_eq!(out, "{\"a\":1,\"checkpoints\":{\"s\":1}}");
    }

    #[test]
    fn duplicate_keys_refuse() {
        assert_eq!(
            set_top_level("{\"a\":1,\"a\":2}", "a", &json!(3)),
            Err(SpliceError::DuplicateKey("a".into()))
        );
    }

    proptest! {
        // Whatever the value, the edited text parses, holds the new value and keeps every other
        // key with its value and position.
        #[test]
        fn edit_keeps_everything_else(
            keys in proptest::collection::vec("[a-z]{1,6}", 1..6),
            target in 0usize..6,
            newval in proptest::collection::vec("[ -~é]{0,8}", 0..4),
            pretty in any::<bool>(),
        ) {
            let mut map = serde_json::Map::new();
            for (i, k) in keys.iter().enumerate() {
                map.insert(k.clone(), json!([i, {"n": k}]));
            }
            let original = Value::Object(map.clone());
            let text = if pretty { serde_json::to_string_pretty(&original).expect("serialises") } else { original.to_string() };
            let key = keys.get(target).cloned().unwrap_or_else(|| "fresh".into());
            let out = set_top_level(&text, &key, &json!(newval)).expect("edits");
            let parsed: Value = serde_json::from_str(&out).expect("still JSON");
            let obj = parsed.as_object().expect("object");
            prop_assert_eq!(obj.get(&key), Some(&json!(newval)));
            let before: Vec<&String> = map.keys().collect();
            let after: Vec<&String> = obj.keys().filter(|k| map.contains_key(*k)).collect();
            prop_assert_eq!(before, after);
            for (k, v) in &map {
                if *k != key { prop_assert_eq!(obj.get(k), Some(v)); }
            }
        }
    }
}
