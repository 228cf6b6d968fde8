//! Amendment records: `### Amendment <n> — YYYY-MM-DD` followed by nine labels.

use std::sync::LazyLock;

use regex::Regex;

use super::fences::{Line, lines};
use super::syntax::{heading, label_value, strip_emphasis, task_mentions, unique_in_order};

/// The nine labels of an amendment record, in the order the DWP method lists them.
pub const AMENDMENT_LABELS: [&str; 9] = [
    "Original criterion",
    "Observed",
    "Disposition",
    "Revised criterion",
    "Reason",
    "Authority",
    "Affected tasks",
    "Evidence invalidated",
    "Evidence preserved",
];

/// The four dispositions an amendment may record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Disposition {
    /// `revised criterion`: the acceptance criterion itself changes (see `Revised criterion:`).
    RevisedCriterion,
    /// `deferred requirement`: the requirement moves elsewhere, e.g. to a later task.
    DeferredRequirement,
    /// `unexecuted scenario`: a scenario is recorded as not executed.
    UnexecutedScenario,
    /// `failed gate`: a gate is recorded as failed.
    FailedGate,
}

/// Who authorised an amendment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Authority {
    /// `user`: the person the work is for.
    User,
    /// `developer`: whoever carries out the plan.
    Developer,
    /// `evidence`: what a run or a measurement showed.
    Evidence,
}

/// One amendment record. Label values are `None` when the label is missing; a present label
/// may still have an empty value (see [`Amendment::missing_or_empty`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Amendment {
    /// Line number of the heading.
    pub line: usize,
    /// The `<n>` of `### Amendment <n>`.
    pub number: u32,
    /// Text after the number and its dash, as written (normally the date).
    pub date_raw: String,
    /// The first `YYYY-MM-DD` in `date_raw`, when it is a real calendar date.
    pub date: Option<jiff::civil::Date>,
    /// Values in the order of [`AMENDMENT_LABELS`].
    pub values: [Option<String>; 9],
}

impl Amendment {
    /// The value of one of the nine labels (case-insensitive name).
    pub fn value(&self, label: &str) -> Option<&str> {
        AMENDMENT_LABELS
            .iter()
            .position(|l| l.eq_ignore_ascii_case(label))
            .and_then(|i| self.values[i].as_deref())
    }
    /// `Original criterion:` — the criterion as the plan stated it.
    pub fn original_criterion(&self) -> Option<&str> {
        self.values[0].as_deref()
    }
    /// `Observed:` — what was found instead.
    pub fn observed(&self) -> Option<&str> {
        self.values[1].as_deref()
    }
    /// `Disposition:` as written ([`Amendment::disposition_kind`] reads it).
    pub fn disposition(&self) -> Option<&str> {
        self.values[2].as_deref()
    }
    /// `Revised criterion:` — the criterion that applies from now on.
    pub fn revised_criterion(&self) -> Option<&str> {
        self.values[3].as_deref()
    }
    /// `Reason:` — why the amendment is made.
    pub fn reason(&self) -> Option<&str> {
        self.values[4].as_deref()
    }
    /// `Authority:` as written ([`Amendment::authority_kind`] reads it).
    pub fn authority(&self) -> Option<&str> {
        self.values[5].as_deref()
    }
    /// `Affected tasks:` as written ([`Amendment::affected_task_numbers`] reads it).
    pub fn affected_tasks(&self) -> Option<&str> {
        self.values[6].as_deref()
    }
    /// `Evidence invalidated:` — the gate records or results that no longer hold.
    pub fn evidence_invalidated(&self) -> Option<&str> {
        self.values[7].as_deref()
    }
    /// `Evidence preserved:` — what still holds.
    pub fn evidence_preserved(&self) -> Option<&str> {
        self.values[8].as_deref()
    }

