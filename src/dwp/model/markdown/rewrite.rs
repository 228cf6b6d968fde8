//! The markdown edits of `planseal refine --add-task` (`docs/refine.md`): a new task written
//! before the Final Review, and the Final Review renumbered wherever the plan's structure names
//! it — its task file's `# Task N:` heading, its README index line and link, its inline record
//! `## Task N: … {#task-N}`, links to its file or anchor — and the `Plan Status: X/N` total.
//!
//! Pure text in, text out. Every line an edit does not own is kept byte for byte, its line
//! ending included; a new line takes the file's own line ending. Prose that mentions a task
//! number ("Tasks 1 to 3 are committed") is the author's and is left alone.

use super::close_out::{PLACEHOLDER, line_ending};
use super::fences::lines;
use super::readme::parse_readme;
use super::syntax::{first_task_mention, label_value, task_file_links};
use crate::markdown::heading;

/// The slug of the Final Review's task file (`<N>.task_final_review.md`): the name the plan's
/// checks look for in the last task.
pub const FINAL_REVIEW_SLUG: &str = "final_review";

/// The longest slug a title gives (cut at a word edge).
const SLUG_MAX: usize = 40;

/// Why a README could not be edited.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RewriteError {
    /// The README has no task-list line for the task.
    #[error("README.md has no task-list line for task {0}")]
    NoIndexLine(u32),
    /// A Lite README has no inline record `{#task-N}` for the task.
    #[error("README.md has no inline record `{{#task-{0}}}` for task {0}")]
    NoRecord(u32),
    /// The README has no `Plan Status: X/N` line to update.
    #[error("README.md has no `Plan Status: X/N completed` line")]
    NoPlanStatus,
}

/// A new task as `refine --add-task` is given it. A section without a value is written as an
/// explicit `TODO:` placeholder.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TaskDraft {
    /// The task's title (one line).
    pub title: String,
    /// `Goal`.
    pub goal: Option<String>,
    /// `Context`.
    pub context: Option<String>,
    /// `Touched Surface`.
    pub touched_surface: Option<String>,
    /// `Acceptance Criteria`, one criterion each.
    pub acceptance: Vec<String>,
    /// `Validation`: the command that proves it.
    pub validation: Option<String>,
}

impl TaskDraft {
    /// The sections written as a `TODO:` placeholder, in the order a record lists them.
    pub fn placeholders(&self) -> Vec<&'static str> {
        let mut out = Vec::new();
        for (name, missing) in [
            ("Goal", blank(&self.goal)),
            ("Context", blank(&self.context)),
            ("Touched Surface", blank(&self.touched_surface)),
            (
                "Acceptance Criteria",
                self.acceptance.iter().all(|a| a.trim().is_empty()),
            ),
            ("Validation", blank(&self.validation)),
        ] {
            if missing {
                out.push(name);
            }
        }
        out
    }
}

fn blank(value: &Option<String>) -> bool {
    value.as_deref().is_none_or(|v| v.trim().is_empty())
}

fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A multi-line value with the file's line ending (trailing blanks trimmed).
fn paragraph(value: &str, nl: &str) -> String {
    value
        .trim()
        .lines()
        .map(str::trim_end)
        .collect::<Vec<_>>()
        .join(nl)
}

fn placeholder(what: &str) -> String {
    format!("{PLACEHOLDER} {what}")
}

/// The file-name slug of a title: lower-case ASCII letters and digits, every other run of
/// characters one `_` (common accented Latin letters lose their accent), at most 40 characters
/// cut at a word edge; `task` when nothing is left.
pub fn task_slug(title: &str) -> String {
    let mut slug = String::new();
    for c in title.chars() {
        let c = plain_letter(c).to_ascii_lowercase();
        if c.is_ascii_alphanumeric() {
            slug.push(c);
        } else if !slug.is_empty() && !slug.ends_with('_') {
            slug.push('_');
        }
    }
    let mut slug = slug.trim_end_matches('_').to_string();
    if slug.len() > SLUG_MAX {
        let cut = slug[..=SLUG_MAX]
            .rfind('_')
            .filter(|i| *i > 0)
            .unwrap_or(SLUG_MAX);
        slug.truncate(cut);
        slug = slug.trim_end_matches('_').to_string();
    }
    if slug.is_empty() {
        "task".to_string()
    } else {
        slug
    }
}

