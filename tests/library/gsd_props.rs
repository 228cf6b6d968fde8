//! Property tests for the hook-compatible reader: on generated STATE.md-like text (LF only, ASCII
//! — where JavaScript's and the `regex` crate's semantics coincide) it must extract exactly what
//! the hook's own regular expressions extract, run here through the `regex` crate, whose
//! leftmost-first matching picks the same match and captures as JavaScript's backtracking.

use planseal::gsd::compat::{self, HookState};
use planseal::gsd::document::Document;
use planseal::gsd::statusline::{Format, render_text};
use proptest::prelude::*;
use regex::Regex;

fn js_value(v: &str) -> String {
    compat::strip_one_quote_each_side(v.trim()).to_string()
}

fn reference(content: &str) -> HookState {
    let mut st = HookState::default();
    let fm_re = Regex::new(r"\A---\r?\n((?s:.)*?)\r?\n---").unwrap();
    if let Some(c) = fm_re.captures(content) {
        let fm = c.get(1).unwrap().as_str();
        let line_re = Regex::new(r"^(\w+):\s*(.+)").unwrap();
        for line in fm.split('\n') {
            let Some(m) = line_re.captures(line) else {
                continue;
            };
            let v = js_value(&m[2]);
            let null_absent = (v != "null").then(|| v.clone());
            let null_or_empty_absent = (v != "null" && !v.is_empty()).then(|| v.clone());
            match &m[1] {
                "status" => st.status = null_absent,
                "milestone" => st.milestone = null_absent,
                "milestone_name" => st.milestone_name = null_absent,
                "active_phase" => st.active_phase = null_or_empty_absent,
                "next_action" => st.next_action = null_or_empty_absent,
                _ => {}
            }
        }
        let flow = Regex::new(r"(?m)^next_phases:\s*\[([^\]]*)\]").unwrap();
        let block =
            Regex::new(r"(?m)^next_phases:\s*\r?\n((?:[ \t]*-[ \t]*[^\r\n]+\r?\n?)*)").unwrap();
        let item = Regex::new(r"^[ \t]*-[ \t]*(.+)$").unwrap();
        let non_empty = |v: Vec<String>| (!v.is_empty()).then_some(v);
        if let Some(c) = flow.captures(fm) {
            st.next_phases = non_empty(
                c[1].split(',')
                    .map(js_value)
                    .filter(|s| !s.is_empty())
                    .collect(),
            );
        } else if let Some(c) = block.captures(fm) {
            st.next_phases = non_empty(
                c[1].split('\n')
                    .filter_map(|l| item.captures(l).map(|m| js_value(&m[1])))
                    .filter(|s| !s.is_empty())
                    .collect(),
            );
        }
        let prog = Regex::new(r"(?m)^progress:\s*\r?\n((?:[ \t]+\w+:.+\r?\n?)+)").unwrap();
        if let Some(c) = prog.captures(fm) {
            let g = c.get(1).unwrap().as_str();
            let digits = |key: &str| {
                Regex::new(&format!(r"(?m)^[ \t]+{key}:\s*(\d+)"))
                    .unwrap()
                    .captures(g)
                    .map(|m| m[1].to_string())
            };
            st.completed_phases = digits("completed_phases");
            st.total_phases = digits("total_phases");
            st.percent = digits("percent");
        }
    }
    let phase = Regex::new(r"(?m)^Phase:\s*(\d+)\s+of\s+(\d+)(?:\s+\(([^)]+)\))?").unwrap();
    if let Some(c) = phase.captures(content) {
        st.phase_num = Some(c[1].to_string());
        st.phase_total = Some(c[2].to_string());
        st.phase_name = c.get(3).map(|m| m.as_str().to_string());
    }
    if !compat::truthy(&st.status) {
        let status = Regex::new(r"(?m)^Status:\s*(.+)").unwrap();
        if let Some(c) = status.captures(content) {
            let raw = c[1].trim().to_lowercase();
            st.status = if raw.contains("ready to plan") || raw.contains("planning") {
                Some("planning".into())
            } else if raw.contains("execut") {
                Some("executing".into())
            } else if raw.contains("complet") || raw.contains("archived") {
                Some("complete".into())
            } else {
                st.status
            };
        }
    }
    st
}

