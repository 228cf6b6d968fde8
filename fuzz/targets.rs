//! The body of every fuzz target: one function per parser, taking the raw bytes. Each asserts
//! what must hold beyond "no panic" where that is cheap. `fuzz/fuzz_targets/<name>.rs` calls the
//! function of its name; `tests/library/fuzz_replay.rs` runs every file of `fuzz/corpus/<name>/`
//! and `fuzz/artifacts-regressions/<name>/` through it on stable.

use planseal::checkpoint::checks::{Inputs, check_text as checkpoint_check};
use planseal::dwp::check::gates::parse_gate_spec;
use planseal::dwp::model::markdown::{
    amendments, final_review_missing_terms, parse_readme_bytes, parse_task_file_bytes,
    progress_entries, security_verdict,
};
use planseal::dwp::model::schema::{validate_manifest, validate_state};
use planseal::dwp::model::{Manifest, State, parse_json};
use planseal::gsd::document::Document;
use planseal::gsd::statusline::{Format, render_text};
use planseal::report::redact::EnvRedactor;
use planseal::reversa::model::StateFile as ReversaState;

/// One target's body: the bytes libFuzzer (or a corpus file) hands in.
pub type Target = fn(&[u8]);

/// Every target by name, as cargo-fuzz and the replay test know them.
pub const TARGETS: &[(&str, Target)] = &[
    ("dwp_state", dwp_state),
    ("dwp_manifest", dwp_manifest),
    ("dwp_readme", dwp_readme),
    ("dwp_task_file", dwp_task_file),
    ("dwp_progress", dwp_progress),
    ("dwp_security_review", dwp_security_review),
    ("gsd_state", gsd_state),
    ("reversa_state", reversa_state),
    ("checkpoint", checkpoint),
    ("dotenv", dotenv),
    ("gate_spec", gate_spec),
];

/// state.json: the strict parse; a parsed value survives planseal's own serialisation unchanged
/// (what `update` writes reads back as the same document).
pub fn dwp_state(data: &[u8]) {
    let Ok(value) = parse_json(data) else {
        return;
    };
    let _ = validate_state(&value);
    let _ = State::from_value(&value);
    for bytes in [
        planseal::jsonfmt::to_python_pretty(&value),
        planseal::jsonfmt::to_python_line(&value),
    ] {
        let again = parse_json(&bytes).expect("planseal's own JSON parses");
        assert_eq!(again, value, "the round trip changed the document");
    }
}

/// manifest.json: the strict parse, the shape check and the same round trip.
pub fn dwp_manifest(data: &[u8]) {
    let Ok(value) = parse_json(data) else {
        return;
    };
    let _ = validate_manifest(&value);
    let _ = Manifest::from_value(&value);
    let bytes = planseal::jsonfmt::to_python_pretty(&value);
    assert_eq!(parse_json(&bytes).expect("parses"), value);
}

/// README.md: every reader of the parsed README; every inline record is found by its number.
pub fn dwp_readme(data: &[u8]) {
    let Ok(readme) = parse_readme_bytes(data) else {
        return;
    };
    let records = readme.inline.record_map();
    for (n, record) in &records {
        assert_eq!(record.anchor_number, *n);
        assert!(
            readme.inline.anchor_count(*n) >= 1,
            "a record's anchor is counted"
        );
        let _ = record.body.completion_log();
        let _ = record.body.gate_records();
    }
    for entry in &readme.task_index.entries {
        let _ = readme.inline.record(entry.task);
    }
    let _ = amendments(readme.text);
}

/// A task file: its title, sections, Completion & Log and gate record lines.
pub fn dwp_task_file(data: &[u8]) {
    let Ok(task) = parse_task_file_bytes(data) else {
        return;
    };
    let _ = task.body.completion_log();
    let _ = task.body.gate_records();
    let _ = final_review_missing_terms(std::str::from_utf8(data).expect("decoded above"));
}