/// The unaccented letter of a common accented Latin letter (the rest unchanged).
fn plain_letter(c: char) -> char {
    const FROM: &str = "àáâãäåèéêëìíîïòóôõöùúûüýÿñçÀÁÂÃÄÅÈÉÊËÌÍÎÏÒÓÔÕÖÙÚÛÜÝÑÇ";
    const TO: &str = "aaaaaaeeeeiiiiooooouuuuyyncAAAAAAEEEEIIIIOOOOOUUUUYNC";
    FROM.chars()
        .position(|f| f == c)
        .and_then(|i| TO.chars().nth(i))
        .unwrap_or(c)
}

/// `<id>.task_<slug>.md`.
pub fn task_file_name(id: u32, slug: &str) -> String {
    format!("{id}.task_{slug}.md")
}

/// A task file's name with its number replaced (`4.task_final_review.md`, 5 →
/// `5.task_final_review.md`); `None` when the name is not `<N>.task_<slug>.md`.
pub fn renumbered_file_name(name: &str, to: u32) -> Option<String> {
    let digits = name.bytes().take_while(u8::is_ascii_digit).count();
    let rest = &name[digits..];
    (digits > 0 && rest.starts_with(".task_")).then(|| format!("{to}{rest}"))
}

/// `line` with its first `Task <from>` saying `Task <to>` (`None` when its first task mention
/// is not `from`).
fn renumber_mention(line: &str, from: u32, to: u32) -> Option<String> {
    let (n, range) = first_task_mention(line)?;
    if n != from {
        return None;
    }
    let whole = &line[range.clone()];
    let digits = whole.bytes().rev().take_while(u8::is_ascii_digit).count();
    let at = range.end - digits;
    Some(format!("{}{to}{}", &line[..at], &line[range.end..]))
}

/// Every whole occurrence of the file name `old` in `line` (not preceded by a letter or digit,
/// so `14.task_x.md` is not `4.task_x.md`) replaced by `new`.
fn replace_file_name(line: &str, old: &str, new: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    while let Some(i) = rest.find(old) {
        let before = rest[..i].chars().next_back();
        let after = rest[i + old.len()..].chars().next();
        let whole = !before.is_some_and(|c| c.is_alphanumeric())
            && !after.is_some_and(|c| c.is_alphanumeric() || c == '_');
        out.push_str(&rest[..i]);
        out.push_str(if whole { new } else { old });
        rest = &rest[i + old.len()..];
    }
    out.push_str(rest);
    out
}

/// `{#task-<from>}` and `(#task-<from>)` in `line` naming `<to>` instead.
fn renumber_anchor(line: &str, from: u32, to: u32) -> String {
    line.replace(&format!("{{#task-{from}}}"), &format!("{{#task-{to}}}"))
        .replace(&format!("(#task-{from})"), &format!("(#task-{to})"))
}

/// The raw lines of `text`, each with its ending.
fn raw_lines(text: &str) -> Vec<String> {
    text.split_inclusive('\n').map(str::to_string).collect()
}

/// `line` (with its ending) with its body replaced by `f(body)`.
fn map_body(line: &str, f: impl FnOnce(&str) -> String) -> String {
    let body = line.trim_end_matches(['\n', '\r']);
    format!("{}{}", f(body), &line[body.len()..])
}

/// A task file whose `# Task <from>: …` heading (its first level-1 heading) says `to`; a file
/// that already says `to`, or whose heading names another number, is returned unchanged.
pub fn renumber_task_file(text: &str, from: u32, to: u32) -> String {
    let Some(title) = lines(text)
        .into_iter()
        .filter(|l| !l.in_fence)
        .find(|l| heading(l.text).is_some_and(|h| h.level == 1))
    else {
        return text.to_string();
    };
    let mut raw = raw_lines(text);
    let line = &raw[title.number - 1];
    if let Some(new) = renumber_mention(line, from, to) {
        raw[title.number - 1] = new;
    }
    raw.concat()
}

