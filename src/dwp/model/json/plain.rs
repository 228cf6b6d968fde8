//! The fast path of [`super::parse_json`]: a hand-written reader for the documents plan files
//! are, well-formed JSON with nothing unusual in it. It builds the same [`Value`] as the strict
//! visitor and gives up (`None`) on anything it does not read exactly as the strict path does —
//! any syntax error, a repeated key, nesting at the depth limit, a surrogate `\u` escape, a number
//! that is not a plain integer and that serde_json does not read on its own — and the strict path
//! then reads the document again and names the problem. So the fast path never decides an error
//! and never accepts what the strict path refuses.
//!
//! Why it exists: an `update` parses a 300 KB state.json on its critical path, and serde_json's
//! walk through a visitor took 2.2 ms of it on the benchmark machine; this reader takes 1.4 ms,
//! most of it the allocations and map inserts both share (docs/performance.md).

use serde_json::{Map, Number, Value};

/// `text` (UTF-8, no NUL byte, not blank: [`super::parse_json`] has checked) as a [`Value`],
/// or `None` when the strict path must read it.
pub(super) fn parse(text: &str) -> Option<Value> {
    let mut reader = Reader {
        text,
        bytes: text.as_bytes(),
        at: 0,
        entries: Vec::new(),
        items: Vec::new(),
    };
    let value = reader.value(0)?;
    reader.skip_space();
    (reader.at == reader.bytes.len()).then_some(value)
}

/// Past this many keys an object is left to the strict path, whose repeated-key check is a set
/// instead of a scan of the keys seen (plan files' objects have about fifteen).
const MAX_KEYS: usize = 64;

struct Reader<'a> {
    text: &'a str,
    bytes: &'a [u8],
    at: usize,
    /// One entry list per nesting depth, reused from object to object: each object's entries
    /// are gathered here and moved into a map of the exact size.
    entries: Vec<Vec<(String, Value)>>,
    /// The same for arrays.
    items: Vec<Vec<Value>>,
}

