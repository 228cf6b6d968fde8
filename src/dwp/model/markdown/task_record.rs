//! Task records: the body of a Full task file (`# Task N: Title` …) or of a Lite inline record,
//! and what the checks ask of it (fields, Completion & Log, gate records, amendments, the
//! literal `Skills disposition:` / `Documentation decision:` rule, the Final Review terms).

use super::amendment::{Amendment, amendments_in_lines};
use super::completion_log::{
    CompletionLog, GateRecordLine, completion_log_in_lines, gate_records_in_lines,
};
use super::fences::{Line, lines};
use super::fields::{FieldText, field_in_lines, heading_field_name};
use super::syntax::heading;

/// The three literal substrings the Final Review body must contain (lower-cased body).
pub const FINAL_REVIEW_TERMS: [&str; 3] = ["security", "final-state", "skills"];

/// The body of one task record with its lines (line numbers are those of the file it came from).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskBody<'a> {
    /// The body's text.
    pub text: &'a str,
    /// Its lines, fenced ones marked, numbered as in the file the body came from.
    pub lines: Vec<Line<'a>>,
}

impl<'a> TaskBody<'a> {
    /// A body that is a whole text (a task file).
    pub fn new(text: &'a str) -> TaskBody<'a> {
        TaskBody {
            text,
            lines: lines(text),
        }
    }

    /// The first field called `name` (see [`super::fields`]).
    pub fn field(&self, name: &str) -> Option<FieldText> {
        field_in_lines(&self.lines, name)
    }

    /// True when the field exists and is non-empty (see [`FieldText::non_empty`]).
    pub fn field_non_empty(&self, name: &str) -> bool {
        self.field(name).is_some_and(|f| f.non_empty())
    }

    /// [`TaskBody::field_non_empty`] for several names in one pass over the lines.
    pub fn fields_non_empty(&self, names: &[&str]) -> Vec<bool> {
        super::fields::fields_non_empty_in_lines(&self.lines, names)
    }

    /// The Completion & Log, when the body has a readable one.
    pub fn completion_log(&self) -> Option<CompletionLog> {
        completion_log_in_lines(&self.lines)
    }

    /// The helper's rule: the literal, case-sensitive `Skills disposition:` anywhere in the body.
    pub fn has_skills_disposition(&self) -> bool {
        self.text.contains("Skills disposition:")
    }

    /// The helper's rule: the literal, case-sensitive `Documentation decision:` anywhere.
    pub fn has_documentation_decision(&self) -> bool {
        self.text.contains("Documentation decision:")
    }

    /// Every `Gate record:` line outside fences, anywhere in the body.
    pub fn gate_records(&self) -> Vec<GateRecordLine> {
        gate_records_in_lines(&self.lines)
    }

    /// Every amendment record outside fences, anywhere in the body.
    pub fn amendments(&self) -> Vec<Amendment> {
        amendments_in_lines(&self.lines)
    }

    /// Which of `security`, `final-state`, `skills` the lower-cased body lacks (Final Review).
    pub fn final_review_missing_terms(&self) -> Vec<&'static str> {
        final_review_missing_terms(self.text)
    }

    /// The headings of the body (level ≥ 2) as (line, level, field name).
    pub fn sections(&self) -> Vec<Section> {
        self.lines
            .iter()
            .filter(|l| !l.in_fence)
            .filter_map(|l| {
                let h = heading(l.text)?;
                (h.level >= 2).then(|| Section {
                    line: l.number,
                    level: h.level,
                    name: heading_field_name(h.text).to_string(),
                })
            })
            .collect()
    }

    /// True when some heading (level ≥ 2) is the field `name` (legacy: "every task has a
    /// Validation heading").
    pub fn has_heading(&self, name: &str) -> bool {
        self.sections().iter().any(|s| {
            s.name
                .split_whitespace()
                .map(str::to_ascii_lowercase)
                .eq(name.split_whitespace().map(str::to_ascii_lowercase))
        })
    }
}

/// Which Final Review terms the lower-cased text lacks.
pub fn final_review_missing_terms(text: &str) -> Vec<&'static str> {
    let lower = text.to_lowercase();
    FINAL_REVIEW_TERMS
        .iter()
        .copied()
        .filter(|t| !lower.contains(t))
        .collect()
}

