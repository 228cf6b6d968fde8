//! Strict JSON reading for plan files: the bytes must be UTF-8 without a byte-order mark or NUL
//! bytes, one complete JSON document, no object may repeat a key, and nesting stays shallow.
//!
//! serde_json alone would keep the last of two equal keys silently (with `preserve_order`), which
//! would let a state hide a second `status` from one tool and show it to another; the visitor
//! below builds the same [`Value`] but refuses the repetition and names where it happened. A
//! faster hand-written reader (`plain`) reads well-formed documents first and leaves everything
//! else, every error included, to the visitor.

mod plain;

use crate::jsonscan::{skip_space, string_end, value_end};
use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};
use std::cell::RefCell;
use std::fmt;

/// Deepest nesting of arrays and objects accepted. Plan files are at most five levels deep; the
/// limit stays below serde_json's own (128) so that our clearer message is the one seen.
pub const MAX_DEPTH: usize = 100;

/// Why bytes are not an acceptable JSON document. Line and column are 1-based; the column counts
/// characters (as an editor shows them), not bytes.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum JsonError {
    /// Nothing but whitespace.
    #[error("the file is empty")]
    Empty,
    /// A byte sequence that is not UTF-8.
    #[error("the file is not UTF-8 (invalid byte at line {line}, column {column})")]
    InvalidUtf8 {
        /// Line of the first invalid byte.
        line: usize,
        /// Column of the first invalid byte.
        column: usize,
    },
    /// The bytes start with `EF BB BF`.
    #[error("the file starts with a UTF-8 byte-order mark, which JSON plan files must not carry")]
    ByteOrderMark,
    /// A NUL byte anywhere, even inside a string.
    #[error("the file holds a NUL byte at line {line}, column {column}")]
    NulByte {
        /// Line of the first NUL byte.
        line: usize,
        /// Column of the first NUL byte.
        column: usize,
    },
    /// The document ends before it is complete.
    #[error("the JSON is cut short at line {line}, column {column} (truncated file?)")]
    Truncated {
        /// Line where the text ends.
        line: usize,
        /// Column where the text ends.
        column: usize,
    },
    /// An object repeats a key.
    #[error("duplicate key `{key}` at {path} (line {line}, column {column}): keep one of them")]
    DuplicateKey {
        /// The repeated key.
        key: String,
        /// JSONPath of the object that repeats the key, e.g. `$.tasks[2]`.
        path: String,
        /// Line where the repetition was found.
        line: usize,
        /// Column where the repetition was found.
        column: usize,
    },
    /// Arrays and objects nested deeper than [`MAX_DEPTH`].
    #[error("nesting deeper than {limit} levels at {path} (line {line}, column {column})")]
    TooDeep {
        /// The limit exceeded ([`MAX_DEPTH`]).
        limit: usize,
        /// JSONPath of the array or object that crosses the limit.
        path: String,
        /// Line where the limit was crossed.
        line: usize,
        /// Column where the limit was crossed.
        column: usize,
    },
    /// Anything else that is not JSON: a stray character, a number out of range, trailing text
    /// after the document, ….
    #[error("invalid JSON at line {line}, column {column}: {message}")]
    Syntax {
        /// Line of the error.
        line: usize,
        /// Column of the error.
        column: usize,
        /// serde_json's message without its position (`expected value`, `trailing
        /// characters`, …).
        message: String,
    },
}

impl JsonError {
    /// 1-based line and column of the problem, when the error has a position.
    pub fn position(&self) -> Option<(usize, usize)> {
        match self {
            JsonError::Empty | JsonError::ByteOrderMark => None,
            JsonError::InvalidUtf8 { line, column }
            | JsonError::NulByte { line, column }
            | JsonError::Truncated { line, column }
            | JsonError::DuplicateKey { line, column, .. }
            | JsonError::TooDeep { line, column, .. }
            | JsonError::Syntax { line, column, .. } => Some((*line, *column)),
        }
    }
}