/// The file names of an insertion into a Full plan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FullNames {
    /// The new task's file (`<N>.task_<slug>.md`).
    pub new_task: String,
    /// The Final Review's file before (`<N>.task_final_review.md`).
    pub final_before: String,
    /// … and after (`<N+1>.task_final_review.md`).
    pub final_after: String,
}

/// Whether the README already lists the inserted task `at` under `title` and the Final Review
/// as task `at + 1` — an insertion that was written and then interrupted before state.json.
pub fn has_inserted_task(readme: &str, at: u32, title: &str) -> bool {
    let parsed = parse_readme(readme);
    let index = &parsed.task_index;
    index
        .entry(at)
        .is_some_and(|e| one_line(&e.title) == one_line(title))
        && index.entry(at + 1).is_some()
}

/// The README with task `at` inserted before the Final Review, which becomes task `at + 1`:
/// a new index line before the Final Review's (same bullet, unticked; linking `names.new_task`
/// in a Full plan, with `./` when the Final Review's link has it), the Final Review's index line
/// and every link to its file or anchor renumbered, in a Lite plan the new inline record
/// before the Final Review's (renumbered too), and every `Plan Status: X/N` counting one more
/// task. `names` is `None` for a Lite plan.
pub fn insert_task_before_final(
    readme: &str,
    at: u32,
    draft: &TaskDraft,
    names: Option<&FullNames>,
) -> Result<String, RewriteError> {
    let nl = line_ending(readme);
    let parsed = parse_readme(readme);
    let final_entry = parsed
        .task_index
        .entry(at)
        .ok_or(RewriteError::NoIndexLine(at))?;
    if parsed.plan_status_lines.is_empty() {
        return Err(RewriteError::NoPlanStatus);
    }
    let record = match names {
        None => Some(parsed.inline.record(at).ok_or(RewriteError::NoRecord(at))?),
        Some(_) => None,
    };
    let mut raw = raw_lines(readme);
    // Renumber what names the Final Review.
    for l in parsed.lines.iter().filter(|l| !l.in_fence) {
        let i = l.number - 1;
        let mut line = raw[i].clone();
        let is_own_line =
            l.number == final_entry.line || record.is_some_and(|r| r.heading_line == l.number);
        if is_own_line && let Some(renumbered) = renumber_mention(&line, at, at + 1) {
            line = renumbered;
        }
        line = renumber_anchor(&line, at, at + 1);
        if let Some(n) = names {
            line = replace_file_name(&line, &n.final_before, &n.final_after);
        }
        raw[i] = line;
    }
    // The Plan Status total.
    let total = u32::try_from(parsed.task_index.total()).unwrap_or(u32::MAX);
    for status in &parsed.plan_status_lines {
        let i = status.line - 1;
        raw[i] = map_body(&raw[i], |body| with_total(body, total + 1));
    }
    // The new index line, before the Final Review's.
    let final_line = &raw[final_entry.line - 1];
    let box_at = final_line.find('[').unwrap_or(0);
    let mut index_line = format!(
        "{}[ ] Task {at}: {}",
        &final_line[..box_at],
        one_line(&draft.title)
    );
    if let Some(n) = names {
        let dot = final_entry
            .link
            .as_ref()
            .is_some_and(|l| l.target.starts_with("./"));
        let target = if dot {
            format!("./{}", n.new_task)
        } else {
            n.new_task.clone()
        };
        index_line.push_str(&format!(" — [{}]({target})", n.new_task));
    }
    index_line.push_str(nl);
    let mut inserts = vec![(final_entry.line - 1, index_line)];
    if let Some(r) = record {
        let level = heading(parsed.lines[r.heading_line - 1].text).map_or(2, |h| h.level);
        let sub = r
            .body
            .lines
            .iter()
            .filter(|l| !l.in_fence)
            .find_map(|l| heading(l.text).map(|h| h.level))
            .unwrap_or(level + 1);
        inserts.push((r.heading_line - 1, inline_record(at, draft, level, sub, nl)));
    }
    // Bottom first, so the earlier indices stay right.
    inserts.sort_by_key(|(i, _)| std::cmp::Reverse(*i));
    for (i, text) in inserts {
        raw.insert(i, text);
    }
    Ok(raw.concat())
}

