//! Pure readers for the DWP markdown artifacts: README.md (declarations, Goal and
//! Context, task index, Lite inline records), task files, field extraction, the Completion & Log
//! with its Status line, gate record lines and amendment records, PROGRESS.md entries,
//! SECURITY_REVIEW.md's critical-finding rules and the legacy (v1) helpers.
//!
//! Everything here is a pure function of text: bytes in, typed values out, no I/O, no panics, and
//! linear in the input size (each reader walks the lines once, a fixed number of times; all
//! regexes run on the `regex` crate's linear-time engine).
//!
//! Input is decoded with [`decode`]: strict UTF-8 (a leading BOM is skipped). Invalid bytes give
//! [`InvalidUtf8`] with the byte offset of the first bad sequence — the checks report it as a
//! finding that names the file — rather than a lossy decode that would silently change a `Status:`
//! or a checkbox.
//!
//! ```
//! use planseal::dwp::model::markdown::{decode, parse_readme, PlanStatus};
//! let text = decode(b"Plan Status: 1/2 completed\n\n## Task List\n\n- [x] Task 1: A\n- [ ] Task 2: B\n")?;
//! let readme = parse_readme(text);
//! assert_eq!(readme.task_index.checked_count(), 1);
//! assert_eq!(readme.plan_status().map(|p| &p.status), Some(&PlanStatus::Count { completed: 1, total: 2 }));
//! # Ok::<(), planseal::dwp::model::markdown::InvalidUtf8>(())
//! ```
//!
//! ## Limitations
//! - Only ATX headings (`#`…) are recognised; setext headings (`===` underlines) are plain text.
//! - Fences close on a run of the same character at least as long as the opening one, not full
//!   CommonMark: indented code blocks and HTML blocks are ordinary lines.

pub mod amendment;
pub mod close_out;
pub mod completion_log;
pub mod fences;
pub mod fields;
pub mod legacy;
pub mod progress;
pub mod promotion;
pub mod readme;
pub mod rewrite;
pub mod security_review;
pub mod syntax;
pub mod task_record;

pub use amendment::{AMENDMENT_LABELS, Amendment, Authority, Disposition, amendments};
pub use completion_log::{
    CommitNote, CompletionLog, GateRecordLine, LabeledLine, LogStatus, StatusForm, StatusLine,
};
pub use fences::{Line, lines};
pub use fields::{FieldForm, FieldText, KNOWN_LABELS, field};
pub use legacy::{
    LegacyEnding, TaskFileName, classify_ending, has_validation_heading, parse_task_file_name,
    read_before_references,
};
pub use progress::{
    ProgressEntry, ReconciliationEntry, SkipRefinement, append_dated_entry,
    append_reconciliation_entry, mirrors_amendment, progress_entries, refinement_names_task,
    skip_refinement_date,
};
pub use readme::{
    ApprovalValue, DeclSource, Declared, DeclaredFormat, IndexEntry, IndexSource, InlineRecord,
    InlineRecords, MaterializationValue, Migration, PlanStatus, PlanStatusLine, Readme,
    SpecVersion, StandardDecl, TaskIndex, UnnumberedCheckbox, parse_readme, parse_readme_bytes,
};
pub use security_review::{
    LABEL_CRITICAL_UNCLEAR, LABEL_OPEN_CRITICAL, SecurityVerdict, security_verdict,
};
pub use syntax::TaskFileLink;
pub use task_record::{
    FINAL_REVIEW_TERMS, Section, TaskBody, TaskFile, TaskTitle, final_review_missing_terms,
    parse_task_file, parse_task_file_bytes,
};

/// A markdown file that is not valid UTF-8.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("not valid UTF-8 at byte {offset}; save the file as UTF-8")]
pub struct InvalidUtf8 {
    /// Byte offset of the first invalid sequence in the original bytes (BOM included).
    pub offset: usize,
}

/// Strict UTF-8 decoding of a markdown file; a leading UTF-8 BOM is skipped.
pub fn decode(bytes: &[u8]) -> Result<&str, InvalidUtf8> {
    let (skip, rest) = match bytes.strip_prefix(b"\xEF\xBB\xBF") {
        Some(rest) => (3, rest),
        None => (0, bytes),
    };
    std::str::from_utf8(rest).map_err(|e| InvalidUtf8 {
        offset: skip + e.valid_up_to(),
    })
}

/// A task's record as the markdown gives it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MarkdownTask {
    /// The task number of its README index line.
    pub id: u64,
    /// The index line's checkbox is ticked (`- [x]`): the README counts the task as completed.
    pub checked: bool,
    /// The title from the index line, else from the inline record's or task file's heading;
    /// trimmed, empty when none has one.
    pub title: String,
    /// `N.task_slug.md` (Full plans).
    pub file: Option<String>,
    /// The status the task log declares.
    pub log_status: Option<LogStatus>,
    /// The `Gate record:` lines of its Completion & Log, in order.
    pub gate_lines: Vec<GateRecordLine>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decode_reports_offset_and_skips_bom() {
        assert_eq!(decode(b"ab\xFFc"), Err(InvalidUtf8 { offset: 2 }));
        assert_eq!(decode(b"\xEF\xBB\xBF# x"), Ok("# x"));
        assert_eq!(decode(b"\xEF\xBB\xBFa\xC3"), Err(InvalidUtf8 { offset: 4 }));
    }
}