/// Parses one JSON document with the checks of this module. Never panics, whatever the bytes.
///
/// ```
/// use planseal::dwp::model::{parse_json, JsonError};
/// assert!(parse_json(br#"{"a": 1}"#).is_ok());
/// let err = parse_json(br#"{"a": 1, "a": 2}"#).unwrap_err();
/// assert!(matches!(err, JsonError::DuplicateKey { ref key, .. } if key == "a"));
/// ```
pub fn parse_json(bytes: &[u8]) -> Result<Value, JsonError> {
    if bytes.starts_with(&[0xEF, 0xBB, 0xBF]) {
        return Err(JsonError::ByteOrderMark);
    }
    let text = match std::str::from_utf8(bytes) {
        Ok(text) => text,
        Err(e) => {
            let (line, column) = line_column(bytes, e.valid_up_to());
            return Err(JsonError::InvalidUtf8 { line, column });
        }
    };
    if let Some(offset) = text.bytes().position(|b| b == 0) {
        let (line, column) = line_column(bytes, offset);
        return Err(JsonError::NulByte { line, column });
    }
    if text.trim().is_empty() {
        return Err(JsonError::Empty);
    }
    // Well-formed documents take the fast path; anything it does not read as the strict path
    // does (every error among them) is read again below.
    if let Some(value) = plain::parse(text) {
        return Ok(value);
    }
    parse_strictly(text)
}

/// The strict path of [`parse_json`] on text already checked for encoding and emptiness: the
/// visitor that refuses repeated keys and deep nesting and names every problem's position.
fn parse_strictly(text: &str) -> Result<Value, JsonError> {
    let problem = RefCell::new(None::<Problem>);
    let path = RefCell::new(Vec::<Segment>::new());
    let mut de = serde_json::Deserializer::from_str(text);
    let seed = ValueSeed {
        depth: 0,
        path: &path,
        problem: &problem,
    };
    let result = seed.deserialize(&mut de).and_then(|v| de.end().map(|()| v));
    match result {
        Ok(value) => Ok(value),
        Err(e) => {
            let (line, column) = (e.line(), char_column(text, e.line(), e.column()));
            if let Some(p) = problem.into_inner() {
                return Err(match p {
                    Problem::Duplicate { key, path } => JsonError::DuplicateKey {
                        key,
                        path,
                        line,
                        column,
                    },
                    Problem::TooDeep { path } => JsonError::TooDeep {
                        limit: MAX_DEPTH,
                        path,
                        line,
                        column,
                    },
                });
            }
            if e.is_eof() {
                Err(JsonError::Truncated { line, column })
            } else {
                Err(JsonError::Syntax {
                    line,
                    column,
                    message: syntax_message(&e),
                })
            }
        }
    }
}

/// A state document read with its task list left out: the top-level object (its `tasks` an
/// empty array) and where each task lies in the bytes, so that the tasks can be parsed one at a
/// time ([`parse_task_at`]) instead of all held at once.
#[derive(Debug)]
pub(crate) struct TasksElided {
    /// The document without its tasks.
    pub(crate) top: Value,
    /// The byte range of each task of `tasks`, in order.
    pub(crate) spans: Vec<std::ops::Range<usize>>,
}

/// Reads `bytes` as [`TasksElided`] when it is a well-formed object whose `tasks` is an array;
/// `None` for anything else, and for any problem at all: [`parse_json`] then reads the
/// document whole and names the problem exactly.
pub(crate) fn parse_tasks_elided(bytes: &[u8]) -> Option<TasksElided> {
    if bytes.starts_with(&[0xEF, 0xBB, 0xBF]) {
        return None;
    }
    let text = std::str::from_utf8(bytes).ok()?;
    if text.bytes().any(|b| b == 0) {
        return None;
    }
    let problem = RefCell::new(None::<Problem>);
    let path = RefCell::new(Vec::<Segment>::new());
    let mut de = serde_json::Deserializer::from_str(text);
    let count = std::cell::Cell::new(None::<usize>);
    let seed = TopSeed {
        inner: ValueSeed {
            depth: 1,
            path: &path,
            problem: &problem,
        },
        tasks: &count,
    };
    let top = seed.deserialize(&mut de).ok()?;
    de.end().ok()?;
    let spans = task_spans(text)?;
    (count.get() == Some(spans.len())).then_some(TasksElided { top, spans })
}