/// `Plan Status: X/N …` with `N` replaced by `total` (the rest of the line kept).
fn with_total(body: &str, total: u32) -> String {
    let Some(lv) = label_value(body, "Plan Status") else {
        return body.to_string();
    };
    let start = lv.value.as_ptr() as usize - body.as_ptr() as usize;
    let value = &body[start..start + lv.value.len()];
    let Some(slash) = value.find('/') else {
        return body.to_string();
    };
    let after = &value[slash + 1..];
    let blanks = after.len() - after.trim_start().len();
    let digits = after[blanks..]
        .bytes()
        .take_while(u8::is_ascii_digit)
        .count();
    if digits == 0 {
        return body.to_string();
    }
    let at = start + slash + 1 + blanks;
    format!("{}{total}{}", &body[..at], &body[at + digits..])
}

/// The sections of a new task's record, in the order a Lite record lists them, each with its
/// value or a placeholder.
fn draft_sections(
    draft: &TaskDraft,
    nl: &str,
    fenced_validation: bool,
) -> Vec<(&'static str, String)> {
    let text = |v: &Option<String>, what: &str| match v {
        Some(v) if !v.trim().is_empty() => paragraph(v, nl),
        _ => placeholder(what),
    };
    let criteria: Vec<&String> = draft
        .acceptance
        .iter()
        .filter(|a| !a.trim().is_empty())
        .collect();
    let acceptance = if criteria.is_empty() {
        placeholder("the observable criteria that close the task")
    } else {
        let tick = if fenced_validation { "[ ] " } else { "" };
        criteria
            .iter()
            .map(|a| format!("- {tick}{}", one_line(a)))
            .collect::<Vec<_>>()
            .join(nl)
    };
    let validation = match &draft.validation {
        Some(v) if !v.trim().is_empty() => {
            let v = v.trim();
            if fenced_validation || v.contains('`') || v.contains('\n') {
                format!("```bash{nl}{}{nl}```", paragraph(v, nl))
            } else {
                format!("`{v}`")
            }
        }
        _ => placeholder("the command that proves the criteria"),
    };
    vec![
        ("Goal", text(&draft.goal, "what the task achieves")),
        ("Context", text(&draft.context, "what the task starts from")),
        (
            "Touched Surface",
            text(&draft.touched_surface, "the files and consumers it changes"),
        ),
        ("Acceptance Criteria", acceptance),
        ("Validation", validation),
    ]
}

/// A Lite inline record: `## Task N: Title {#task-N}`, its five sections and a pending
/// Completion & Log, ending with a blank line.
fn inline_record(at: u32, draft: &TaskDraft, level: usize, sub: usize, nl: &str) -> String {
    let mut out = format!(
        "{} Task {at}: {} {{#task-{at}}}{nl}{nl}",
        "#".repeat(level),
        one_line(&draft.title)
    );
    let hashes = "#".repeat(sub);
    for (name, value) in draft_sections(draft, nl, false) {
        out.push_str(&format!("{hashes} {name}{nl}{nl}{value}{nl}{nl}"));
    }
    out.push_str(&format!(
        "{hashes} Completion & Log{nl}{nl}Status: pending{nl}{nl}"
    ));
    out
}

/// A Full task file for a new task: `# Task N: Title`, then the sections a Full task file has
/// (Context, Read Before Starting, Goal, Touched Surface, Instructions, Acceptance Criteria as
/// checkboxes, Outputs, Validation as a fenced command, Execution Checklist, a pending
/// Completion & Log). `numbered`: `## 1. Context` as the plan's other task files write them.
/// `nl` is the line ending.
pub fn full_task_file(at: u32, draft: &TaskDraft, numbered: bool, nl: &str) -> String {
    let mut sections = draft_sections(draft, nl, true);
    let checklist = [
        "Acceptance criteria met",
        "Validation run and recorded under `analysis_results/gates/`",
        "Commit created",
    ]
    .iter()
    .map(|c| format!("- [ ] {c}"))
    .collect::<Vec<_>>()
    .join(nl);
    // Full order: Context, Read Before Starting, Goal, Touched Surface, Instructions,
    // Acceptance Criteria, Outputs, Validation, Execution Checklist.
    let goal = sections.remove(0);
    let context = sections.remove(0);
    let mut ordered = vec![
        context,
        (
            "Read Before Starting",
            placeholder("the files and earlier task outputs to read first"),
        ),
        goal,
    ];
    ordered.push(sections.remove(0)); // Touched Surface
    ordered.push(("Instructions", placeholder("the steps, in order")));
    ordered.push(sections.remove(0)); // Acceptance Criteria
    ordered.push(("Outputs", placeholder("the files or artifacts it produces")));
    ordered.push(sections.remove(0)); // Validation
    ordered.push(("Execution Checklist", checklist));
    ordered.push(("Completion & Log", "Status: pending".to_string()));
    let mut out = format!("# Task {at}: {}{nl}", one_line(&draft.title));
    for (i, (name, value)) in ordered.iter().enumerate() {
        let number = if numbered {
            format!("{}. ", i + 1)
        } else {
            String::new()
        };
        out.push_str(&format!("{nl}## {number}{name}{nl}{nl}{value}{nl}"));
    }
    out
}

