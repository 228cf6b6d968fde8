//! Every file of the fuzz corpora (`fuzz/corpus/<target>/`) and every crash the fuzzers found
//! (`fuzz/artifacts-regressions/<target>/`), replayed through the same target bodies the fuzzers
//! run (`fuzz/targets.rs`), on stable: a parser change that brings a crash back fails here.

#[path = "../../fuzz/targets.rs"]
mod targets;

use std::path::{Path, PathBuf};

fn files_of(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .map(|e| e.expect("a folder entry").path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    files
}

#[test]
fn every_fuzz_corpus_and_crash_file_replays_cleanly() {
    let fuzz = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz");
    for (name, target) in targets::TARGETS {
        let corpus = files_of(&fuzz.join("corpus").join(name));
        assert!(!corpus.is_empty(), "fuzz/corpus/{name}/ holds no seed");
        let crashes = files_of(&fuzz.join("artifacts-regressions").join(name));
        for file in corpus.iter().chain(&crashes) {
            let bytes = std::fs::read(file).expect("a corpus file");
            // A panic names the target; the file is in the panic's backtrace frame below.
            eprintln!("replaying {}", file.display());
            target(&bytes);
        }
    }
}

#[test]
fn every_fuzz_target_has_its_binary() {
    let fuzz = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz");
    let manifest = std::fs::read_to_string(fuzz.join("Cargo.toml")).expect("fuzz/Cargo.toml");
    for (name, _) in targets::TARGETS {
        assert!(
            fuzz.join("fuzz_targets")
                .join(format!("{name}.rs"))
                .is_file(),
            "fuzz/fuzz_targets/{name}.rs is missing"
        );
        assert!(
            manifest.contains(&format!("name = \"{name}\"")),
            "fuzz/Cargo.toml declares no [[bin]] {name}"
        );
    }
}

/// The crashes of the `dotenv` target. The first two were the target's own false alarms: a value
/// spelled from the redaction marker (and, the second time, from the target's own text around the
/// value) read back out of the redacted output, though nothing of the `.env` leaked; the target
/// now frames each value with a character the value does not hold. The third was the redactor's:
/// it replaced value after value, so a value `redacted` rewrote the marker just put in for
/// `[[redacted .env value]` back into that value; it now hides every value in one pass.
#[test]
fn dotenv_values_spelled_from_the_redaction_marker_are_no_leak() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/artifacts-regressions/dotenv");
    let crashes = files_of(&dir);
    assert!(crashes.len() >= 3, "every crash input is kept: {crashes:?}");
    for file in crashes {
        targets::dotenv(&std::fs::read(&file).expect("a crash input"));
    }
}