/// One task of a [`TasksElided`] document, parsed with every check [`parse_json`] makes there
/// (the depth counted from the document's top); `None` when it does not pass them.
pub(crate) fn parse_task_at(bytes: &[u8], span: std::ops::Range<usize>) -> Option<Value> {
    let text = std::str::from_utf8(bytes.get(span)?).ok()?;
    let problem = RefCell::new(None::<Problem>);
    let path = RefCell::new(Vec::<Segment>::new());
    let mut de = serde_json::Deserializer::from_str(text);
    let seed = ValueSeed {
        depth: 2,
        path: &path,
        problem: &problem,
    };
    let value = seed.deserialize(&mut de).ok()?;
    de.end().ok()?;
    Some(value)
}

/// The top-level object of a state, its `tasks` array counted and skipped.
struct TopSeed<'a> {
    inner: ValueSeed<'a>,
    tasks: &'a std::cell::Cell<Option<usize>>,
}

impl<'de> DeserializeSeed<'de> for TopSeed<'_> {
    type Value = Value;
    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for TopSeed<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut object = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if object.contains_key(&key) {
                return Err(de::Error::custom("duplicate key"));
            }
            let value = if key == "tasks" {
                let n = map.next_value_seed(CountSeed)?;
                self.tasks.set(Some(n));
                Value::Array(Vec::new())
            } else {
                map.next_value_seed(ValueSeed {
                    depth: self.inner.depth,
                    path: self.inner.path,
                    problem: self.inner.problem,
                })?
            };
            object.insert(key, value);
        }
        Ok(Value::Object(object))
    }
}

/// An array whose elements are checked for syntax only, and counted.
struct CountSeed;

impl<'de> DeserializeSeed<'de> for CountSeed {
    type Value = usize;
    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<usize, D::Error> {
        deserializer.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for CountSeed {
    type Value = usize;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an array")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<usize, A::Error> {
        let mut n = 0;
        while seq.next_element::<de::IgnoredAny>()?.is_some() {
            n += 1;
        }
        Ok(n)
    }
}

/// The byte range of each element of the top-level `tasks` array of a document already known
/// to be well-formed JSON; `None` when there is no such array.
fn task_spans(text: &str) -> Option<Vec<std::ops::Range<usize>>> {
    let b = text.as_bytes();
    let mut i = skip_space(b, 0);
    if b.get(i) != Some(&b'{') {
        return None;
    }
    i += 1;
    loop {
        i = skip_space(b, i);
        if b.get(i) != Some(&b'"') {
            return None;
        }
        let key_end = string_end(b, i)?;
        let key: String = serde_json::from_str(&text[i..key_end]).ok()?;
        i = skip_space(b, key_end);
        if b.get(i) != Some(&b':') {
            return None;
        }
        i = skip_space(b, i + 1);
        if key == "tasks" {
            if b.get(i) != Some(&b'[') {
                return None;
            }
            let mut spans = Vec::new();
            i += 1;
            loop {
                i = skip_space(b, i);
                match b.get(i)? {
                    b']' => return Some(spans),
                    b',' => i += 1,
                    _ => {
                        let end = value_end(b, i)?;
                        spans.push(i..end);
                        i = end;
                    }
                }
            }
        }
        i = skip_space(b, value_end(b, i)?);
        match b.get(i)? {
            b',' => i += 1,
            _ => return None,
        }
    }
}

/// serde_json's message without its own " at line L column C" tail (we print our own).
fn syntax_message(e: &serde_json::Error) -> String {
    let full = e.to_string();
    match full.rfind(" at line ") {
        Some(i) => full[..i].to_string(),
        None => full,
    }
}

/// 1-based line and character column of a byte offset (the bytes before it are valid UTF-8 or
/// counted as one column each).
fn line_column(bytes: &[u8], offset: usize) -> (usize, usize) {
    let before = &bytes[..offset.min(bytes.len())];
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    let line_start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    let column = String::from_utf8_lossy(&before[line_start..])
        .chars()
        .count()
        + 1;
    (line, column)
}

/// serde_json reports the column in bytes; convert to characters so that a line with `—` in it
/// points where an editor does.
fn char_column(text: &str, line: usize, byte_column: usize) -> usize {
    let Some(line_text) = text.split('\n').nth(line.saturating_sub(1)) else {
        return byte_column;
    };
    let end = byte_column.min(line_text.len());
    let mut boundary = end;
    while boundary > 0 && !line_text.is_char_boundary(boundary) {
        boundary -= 1;
    }
    let chars = line_text[..boundary].chars().count();
    // serde_json's column is the byte *at* the problem (1-based), or 0 at a line start.
    if byte_column == 0 { 0 } else { chars.max(1) }
}

enum Problem {
    Duplicate { key: String, path: String },
    TooDeep { path: String },
}

enum Segment {
    Key(String),
    Index(usize),
}

fn render_path(segments: &[Segment]) -> String {
    let mut out = String::from("$");
    for s in segments {
        match s {
            Segment::Key(k) => push_key(&mut out, k),
            Segment::Index(i) => {
                out.push('[');
                out.push_str(&i.to_string());
                out.push(']');
            }
        }
    }
    out
}

/// Appends `.key`, or `["key"]` when the key is not a plain identifier, to a JSONPath.
pub(crate) fn push_key(out: &mut String, key: &str) {
    let plain = !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        && !key.starts_with(|c: char| c.is_ascii_digit());
    if plain {
        out.push('.');
        out.push_str(key);
    } else {
        out.push_str("[\"");
        for c in key.chars() {
            match c {
                '"' => out.push_str("\\\""),
                '\\' => out.push_str("\\\\"),
                c if c.is_control() => out.push_str(&format!("\\u{:04x}", c as u32)),
                c => out.push(c),
            }
        }
        out.push_str("\"]");
    }
}

/// Objects up to this many keys look for a repeated key by scanning their keys.
const SMALL_OBJECT: usize = 16;

/// Builds a [`Value`] like serde_json does, refusing repeated keys and deep nesting. The path
/// stack costs no allocation per node: keys are moved into it and back out into the map.
struct ValueSeed<'a> {
    depth: usize,
    path: &'a RefCell<Vec<Segment>>,
    problem: &'a RefCell<Option<Problem>>,
}

