//! The 3-way merge of JSON values and the conflicted JSON text, shared by the JSON formats.
//!
//! [`merge_value`] merges by structure: a value one side left as the ancestor had it takes the
//! other side's; objects merge key by key (ours' key order, then the keys only theirs added, in
//! theirs' order); anything else both sides changed differently is a [`Conflict`], and the
//! merged value holds ours' there until the caller decides. [`render`] writes the merged value
//! in the file's own style with a conflict block at each conflict: the line that holds the
//! value, once as ours and once as theirs, between git's markers, after a `planseal:` note.

use super::text::Markers;
use crate::jsonfmt::{JsonStyle, to_bytes};
use serde_json::{Map, Value};

/// One step of a path into a JSON value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// An object's key.
    Key(String),
    /// An array's index.
    Index(usize),
}

/// A place where the sides disagree and the driver cannot decide.
#[derive(Debug, Clone, PartialEq)]
pub struct Conflict {
    /// Where in the merged value (which holds ours' value there, or nothing when ours has none).
    pub path: Vec<Step>,
    /// Ours' value (`None`: ours has none).
    pub ours: Option<Value>,
    /// Theirs' value (`None`: theirs has none).
    pub theirs: Option<Value>,
    /// What the user should know, one sentence each (written after `planseal: `).
    pub notes: Vec<String>,
}

impl Conflict {
    /// A conflict at `path` between the two values, with one note.
    pub fn new(
        path: Vec<Step>,
        ours: Option<&Value>,
        theirs: Option<&Value>,
        note: impl Into<String>,
    ) -> Self {
        Conflict {
            path,
            ours: ours.cloned(),
            theirs: theirs.cloned(),
            notes: vec![note.into()],
        }
    }
}

/// `path` shown as a JSONPath (`$.tasks[2].commit`).
pub fn shown(path: &[Step]) -> String {
    let mut out = String::from("$");
    for step in path {
        match step {
            Step::Key(k) => {
                out.push('.');
                out.push_str(k);
            }
            Step::Index(i) => out.push_str(&format!("[{i}]")),
        }
    }
    out
}

/// The keys of a 3-way object merge, in order: ours' keys, then the keys only theirs has.
pub fn merged_keys<'a>(
    ours: &'a Map<String, Value>,
    theirs: &'a Map<String, Value>,
) -> Vec<&'a str> {
    let mut keys: Vec<&str> = ours.keys().map(String::as_str).collect();
    keys.extend(
        theirs
            .keys()
            .map(String::as_str)
            .filter(|k| !ours.contains_key(*k)),
    );
    keys
}

/// How the two sides stand to the ancestor at one place.
pub enum Resolution<'a> {
    /// Both sides agree (or one side kept the ancestor's): the value (`None`: absent).
    Settled(Option<&'a Value>),
    /// Both sides changed it, differently.
    Both,
}

/// Equal JSON values (key order does not matter, as for `==`), compared key by key in order
/// first: two parses of the same text are equal without hashing a single key.
pub fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && (x.iter().zip(y).all(|((k, v), (l, w))| k == l && same(v, w)) || x == y)
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(v, w)| same(v, w))
        }
        _ => a == b,
    }
}

/// [`same`] of two values that may be absent.
pub fn same_opt(a: Option<&Value>, b: Option<&Value>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => same(a, b),
        (None, None) => true,
        _ => false,
    }
}

/// The trivial 3-way cases: equal sides, or one side as the ancestor had it.
pub fn resolve<'a>(
    base: Option<&'a Value>,
    ours: Option<&'a Value>,
    theirs: Option<&'a Value>,
) -> Resolution<'a> {
    if same_opt(ours, theirs) || same_opt(base, theirs) {
        Resolution::Settled(ours)
    } else if same_opt(base, ours) {
        Resolution::Settled(theirs)
    } else {
        Resolution::Both
    }
}

/// The 3-way merge of one value (see the module comment); `None` when the merged value is
/// absent (removed on one side, untouched on the other).
pub fn merge_value(
    base: Option<&Value>,
    ours: Option<&Value>,
    theirs: Option<&Value>,
    path: &mut Vec<Step>,
    conflicts: &mut Vec<Conflict>,
) -> Option<Value> {
    match resolve(base, ours, theirs) {
        Resolution::Settled(v) => v.cloned(),
        Resolution::Both => match (ours, theirs) {
            (Some(Value::Object(o)), Some(Value::Object(t))) => {
                let b = base.and_then(Value::as_object);
                Some(Value::Object(merge_object(b, o, t, path, conflicts)))
            }
            _ => {
                conflicts.push(Conflict::new(
                    path.clone(),
                    ours,
                    theirs,
                    format!("{} was changed on both sides", shown(path)),
                ));
                ours.cloned()
            }
        },
    }
}