impl Reader<'_> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    /// JSON's whitespace: space, tab, line feed, carriage return.
    fn skip_space(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.peek() {
            self.at += 1;
        }
    }

    /// The value at the cursor, inside `depth` open arrays and objects.
    fn value(&mut self, depth: usize) -> Option<Value> {
        self.skip_space();
        match self.peek()? {
            b'{' => self.object(depth),
            b'[' => self.array(depth),
            b'"' => self.string().map(Value::String),
            b't' => self.literal("true", Value::Bool(true)),
            b'f' => self.literal("false", Value::Bool(false)),
            b'n' => self.literal("null", Value::Null),
            b'-' | b'0'..=b'9' => self.number().map(Value::Number),
            _ => None,
        }
    }

    fn literal(&mut self, word: &str, value: Value) -> Option<Value> {
        let end = self.at + word.len();
        (self.bytes.get(self.at..end)? == word.as_bytes()).then(|| {
            self.at = end;
            value
        })
    }

    /// `{…}` at the cursor.
    fn object(&mut self, depth: usize) -> Option<Value> {
        self.container(
            depth,
            |r| &mut r.entries,
            |r, entries| {
                r.object_entries(depth, entries)?;
                let mut map = Map::with_capacity(entries.len());
                map.extend(entries.drain(..));
                Some(Value::Object(map))
            },
        )
    }

    /// An array or object opened at the cursor, inside `depth` others: `read` gets the scratch
    /// list of that depth, emptied, and it is put back for the next container there. The strict
    /// path refuses a container opened at [`super::MAX_DEPTH`]: left to it, like a repeated key.
    fn container<T>(
        &mut self,
        depth: usize,
        lists: fn(&mut Self) -> &mut Vec<Vec<T>>,
        read: impl FnOnce(&mut Self, &mut Vec<T>) -> Option<Value>,
    ) -> Option<Value> {
        if depth >= super::MAX_DEPTH {
            return None;
        }
        self.at += 1;
        let all = lists(self);
        if all.len() <= depth {
            all.resize_with(depth + 1, Vec::new);
        }
        let mut list = std::mem::take(&mut all[depth]);
        list.clear();
        let value = read(self, &mut list);
        lists(self)[depth] = list;
        value
    }

    fn object_entries(&mut self, depth: usize, entries: &mut Vec<(String, Value)>) -> Option<()> {
        self.separated(b'}', |r| {
            r.skip_space();
            if r.peek()? != b'"' {
                return None;
            }
            let key = r.string()?;
            if entries.len() >= MAX_KEYS || entries.iter().any(|(k, _)| *k == key) {
                return None;
            }
            r.skip_space();
            if r.peek()? != b':' {
                return None;
            }
            r.at += 1;
            let value = r.value(depth + 1)?;
            entries.push((key, value));
            Some(())
        })
    }

    /// Items separated by commas up to the `close` bracket (the opening one is behind the
    /// cursor); `item` reads one.
    fn separated(
        &mut self,
        close: u8,
        mut item: impl FnMut(&mut Self) -> Option<()>,
    ) -> Option<()> {
        self.skip_space();
        if self.peek()? == close {
            self.at += 1;
            return Some(());
        }
        loop {
            item(self)?;
            self.skip_space();
            match self.peek()? {
                b',' => self.at += 1,
                b if b == close => {
                    self.at += 1;
                    return Some(());
                }
                _ => return None,
            }
        }
    }

    /// `[…]` at the cursor; the array holds its items at exact capacity, as the strict path's.
    fn array(&mut self, depth: usize) -> Option<Value> {
        self.container(
            depth,
            |r| &mut r.items,
            |r, items| {
                r.array_items(depth, items)?;
                // Moved into a list of its own exact size: the scratch list keeps its room.
                let mut exact = Vec::with_capacity(items.len());
                exact.append(items);
                Some(Value::Array(exact))
            },
        )
    }

    fn array_items(&mut self, depth: usize, items: &mut Vec<Value>) -> Option<()> {
        self.separated(b']', |r| {
            items.push(r.value(depth + 1)?);
            Some(())
        })
    }

    /// The string at the cursor (on its opening quote), unescaped. A control character, an
    /// escape JSON does not have, or a `\u` escape of a surrogate gives up.
    fn string(&mut self) -> Option<String> {
        let start = self.at + 1;
        let mut i = start;
        // The common case: no escape at all, copied in one piece.
        loop {
            match *self.bytes.get(i)? {
                b'"' => {
                    self.at = i + 1;
                    return Some(self.text[start..i].to_owned());
                }
                b'\\' => break,
                0..=0x1F => return None,
                _ => i += 1,
            }
        }
        let mut out = String::with_capacity(i - start + 16);
        out.push_str(&self.text[start..i]);
        let mut plain = i;
        loop {
            match *self.bytes.get(i)? {
                b'"' => {
                    out.push_str(&self.text[plain..i]);
                    self.at = i + 1;
                    return Some(out);
                }
                b'\\' => {
                    out.push_str(&self.text[plain..i]);
                    let unescaped = match *self.bytes.get(i + 1)? {
                        b'"' => '"',
                        b'\\' => '\\',
                        b'/' => '/',
                        b'b' => '\u{8}',
                        b'f' => '\u{c}',
                        b'n' => '\n',
                        b'r' => '\r',
                        b't' => '\t',
                        b'u' => {
                            let hex = self.text.get(i + 2..i + 6)?;
                            if !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
                                return None;
                            }
                            let code = u32::from_str_radix(hex, 16).ok()?;
                            // A surrogate (alone or in a pair) is the strict path's to read.
                            i += 4;
                            char::from_u32(code)?
                        }
                        _ => return None,
                    };
                    out.push(unescaped);
                    i += 2;
                    plain = i;
                }
                0..=0x1F => return None,
                _ => i += 1,
            }
        }
    }

    /// The number at the cursor. A plain integer is read here as serde_json reads it (`u64`, or
    /// `i64` when negative); anything else with the number's grammar — a fraction, an exponent,
    /// `-0`, an integer beyond 64 bits — is read by serde_json itself, from its own text.
    fn number(&mut self) -> Option<Number> {
        let b = self.bytes;
        let start = self.at;
        let mut i = start;
        let negative = b[i] == b'-';
        if negative {
            i += 1;
        }
        let digits_start = i;
        match b.get(i)? {
            b'0' => i += 1,
            b'1'..=b'9' => {
                while b.get(i).is_some_and(u8::is_ascii_digit) {
                    i += 1;
                }
            }
            _ => return None,
        }
        let integer_end = i;
        if b.get(i) == Some(&b'.') {
            i += 1;
            let from = i;
            while b.get(i).is_some_and(u8::is_ascii_digit) {
                i += 1;
            }
            if i == from {
                return None;
            }
        }
        if let Some(b'e' | b'E') = b.get(i) {
            i += 1;
            if let Some(b'+' | b'-') = b.get(i) {
                i += 1;
            }
            let from = i;
            while b.get(i).is_some_and(u8::is_ascii_digit) {
                i += 1;
            }
            if i == from {
                return None;
            }
        }
        self.at = i;
        let token = &self.text[start..i];
        if i == integer_end && !(negative && token == "-0") {
            let magnitude: Option<u64> = self.text[digits_start..i].parse().ok();
            match (magnitude, negative) {
                (Some(m), false) => return Some(Number::from(m)),
                (Some(m), true) if m <= i64::MAX as u64 => return Some(Number::from(-(m as i64))),
                (Some(m), true) if m == i64::MAX as u64 + 1 => return Some(Number::from(i64::MIN)),
                _ => {}
            }
        }
        token.parse::<Number>().ok()
    }
}

