//! The GSD findings of `planseal verify` (`docs/gsd.md`): frontmatter the hook cannot see, a
//! progress block it reads only in part, values that disagree with each other, and the lifecycle
//! rules of GSD's state schema. Pure: text in, findings out.

use super::compat::{self, HookState};
use super::derive::{self, Derivation};
use super::document::{Document, Quote, Value};
use super::rules::{LIFECYCLE_STATUSES, NEXT_ACTIONS, compute_progress_percent, normalize_status};
use crate::report::{Finding, Severity};

/// What the checks need from the outside world.
pub struct CheckEnv<'a> {
    /// Whether a `Resume file:` path exists (resolved by the caller against the project root).
    pub resume_file_exists: &'a dyn Fn(&str) -> bool,
}

/// The keys the hook reads whose inline comments end up on screen.
const HOOK_SCALARS: [&str; 5] = [
    "status",
    "milestone",
    "milestone_name",
    "active_phase",
    "next_action",
];

/// Every finding for one STATE.md text.
pub fn check_text(text: &str, env: &CheckEnv<'_>) -> Vec<Finding> {
    let doc = Document::parse(text.to_string());
    // The hook's view of the same text; when the fence hides the frontmatter from it, judge the
    // rest as it would read once the fence is fixed.
    let visible = match &doc.frontmatter {
        Some(fm) if fm.deviations.any() && !fm.deviations.unclosed => {
            format!("---\n{}---\n{}", &doc.text[fm.inner.clone()], doc.body())
        }
        _ => text.to_string(),
    };
    let hook = compat::parse(&visible);
    let derivation = derive::derive(&doc, None);
    let mut out = Vec::new();
    check_bytes(&doc, &mut out);
    check_fences(&doc, &mut out);
    if doc
        .frontmatter
        .as_ref()
        .is_some_and(|f| !f.deviations.unclosed)
    {
        check_required(&doc, &mut out);
        check_progress(&doc, &hook, &visible, &mut out);
        check_agreement(&doc, &derivation, &mut out);
        check_lifecycle(&doc, &mut out);
        check_hook_leaks(&doc, &mut out);
    }
    check_resume_file(&doc, env, &mut out);
    out
}

fn line_of(doc: &Document, offset: usize) -> String {
    format!("line {}", doc.line_number(offset))
}

fn pass_unless_failed(out: &mut Vec<Finding>, from: usize, id: &str, message: &str) {
    if !out[from..].iter().any(|f| f.severity == Severity::Fail) {
        out.push(Finding::pass(id, message));
    }
}

fn check_bytes(doc: &Document, out: &mut Vec<Finding>) {
    if let Some(at) = doc.text.find('\0') {
        out.push(
            Finding::fail(
                "gsd-nul-bytes",
                format!(
                    "STATE.md holds {} NUL byte(s), the first on {}",
                    doc.text.matches('\0').count(),
                    line_of(doc, at)
                ),
            )
            .line(doc.line_number(at))
            .hint("a NUL byte usually means a torn or binary write; restore the file from git (planseal gsd recover) or delete the NUL bytes"),
        );
    }
    let lines = doc.text.lines().count();
    if lines > 100 {
        out.push(
            Finding::advisory(
                "gsd-too-long",
                format!("STATE.md has {lines} lines; GSD keeps it under 100"),
            )
            .hint("move history (old decisions, finished phases) to PROJECT.md or an archive file"),
        );
    }
}