impl ValueSeed<'_> {
    fn nested<E: de::Error>(&self) -> Result<ValueSeed<'_>, E> {
        if self.depth >= MAX_DEPTH {
            *self.problem.borrow_mut() = Some(Problem::TooDeep {
                path: render_path(&self.path.borrow()),
            });
            return Err(E::custom(format!("nesting deeper than {MAX_DEPTH} levels")));
        }
        Ok(ValueSeed {
            depth: self.depth + 1,
            path: self.path,
            problem: self.problem,
        })
    }
}

impl<'de> DeserializeSeed<'de> for ValueSeed<'_> {
    type Value = Value;
    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for ValueSeed<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Value, E> {
        Number::from_f64(v)
            .map(Value::Number)
            .ok_or_else(|| E::custom("number out of range"))
    }
    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
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
        let inner = self.nested::<A::Error>()?;
        let mut items = Vec::new();
        loop {
            self.path.borrow_mut().push(Segment::Index(items.len()));
            let next = seq.next_element_seed(ValueSeed {
                depth: inner.depth,
                path: inner.path,
                problem: inner.problem,
            });
            match next {
                Ok(Some(v)) => {
                    self.path.borrow_mut().pop();
                    items.push(v);
                }
                Ok(None) => {
                    self.path.borrow_mut().pop();
                    break;
                }
                // Leave the path as it is: it names where the problem was found.
                Err(e) => return Err(e),
            }
        }
        // Exact capacity: a plan's state holds thousands of short arrays (one gate record each).
        items.shrink_to_fit();
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let inner = self.nested::<A::Error>()?;
        // The entries are collected first and the map is built at its exact size: growing a map
        // one insert at a time leaves up to half of its slots unused, thousands of times over in
        // a large plan's state.
        let mut entries: Vec<(String, Value)> = Vec::new();
        // Past a few keys, repeated keys are looked up in a set instead of the list.
        let mut seen: Option<std::collections::HashSet<String>> = None;
        while let Some(key) = map.next_key::<String>()? {
            let repeated = match &mut seen {
                Some(set) => !set.insert(key.clone()),
                None => entries.iter().any(|(k, _)| *k == key),
            };
            if repeated {
                *self.problem.borrow_mut() = Some(Problem::Duplicate {
                    path: render_path(&self.path.borrow()),
                    key: key.clone(),
                });
                return Err(de::Error::custom(format!("duplicate key `{key}`")));
            }
            self.path.borrow_mut().push(Segment::Key(key));
            let value = map.next_value_seed(ValueSeed {
                depth: inner.depth,
                path: inner.path,
                problem: inner.problem,
            })?;
            let key = match self.path.borrow_mut().pop() {
                Some(Segment::Key(k)) => k,
                // The stack is balanced by construction; an index here would be a bug, and an
                // empty key is the least harmful answer.
                _ => String::new(),
            };
            entries.push((key, value));
            if seen.is_none() && entries.len() >= SMALL_OBJECT {
                seen = Some(entries.iter().map(|(k, _)| k.clone()).collect());
            }
        }
        let mut object = Map::with_capacity(entries.len());
        object.extend(entries);
        Ok(Value::Object(object))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_plain_documents_in_order() {
        let v = parse_json(br#"{"b": 1, "a": [true, null, "x", 1.5, -3]}"#).unwrap();
        let keys: Vec<_> = v.as_object().unwrap().keys().cloned().collect();
        assert_eq!(keys, ["b", "a"]);
        assert_eq!(v["a"][4], -3);
    }

    #[test]
    fn duplicate_key_names_path_and_position() {
        let err =
            parse_json(b"{\n  \"tasks\": [{\"id\": 1}, {\"id\": 2,\n \"id\": 3}]}").unwrap_err();
        match err {
            JsonError::DuplicateKey {
                key,
                path,
                line,
                column,
            } => {
                assert_eq!(key, "id");
                assert_eq!(path, "$.tasks[1]");
                assert_eq!(line, 3);
                assert!(column >= 1);
            }
            other => panic!("unexpected {other:?}"),
        }
    }

    #[test]
    fn nested_duplicates_are_found_too() {
        let err = parse_json(br#"{"a": {"b": {"c": 1, "c": 1}}}"#).unwrap_err();
        assert!(matches!(err, JsonError::DuplicateKey { ref path, .. } if path == "$.a.b"));
    }

    #[test]
    fn refuses_bad_encodings() {
        assert_eq!(parse_json(b""), Err(JsonError::Empty));
        assert_eq!(parse_json(b"  \n"), Err(JsonError::Empty));
        assert_eq!(parse_json(b"\xEF\xBB\xBF{}"), Err(JsonError::ByteOrderMark));
        assert_eq!(
            parse_json(b"{\n\"a\": \"\xff\"}"),
            Err(JsonError::InvalidUtf8 { line: 2, column: 7 })
        );
        assert_eq!(
            parse_json(b"{\"a\":\0 1}"),
            Err(JsonError::NulByte { line: 1, column: 6 })
        );
    }

    #[test]
    fn truncated_and_malformed() {
        assert!(matches!(
            parse_json(b"{\"a\": [1, 2"),
            Err(JsonError::Truncated { line: 1, .. })
        ));
        assert!(matches!(
            parse_json(b"{\"a\": }"),
            Err(JsonError::Syntax { line: 1, .. })
        ));
        assert!(matches!(
            parse_json(b"{} {}"),
            Err(JsonError::Syntax { .. })
        ));
        let e = parse_json(b"{\"a\": tru}").unwrap_err().to_string();
        assert!(e.starts_with("invalid JSON at line 1, column"), "{e}");
    }

    #[test]
    fn depth_limit_is_clear() {
        let deep = "[".repeat(MAX_DEPTH + 1) + &"]".repeat(MAX_DEPTH + 1);
        let err = parse_json(deep.as_bytes()).unwrap_err();
        assert!(
            matches!(
                err,
                JsonError::TooDeep {
                    limit: MAX_DEPTH,
                    ..
                }
            ),
            "{err:?}"
        );
        let ok = "[".repeat(MAX_DEPTH) + &"]".repeat(MAX_DEPTH);
        assert!(parse_json(ok.as_bytes()).is_ok());
    }

    #[test]
    fn column_counts_characters() {
        let err = parse_json("{\"a\": \"——\" x}".as_bytes()).unwrap_err();
        let (line, column) = err.position().unwrap();
        assert_eq!(line, 1);
        assert_eq!(column, 12);
    }

    #[test]
    fn odd_keys_render_quoted_in_paths() {
        let mut s = String::from("$");
        push_key(&mut s, "a b\"");
        push_key(&mut s, "ok_key");
        assert_eq!(s, "$[\"a b\\\"\"].ok_key");
    }
}