const TOKENS: &[&str] = &[
    "---",
    "\n",
    "\n",
    "\n",
    " ",
    "  ",
    "\t",
    ":",
    ": ",
    "status",
    "milestone",
    "milestone_name",
    "active_phase",
    "next_action",
    "next_phases",
    "progress",
    "percent",
    "completed_phases",
    "total_phases",
    "Phase",
    "Status",
    " of ",
    "(",
    ")",
    "[",
    "]",
    ",",
    "\"",
    "'",
    "-",
    "- ",
    "#",
    "null",
    "5",
    "12",
    "0",
    "x",
    "executing",
    "planning",
    "Ready to plan",
    "complete",
];

fn state_like() -> impl Strategy<Value = String> {
    (
        any::<bool>(),
        prop::collection::vec(prop::sample::select(TOKENS), 0..60),
    )
        .prop_map(|(fence, tokens)| {
            let body = tokens.concat();
            if fence { format!("---\n{body}") } else { body }
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn matches_the_hook_regexes(text in state_like()) {
        prop_assert_eq!(compat::parse(&text), reference(&text));
    }

    /// Without a fence, a `Phase:` line or a `Status:` line there is nothing to render, whatever
    /// else the text holds (any Unicode, any line ends).
    #[test]
    fn nothing_to_render_without_fence_phase_or_status(text in "\\PC{0,200}") {
        prop_assume!(!text.starts_with("---") && !text.contains("Phase:") && !text.contains("Status:"));
        prop_assert_eq!(render_text(&text, Format::Full), "");
        prop_assert_eq!(render_text(&text, Format::Compact), "");
    }

    /// The document reader accounts for every byte of the frontmatter: the keys' leading lines,
    /// their spans and the trailer, in order, are exactly the text between the fences. Writers
    /// rely on this to move keys without losing a byte.
    #[test]
    fn frontmatter_pieces_cover_the_block_exactly(text in state_like()) {
        let doc = Document::parse(text.clone());
        if let Some(fm) = &doc.frontmatter {
            let mut rebuilt = String::new();
            for e in &fm.entries {
                prop_assert!(e.lead.end == e.span.start);
                rebuilt.push_str(doc.slice(&e.lead));
                rebuilt.push_str(doc.slice(&e.span));
            }
            rebuilt.push_str(doc.slice(&fm.trailer));
            prop_assert_eq!(rebuilt.as_str(), &text[fm.inner.clone()]);
        }
        for f in &doc.fields {
            prop_assert!(f.line.start >= doc.body_start && f.line.end <= text.len());
        }
    }

    /// A sync applied once leaves nothing for a second sync to change, and never touches the body.
    #[test]
    fn sync_is_idempotent_and_keeps_the_body(text in plausible_state()) {
        use planseal::gsd::{derive, sync};
        let doc = Document::parse(text.clone());
        prop_assume!(doc.frontmatter.as_ref().is_none_or(|f| !f.deviations.unclosed));
        let plan = sync::plan(&doc, &derive::derive(&doc, None), None, "2026-01-01T00:00:00.000Z").unwrap();
        if let Some(new_text) = plan.new_text {
            let again = Document::parse(new_text.clone());
            prop_assert_eq!(again.body(), doc.body());
            let second = sync::plan(&again, &derive::derive(&again, None), None, "2026-01-02T00:00:00.000Z").unwrap();
            prop_assert_eq!(second.new_text, None, "second sync of:\n{}", new_text);
        }
    }
}

fn plausible_state() -> impl Strategy<Value = String> {
    let fm_line = prop::sample::select(vec![
        "gsd_state_version: '1.0'\n",
        "status: planning\n",
        "status: \"executing\" # x\n",
        "milestone: v2.0\n",
        "current_phase: \"3\"\n",
        "owner: Ana\n",
        "# note\n",
        "\n",
        "progress:\n  total_phases: 4\n  percent: 10\n",
        "last_activity: \"2026-09-01\"\n",
        "list:\n  - a\n",
        "next_phases: [1, 2]\n",
        "stopped_at: x\n",
    ]);
    let body_line = prop::sample::select(vec![
        "## Current Position\n",
        "Phase: 2 of 4 (Build)\n",
        "Plan: 1 of 3\n",
        "Status: Executing Phase 2\n",
        "**Status:** Ready to plan\n",
        "Last activity: 2026-08-01 — x\n",
        "## Session\n",
        "Stopped at: Phase 2\n",
        "Paused at: lunch\n",
        "| Current Plan | 4 |\n",
        "text\n",
        "\n",
    ]);
    (
        any::<bool>(),
        prop::collection::vec(fm_line, 0..8),
        prop::collection::vec(body_line, 0..12),
    )
        .prop_map(|(fence, fm, body)| {
            let body = body.concat();
            if fence {
                format!("---\n{}---\n{body}", fm.concat())
            } else {
                body
            }
        })
}
