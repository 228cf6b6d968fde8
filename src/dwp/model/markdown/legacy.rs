//! Helpers for v1 / no-state ("legacy") plans (`docs/verify.md`): task file names,
//! the lifecycle ending, `Read Before Starting` references and the Validation heading.

use super::fields::heading_field_name;
use super::syntax::{heading, task_file_links, task_mentions, unique_in_order};
use super::task_record::TaskBody;

/// A task file name `<N>.task_<slug>.md`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct TaskFileName {
    /// The `<N>` (leading zeros allowed: `01` reads as 1).
    pub number: u32,
    /// The `<slug>` after `task_`, as written.
    pub slug: String,
    /// Number without leading zeros and slug of `[a-z0-9_]+` (the v2/v5 locator pattern).
    pub canonical: bool,
}

impl TaskFileName {
    /// `<N>.task_final_review*.md`
    pub fn is_final_review(&self) -> bool {
        self.slug.starts_with("final_review")
    }
}

/// Parses `<N>.task_<slug>.md`; other names give `None`.
pub fn parse_task_file_name(name: &str) -> Option<TaskFileName> {
    let stem = name.strip_suffix(".md")?;
    let (num, slug) = stem.split_once(".task_")?;
    if num.is_empty()
        || !num.bytes().all(|b| b.is_ascii_digit())
        || slug.is_empty()
        || slug.contains(['/', '\\'])
    {
        return None;
    }
    let number = num.parse().ok()?;
    let canonical = !num.starts_with('0')
        && slug
            .bytes()
            .all(|b| matches!(b, b'a'..=b'z' | b'0'..=b'9' | b'_'));
    Some(TaskFileName {
        number,
        slug: slug.to_string(),
        canonical,
    })
}

/// The lifecycle ending of a legacy plan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LegacyEnding {
    /// One `final_review` task, and it is the last.
    FinalReviewLast,
    /// One `final_review` task at `at`, not the last.
    FinalReviewNotLast {
        /// The final review's task number.
        at: u32,
    },
    /// More than one `final_review` task.
    SeveralFinalReviews {
        /// Their task numbers, in ascending order.
        at: Vec<u32>,
    },
    /// `security_review` (N−2), `skills_agents_discovery` (N−1), `executive_report` (N).
    ThreeTaskEnding,
    /// Final Review last, preceded by a kept `security_review` at N−1 (allowed only with a
    /// declared migration and a completed security_review — the caller checks both).
    FinalReviewAfterMigratedSecurityReview,
    /// Parts of both endings, or the old ending out of order.
    Mixed,
    /// Neither ending.
    Missing,
}

const OLD_ENDING: [&str; 3] = [
    "security_review",
    "skills_agents_discovery",
    "executive_report",
];

/// Classifies the ending from the plan's task file names (any order; sorted here by number).
pub fn classify_ending(files: &[TaskFileName]) -> LegacyEnding {
    let mut sorted: Vec<&TaskFileName> = files.iter().collect();
    sorted.sort();
    let Some(last) = sorted.last() else {
        return LegacyEnding::Missing;
    };
    let n = last.number;
    let finals: Vec<u32> = sorted
        .iter()
        .filter(|f| f.is_final_review())
        .map(|f| f.number)
        .collect();
    let old: Vec<(&str, u32)> = sorted
        .iter()
        .filter_map(|f| {
            OLD_ENDING
                .iter()
                .find(|s| f.slug == **s)
                .map(|s| (*s, f.number))
        })
        .collect();
    match finals.as_slice() {
        [] => {}
        [at] if *at != n => return LegacyEnding::FinalReviewNotLast { at: *at },
        [_] => {
            return match old.as_slice() {
                [] => LegacyEnding::FinalReviewLast,
                [("security_review", at)] if n >= 1 && *at == n - 1 => {
                    LegacyEnding::FinalReviewAfterMigratedSecurityReview
                }
                _ => LegacyEnding::Mixed,
            };
        }
        several => {
            return LegacyEnding::SeveralFinalReviews {
                at: several.to_vec(),
            };
        }
    }
    if old.is_empty() {
        return LegacyEnding::Missing;
    }
    let expected = [
        ("security_review", n.checked_sub(2)),
        ("skills_agents_discovery", n.checked_sub(1)),
        ("executive_report", Some(n)),
    ];
    let in_place = old.len() == 3
        && expected
            .iter()
            .all(|(slug, at)| old.iter().any(|(s, num)| s == slug && Some(*num) == *at));
    if in_place {
        LegacyEnding::ThreeTaskEnding
    } else {
        LegacyEnding::Mixed
    }
}