#[cfg(test)]
mod tests {
    use super::super::{MAX_DEPTH, parse_strictly};
    use super::parse;
    use proptest::prelude::*;
    use serde_json::{Value, json};

    /// The same value, keys in the same order, numbers of the same kind and sign.
    fn same(a: &Value, b: &Value) -> bool {
        a == b && serde_json::to_string(a).unwrap() == serde_json::to_string(b).unwrap()
    }

    /// The fast path either gives up or gives exactly what the strict path gives; it never gives
    /// a value for text the strict path refuses.
    fn agrees(text: &str) -> Result<(), TestCaseError> {
        if let Some(fast) = parse(text) {
            match parse_strictly(text) {
                Ok(strict) => prop_assert!(same(&fast, &strict), "{text:?}: {fast} vs {strict}"),
                Err(e) => prop_assert!(false, "{text:?}: fast path read {fast}, strict: {e}"),
            }
        }
        Ok(())
    }

    /// Strings made mostly of what escaping and unescaping are about.
    fn arb_text() -> impl Strategy<Value = String> {
        prop_oneof![
            "[\\x00-\\x1f\"\\\\a/\u{7f}é\u{2028}€😀 ]{0,10}",
            any::<String>(),
            "[a-z_]{0,8}",
        ]
    }

    fn arb_number() -> impl Strategy<Value = Value> {
        prop_oneof![
            any::<u64>().prop_map(|n| json!(n)),
            any::<i64>().prop_map(|n| json!(n)),
            any::<f64>()
                .prop_filter("JSON has no NaN or infinity", |f| f.is_finite())
                .prop_map(|f| json!(f)),
            Just(json!(-0.0)),
            Just(json!(0)),
        ]
    }

