//! `analysis_results/SECURITY_REVIEW.md`: does it report an unresolved critical finding?
//! The helper's two rules (case-insensitive, whole file): (A) an open or unresolved critical
//! finding is reported; (B) the word `critical` appears and no phrase clears it. One correction:
//! a table row `| Critical | 0 |` (or `none`) clears rule (B).

use std::sync::LazyLock;

use regex::Regex;

use super::syntax::{strip_emphasis, table_cells};

/// Finding label for rule (A).
pub const LABEL_OPEN_CRITICAL: &str = "security-review-open-critical";
/// Finding label for rule (B).
pub const LABEL_CRITICAL_UNCLEAR: &str = "security-review-critical-unclear";

fn re(pattern: &str) -> Regex {
    Regex::new(pattern).expect("constant regex is valid because it was tested")
}

static OPEN: LazyLock<Regex> = LazyLock::new(|| {
    re(r"(?i)open critical finding|critical finding remains|unresolved critical finding:")
});
static UNRESOLVED: LazyLock<Regex> = LazyLock::new(|| re(r"(?i)unresolved critical"));
static CLEARED: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)no unresolved critical|without (?:an )?unresolved critical|0 unresolved critical|zero unresolved critical",
    )
});
static CRITICAL_WORD: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i)(?:^|[|\s])critical(?:[|\s]|$)|🚨 critical"));
static B_CLEARS: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)0 critical|zero critical|explicitly accepted|accepted by the (?:user|developer)|criticals?:\s*0|no findings|no criticals?|criticals?:?\**\s*none|fixed in|resolved in",
    )
});

/// What the review says about critical findings.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SecurityVerdict {
    /// Rule (A): an open / unresolved critical finding is reported.
    pub open_critical: bool,
    /// Rule (B), only when (A) did not fire: `critical` appears and nothing clears it.
    pub unclear_critical: bool,
    /// What fired, in words (quotes the matched text).
    pub reason: Option<String>,
}

impl SecurityVerdict {
    /// The failing check's label, if any.
    pub fn label(&self) -> Option<&'static str> {
        if self.open_critical {
            Some(LABEL_OPEN_CRITICAL)
        } else if self.unclear_critical {
            Some(LABEL_CRITICAL_UNCLEAR)
        } else {
            None
        }
    }

    /// Neither rule fired.
    pub fn is_clear(&self) -> bool {
        !self.open_critical && !self.unclear_critical
    }
}

/// ASCII case-insensitive substring search. Exact for the `(?i)` literals below: none of their
/// letters has a non-ASCII case partner (only `s` ~ U+017F and `k` ~ U+212A do, and the literals
/// avoid both).
fn contains_ignore_ascii_case(haystack: &str, needle: &str) -> bool {
    let (h, n) = (haystack.as_bytes(), needle.as_bytes());
    h.windows(n.len()).any(|w| w.eq_ignore_ascii_case(n))
}

/// Necessary for [`OPEN`]: one of its three alternatives' `s`-free cores.
fn may_report_open(text: &str) -> bool {
    [
        "open critical finding",
        "critical finding remain",
        "olved critical finding:",
    ]
    .iter()
    .any(|core| contains_ignore_ascii_case(text, core))
}

/// Necessary for [`UNRESOLVED`] and [`CRITICAL_WORD`]: the word `critical`.
fn may_mention_critical(text: &str) -> bool {
    contains_ignore_ascii_case(text, "critical")
}

/// True for a table row whose first cell is `critical` and whose count cell is `0` or `none`.
fn critical_zero_row(line: &str) -> bool {
    let Some(cells) = table_cells(line) else {
        return false;
    };
    if cells.len() < 2 {
        return false;
    }
    let first = strip_emphasis(cells[0]).trim_start_matches(|c: char| !c.is_alphanumeric());
    let count = strip_emphasis(cells[1]).to_ascii_lowercase();
    first.eq_ignore_ascii_case("critical") && matches!(count.as_str(), "0" | "none")
}