/// Two objects merged key by key: `each(key, base, ours, theirs, path)` gives a key's merged
/// value (`None`: absent) with `path` pointing at the key. Ours' key order, then the keys only
/// theirs has, in theirs' order.
pub fn merge_keys<F>(
    base: Option<&Map<String, Value>>,
    ours: &Map<String, Value>,
    theirs: &Map<String, Value>,
    path: &mut Vec<Step>,
    mut each: F,
) -> Map<String, Value>
where
    F: FnMut(&str, Option<&Value>, Option<&Value>, Option<&Value>, &mut Vec<Step>) -> Option<Value>,
{
    let mut out = Map::new();
    for key in merged_keys(ours, theirs) {
        path.push(Step::Key(key.to_string()));
        let merged = each(
            key,
            base.and_then(|b| b.get(key)),
            ours.get(key),
            theirs.get(key),
            path,
        );
        path.pop();
        if let Some(v) = merged {
            out.insert(key.to_string(), v);
        }
    }
    out
}

/// [`merge_value`] of two objects, key by key.
pub fn merge_object(
    base: Option<&Map<String, Value>>,
    ours: &Map<String, Value>,
    theirs: &Map<String, Value>,
    path: &mut Vec<Step>,
    conflicts: &mut Vec<Conflict>,
) -> Map<String, Value> {
    merge_keys(base, ours, theirs, path, |_, b, o, t, path| {
        merge_value(b, o, t, path, conflicts)
    })
}

/// A list merged as a set, 3-way: every element both sides kept, and every element either side
/// added, once; an element one side removed is gone. Ours' order, then theirs' additions.
pub fn merge_set(base: &[Value], ours: &[Value], theirs: &[Value]) -> Vec<Value> {
    let removed = |side: &[Value], v: &Value| base.contains(v) && !side.contains(v);
    let mut out: Vec<Value> = Vec::with_capacity(ours.len() + theirs.len());
    for v in ours.iter().chain(theirs) {
        if !out.contains(v) && !removed(ours, v) && !removed(theirs, v) {
            out.push(v.clone());
        }
    }
    out
}

/// How a sentinel starts once serialised (the control character escaped).
const SENTINEL_OPEN: &str = "\"\\u0001planseal-conflict-";

/// Puts `value` at `path` inside `root` (an absent key is appended; an index past the end
/// pushes).
fn place(root: &mut Value, path: &[Step], value: Value) {
    let Some((last, parents)) = path.split_last() else {
        *root = value;
        return;
    };
    let mut at = root;
    for step in parents {
        let next = match (step, at) {
            (Step::Key(k), Value::Object(m)) => m.get_mut(k),
            (Step::Index(i), Value::Array(a)) => a.get_mut(*i),
            _ => None,
        };
        match next {
            Some(v) => at = v,
            None => return,
        }
    }
    match (last, at) {
        (Step::Key(k), Value::Object(m)) => {
            m.insert(k.clone(), value);
        }
        (Step::Index(i), Value::Array(a)) => {
            if *i < a.len() {
                a[*i] = value;
            } else {
                a.push(value);
            }
        }
        _ => {}
    }
}

/// `value` written in `style` as it stands inside a line indented by `indent` (its first line
/// goes where the value starts; the others get `indent` in front).
fn inline(value: &Value, style: &JsonStyle, indent: &str) -> String {
    let bare = JsonStyle {
        trailing_newline: false,
        bom: false,
        ..style.clone()
    };
    let text = String::from_utf8_lossy(&to_bytes(value, &bare)).into_owned();
    let newline = style.line_ending.as_str();
    text.replace(newline, &format!("{newline}{indent}"))
}

/// The merged document in `style` with a conflict block at each conflict (see the module
/// comment). A document on one line gets one block around all of it: ours' picks against
/// theirs'.
pub fn render(
    merged: &Value,
    conflicts: &[Conflict],
    style: &JsonStyle,
    markers: &Markers,
) -> Vec<u8> {
    let markers = Markers {
        newline: if style.line_ending == "\r\n" {
            "\r\n"
        } else {
            "\n"
        },
        ..markers.clone()
    };
    if style.indent.is_none() {
        let pick = |ours: bool| {
            let mut v = merged.clone();
            for c in conflicts {
                if let Some(x) = if ours { &c.ours } else { &c.theirs } {
                    place(&mut v, &c.path, x.clone());
                }
            }
            String::from_utf8_lossy(&to_bytes(&v, style)).into_owned()
        };
        let notes: Vec<String> = conflicts.iter().flat_map(|c| c.notes.clone()).collect();
        return markers
            .block(&notes, &pick(true), &pick(false))
            .into_bytes();
    }
    let mut marked = merged.clone();
    for (i, c) in conflicts.iter().enumerate() {
        place(&mut marked, &c.path, sentinel(i));
    }
    let text = String::from_utf8_lossy(&to_bytes(&marked, style)).into_owned();
    mark(&text, conflicts, style, &markers).into_bytes()
}

