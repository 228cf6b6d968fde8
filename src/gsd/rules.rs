//! GSD's small state rules, reproduced exactly (`docs/gsd.md`): status normalisation, the derived
//! progress percent and the "template default" test that decides whether a writer may overwrite
//! a body field.

/// The canonical statuses `normalize_status` can produce.
pub const CANONICAL_STATUSES: [&str; 6] = [
    "discussing",
    "planning",
    "executing",
    "verifying",
    "completed",
    "paused",
];

/// The four commands `next_action` may name.
pub const NEXT_ACTIONS: [&str; 4] = [
    "discuss-phase",
    "plan-phase",
    "execute-phase",
    "verify-phase",
];

/// The statuses an orchestrator writes while a phase is active.
pub const LIFECYCLE_STATUSES: [&str; 4] = ["discussing", "planning", "executing", "verifying"];

/// The canonical status for a body `Status:` text: case-insensitive substring tests, first hit
/// wins, in the order of the real implementation (which differs from its documentation's table).
/// Unrecognised text comes back unchanged; empty text is `unknown`.
pub fn normalize_status(raw: &str, paused_at: Option<&str>) -> String {
    if paused_at.is_some_and(|p| !p.is_empty()) {
        return "paused".into();
    }
    if raw.is_empty() {
        return "unknown".into();
    }
    let s = raw.to_lowercase();
    let has = |needle: &str| s.contains(needle);
    let canonical = if has("paused") || has("stopped") {
        "paused"
    } else if has("executing") || has("in progress") {
        "executing"
    } else if has("planning") || has("ready to plan") {
        "planning"
    } else if has("discussing") {
        "discussing"
    } else if has("verif") {
        "verifying"
    } else if has("complete") || has("done") {
        "completed"
    } else if has("ready to execute") {
        "executing"
    } else {
        return raw.to_string();
    };
    canonical.into()
}

/// The milestone progress percent, computed in f64 exactly as GSD's JavaScript does:
/// `min(100, floor(min(plans, phases) × 100 + 0.5))`, a missing dimension counting as 1, and no
/// percent when neither dimension has data.
pub fn compute_progress_percent(
    completed_plans: Option<u64>,
    total_plans: Option<u64>,
    completed_phases: Option<u64>,
    total_phases: Option<u64>,
) -> Option<u64> {
    let fraction = |done: Option<u64>, total: Option<u64>| match (done, total) {
        (Some(d), Some(t)) if t > 0 => Some(d as f64 / t as f64),
        _ => None,
    };
    let plans = fraction(completed_plans, total_plans);
    let phases = fraction(completed_phases, total_phases);
    if plans.is_none() && phases.is_none() {
        return None;
    }
    let least = plans.unwrap_or(1.0).min(phases.unwrap_or(1.0));
    // Math.round for non-negative input is floor(x + 0.5); the result is a small whole number.
    let percent = (least * 100.0 + 0.5).floor().clamp(0.0, 100.0);
    Some(percent as u64)
}

/// Whether a body field still holds a value a GSD handler wrote (so a writer may replace it),
/// as opposed to something a person or agent wrote (which is preserved).
pub fn is_template_default(field: &str, value: Option<&str>) -> bool {
    let Some(value) = value else {
        return true;
    };
    let v = value.trim();
    if v.is_empty() {
        return true;
    }
    let field = field.to_lowercase();
    let lower = v.to_lowercase();
    match field.as_str() {
        "resume file" => lower == "none",
        "status" => {
            const EXACT: [&str; 14] = [
                "ready to execute",
                "phase complete — ready for verification",
                "ready to plan",
                "defining requirements",
                "planning complete",
                "executing",
                "in progress",
                "planning",
                "verifying",
                "completed",
                "done",
                "active",
                "paused",
                "unknown",
            ];
            EXACT.contains(&lower.as_str()) || matches_status_pattern(v)
        }
        "last activity" => is_bare_iso_date(v),
        _ => false,
    }
}

/// The handler-written status shapes with a variable part (`Executing Phase 5`, `Phase 3
/// complete`, `Complete ✓`), case-insensitive, anchored at the start like GSD's patterns.
fn matches_status_pattern(v: &str) -> bool {
    let phase_then_number = |prefix: &str| {
        strip_prefix_ignore_ascii_case(v, prefix)
            .and_then(|rest| {
                let ws = rest.len() - rest.trim_start_matches(is_regex_space).len();
                (ws > 0).then(|| &rest[ws..])
            })
            .is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_digit()))
    };
    if ["Executing Phase", "Planning Phase", "Verifying Phase"]
        .into_iter()
        .any(phase_then_number)
    {
        return true;
    }
    // ^Phase\s+\d+\s+complete
    if let Some(rest) = strip_prefix_ignore_ascii_case(v, "Phase") {
        let after_ws = rest.trim_start_matches(is_regex_space);
        if after_ws.len() < rest.len() {
            let digits = after_ws.len()
                - after_ws
                    .trim_start_matches(|c: char| c.is_ascii_digit())
                    .len();
            let after_digits = &after_ws[digits..];
            let after_ws2 = after_digits.trim_start_matches(is_regex_space);
            if digits > 0
                && after_ws2.len() < after_digits.len()
                && strip_prefix_ignore_ascii_case(after_ws2, "complete").is_some()
            {
                return true;
            }
        }
    }
    if strip_prefix_ignore_ascii_case(v, "Phase complete").is_some() {
        return true;
    }
    // ^Complete\s*[✓✔✅☑]?\s*$
    if let Some(rest) = strip_prefix_ignore_ascii_case(v, "Complete") {
        let rest = rest.trim_start_matches(is_regex_space);
        let rest = rest.strip_prefix(['✓', '✔', '✅', '☑']).unwrap_or(rest);
        return rest.trim_matches(is_regex_space).is_empty();
    }
    false
}

fn is_regex_space(c: char) -> bool {
    super::compat::is_js_space(c)
}

fn strip_prefix_ignore_ascii_case<'a>(s: &'a str, prefix: &str) -> Option<&'a str> {
    let head = s.get(..prefix.len())?;
    head.eq_ignore_ascii_case(prefix)
        .then(|| &s[prefix.len()..])
}

/// `^\d{4}-\d{2}-\d{2}$`.
pub fn is_bare_iso_date(v: &str) -> bool {
    let b = v.as_bytes();
    b.len() == 10
        && b.iter().enumerate().all(|(i, &c)| match i {
            4 | 7 => c == b'-',
            _ => c.is_ascii_digit(),
        })
}

/// The leading `YYYY-MM-DD` of a value, when it has one.
pub fn leading_date(v: &str) -> Option<&str> {
    let head = v.trim().get(..10)?;
    is_bare_iso_date(head).then_some(head)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn f64_rounding_not_exact_rational() {
        assert_eq!(
            compute_progress_percent(Some(23), Some(40), None, None),
            Some(57)
        );
    }

    #[test]
    fn status_pattern_edges() {
        assert!(is_template_default(
            "Status",
            Some("Executing Phase 12 — x")
        ));
        assert!(!is_template_default("Status", Some("Executing Phase x")));
        assert!(is_template_default("Status", Some("Complete ✓ ")));
        assert!(!is_template_default("Status", Some("Complete ✓ x")));
        assert!(is_template_default("Last Activity", Some("2026-01-02")));
        assert!(is_template_default("Anything", None));
        assert!(!is_template_default("Anything", Some("x")));
    }
}
