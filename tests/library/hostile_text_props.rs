//! Hostile text never makes a GSD, checkpoint or Reversa reader panic: pieces of the formats
//! (fences, headings, tables, keys, BOM, CR) shuffled into arbitrary documents go through every
//! pure reader and checker.

use proptest::prelude::*;

/// Text built from the formats' own pieces, so the parsers reach their deep branches.
fn tokens() -> impl Strategy<Value = String> {
    let t = prop::sample::select(vec![
        "---",
        "\n",
        "\r\n",
        "\r",
        " ",
        "  ",
        "#",
        "## ",
        "### ",
        "|",
        "| a | b |",
        "|---|---|",
        ":",
        ": ",
        "\"",
        "'",
        "-",
        "- ",
        "status:",
        "progress:",
        "percent:",
        "total_phases:",
        "next_phases:",
        "[",
        "]",
        "**",
        "Phase:",
        "Status:",
        "Plan:",
        "é",
        "\u{feff}",
        "milestone:",
        "  completed_phases: 3",
        "Sessão",
        "### Sessão 2026-01-02",
        "## Status das Stories",
        "## Git Recente",
        "CW-1",
        "{",
        "}",
        ",",
        "x",
        "1",
        "10/",
        "of",
        "#",
        "> Ultima atualizacao: 2026",
        "Resume file:",
        "Stopped at:",
        "...",
        "`",
        "\t",
        "Last activity:",
        "## Current Position",
    ]);
    prop::collection::vec(t, 0..60).prop_map(|v| v.concat())
}
proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, .. ProptestConfig::default() })]
    #[test]
    fn readers_and_checkers_never_panic(text in tokens()) {
        let env = planseal::gsd::checks::CheckEnv { resume_file_exists: &|_| false };
        let _ = planseal::gsd::checks::check_text(&text, &env);
        let _ = planseal::gsd::statusline::render_text(&text, planseal::gsd::statusline::Format::Full);
        let _ = planseal::gsd::statusline::render_text(&text, planseal::gsd::statusline::Format::Compact);
        let doc = planseal::gsd::document::Document::parse(text.clone());
        let d = planseal::gsd::derive::derive(&doc, None);
        let _ = planseal::gsd::sync::plan(&doc, &d, None, "2026-01-01T00:00:00.000Z");
        let _ = planseal::gsd::compat::progress_keys_read(&text);
        let inputs = planseal::checkpoint::checks::Inputs { multi_project: true, configured_prefix: None, stories: &[], env: Some(b"A=secret"), newer_story: None };
        let _ = planseal::checkpoint::checks::check_text(&text, &inputs);
        let gi = planseal::checkpoint::generate::Inputs { git: None, env_keys: None, stories: &[], prune_sessions: true, now: "2026-01-01T00:00:00Z" };
        let _ = planseal::checkpoint::generate::refresh(&text, &gi);
        let _ = planseal::checkpoint::diff::compare(&text, "");
        let _ = planseal::reversa::findings_for_bytes(text.as_bytes(), std::path::Path::new("/nonexistent"));
    }
}
