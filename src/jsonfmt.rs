//! The one JSON writer of planseal.
//!
//! - [`to_python_pretty`]: byte-identical to Python's
//!   `json.dumps(v, indent=2, ensure_ascii=False) + "\n"`, the form the DWP helpers write
//!   (SPEC §1.9 byte facts): two-space indent, `": "` between key and value, one item per line,
//!   empty `[]`/`{}` inline, non-ASCII raw, control characters as `\u00xx` (lower-case hex)
//!   except `\b \f \n \r \t`, floats as Python's `repr` (`1e-05`, `1e+16`, `2.0`).
//! - [`to_python_line`]: `json.dumps(v, ensure_ascii=False)` — one line, `", "` and `": "`
//!   separators, no trailing newline (the `.finalizing.json` marker's form).
//! - [`JsonStyle::detect`] + [`to_bytes`]: rewrite a file in the style it was found in (indent
//!   width or tabs, one-line form and its separators, trailing newline, CRLF, UTF-8 BOM) — for
//!   Reversa files that planseal did not create.
//!
//! Key order is the order of the `serde_json::Map` (insertion order: the crate is built with
//! `preserve_order`), so a value parsed, edited in place and written keeps its keys where they
//! were.
//!
//! ```
//! let v = serde_json::json!({"a": [], "b": {"c": "—\u{1}"}, "d": 1e-5});
//! let bytes = planseal::jsonfmt::to_python_pretty(&v);
//! assert_eq!(
//!     String::from_utf8(bytes).unwrap(),
//!     "{\n  \"a\": [],\n  \"b\": {\n    \"c\": \"—\\u0001\"\n  },\n  \"d\": 1e-05\n}\n"
//! );
//! ```

use serde_json::Value;

/// How a JSON document is laid out on disk.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JsonStyle {
    /// The unit of indentation (`"  "`, `"    "`, `"\t"`); `None` for the one-line form.
    pub indent: Option<String>,
    /// Between items in the one-line form (`", "` or `","`). Ignored when indented.
    pub item_separator: String,
    /// Between a key and its value (`": "` or `":"`).
    pub key_separator: String,
    /// `"\n"` or `"\r\n"`, used between lines of the indented form and for the trailing newline.
    pub line_ending: String,
    /// The document ends with a line ending.
    pub trailing_newline: bool,
    /// The document starts with a UTF-8 byte order mark.
    pub bom: bool,
}

impl JsonStyle {
    /// `json.dumps(v, indent=2, ensure_ascii=False) + "\n"`.
    pub fn python_pretty() -> Self {
        JsonStyle {
            indent: Some("  ".to_string()),
            item_separator: ",".to_string(),
            key_separator: ": ".to_string(),
            line_ending: "\n".to_string(),
            trailing_newline: true,
            bom: false,
        }
    }

    /// `json.dumps(v, ensure_ascii=False)`: one line, no trailing newline.
    pub fn python_line() -> Self {
        JsonStyle {
            indent: None,
            item_separator: ", ".to_string(),
            key_separator: ": ".to_string(),
            line_ending: "\n".to_string(),
            trailing_newline: false,
            bom: false,
        }
    }

    /// The style of an existing document. Anything not visible in it (the indent of a document
    /// without nested lines, say) falls back to [`JsonStyle::python_pretty`].
    pub fn detect(bytes: &[u8]) -> Self {
        let mut style = JsonStyle::python_pretty();
        let body = strip_bom(bytes);
        style.bom = body.len() != bytes.len();
        let text = String::from_utf8_lossy(body);
        style.line_ending = if text.contains("\r\n") { "\r\n" } else { "\n" }.to_string();
        style.trailing_newline = text.ends_with('\n');
        let content = text.trim_end_matches(['\n', '\r']);
        let (key_sep, item_sep) = separators_outside_strings(content);
        if let Some(k) = key_sep {
            style.key_separator = k.to_string();
        }
        if !content.contains('\n') && content.len() > 2 {
            // One line: `{}` / `[]` alone say nothing, a longer one is the compact form.
            style.indent = None;
            style.item_separator = item_sep.unwrap_or(", ").to_string();
        } else if let Some(indent) = content
            .lines()
            .skip(1)
            .map(|l| &l[..l.len() - l.trim_start_matches([' ', '\t']).len()])
            .find(|ws| !ws.is_empty())
        {
            style.indent = Some(indent.to_string());
        }
        style
    }
}

/// The bytes without a leading UTF-8 byte order mark.
pub fn strip_bom(bytes: &[u8]) -> &[u8] {
    bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes)
}