    /// Labels that are missing or whose value is blank, in the order the DWP method lists them.
    pub fn missing_or_empty(&self) -> Vec<&'static str> {
        AMENDMENT_LABELS
            .iter()
            .zip(&self.values)
            .filter(|(_, v)| v.as_deref().is_none_or(|s| s.trim().is_empty()))
            .map(|(l, _)| *l)
            .collect()
    }

    /// The disposition when it is one of the four values (a value that *starts* with one of them,
    /// case-insensitive, e.g. `deferred requirement — moved to Task 4`).
    pub fn disposition_kind(&self) -> Option<Disposition> {
        let v = strip_emphasis(self.disposition()?).to_lowercase();
        [
            ("revised criterion", Disposition::RevisedCriterion),
            ("deferred requirement", Disposition::DeferredRequirement),
            ("unexecuted scenario", Disposition::UnexecutedScenario),
            ("failed gate", Disposition::FailedGate),
        ]
        .into_iter()
        .find(|(p, _)| v.starts_with(p))
        .map(|(_, d)| d)
    }

    /// The authority when its first word is user, developer or evidence (case-insensitive).
    pub fn authority_kind(&self) -> Option<Authority> {
        let v = strip_emphasis(self.authority()?).to_lowercase();
        let word: String = v.chars().take_while(|c| c.is_alphanumeric()).collect();
        match word.as_str() {
            "user" => Some(Authority::User),
            "developer" => Some(Authority::Developer),
            "evidence" => Some(Authority::Evidence),
            _ => None,
        }
    }

    /// Task numbers named in `Affected tasks:` — `Task N` mentions, or else bare integers.
    pub fn affected_task_numbers(&self) -> Vec<u32> {
        let Some(v) = self.affected_tasks() else {
            return Vec::new();
        };
        let named = task_mentions(v);
        if !named.is_empty() {
            return named;
        }
        unique_in_order(
            v.split(|c: char| !c.is_ascii_digit())
                .filter_map(|w| w.parse::<u32>().ok()),
        )
    }
}

static ISO_DATE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b([0-9]{4})-([0-9]{2})-([0-9]{2})\b")
        .expect("constant regex is valid because it was tested")
});

/// `Amendment 3 — 2026-10-12` (heading text) → (3, `2026-10-12`): `Amendment` in any case,
/// white space, the number (`#` allowed before it), then nothing or a run of `—` `–` `:` `-`
/// before the rest. Read by hand, as a task file's title is, for the same
/// reason: a pattern costs more to compile than a task file takes to read.
pub fn amendment_heading(heading_text: &str) -> Option<(u32, &str)> {
    let text = heading_text.trim();
    let word = text.get(..AMENDMENT.len())?;
    if !word.eq_ignore_ascii_case(AMENDMENT) {
        return None;
    }
    let (n, tail) = super::syntax::number_after_space(&text[AMENDMENT.len()..], true)?;
    if tail.is_empty() {
        return Some((n, ""));
    }
    let rest = tail.trim_start_matches(['—', '–', ':', '-']);
    if rest.len() == tail.len() || rest.contains('\n') {
        return None;
    }
    Some((n, rest.trim()))
}

const AMENDMENT: &str = "amendment";

/// True when the line is an amendment heading (any level ≥ 2).
pub fn is_amendment_heading(line: &str) -> bool {
    heading(line).is_some_and(|h| h.level >= 2 && amendment_heading(h.text).is_some())
}

/// The first real calendar date `YYYY-MM-DD` in a text.
pub fn first_iso_date(text: &str) -> Option<jiff::civil::Date> {
    ISO_DATE.captures_iter(text).find_map(|c| {
        let y: i16 = c.get(1)?.as_str().parse().ok()?;
        let m: i8 = c.get(2)?.as_str().parse().ok()?;
        let d: i8 = c.get(3)?.as_str().parse().ok()?;
        jiff::civil::Date::new(y, m, d).ok()
    })
}

/// Every amendment record in a text, in order.
pub fn amendments(text: &str) -> Vec<Amendment> {
    amendments_in_lines(&lines(text))
}