fn check_fences(doc: &Document, out: &mut Vec<Finding>) {
    let start = out.len();
    let Some(fm) = &doc.frontmatter else {
        out.push(
            Finding::fail(
                "gsd-frontmatter-missing",
                "STATE.md has no frontmatter (a `---` block at the top)",
            )
            .hint("run `planseal gsd sync --write` to derive it from the body"),
        );
        return;
    };
    let d = &fm.deviations;
    let invisible = "GSD's statusline hook does not see the frontmatter";
    if d.bom {
        out.push(
            Finding::fail(
                "gsd-frontmatter-bom",
                format!("the file starts with a byte-order mark: {invisible}"),
            )
            .hint("save the file as UTF-8 without BOM (delete the invisible U+FEFF before `---`)"),
        );
    }
    if d.leading_blank_lines {
        out.push(
            Finding::fail(
                "gsd-frontmatter-leading-blank",
                format!("blank line(s) before the opening `---`: {invisible}"),
            )
            .hint("delete the blank lines so that `---` is the very first line"),
        );
    }
    if d.trailing_space_on_open {
        out.push(
            Finding::fail(
                "gsd-frontmatter-fence-space",
                format!("the opening `---` has trailing whitespace: {invisible}"),
            )
            .hint("make the first line exactly `---`"),
        );
    }
    if d.unclosed {
        out.push(
            Finding::fail(
                "gsd-frontmatter-unclosed",
                format!("the frontmatter has no closing `---` line: {invisible}"),
            )
            .hint("add a line `---` after the last frontmatter key"),
        );
    }
    pass_unless_failed(
        out,
        start,
        "gsd-frontmatter-visible",
        "the frontmatter is where GSD's hook looks for it",
    );
}

fn check_required(doc: &Document, out: &mut Vec<Finding>) {
    let start = out.len();
    if doc.entry("gsd_state_version").is_none() {
        out.push(
            Finding::fail(
                "gsd-state-version-missing",
                "frontmatter has no `gsd_state_version`",
            )
            .hint("add `gsd_state_version: '1.0'` (or run `planseal gsd sync --write`)"),
        );
    }
    if doc.scalar("status").is_none() {
        out.push(
            Finding::fail("gsd-status-missing", "frontmatter has no `status` value")
                .hint("set `status:` from the body's `Status:` line (`planseal gsd sync --write` does it)"),
        );
    }
    pass_unless_failed(
        out,
        start,
        "gsd-required-keys",
        "gsd_state_version and status are present",
    );
}

fn check_progress(doc: &Document, hook: &HookState, visible: &str, out: &mut Vec<Finding>) {
    let start = out.len();
    let Some(entry) = doc.entry("progress") else {
        return;
    };
    if let Value::Map(children) = &entry.value {
        let read = compat::progress_keys_read(visible).unwrap_or_default();
        let unread: Vec<&str> = children
            .iter()
            .map(|c| c.key.as_str())
            .filter(|k| !read.iter().any(|r| r == k))
            .collect();
        if entry.gap_inside && !unread.is_empty() {
            out.push(
                Finding::fail(
                    "gsd-progress-gap",
                    format!(
                        "a comment or blank line inside `progress:` ({}) ends the block for GSD's hook: it does not read {}{}",
                        line_of(doc, entry.span.start),
                        unread.join(", "),
                        if unread.contains(&"percent") { ", so the progress bar disappears" } else { "" }
                    ),
                )
                .line(doc.line_number(entry.span.start))
                .hint("move the comment out of the frontmatter (into the body) and delete blank lines inside `progress:`"),
            );
        }
        let value = |k: &str| children.iter().find(|c| c.key == k);
        if let Some(pct) = value("percent") {
            if pct.scalar.quote != Quote::Plain {
                out.push(
                    Finding::fail(
                        "gsd-percent-quoted",
                        format!(
                            "progress.percent is quoted ({}): GSD's hook reads only bare digits, so the bar is not drawn",
                            pct.scalar.raw
                        ),
                    )
                    .hint(format!(
                        "write it as a bare number: `percent: {}`",
                        pct.scalar.as_str().unwrap_or("0")
                    )),
                );
            }
            let n = |k: &str| value(k).and_then(|c| c.scalar.as_u64());
            let derived = compute_progress_percent(
                n("completed_plans"),
                n("total_plans"),
                n("completed_phases"),
                n("total_phases"),
            );
            if let (Some(stated), Some(derived)) = (pct.scalar.as_u64(), derived)
                && stated != derived
            {
                out.push(
                    Finding::fail(
                        "gsd-percent-mismatch",
                        format!(
                            "progress.percent is {stated} but the counters give {derived} (min of plans {}/{} and phases {}/{})",
                            n("completed_plans").map_or("-".into(), |v| v.to_string()),
                            n("total_plans").map_or("-".into(), |v| v.to_string()),
                            n("completed_phases").map_or("-".into(), |v| v.to_string()),
                            n("total_phases").map_or("-".into(), |v| v.to_string()),
                        ),
                    )
                    .hint(format!("set `percent: {derived}` (or run `planseal gsd sync --write`)")),
                );
            }
        }
    }
    let zero = |v: &Option<String>| v.as_deref() == Some("0");
    if zero(&hook.total_phases)
        && zero(&hook.completed_phases)
        && !compat::truthy(&hook.active_phase)
    {
        out.push(
            Finding::advisory(
                "gsd-template-zero-progress",
                "progress says 0 of 0 phases: GSD's statusline renders this fresh template as \"milestone complete\"",
            )
            .hint("run `planseal gsd sync --write` once phases exist, or remove the zero counters until then"),
        );
    }
    pass_unless_failed(
        out,
        start,
        "gsd-progress-consistent",
        "the progress block is readable and consistent",
    );
}

