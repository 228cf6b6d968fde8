//! `reversa advance` keeps the file's own array style for the arrays it edits: compact
//! `["a","b"]` stays compact, one element per line stays so with its own indents.

use crate::support::run::Planseal;
use std::path::Path;

const STATE: &str = ".reversa/state.json";

fn advance(dir: &Path, phase: &str) {
    let out = Planseal::new()
        .cwd(dir)
        .clock("2026-10-05T09:00:00+00:00")
        .args(["reversa", "advance", "--phase-done", phase])
        .output();
    assert_eq!(out.status.code(), Some(0), "{}", out.stderr);
}

fn project(state: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join(".reversa")).unwrap();
    std::fs::write(dir.path().join(STATE), state).unwrap();
    dir
}

fn read(dir: &Path) -> String {
    std::fs::read_to_string(dir.join(STATE)).unwrap()
}

#[test]
fn compact_arrays_stay_compact() {
    let before = "{\n  \"version\": \"1.0.0\",\n  \"phase\": \"escavacao\",\n  \
\"completed\": [\"reconhecimento\"],\n  \
\"pending\": [\"escavacao\",\"interpretacao\",\"geracao\",\"revisao\"],\n  \
\"engines\": [\"claude-code\"]\n}\n";
    let dir = project(before);
    advance(dir.path(), "escavacao");
    assert_eq!(
        read(dir.path()),
        "{\n  \"version\": \"1.0.0\",\n  \"phase\": \"interpretacao\",\n  \
\"completed\": [\"reconhecimento\",\"escavacao\"],\n  \
\"pending\": [\"interpretacao\",\"geracao\",\"revisao\"],\n  \
\"engines\": [\"claude-code\"]\n}\n"
    );
}

#[test]
fn one_element_per_line_stays_so_with_its_own_indent() {
    let before = "{\n    \"phase\": \"escavacao\",\n    \"completed\": [\n        \"reconhecimento\"\n    ],\n    \
\"pending\": [\n        \"escavacao\",\n        \"interpretacao\",\n        \"geracao\",\n        \"revisao\"\n    ]\n}";
    let dir = project(before);
    advance(dir.path(), "escavacao");
    assert_eq!(
        read(dir.path()),
        "{\n    \"phase\": \"interpretacao\",\n    \"completed\": [\n        \"reconhecimento\",\n        \"escavacao\"\n    ],\n    \
\"pending\": [\n        \"interpretacao\",\n        \"geracao\",\n        \"revisao\"\n    ]\n}"
    );
}