/// PROGRESS.md: its entries and amendment records.
pub fn dwp_progress(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let _ = progress_entries(&text);
    let _ = amendments(&text);
}

/// analysis_results/SECURITY_REVIEW.md: the verdict.
pub fn dwp_security_review(data: &[u8]) {
    let _ = security_verdict(&String::from_utf8_lossy(data));
}

/// GSD STATE.md: the faithful reader (every range inside the text, line numbers as counted),
/// the hook-compatible reader and statusline, and every check.
pub fn gsd_state(data: &[u8]) {
    let text = String::from_utf8_lossy(data).into_owned();
    let doc = Document::parse(text.clone());
    for f in doc.fields.iter().take(32) {
        assert!(f.line.end <= text.len() && text.is_char_boundary(f.line.start));
        let counted = text[..f.line.start].matches('\n').count() + 1;
        assert_eq!(doc.line_number(f.line.start), counted);
    }
    for h in &doc.headings {
        assert!(h.section.start <= h.section.end && h.section.end <= text.len());
    }
    let _ = render_text(&text, Format::Full);
    let _ = render_text(&text, Format::Compact);
    let env = planseal::gsd::checks::CheckEnv {
        resume_file_exists: &|_| false,
    };
    let _ = planseal::gsd::checks::check_text(&text, &env);
}

/// Reversa's state.json: the parse and every check; the never-remove rule finds nothing
/// removed between a version and itself.
pub fn reversa_state(data: &[u8]) {
    let Ok(state) = ReversaState::parse(data) else {
        return;
    };
    let _ = planseal::reversa::checks::check_value(&state);
    let _ = state.phases();
    let same = planseal::reversa::history::compare(&state.object, &state.object);
    assert!(
        same.is_empty(),
        "a version breaks the rule against itself: {same:?}"
    );
}

/// PROJECT-CHECKPOINT.md: every check; a checkpoint compared with itself lost and gained nothing.
pub fn checkpoint(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let inputs = Inputs {
        multi_project: data.first().is_some_and(|b| b & 1 == 1),
        configured_prefix: None,
        stories: &[],
        env: None,
        newer_story: None,
    };
    let _ = checkpoint_check(&text, &inputs);
    let same = planseal::checkpoint::diff::compare(&text, &text);
    assert!(
        same.is_empty(),
        "a checkpoint differs from itself: {same:?}"
    );
}

/// .env: the entries and keys; a value of 4+ characters never survives the redactor in text
/// around it.
pub fn dotenv(data: &[u8]) {
    let entries = planseal::dotenv::entries(data);
    let _ = planseal::dotenv::keys(data);
    let redactor = EnvRedactor::from_env_bytes(Some(data));
    for e in entries.iter().take(16) {
        // A value that is part of the marker itself shows up as that marker: no leak (the
        // first crash of this target, fuzz/artifacts-regressions/dotenv/).
        if e.value.chars().count() < 4 || planseal::report::redact::REDACTED.contains(&e.value) {
            continue;
        }
        // Around the value, a character it does not hold: a value made of the template's own
        // text and the marker (the second crash) can then not be read back out of the output.
        let Some(edge) = ['\u{1}', '\u{2}', '\u{3}', '§', '¤']
            .into_iter()
            .find(|c| !e.value.contains(*c))
        else {
            continue;
        };
        let shown = redactor.clean(&format!("{edge}{}{edge}", e.value));
        assert!(
            !shown.contains(&e.value),
            "the .env value {:?} leaked: {shown:?}",
            e.value
        );
    }
}

/// `--gate command|exit|evidence`: a spec that parses splits the text at two of its pipes.
pub fn gate_spec(data: &[u8]) {
    let Ok(spec) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(gate) = parse_gate_spec(spec) {
        assert!(spec.starts_with(&gate.command), "{gate:?}");
        assert!(spec.ends_with(&gate.evidence), "{gate:?}");
    }
}