/// Finds the first key separator (`":"` or `": "`) and item separator (`","` or `", "`)
/// outside strings.
fn separators_outside_strings(text: &str) -> (Option<&'static str>, Option<&'static str>) {
    let (mut key, mut item) = (None, None);
    let mut in_string = false;
    let mut escaped = false;
    let bytes = text.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        if in_string {
            match (escaped, b) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
            continue;
        }
        let spaced = bytes.get(i + 1) == Some(&b' ');
        match b {
            b'"' => in_string = true,
            b':' if key.is_none() => key = Some(if spaced { ": " } else { ":" }),
            b',' if item.is_none() => item = Some(if spaced { ", " } else { "," }),
            _ => {}
        }
        if key.is_some() && item.is_some() {
            break;
        }
    }
    (key, item)
}

/// Python's `json.dumps(v, indent=2, ensure_ascii=False) + "\n"`.
pub fn to_python_pretty(v: &Value) -> Vec<u8> {
    to_bytes(v, &JsonStyle::python_pretty())
}

/// Python's `json.dumps(v, ensure_ascii=False)` (no trailing newline).
pub fn to_python_line(v: &Value) -> Vec<u8> {
    to_bytes(v, &JsonStyle::python_line())
}

/// Serialises `v` in `style`.
pub fn to_bytes(v: &Value, style: &JsonStyle) -> Vec<u8> {
    let mut out = String::with_capacity(4096);
    if style.bom {
        out.push('\u{feff}');
    }
    write_value(&mut out, v, style, 0);
    if style.trailing_newline {
        out.push_str(&style.line_ending);
    }
    out.into_bytes()
}

fn newline_indent(out: &mut String, style: &JsonStyle, indent: &str, depth: usize) {
    out.push_str(&style.line_ending);
    for _ in 0..depth {
        out.push_str(indent);
    }
}

fn write_value(out: &mut String, v: &Value, style: &JsonStyle, depth: usize) {
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => write_number(out, n),
        Value::String(s) => write_string(out, s),
        Value::Array(items) => {
            if items.is_empty() {
                out.push_str("[]");
                return;
            }
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                separate(out, style, depth + 1, i == 0);
                write_value(out, item, style, depth + 1);
            }
            close(out, style, depth, ']');
        }
        Value::Object(map) => {
            if map.is_empty() {
                out.push_str("{}");
                return;
            }
            out.push('{');
            for (i, (key, item)) in map.iter().enumerate() {
                separate(out, style, depth + 1, i == 0);
                write_string(out, key);
                out.push_str(&style.key_separator);
                write_value(out, item, style, depth + 1);
            }
            close(out, style, depth, '}');
        }
    }
}

/// Before an item: the item separator (not before the first), then a new line when indented.
fn separate(out: &mut String, style: &JsonStyle, depth: usize, first: bool) {
    match &style.indent {
        Some(indent) => {
            if !first {
                out.push(',');
            }
            newline_indent(out, style, indent, depth);
        }
        None => {
            if !first {
                out.push_str(&style.item_separator);
            }
        }
    }
}

fn close(out: &mut String, style: &JsonStyle, depth: usize, bracket: char) {
    if let Some(indent) = &style.indent {
        newline_indent(out, style, indent, depth);
    }
    out.push(bracket);
}

/// A JSON string as Python writes it with `ensure_ascii=False`.
fn write_string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{08}' => out.push_str("\\b"),
            '\u{0c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

fn write_number(out: &mut String, n: &serde_json::Number) {
    if let Some(i) = n.as_i64() {
        out.push_str(&i.to_string());
    } else if let Some(u) = n.as_u64() {
        out.push_str(&u.to_string());
    } else if let Some(f) = n.as_f64() {
        out.push_str(&python_float_repr(f));
    } else {
        out.push_str(&n.to_string());
    }
}

