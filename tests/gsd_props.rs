//! Property tests for the hook-compatible reader: on generated STATE.md-like text (LF only, ASCII
//! — where JavaScript's and the `regex` crate's semantics coincide) it must extract exactly what
//! the hook's own regular expressions extract, run here through the `regex` crate, whose
//! leftmost-first matching picks the same match and captures as JavaScript's backtracking.

use planseal::gsd::compat::{self, HookState};
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
}
