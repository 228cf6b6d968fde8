//! Keeping `.env` values out of everything planseal prints: generated text holds keys only, and
//! any text taken from a file (a diff, a heading, a story id, a state value) passes through an
//! [`EnvRedactor`] before it is shown.

use super::Finding;
use std::path::Path;

/// The largest `.env` planseal reads (a larger one is not a dotenv file anyone writes by hand).
pub const ENV_MAX_BYTES: u64 = 1 << 20;

/// The bytes of a `.env` that is a regular file (through a symlink too) of at most
/// [`ENV_MAX_BYTES`]: `Ok(None)` when there is none, an error naming what it is otherwise (a
/// FIFO, a device, a folder, a file too large). Opened without blocking and checked again on the
/// open descriptor, so a file swapped for a FIFO between the two looks is not waited on either.
pub fn read_env_file(path: &Path) -> std::io::Result<Option<Vec<u8>>> {
    use crate::recovery::read::{Kind, ReadError, read};
    const _: () = assert!(Kind::Settings.cap() == ENV_MAX_BYTES);
    read(path, Kind::Settings).map_err(|e| match e {
        ReadError::Io { source, .. } => source,
        ReadError::NotRegularFile { what, .. } => std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!("{what}, not a regular file; it is never opened"),
        ),
        other => std::io::Error::new(std::io::ErrorKind::InvalidData, other.reason()),
    })
}

/// What a hidden value is replaced with.
pub const REDACTED: &str = "[redacted .env value]";

/// Replaces every value of a `.env` (4 characters or more, quoted or not) in a text.
#[derive(Debug, Clone, Default)]
pub struct EnvRedactor {
    /// Every value to hide, longest first.
    values: Vec<String>,
    /// One automaton over all of them, built on first use (most runs print no `.env` value).
    matcher: std::sync::OnceLock<Option<aho_corasick::AhoCorasick>>,
}

impl EnvRedactor {
    /// The redactor for the text of one `.env` file (`None`: no file, nothing hidden), read as
    /// a dotenv loader reads it ([`crate::dotenv`]): each value as a program gets it (an inline
    /// comment cut, quotes removed, escapes applied) and as written in the file.
    pub fn from_env_bytes(env: Option<&[u8]>) -> Self {
        let mut values: Vec<String> = Vec::new();
        for entry in env.map(crate::dotenv::entries).unwrap_or_default() {
            for candidate in std::iter::once(entry.value).chain(entry.written) {
                if candidate.chars().count() >= 4 && !values.contains(&candidate) {
                    values.push(candidate);
                }
            }
        }
        // The JSON-escaped spelling too (a value holding `"` or `\`), so printed JSON text can
        // be cleaned like any other text.
        let escaped: Vec<String> = values
            .iter()
            .filter_map(|v| {
                let quoted = serde_json::Value::String(v.clone()).to_string();
                let inner = &quoted[1..quoted.len() - 1];
                (inner != v.as_str()).then(|| inner.to_string())
            })
            .collect();
        for e in escaped {
            if !values.contains(&e) {
                values.push(e);
            }
        }
        values.sort_by_key(|v| std::cmp::Reverse(v.len()));
        Self {
            values,
            matcher: std::sync::OnceLock::new(),
        }
    }

    /// The redactor for a path planseal works on: the `.env` of every folder from the path up to
    /// the root of the git work tree around it (the first folder with a `.git`). Outside a
    /// repository only the path's own folder is read: a `.env` above the project belongs to
    /// someone else. A missing `.env` costs one failed look-up per folder.
    pub fn for_target(path: &Path) -> Self {
        let start = if path.is_file() {
            path.parent().unwrap_or(path)
        } else {
            path
        };
        let in_repository = start.ancestors().any(|f| f.join(".git").exists());
        let mut redactor = Self::default();
        for folder in start.ancestors() {
            let found = Self::for_folder(folder);
            if !found.is_empty() {
                redactor = redactor.merge(found);
            }
            if !in_repository || folder.join(".git").exists() {
                break;
            }
        }
        redactor
    }

    /// The redactor for the `.env` in `dir` (empty when there is no readable `.env`). Only a
    /// regular file of at most [`ENV_MAX_BYTES`] is read; a FIFO, a device or a folder there is
    /// never opened, so nothing can make a command wait on it.
    pub fn for_folder(dir: &Path) -> Self {
        Self::from_env_bytes(read_env_file(&dir.join(".env")).ok().flatten().as_deref())
    }

    /// Whether there is no value to hide (no `.env`, or none with a value of 4 characters or more).
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// `s` with every known value replaced by [`REDACTED`], in one pass over `s`: at each place
    /// the longest value that starts there is hidden whole. Replacing value after value instead
    /// re-read the markers already put in, so a value such as `redacted` rewrote a marker into
    /// text that spelled another value back out; and it read `s` once per value.
    pub fn clean(&self, s: &str) -> String {
        let matcher = self.matcher.get_or_init(|| {
            if self.values.is_empty() {
                return None;
            }
            // Values are at most 1 MiB of text in all: building cannot fail on size.
            aho_corasick::AhoCorasick::builder()
                .match_kind(aho_corasick::MatchKind::LeftmostLongest)
                .build(&self.values)
                .ok()
        });
        match matcher {
            Some(m) => m.replace_all(s, &vec![REDACTED; self.values.len()]),
            None if self.values.is_empty() => s.to_string(),
            // Unreachable in practice; hide value by value rather than show anything.
            None => {
                let mut out = s.to_string();
                for v in &self.values {
                    out = out.replace(v.as_str(), REDACTED);
                }
                out
            }
        }
    }