/// Python's `repr(float)`: the shortest digits that round-trip, in fixed notation when the
/// decimal exponent is in -4..16, else `d.ddde±XX`; a whole number in fixed notation ends `.0`.
pub fn python_float_repr(f: f64) -> String {
    if f.is_nan() {
        return "NaN".to_string();
    }
    if f.is_infinite() {
        return if f > 0.0 { "Infinity" } else { "-Infinity" }.to_string();
    }
    if f == 0.0 {
        return if f.is_sign_negative() { "-0.0" } else { "0.0" }.to_string();
    }
    // Rust's `{:e}` gives the shortest round-trip digits: `-1.2345e-7`.
    let sci = format!("{:e}", f);
    let (mantissa, exp) = sci
        .split_once('e')
        .expect("`{:e}` output always has an exponent because that is its format");
    let exp: i32 = exp
        .parse()
        .expect("`{:e}` exponent is an integer because that is its format");
    let (sign, mantissa) = match mantissa.strip_prefix('-') {
        Some(m) => ("-", m),
        None => ("", mantissa),
    };
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    // Position of the decimal point relative to the digits (Python's `decpt`).
    let decpt = exp + 1;
    if (-4 < decpt) && (decpt <= 16) {
        let n = digits.len() as i32;
        let body = if decpt <= 0 {
            format!("0.{}{}", "0".repeat((-decpt) as usize), digits)
        } else if decpt >= n {
            format!("{}{}.0", digits, "0".repeat((decpt - n) as usize))
        } else {
            let (a, b) = digits.split_at(decpt as usize);
            format!("{a}.{b}")
        };
        format!("{sign}{body}")
    } else {
        let (first, rest) = digits.split_at(1);
        let frac = if rest.is_empty() {
            String::new()
        } else {
            format!(".{rest}")
        };
        let esign = if exp < 0 { '-' } else { '+' };
        format!("{sign}{first}{frac}e{esign}{:02}", exp.abs())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    #[test]
    fn floats_match_python_repr() {
        let cases = [
            (1.0, "1.0"),
            (0.1, "0.1"),
            (1e-5, "1e-05"),
            (0.0001, "0.0001"),
            (1e16, "1e+16"),
            (1e15, "1000000000000000.0"),
            (123456789012345680.0, "1.2345678901234568e+17"),
            (-2.5e-7, "-2.5e-07"),
            (1.5e300, "1.5e+300"),
            (12.5, "12.5"),
        ];
        for (f, want) in cases {
            assert_eq!(python_float_repr(f), want, "{f}");
        }
    }

    #[test]
    fn strings_escape_like_python() {
        let v = json!("a\"b\\c\n\r\t\u{8}\u{c}\u{1}\u{1f}\u{7f}é✅");
        assert_eq!(
            String::from_utf8(to_python_line(&v)).unwrap(),
            "\"a\\\"b\\\\c\\n\\r\\t\\b\\f\\u0001\\u001f\u{7f}é✅\""
        );
    }

    #[test]
    fn marker_form_is_one_line() {
        let v = json!({"candidate_sha256": "ab", "artifacts_sha256": "cd", "x": [1, {}]});
        assert_eq!(
            to_python_line(&v),
            b"{\"candidate_sha256\": \"ab\", \"artifacts_sha256\": \"cd\", \"x\": [1, {}]}"
        );
    }

    #[test]
    fn detects_and_keeps_styles() {
        for doc in [
            "{\n    \"a\": [\n        1\n    ],\n    \"b\": {}\n}",
            "\u{feff}{\r\n\t\"a\": \"x\"\r\n}\r\n",
            "{\"a\":1,\"b\":[1,2]}",
            "{\"a\": 1, \"b\": [1, 2]}\n",
            "{\n  \"a\": 1\n}\n",
        ] {
            let v: Value = serde_json::from_slice(strip_bom(doc.as_bytes())).unwrap();
            let style = JsonStyle::detect(doc.as_bytes());
            assert_eq!(String::from_utf8(to_bytes(&v, &style)).unwrap(), doc);
        }
    }

    #[test]
    fn every_recorded_state_round_trips_byte_for_byte() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/vectors/dwp");
        let mut seen = 0;
        for fixture in ["A_lite_v2", "B_full_v5", "D_v1"] {
            let dir = root.join(fixture).join("lifecycle/states");
            for entry in std::fs::read_dir(&dir).unwrap() {
                let bytes = std::fs::read(entry.unwrap().path()).unwrap();
                let v: Value = serde_json::from_slice(&bytes).unwrap();
                assert_eq!(to_python_pretty(&v), bytes);
                seen += 1;
            }
        }
        assert!(seen > 40, "{seen}");
    }

    fn arb_json() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(|i| json!(i)),
            any::<String>().prop_map(Value::String),
        ];
        leaf.prop_recursive(4, 32, 6, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
                prop::collection::vec((any::<String>(), inner), 0..5)
                    .prop_map(|kv| Value::Object(kv.into_iter().collect())),
            ]
        })
    }

    proptest! {
        // Without floats, Python's layout equals serde_json's pretty printer (which also escapes
        // control characters as lower-case `\u00xx`); both must parse back to the same value.
        #[test]
        fn agrees_with_serde_pretty_and_round_trips(v in arb_json()) {
            let ours = to_python_pretty(&v);
            let mut theirs = serde_json::to_vec_pretty(&v).unwrap();
            theirs.push(b'\n');
            prop_assert_eq!(&ours, &theirs);
            let back: Value = serde_json::from_slice(&ours).unwrap();
            prop_assert_eq!(back, v.clone());
            let line: Value = serde_json::from_slice(&to_python_line(&v)).unwrap();
            prop_assert_eq!(line, v);
        }

        #[test]
        fn floats_round_trip(f in any::<f64>().prop_filter("finite", |f| f.is_finite())) {
            let s = python_float_repr(f);
            prop_assert_eq!(s.parse::<f64>().unwrap(), f);
        }
    }
}