fn check_agreement(doc: &Document, derivation: &Derivation, out: &mut Vec<Finding>) {
    let start = out.len();
    if let (Some(fm_status), Some(body)) = (doc.scalar("status"), derivation.get("status")) {
        let fm_norm = normalize_status(fm_status, doc.scalar("paused_at"));
        let both_canonical = super::rules::CANONICAL_STATUSES.contains(&fm_norm.as_str())
            && super::rules::CANONICAL_STATUSES.contains(&body.value.as_str());
        if both_canonical && fm_norm != body.value {
            out.push(
                Finding::fail(
                    "gsd-status-drift",
                    format!(
                        "frontmatter status is `{fm_status}` but the body's `{}` means `{}`",
                        source_text(&body.source),
                        body.value
                    ),
                )
                .hint("decide which is true; `planseal gsd sync` shows the change it would make"),
            );
        }
    }
    if let (Some(fm_phase), Some(body)) =
        (doc.scalar("current_phase"), derivation.get("current_phase"))
        && fm_phase.trim() != body.value
    {
        out.push(
            Finding::fail(
                "gsd-phase-drift",
                format!(
                    "frontmatter current_phase is `{fm_phase}` but the body's `{}` says phase {}",
                    source_text(&body.source),
                    body.value
                ),
            )
            .hint("decide which is true; `planseal gsd sync` shows the change it would make"),
        );
    }
    pass_unless_failed(
        out,
        start,
        "gsd-body-agrees",
        "frontmatter status and phase agree with the body",
    );
}

fn source_text(source: &derive::Source) -> String {
    match source {
        derive::Source::Body { line, line_no } => format!("{} (line {line_no})", line.trim()),
        derive::Source::Phases => "phase folders".into(),
    }
}