/// Task numbers a task's `Read Before Starting` refers to: `Task N` mentions and links or names
/// of `<N>.task_*.md` files, in order, unique.
pub fn read_before_references(body: &TaskBody<'_>) -> Vec<u32> {
    let Some(field) = body.field("Read Before Starting") else {
        return Vec::new();
    };
    let mut found = task_mentions(&field.text);
    for line in field.text.lines() {
        found.extend(
            task_file_links(line)
                .into_iter()
                .filter_map(|link| link.number),
        );
        found.extend(
            line.split(|c: char| {
                c.is_whitespace() || matches!(c, '`' | '(' | ')' | '[' | ']' | ',')
            })
            .filter_map(|word| parse_task_file_name(word.trim_start_matches("./")))
            .map(|name| name.number),
        );
    }
    unique_in_order(found)
}

/// True when the task body has a Validation heading (legacy rule: every task has one): a heading
/// of any level whose field name starts with the word `Validation` (`## 7. Validation`,
/// `## Validation (runnable commands)`, `### Validation commands`).
pub fn has_validation_heading(body: &TaskBody<'_>) -> bool {
    body.lines.iter().filter(|l| !l.in_fence).any(|l| {
        heading(l.text).is_some_and(|h| {
            heading_field_name(h.text)
                .split_whitespace()
                .next()
                .is_some_and(|w| w.trim_end_matches(':').eq_ignore_ascii_case("validation"))
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(list: &[&str]) -> Vec<TaskFileName> {
        list.iter()
            .filter_map(|n| parse_task_file_name(n))
            .collect()
    }

    #[test]
    fn file_names() {
        let n = parse_task_file_name("12.task_final_review_v2.md").expect("name");
        assert_eq!(
            (n.number, n.slug.as_str(), n.canonical),
            (12, "final_review_v2", true)
        );
        assert!(n.is_final_review());
        assert!(
            !parse_task_file_name("03.task_X.md")
                .expect("name")
                .canonical
        );
        assert_eq!(parse_task_file_name("task_1.md"), None);
        assert_eq!(parse_task_file_name("1.task_.md"), None);
        assert_eq!(parse_task_file_name("a.task_x.md"), None);
    }

    #[test]
    fn endings() {
        assert_eq!(
            classify_ending(&names(&["1.task_a.md", "2.task_final_review.md"])),
            LegacyEnding::FinalReviewLast
        );
        assert_eq!(
            classify_ending(&names(&[
                "1.task_a.md",
                "2.task_final_review.md",
                "3.task_b.md"
            ])),
            LegacyEnding::FinalReviewNotLast { at: 2 }
        );
        assert_eq!(
            classify_ending(&names(&[
                "1.task_a.md",
                "2.task_security_review.md",
                "3.task_skills_agents_discovery.md",
                "4.task_executive_report.md"
            ])),
            LegacyEnding::ThreeTaskEnding
        );
        assert_eq!(
            classify_ending(&names(&[
                "1.task_a.md",
                "2.task_security_review.md",
                "3.task_final_review.md"
            ])),
            LegacyEnding::FinalReviewAfterMigratedSecurityReview
        );
        assert_eq!(
            classify_ending(&names(&[
                "1.task_security_review.md",
                "2.task_executive_report.md",
                "3.task_skills_agents_discovery.md"
            ])),
            LegacyEnding::Mixed
        );
        assert_eq!(
            classify_ending(&names(&[
                "1.task_a.md",
                "2.task_executive_report.md",
                "3.task_final_review.md"
            ])),
            LegacyEnding::Mixed
        );
        assert_eq!(
            classify_ending(&names(&["1.task_a.md"])),
            LegacyEnding::Missing
        );
        assert_eq!(classify_ending(&[]), LegacyEnding::Missing);
    }

    #[test]
    fn references_and_validation() {
        let body = TaskBody::new(
            "## 2. Read Before Starting\n\n- Task 1 output\n- [notes](./3.task_x.md)\n- `4.task_final_review.md`\n\n## 7. Validation\n\n```bash\nx\n```\n",
        );
        assert_eq!(read_before_references(&body), vec![1, 3, 4]);
        assert!(has_validation_heading(&body));
        assert!(!has_validation_heading(&TaskBody::new("**Validation:** x")));
        assert!(has_validation_heading(&TaskBody::new(
            "### Validation commands\n"
        )));
        assert!(!has_validation_heading(&TaskBody::new(
            "## Validations\n```\n## Validation\n```"
        )));
    }
}