    /// A JSON value with every string (keys included) cleaned: redacting before serialising also
    /// catches a value whose JSON escaping would hide it from a text search.
    pub fn clean_json(&self, value: serde_json::Value) -> serde_json::Value {
        use serde_json::Value;
        if self.values.is_empty() {
            return value;
        }
        match value {
            Value::String(s) => Value::String(self.clean(&s)),
            Value::Array(items) => {
                Value::Array(items.into_iter().map(|v| self.clean_json(v)).collect())
            }
            Value::Object(map) => Value::Object(
                map.into_iter()
                    .map(|(k, v)| (self.clean(&k), self.clean_json(v)))
                    .collect(),
            ),
            other => other,
        }
    }

    /// Adds the values of another `.env` (a second folder that has one).
    pub fn merge(mut self, other: Self) -> Self {
        for v in other.values {
            if !self.values.contains(&v) {
                self.values.push(v);
            }
        }
        self.values.sort_by_key(|v| std::cmp::Reverse(v.len()));
        self.matcher = std::sync::OnceLock::new();
        self
    }

    /// The report with every finding cleaned, and every section's name, path and reason why it
    /// could not be checked: for the formats that encode text (`%0A`, `&amp;`), where a value
    /// would no longer be found in the printed bytes.
    pub fn clean_report(&self, report: super::Report) -> super::Report {
        if self.is_empty() {
            return report;
        }
        let sections = report
            .sections
            .into_iter()
            .map(|s| super::Section {
                name: self.clean(&s.name),
                path: self.clean(&s.path),
                unverified: s.unverified.map(|u| self.clean(&u)),
                findings: s
                    .findings
                    .into_iter()
                    .map(|f| self.clean_finding(f))
                    .collect(),
                ..s
            })
            .collect();
        super::Report { sections }
    }

    /// The finding with its message and hint cleaned (ids, files and the rest are planseal's own
    /// text).
    pub fn clean_finding(&self, f: Finding) -> Finding {
        Finding {
            message: self.clean(&f.message),
            hint: f.hint.map(|h| self.clean(&h)),
            ..f
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_escaped_spelling_is_hidden_too() {
        let r = EnvRedactor::from_env_bytes(Some(b"A=pa\"ss\\word\n"));
        let printed = serde_json::json!({"note": "x pa\"ss\\word y"}).to_string();
        assert_eq!(
            r.clean(&printed),
            format!("{{\"note\":\"x {REDACTED} y\"}}")
        );
    }

    #[test]
    fn for_target_reads_every_env_up_to_the_repository_root() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let repo = tmp.path().join("repo");
        let plan = repo.join(".dwp/plans/P");
        std::fs::create_dir_all(&plan).expect("mkdir");
        std::fs::create_dir_all(repo.join(".git")).expect("mkdir");
        std::fs::write(tmp.path().join(".env"), "OUTSIDE=outside-value\n").expect("env");
        std::fs::write(repo.join(".env"), "ROOT=root-value\n").expect("env");
        std::fs::write(plan.join(".env"), "PLAN=plan-value\n").expect("env");
        let r = EnvRedactor::for_target(&plan);
        assert_eq!(
            r.clean("root-value plan-value outside-value"),
            format!("{REDACTED} {REDACTED} outside-value")
        );
    }

    #[test]
    fn json_strings_and_keys_are_cleaned_before_escaping() {
        let r = EnvRedactor::from_env_bytes(Some(b"A=pa\"ss\\word\n"));
        let v = serde_json::json!({"k pa\"ss\\word": ["x pa\"ss\\word", 1]});
        assert_eq!(
            r.clean_json(v),
            serde_json::json!({ format!("k {REDACTED}"): [format!("x {REDACTED}"), 1] })
        );
    }

    #[test]
    fn a_value_spelled_inside_the_marker_never_rewrites_an_inserted_marker() {
        // The third crash of the dotenv fuzz target: `redacted` is a value too, and replacing
        // value after value turned the marker put in for the first one back into that value.
        let r = EnvRedactor::from_env_bytes(Some(b"C=[[redacted .env value]\nL=redacted\n"));
        let shown = r.clean("<[[redacted .env value]> <redacted>");
        assert_eq!(shown, format!("<{REDACTED}> <{REDACTED}>"));
        assert!(!shown.contains("[[redacted .env value]"), "{shown}");
    }

    #[test]
    fn the_longest_value_starting_at_a_place_is_hidden_whole() {
        let r = EnvRedactor::from_env_bytes(Some(b"A=abcd\nB=abcdefgh\nC=efghij\n"));
        assert_eq!(
            r.clean("abcdefghij abcdxx"),
            format!("{REDACTED}ij {REDACTED}xx")
        );
    }

    #[test]
    fn values_are_hidden_keys_are_not() {
        let r = EnvRedactor::from_env_bytes(Some(
            b"A=secret-one\nexport B=\"two words\"\nC=abc\n# D=commented\n",
        ));
        assert_eq!(
            r.clean("A=secret-one B=\"two words\" C=abc D=commented"),
            // the quoted form is a value too, and the longer one is hidden whole
            format!("A={REDACTED} B={REDACTED} C=abc D=commented")
        );
    }
}