/// Every amendment record in already split lines. A record runs to the next heading of the same
/// or a higher level.
pub fn amendments_in_lines(lines: &[Line<'_>]) -> Vec<Amendment> {
    let mut out = Vec::new();
    let mut idx = 0;
    while idx < lines.len() {
        let line = &lines[idx];
        idx += 1;
        if line.in_fence {
            continue;
        }
        let Some(h) = heading(line.text) else {
            continue;
        };
        if h.level < 2 {
            continue;
        }
        let Some((number, rest)) = amendment_heading(h.text) else {
            continue;
        };
        let mut values: [Option<String>; 9] = Default::default();
        let mut current: Option<usize> = None;
        while idx < lines.len() {
            let next = &lines[idx];
            if !next.in_fence
                && let Some(nh) = heading(next.text)
                && nh.level <= h.level
            {
                break;
            }
            idx += 1;
            let found = if next.in_fence {
                None
            } else {
                AMENDMENT_LABELS
                    .iter()
                    .enumerate()
                    .find_map(|(i, l)| label_value(next.text, l).map(|lv| (i, lv.value)))
            };
            match found {
                Some((i, value)) => {
                    // A repeated label keeps its first value; later text joins nothing.
                    if values[i].is_none() {
                        values[i] = Some(value.to_string());
                        current = Some(i);
                    } else {
                        current = None;
                    }
                }
                None => {
                    if let Some(i) = current
                        && let Some(v) = values[i].as_mut()
                    {
                        v.push('\n');
                        v.push_str(next.text);
                    }
                }
            }
        }
        for v in values.iter_mut().flatten() {
            let trimmed = v.trim().to_string();
            *v = trimmed;
        }
        out.push(Amendment {
            line: line.number,
            number,
            date_raw: rest.to_string(),
            date: first_iso_date(rest),
            values,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The pattern the heading was read with before it was read by hand; the property below
    /// keeps the two answering alike.
    const HEADING_PATTERN: &str = r"(?i)^amendment\s+#?([0-9]+)\s*(?:[—–:-]+\s*(.*))?$";

    proptest::proptest! {
        #[test]
        fn the_heading_reads_as_the_pattern_read_it(
            parts in proptest::collection::vec(proptest::sample::select(vec![
                "Amendment", "AMENDMENT", "amendmenT", "amend", " ", "\t", "\n", "\u{a0}", "#",
                "3", "12", "99999999999", ":", "—", "–", "-", "x", "2026-10-12", "é", "",
            ]), 0..8)
        ) {
            let text: String = parts.concat();
            let by_pattern = super::super::syntax::number_and_rest_by_pattern(HEADING_PATTERN, &text);
            proptest::prop_assert_eq!(amendment_heading(&text), by_pattern, "{:?}", text);
        }
    }

    const RECORD: &str = "## 10. Completion & Log\n\nStatus: completed\n\n### Amendment 1 — 2026-10-12\n\nOriginal criterion: `- [ ] all green`\nObserved: one flaky test\n  continued line\n**Disposition:** deferred requirement — moved to Task 4\n- **Revised criterion:** none\nReason: flaky upstream\nAuthority: User (chat)\nAffected tasks: Task 2, Task 4\nEvidence invalidated: none\nEvidence preserved: t2 log\n\n### Amendment 2 - 2026-02-30\nObserved: x\n## Next\nReason: outside\n";

    #[test]
    fn parses_all_nine_labels() {
        let a = amendments(RECORD);
        assert_eq!(a.len(), 2);
        let first = &a[0];
        assert_eq!(first.number, 1);
        assert_eq!(first.line, 5);
        assert_eq!(first.date, jiff::civil::Date::new(2026, 10, 12).ok());
        assert_eq!(first.original_criterion(), Some("`- [ ] all green`"));
        assert_eq!(first.observed(), Some("one flaky test\n  continued line"));
        assert_eq!(
            first.disposition_kind(),
            Some(Disposition::DeferredRequirement)
        );
        assert_eq!(first.authority_kind(), Some(Authority::User));
        assert_eq!(first.affected_task_numbers(), vec![2, 4]);
        assert!(first.missing_or_empty().is_empty());
    }

    #[test]
    fn invalid_date_and_missing_labels() {
        let a = amendments(RECORD);
        let second = &a[1];
        assert_eq!(second.number, 2);
        assert_eq!(second.date_raw, "2026-02-30");
        assert_eq!(second.date, None);
        assert_eq!(
            second.reason(),
            None,
            "a label after a higher heading is not part of the record"
        );
        assert_eq!(second.missing_or_empty().len(), 8);
    }

    #[test]
    fn bare_numbers_in_affected_tasks() {
        let a = amendments(
            "### Amendment 3 — 2026-01-01\nAffected tasks: 2, 5\nAuthority: robot\nDisposition: other",
        );
        assert_eq!(a[0].affected_task_numbers(), vec![2, 5]);
        assert_eq!(a[0].authority_kind(), None);
        assert_eq!(a[0].disposition_kind(), None);
    }
}