    fn arb_value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            arb_number(),
            arb_text().prop_map(Value::String),
        ];
        leaf.prop_recursive(5, 48, 8, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..8).prop_map(Value::Array),
                prop::collection::vec((arb_text(), inner), 0..8)
                    .prop_map(|kv| Value::Object(kv.into_iter().collect())),
            ]
        })
    }

    /// JSON's own characters, blanks that are and are not JSON whitespace, and controls.
    fn arb_json_ish() -> impl Strategy<Value = String> {
        "[{}\\[\\]\",:\\\\0-9eE.+\\-tfnrulsa \t\n\r\u{c}\u{0}\u{1f}ü]{0,40}"
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2048))]

        // Everything serde_json writes, in its compact and pretty forms and planseal's: read
        // by the fast path, as the strict path reads it.
        #[test]
        fn written_documents_read_as_the_strict_path_reads_them(v in arb_value()) {
            for text in [
                serde_json::to_string(&v).unwrap(),
                serde_json::to_string_pretty(&v).unwrap(),
                String::from_utf8(crate::jsonfmt::to_python_pretty(&v)).unwrap(),
            ] {
                let fast = parse(&text);
                prop_assert!(fast.is_some(), "{text:?}: the fast path gave up");
                agrees(&text)?;
            }
        }

        // A written document with one character taken out, doubled or put in, and text made
        // of JSON's characters: the fast path never reads what the strict path refuses.
        #[test]
        fn damaged_documents_are_read_alike_or_left_to_the_strict_path(
            v in arb_value(),
            at in any::<prop::sample::Index>(),
            edit in 0..3usize,
            inserted in "[{}\\[\\]\",:\\\\0-9eE.+\\- \u{c}\u{1}ü]",
            soup in arb_json_ish(),
        ) {
            let text = serde_json::to_string(&v).unwrap();
            let chars: Vec<char> = text.chars().collect();
            let i = at.index(chars.len() + 1);
            let mut damaged: Vec<char> = chars.clone();
            match edit {
                0 if i < chars.len() => { damaged.remove(i); }
                1 if i < chars.len() => damaged.insert(i, chars[i]),
                _ => damaged.splice(i..i, inserted.chars()).for_each(drop),
            }
            agrees(&damaged.into_iter().collect::<String>())?;
            agrees(&soup)?;
        }
    }

    #[test]
    fn edge_cases_are_read_alike_or_left_to_the_strict_path() {
        let deep = |n: usize| "[".repeat(n) + &"]".repeat(n);
        let keys = |n: usize| {
            let body: Vec<String> = (0..n).map(|i| format!("\"k{i}\": {i}")).collect();
            format!("{{{}}}", body.join(", "))
        };
        let cases = [
            "-0",
            "0",
            "-1",
            "01",
            "1.",
            ".5",
            "-",
            "1e",
            "1e400",
            "-1e-400",
            "1E+2",
            "2.50",
            "18446744073709551615",
            "18446744073709551616",
            "-9223372036854775808",
            "-9223372036854775809",
            "\"\\ud83d\\ude00\"",
            "\"\\ud800\"",
            "\"\\u00e9\\u00E9\"",
            "\"\\x\"",
            "\"a\tb\"",
            "{\"a\": 1, \"a\": 2}",
            "{\"a\": 1,}",
            "[1,]",
            "[1 2]",
            "{\"a\" 1}",
            "\u{c}[]",
            "[]\u{c}",
            "tru",
            "nulls",
            "{} {}",
            "\"\\u12\"",
            "\"\\u12é4\"",
            "{\"é\": \"—\"}",
        ];
        for text in cases.iter().map(|s| s.to_string()).chain([
            deep(MAX_DEPTH - 1),
            deep(MAX_DEPTH),
            deep(MAX_DEPTH + 1),
            keys(super::MAX_KEYS),
            keys(super::MAX_KEYS + 1),
        ]) {
            if let Some(fast) = parse(&text) {
                let strict = parse_strictly(&text)
                    .unwrap_or_else(|e| panic!("{text:?}: fast read {fast}, strict: {e}"));
                assert!(same(&fast, &strict), "{text:?}");
            }
        }
        // What plan files hold is read on the fast path.
        for text in [
            "-1",
            "\"\\ud83d\\ude00 is left to the strict path\""
                .replace("\\ud83d\\ude00", "é")
                .as_str(),
            &deep(MAX_DEPTH),
            &keys(super::MAX_KEYS),
            "{\"a\": [1, -2, 3.5, \"x\\n\\\"y\\\"\", true, false, null, {}]}",
        ] {
            assert!(parse(text).is_some(), "{text:?}");
        }
    }
}