/// Whether a task file numbers its sections (`## 1. Context`): its first `##` heading starts
/// with a number and a dot.
pub fn numbers_sections(task_file: &str) -> bool {
    lines(task_file)
        .into_iter()
        .filter(|l| !l.in_fence)
        .find_map(|l| heading(l.text).filter(|h| h.level == 2))
        .is_some_and(|h| {
            let digits = h.text.bytes().take_while(u8::is_ascii_digit).count();
            digits > 0 && h.text[digits..].starts_with('.')
        })
}

/// Every task file the README links (unfenced lines), by file name.
pub fn linked_files(readme: &str) -> Vec<String> {
    lines(readme)
        .into_iter()
        .filter(|l| !l.in_fence)
        .flat_map(|l| task_file_links(l.text))
        .map(|l| l.file_name)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const LITE: &str = "# Plan\n\nPlan Status: 1/3 completed\n\n## Task 1: A {#task-1}\n\n### Goal\n\nA.\n\n## Task 3: Final Review {#task-3}\n\n### Goal\n\nReview; see [the review](#task-3).\n\n## Task List\n\n- [x] Task 1: A\n- [ ] Task 2: B\n- [ ] Task 3: Final Review\n";

    #[test]
    fn slugs_are_lower_case_ascii_words_cut_at_a_word_edge() {
        assert_eq!(task_slug("Load test the limiter"), "load_test_the_limiter");
        assert_eq!(
            task_slug("  Documentação do operador! "),
            "documentacao_do_operador"
        );
        assert_eq!(task_slug("日本語"), "task");
        assert_eq!(task_slug("C++ / Rust: FFI"), "c_rust_ffi");
        let long = task_slug(&"word ".repeat(20));
        assert!(long.len() <= SLUG_MAX && !long.ends_with('_'), "{long}");
        assert_eq!(
            renumbered_file_name("4.task_final_review.md", 5).as_deref(),
            Some("5.task_final_review.md")
        );
        assert_eq!(renumbered_file_name("README.md", 5), None);
    }

    #[test]
    fn a_task_file_heading_is_renumbered_once() {
        let text = "```\n# Task 4: not this\n```\n# Task 4: Final Review\r\n\nTask 4 prose.\n";
        let once = renumber_task_file(text, 4, 5);
        assert_eq!(
            once,
            "```\n# Task 4: not this\n```\n# Task 5: Final Review\r\n\nTask 4 prose.\n"
        );
        assert_eq!(renumber_task_file(&once, 4, 5), once, "idempotent");
    }

    #[test]
    fn file_names_are_replaced_only_whole() {
        assert_eq!(
            replace_file_name(
                "[4.task_x.md](./4.task_x.md) 14.task_x.md 4.task_x.mdx",
                "4.task_x.md",
                "5.task_x.md"
            ),
            "[5.task_x.md](./5.task_x.md) 14.task_x.md 4.task_x.mdx"
        );
    }

    #[test]
    fn a_lite_insertion_renumbers_the_final_review_and_counts_one_more_task() {
        // Task 2 has no record: the insertion only needs the Final Review's.
        let draft = TaskDraft {
            title: "Load test".into(),
            goal: Some("Measure p95.".into()),
            acceptance: vec!["p95 < 200 ms".into()],
            validation: Some("make bench".into()),
            ..TaskDraft::default()
        };
        let out = insert_task_before_final(LITE, 3, &draft, None).unwrap();
        assert_eq!(
            out,
            "# Plan\n\nPlan Status: 1/4 completed\n\n## Task 1: A {#task-1}\n\n### Goal\n\nA.\n\n\
## Task 3: Load test {#task-3}\n\n### Goal\n\nMeasure p95.\n\n### Context\n\nTODO: what the task starts from\n\n\
### Touched Surface\n\nTODO: the files and consumers it changes\n\n### Acceptance Criteria\n\n- p95 < 200 ms\n\n\
### Validation\n\n`make bench`\n\n### Completion & Log\n\nStatus: pending\n\n\
## Task 4: Final Review {#task-4}\n\n### Goal\n\nReview; see [the review](#task-4).\n\n## Task List\n\n\
- [x] Task 1: A\n- [ ] Task 2: B\n- [ ] Task 3: Load test\n- [ ] Task 4: Final Review\n"
        );
        assert!(has_inserted_task(&out, 3, "Load test"));
        assert!(!has_inserted_task(LITE, 3, "Load test"));
        assert_eq!(draft.placeholders(), ["Context", "Touched Surface"]);
    }

    #[test]
    fn a_full_insertion_links_the_new_file_and_renames_the_final_reviews_links() {
        let readme = "Plan Status: **0/2** completed\r\n\r\n## Task List\r\n\r\n* [ ] Task 1: A — [1.task_a.md](1.task_a.md)\r\n* [ ] Task 2: Final Review — [2.task_final_review.md](./2.task_final_review.md)\r\n\r\nSee 2.task_final_review.md.\r\n```\r\n2.task_final_review.md\r\n```\r\n";
        let names = FullNames {
            new_task: "2.task_docs.md".into(),
            final_before: "2.task_final_review.md".into(),
            final_after: "3.task_final_review.md".into(),
        };
        let draft = TaskDraft {
            title: "Docs".into(),
            ..TaskDraft::default()
        };
        let out = insert_task_before_final(readme, 2, &draft, Some(&names)).unwrap();
        assert_eq!(
            out,
            "Plan Status: **0/3** completed\r\n\r\n## Task List\r\n\r\n* [ ] Task 1: A — [1.task_a.md](1.task_a.md)\r\n\
* [ ] Task 2: Docs — [2.task_docs.md](./2.task_docs.md)\r\n\
* [ ] Task 3: Final Review — [3.task_final_review.md](./3.task_final_review.md)\r\n\r\nSee 3.task_final_review.md.\r\n```\r\n2.task_final_review.md\r\n```\r\n"
        );
        assert_eq!(
            insert_task_before_final("## Task List\n\n- [ ] Task 1: A\n", 1, &draft, Some(&names)),
            Err(RewriteError::NoPlanStatus)
        );
        assert_eq!(
            insert_task_before_final(LITE, 3, &draft, None).map(|_| ()),
            Ok(())
        );
        assert_eq!(
            insert_task_before_final(
                "Plan Status: 0/1 completed\n\n## Task List\n\n- [ ] Task 1: Final Review\n",
                1,
                &draft,
                None
            ),
            Err(RewriteError::NoRecord(1))
        );
    }

    #[test]
    fn a_full_task_file_has_every_section_and_numbers_them_like_its_plan() {
        let draft = TaskDraft {
            title: "Docs".into(),
            goal: Some("Write the page.".into()),
            acceptance: vec!["linked".into()],
            validation: Some("make docs".into()),
            ..TaskDraft::default()
        };
        let text = full_task_file(3, &draft, true, "\n");
        assert!(text.starts_with("# Task 3: Docs\n\n## 1. Context\n\nTODO: what the task starts from\n\n## 2. Read Before Starting\n"), "{text}");
        assert!(
            text.contains("## 6. Acceptance Criteria\n\n- [ ] linked\n"),
            "{text}"
        );
        assert!(
            text.contains("## 8. Validation\n\n```bash\nmake docs\n```\n"),
            "{text}"
        );
        assert!(
            text.ends_with("## 10. Completion & Log\n\nStatus: pending\n"),
            "{text}"
        );
        assert!(numbers_sections(&text));
        assert!(!numbers_sections(&full_task_file(3, &draft, false, "\n")));
    }
}