/// The placeholder [`mark`] replaces by conflict `i`'s block: a string no plan file holds.
pub fn sentinel(i: usize) -> Value {
    Value::String(format!("\u{1}planseal-conflict-{i}\u{1}"))
}

/// `text` (a JSON document in `style` holding [`sentinel`]s) with each line that holds
/// sentinel `i` replaced by conflict `i`'s block: that line with ours' value, then with
/// theirs' value (no line for a side that has none).
pub fn mark(text: &str, conflicts: &[Conflict], style: &JsonStyle, markers: &Markers) -> String {
    let mut out = String::with_capacity(text.len() + 256 * conflicts.len());
    for line in text.split_inclusive('\n') {
        // The sentinel as serde_json writes it: `"\u0001planseal-conflict-<i>\u0001"`.
        let found = line.find(SENTINEL_OPEN).and_then(|at| {
            let digits = &line[at + SENTINEL_OPEN.len()..];
            let n = digits.bytes().take_while(u8::is_ascii_digit).count();
            let i: usize = digits[..n].parse().ok()?;
            let quoted = sentinel(i).to_string();
            line[at..]
                .starts_with(&quoted)
                .then(|| (conflicts.get(i), at, quoted.len()))
        });
        let Some((Some(c), at, len)) = found else {
            out.push_str(line);
            continue;
        };
        let (prefix, suffix) = (&line[..at], &line[at + len..]);
        let indent = &line[..line.len() - line.trim_start().len()];
        let side = |v: &Option<Value>| match v {
            Some(v) => format!("{prefix}{}{suffix}", inline(v, style, indent)),
            None => String::new(),
        };
        out.push_str(&markers.block(&c.notes, &side(&c.ours), &side(&c.theirs)));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn merge(b: Value, o: Value, t: Value) -> (Option<Value>, Vec<Conflict>) {
        let mut conflicts = Vec::new();
        let v = merge_value(
            Some(&b),
            Some(&o),
            Some(&t),
            &mut Vec::new(),
            &mut conflicts,
        );
        (v, conflicts)
    }

    #[test]
    fn objects_merge_key_by_key_in_ours_order() {
        let (v, c) = merge(
            json!({"a": 1, "b": 1, "gone": 0}),
            json!({"b": 2, "a": 1, "gone": 0, "o": 1}),
            json!({"a": 3, "b": 1, "t": 1}),
        );
        assert!(c.is_empty());
        let v = v.unwrap();
        assert_eq!(v, json!({"b": 2, "a": 3, "o": 1, "t": 1}));
        assert_eq!(
            v.as_object().unwrap().keys().collect::<Vec<_>>(),
            ["b", "a", "o", "t"]
        );
    }

    #[test]
    fn scalars_changed_on_both_sides_conflict_and_keep_ours() {
        let (v, c) = merge(json!({"x": 1}), json!({"x": 2}), json!({"x": 3}));
        assert_eq!(v.unwrap(), json!({"x": 2}));
        assert_eq!(c.len(), 1);
        assert_eq!(shown(&c[0].path), "$.x");
    }

    #[test]
    fn sets_keep_additions_of_both_and_drop_removals() {
        let b = [json!(1), json!(2), json!(3)];
        let merged = merge_set(
            &b,
            &[json!(1), json!(3), json!(4)],
            &[json!(2), json!(1), json!(3), json!(5)],
        );
        assert_eq!(merged, [json!(1), json!(3), json!(4), json!(5)]);
    }

    #[test]
    fn a_conflict_is_rendered_around_its_line_in_the_files_style() {
        let merged = json!({"a": {"x": 2, "y": [1]}, "z": 0});
        let conflicts = vec![Conflict::new(
            vec![Step::Key("a".into()), Step::Key("x".into())],
            Some(&json!(2)),
            Some(&json!({"deep": true})),
            "x differs",
        )];
        let text = render(
            &merged,
            &conflicts,
            &JsonStyle::python_pretty(),
            &Markers::default(),
        );
        assert_eq!(
            String::from_utf8(text).unwrap(),
            "{\n  \"a\": {\nplanseal: x differs\n<<<<<<< ours\n    \"x\": 2,\n=======\n    \"x\": {\n      \"deep\": true\n    },\n>>>>>>> theirs\n    \"y\": [\n      1\n    ]\n  },\n  \"z\": 0\n}\n"
        );
    }
}