/// Judges the text of SECURITY_REVIEW.md.
pub fn security_verdict(text: &str) -> SecurityVerdict {
    // Each pattern runs (and is compiled) only when its literal core is present; see the
    // pre-check helpers. `cleared` is computed at most once, when first needed.
    let mut cleared_memo: Option<bool> = None;
    let mut cleared = || *cleared_memo.get_or_insert_with(|| CLEARED.is_match(text));
    if let Some(m) = may_report_open(text).then(|| OPEN.find(text)).flatten() {
        return SecurityVerdict {
            open_critical: true,
            unclear_critical: false,
            reason: Some(format!("reports \"{}\"", m.as_str().trim())),
        };
    }
    if may_mention_critical(text)
        && !cleared()
        && let Some(m) = UNRESOLVED.find(text)
    {
        return SecurityVerdict {
            open_critical: true,
            unclear_critical: false,
            reason: Some(format!(
                "reports \"{}\" without saying none remain",
                m.as_str()
            )),
        };
    }
    if may_mention_critical(text)
        && CRITICAL_WORD.is_match(text)
        && !cleared()
        && !B_CLEARS.is_match(text)
        && !text.lines().any(critical_zero_row)
    {
        return SecurityVerdict {
            open_critical: false,
            unclear_critical: true,
            reason: Some(
                "mentions a critical finding but never says it is fixed, accepted or absent"
                    .to_string(),
            ),
        };
    }
    SecurityVerdict::default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The verdict as it was computed before the pre-checks: every pattern, always.
    fn reference(text: &str) -> SecurityVerdict {
        let cleared = CLEARED.is_match(text);
        if let Some(m) = OPEN.find(text) {
            return SecurityVerdict {
                open_critical: true,
                unclear_critical: false,
                reason: Some(format!("reports \"{}\"", m.as_str().trim())),
            };
        }
        if !cleared && let Some(m) = UNRESOLVED.find(text) {
            return SecurityVerdict {
                open_critical: true,
                unclear_critical: false,
                reason: Some(format!(
                    "reports \"{}\" without saying none remain",
                    m.as_str()
                )),
            };
        }
        if CRITICAL_WORD.is_match(text)
            && !cleared
            && !B_CLEARS.is_match(text)
            && !text.lines().any(critical_zero_row)
        {
            return SecurityVerdict {
                open_critical: false,
                unclear_critical: true,
                reason: Some(
                    "mentions a critical finding but never says it is fixed, accepted or absent"
                        .to_string(),
                ),
            };
        }
        SecurityVerdict::default()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]

        #[test]
        fn prechecks_keep_the_verdict(parts in prop::collection::vec(prop::sample::select(vec![
            "open ", "Open ", "critical", "CRITICAL", "Critical", " finding", " findings", " remains",
            "unresolved ", "unreſolved ", "no ", "0 ", "zero ", "without ", "an ", ":", "|", " ",
            "\n", "🚨 ", "fixed in", "accepted by the user", "none", "| Critical | 0 |", "x",
        ]), 0..10)) {
            let text = parts.concat();
            prop_assert_eq!(security_verdict(&text), reference(&text));
        }
    }

    #[test]
    fn table() {
        let cases: &[(&str, Option<&str>)] = &[
            (
                "Open critical finding: tokens are written to the debug log.",
                Some(LABEL_OPEN_CRITICAL),
            ),
            ("One critical finding remains.", Some(LABEL_OPEN_CRITICAL)),
            ("Unresolved critical finding: x", Some(LABEL_OPEN_CRITICAL)),
            (
                "There is an unresolved critical issue.",
                Some(LABEL_OPEN_CRITICAL),
            ),
            ("No unresolved critical findings.", None),
            ("Zero unresolved critical findings.", None),
            ("Result: 0 unresolved critical findings, 0 high.", None),
            ("Shipped without an unresolved critical issue.", None),
            (
                "| Severity | Count |\n|---|---|\n| Critical | 0 |\n| High | 1 |",
                None,
            ),
            ("| **Critical** | none |", None),
            ("| Critical | 1 |", Some(LABEL_CRITICAL_UNCLEAR)),
            ("A critical bug in auth.", Some(LABEL_CRITICAL_UNCLEAR)),
            ("A critical bug in auth, fixed in abc123.", None),
            ("critical", Some(LABEL_CRITICAL_UNCLEAR)),
            ("🚨 Critical: token leak", Some(LABEL_CRITICAL_UNCLEAR)),
            ("Criticals: none", None),
            ("**Critical:** none", None),
            ("critical risk explicitly accepted by the user", None),
            ("This is uncritical prose.", None),
            ("Non-critical notes only.", None),
            ("", None),
        ];
        for (text, expected) in cases {
            assert_eq!(security_verdict(text).label(), *expected, "{text:?}");
        }
    }
}