fn check_lifecycle(doc: &Document, out: &mut Vec<Finding>) {
    let start = out.len();
    let active = doc.scalar("active_phase").filter(|v| !v.is_empty());
    let action = doc.scalar("next_action").filter(|v| !v.is_empty());
    let phases = doc.list("next_phases").filter(|l| !l.is_empty());
    let phases_set = phases.is_some() || doc.scalar("next_phases").is_some();
    if let Some(a) = action
        && !NEXT_ACTIONS.contains(&a)
    {
        out.push(
            Finding::fail(
                "gsd-next-action-invalid",
                format!(
                    "next_action is `{a}`, not one of {}",
                    NEXT_ACTIONS.join(", ")
                ),
            )
            .hint("use one of the four phase commands, or null"),
        );
    }
    if action.is_some() != phases_set {
        out.push(
            Finding::fail(
                "gsd-next-action-pairing",
                if action.is_some() {
                    "next_action is set but next_phases is empty"
                } else {
                    "next_phases is set but next_action is not"
                },
            )
            .hint("set next_action and next_phases together (both null when there is no recommendation)"),
        );
    }
    if let Some(phase) = active {
        if action.is_some() || phases_set {
            out.push(
                Finding::fail(
                    "gsd-next-while-active",
                    format!("active_phase is {phase} but next_action/next_phases are not null"),
                )
                .hint(
                    "while an orchestrator runs a phase, set next_action and next_phases to null",
                ),
            );
        }
        let status = doc.scalar("status").unwrap_or("");
        if !LIFECYCLE_STATUSES.contains(&status) {
            out.push(
                Finding::fail(
                    "gsd-active-status",
                    format!(
                        "active_phase is {phase} but status is `{status}`, not a lifecycle stage ({})",
                        LIFECYCLE_STATUSES.join(", ")
                    ),
                )
                .hint("write the running stage into status (discussing, planning, executing or verifying)"),
            );
        }
    }
    if let Some(entry) = doc.entry("next_phases")
        && matches!(entry.value, Value::BlockList(_))
    {
        out.push(
            Finding::advisory(
                "gsd-next-phases-block-list",
                format!(
                    "next_phases is a block list ({}); GSD's hook reads the flow form more reliably",
                    line_of(doc, entry.span.start)
                ),
            )
            .line(doc.line_number(entry.span.start))
            .hint(format!(
                "write it on one line: `next_phases: [{}]`",
                doc.list("next_phases")
                    .unwrap_or_default()
                    .iter()
                    .map(|p| format!("\"{p}\""))
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
        );
    }
    pass_unless_failed(
        out,
        start,
        "gsd-lifecycle-fields",
        "the phase lifecycle fields follow the schema",
    );
}

fn check_hook_leaks(doc: &Document, out: &mut Vec<Finding>) {
    for key in HOOK_SCALARS {
        if let Some(s) = doc.scalar_entry(key)
            && let Some(comment) = &s.comment
        {
            out.push(
                Finding::advisory(
                    "gsd-inline-comment",
                    format!("`{key}` carries an inline comment ({comment}); GSD's hook prints it as part of the value"),
                )
                .hint("move the comment to its own line above the key"),
            );
        }
    }
}

fn check_resume_file(doc: &Document, env: &CheckEnv<'_>, out: &mut Vec<Finding>) {
    let Some(field) = doc.field("Resume file", None) else {
        return;
    };
    let value = field.value.trim().trim_matches('`');
    if value.eq_ignore_ascii_case("none") {
        out.push(Finding::pass("gsd-resume-file", "Resume file: None"));
        return;
    }
    if value.is_empty() || !(env.resume_file_exists)(value) {
        out.push(
            Finding::fail(
                "gsd-resume-file-missing",
                format!(
                    "`Resume file:` ({}) names `{value}`, which does not exist",
                    line_of(doc, field.line.start)
                ),
            )
            .line(doc.line_number(field.line.start))
            .hint("point it at an existing .continue-here*.md file, or write `None`"),
        );
    } else {
        out.push(Finding::pass(
            "gsd-resume-file",
            format!("Resume file {value} exists"),
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(text: &str) -> Vec<String> {
        let env = CheckEnv {
            resume_file_exists: &|p| p == "ok.md",
        };
        check_text(text, &env)
            .into_iter()
            .filter(|f| f.severity != Severity::Pass)
            .map(|f| f.id)
            .collect()
    }

    #[test]
    fn clean_file_has_no_failures() {
        let text = "---\ngsd_state_version: '1.0'\nstatus: executing\nactive_phase: \"4\"\ncurrent_phase: \"4\"\nprogress:\n  total_plans: 4\n  completed_plans: 1\n  percent: 25\n---\n## Current Position\nPhase: 4 of 5 (X)\nStatus: Executing Phase 4\n## Session\nResume file: ok.md\n";
        assert_eq!(ids(text), Vec::<String>::new());
    }
}
