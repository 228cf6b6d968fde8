//! `.env` files, read the way dotenv loaders read them, so that the values planseal must never
//! print are the values a program actually gets.
//!
//! - blank lines and lines starting with `#` are skipped; `export ` before a key is dropped;
//! - `KEY=value # note`: an unquoted value ends at whitespace followed by `#`, and is trimmed;
//! - `KEY="a\nb"`: double quotes allow the escapes `\n \r \t \" \\` and may span lines;
//! - `KEY='a b'`: single quotes are taken literally and may span lines;
//! - a line without `=`, or whose key is not a name (`[A-Za-z_][A-Za-z0-9_.-]*`), is skipped.
//!
//! ```
//! use planseal::dotenv::entries;
//! let e = entries(b"export TOKEN=abc123 # rotated\nQUOTED=\"x\\ny\"\n# KEY=no\n");
//! assert_eq!(e[0].key, "TOKEN");
//! assert_eq!(e[0].value, "abc123");
//! assert_eq!(e[1].value, "x\ny");
//! assert_eq!(e.len(), 2);
//! ```

/// One assignment of a `.env` file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// The variable's name.
    pub key: String,
    /// The value a loader would set (quotes removed, escapes applied, an inline comment cut).
    pub value: String,
    /// The value as written after `=`, trimmed (quotes and escapes kept), when it differs from
    /// `value`: text copied from the file may show that spelling.
    pub written: Option<String>,
}

/// Every assignment of `bytes`, in file order (a repeated key appears each time).
pub fn entries(bytes: &[u8]) -> Vec<Entry> {
    let text = String::from_utf8_lossy(bytes);
    let mut out = Vec::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        let t = line.trim();
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        let t = t.strip_prefix("export ").map(str::trim_start).unwrap_or(t);
        let Some((key, rest)) = t.split_once('=') else {
            continue;
        };
        let key = key.trim();
        if !is_name(key) {
            continue;
        }
        let rest = rest.trim_start();
        let (value, written) = match rest.chars().next() {
            Some(q @ ('"' | '\'')) => {
                let mut body = rest[1..].to_string();
                // A quoted value runs to its closing quote, across lines if need be.
                while closing_quote(&body, q).is_none() {
                    match lines.next() {
                        Some(next) => {
                            body.push('\n');
                            body.push_str(next);
                        }
                        None => break,
                    }
                }
                let end = closing_quote(&body, q).unwrap_or(body.len());
                let inner = &body[..end];
                let value = if q == '"' {
                    unescape(inner)
                } else {
                    inner.to_string()
                };
                (value, format!("{q}{inner}{q}"))
            }
            _ => {
                let cut = comment_start(rest).unwrap_or(rest.len());
                (
                    rest[..cut].trim_end().to_string(),
                    rest.trim_end().to_string(),
                )
            }
        };
        out.push(Entry {
            key: key.to_string(),
            written: (written != value).then_some(written),
            value,
        });
    }
    out
}

/// The keys of `bytes`, each once, in the order of their first assignment.
pub fn keys(bytes: &[u8]) -> Vec<String> {
    let mut keys: Vec<String> = Vec::new();
    for e in entries(bytes) {
        if !keys.contains(&e.key) {
            keys.push(e.key);
        }
    }
    keys
}

fn is_name(key: &str) -> bool {
    key.chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-'))
}

/// Where the unescaped closing quote `q` is in `body`.
fn closing_quote(body: &str, q: char) -> Option<usize> {
    let mut escaped = false;
    for (i, c) in body.char_indices() {
        match c {
            '\\' if q == '"' && !escaped => escaped = true,
            c if c == q && !escaped => return Some(i),
            _ => escaped = false,
        }
    }
    None
}

/// Where an inline comment starts in an unquoted value: a `#` after whitespace.
fn comment_start(rest: &str) -> Option<usize> {
    let bytes = rest.as_bytes();
    (1..bytes.len()).find(|&i| bytes[i] == b'#' && bytes[i - 1].is_ascii_whitespace())
}

fn unescape(inner: &str) -> String {
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('r') => out.push('\r'),
            Some('t') => out.push('\t'),
            Some(other) => out.push(other),
            None => out.push('\\'),
        }
    }
    out
}