/// One heading of a task body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Section {
    /// 1-based line of the heading.
    pub line: usize,
    /// The number of `#`, 1 to 6.
    pub level: usize,
    /// The heading's field name (number and trailing `(…)` removed).
    pub name: String,
}

/// `# Task N: Title` of a task file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskTitle {
    /// 1-based line of the heading.
    pub line: usize,
    /// The number after `Task`, when the heading has the `Task N` form.
    pub number: Option<u32>,
    /// The title after `Task N:` (or the whole heading text when it lacks that form).
    pub title: String,
}

/// Splits `Task 3: Title` into (3, `Title`): `Task`, white space, the number, then an optional
/// `:` `.` `—` `–` or `-` before the title. Read by hand rather than with a regular expression:
/// every writer and verify parse a task file's title, and compiling a pattern costs more than
/// the whole read of a short file.
pub fn split_task_title(text: &str) -> Option<(u32, &str)> {
    let after_word = text.trim().strip_prefix("Task")?;
    let (n, tail) = super::syntax::number_after_space(after_word, false)?;
    let title = tail
        .strip_prefix([':', '.', '—', '–', '-'])
        .map_or(tail, |rest| rest.trim_start_matches(char::is_whitespace));
    // The title is the rest of one line: a line break left in it is no title form.
    (!title.contains('\n')).then(|| (n, title.trim()))
}

/// A Full plan's task file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskFile<'a> {
    /// The first unfenced level-1 heading.
    pub title: Option<TaskTitle>,
    /// The whole file's text and lines (the title heading included).
    pub body: TaskBody<'a>,
}

/// Decodes (strict UTF-8, see [`super::decode`]) and reads a task file.
pub fn parse_task_file_bytes(bytes: &[u8]) -> Result<TaskFile<'_>, super::InvalidUtf8> {
    super::decode(bytes).map(parse_task_file)
}

/// Reads a task file.
pub fn parse_task_file(text: &str) -> TaskFile<'_> {
    let body = TaskBody::new(text);
    let title = body.lines.iter().filter(|l| !l.in_fence).find_map(|l| {
        let h = heading(l.text)?;
        if h.level != 1 {
            return None;
        }
        Some(match split_task_title(h.text) {
            Some((n, t)) => TaskTitle {
                line: l.number,
                number: Some(n),
                title: t.to_string(),
            },
            None => TaskTitle {
                line: l.number,
                number: None,
                title: h.text.to_string(),
            },
        })
    });
    TaskFile { title, body }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn title_forms() {
        assert_eq!(
            split_task_title("Task 4: Final Review"),
            Some((4, "Final Review"))
        );
        assert_eq!(
            split_task_title("Task 4 — Final Review"),
            Some((4, "Final Review"))
        );
        assert_eq!(split_task_title("Final Review"), None);
    }

    /// The pattern the title was read with before it was read by hand; the property below
    /// keeps the two answering alike.
    const TITLE_PATTERN: &str = r"^Task\s+([0-9]+)\s*(?:[:.—–-]\s*)?(.*)$";

    proptest::proptest! {
        #[test]
        fn the_title_reads_as_the_pattern_read_it(
            parts in proptest::collection::vec(proptest::sample::select(vec![
                "Task", "task", " ", "  ", "\t", "\n", "\u{a0}", "\u{2003}", "3", "12", "0",
                "99999999999", ":", ".", "—", "–", "-", "#", "x", "Final Review", "é", "(", "",
            ]), 0..8)
        ) {
            let text: String = parts.concat();
            let by_pattern = super::super::syntax::number_and_rest_by_pattern(TITLE_PATTERN, &text);
            proptest::prop_assert_eq!(split_task_title(&text), by_pattern, "{:?}", text);
        }
    }

    #[test]
    fn literal_rules_are_case_sensitive() {
        let b = TaskBody::new("skills disposition: none\n**Documentation decision**: x");
        assert!(!b.has_skills_disposition());
        assert!(!b.has_documentation_decision());
        let ok = TaskBody::new("**Skills disposition:** none\nDocumentation decision: n/a");
        assert!(ok.has_skills_disposition());
        assert!(ok.has_documentation_decision());
    }

    #[test]
    fn final_review_terms() {
        assert_eq!(
            final_review_missing_terms("Security and Skills"),
            vec!["final-state"]
        );
        assert!(final_review_missing_terms("SECURITY, Final-State, skills").is_empty());
    }
}
