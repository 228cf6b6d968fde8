//! Secret values planted in `.env` (at the project/repository root) and inside the files planseal
//! reads — GSD's STATE.md and its history, DWP plan files, Reversa and checkpoint files — never
//! appear in any output of any command, text or `--json`, stdout or stderr, success or refusal.

use crate::support;
use crate::support::gitrepo::FixtureRepo;
use crate::support::run::Planseal;
use std::path::Path;

const SECRETS: [&str; 3] = [
    "sk-live-PLANTED-a81f3c",
    "PLANTED pass with spaces",
    "env-PLANTED-from-the-environment",
];

const REDACTED: &str = "[redacted .env value]";

fn env_file() -> String {
    format!(
        "# planted\nexport API_KEY={}\nDB_PASSWORD=\"{}\"\nPLANSEAL_TOKEN={}\n",
        SECRETS[0], SECRETS[1], SECRETS[2]
    )
}

/// Runs planseal; stdout and stderr together, with the exit code.
fn run(dir: &Path, args: &[&str]) -> (i32, String) {
    let out = Planseal::new()
        .cwd(dir)
        .env("HOME", "/nonexistent-home")
        .clock("2026-10-05T10:00:00+00:00")
        .env("PLANSEAL_TOKEN", SECRETS[2])
        .args(args)
        .output();
    let all = out.all();
    (out.status.code().expect("exit code"), all)
}

/// Runs every command in text and `--json` and asserts no secret is printed; returns every
/// output for further checks.
fn run_all_clean(dir: &Path, commands: &[&[&str]]) -> Vec<String> {
    let mut outputs = Vec::new();
    for args in commands {
        for json in [false, true] {
            let mut full: Vec<&str> = Vec::new();
            if json {
                full.push("--json");
            }
            full.extend_from_slice(args);
            let (_, out) = run(dir, &full);
            let what = format!("planseal {}", full.join(" "));
            for s in SECRETS {
                assert!(!out.contains(s), "{what} printed a planted secret:\n{out}");
            }
            assert!(!out.is_empty(), "{what} printed nothing");
            outputs.push(out);
        }
    }
    outputs
}

fn gsd_state(extra_key: &str, decisions: &str) -> String {
    format!(
        "---
gsd_state_version: '1.0'
milestone: v2.0
milestone_name: Launch {s0}
status: executing
{extra_key}---
# Project State

## Current Position

Phase: 2 of 4 (Keys {s1})
Plan: 1 of 2 in current phase
Status: Executing Phase 2 {s0}
Last activity: 2026-06-01

## Accumulated Context

### Decisions

{decisions}
## Session Continuity

Stopped at: rotating {s0}
Resume file: None
",
        s0 = SECRETS[0],
        s1 = SECRETS[1],
    )
}

#[test]
fn gsd_commands_never_print_an_env_value() {
    let mut repo = FixtureRepo::new();
    let root = repo.path().to_path_buf();
    repo.write(".env", &env_file());
    repo.write(
        ".planning/STATE.md",
        &gsd_state(
            &format!("token: {}\n", SECRETS[2]),
            &format!("- Store {} in the vault\n- Keep order\n", SECRETS[1]),
        ),
    );
    repo.commit("state with secrets");
    // The key and the decision that hold secrets are lost: recover lists them.
    repo.write(".planning/STATE.md", &gsd_state("", "- Keep order\n"));
    let outputs = run_all_clean(
        &root,
        &[
            &["gsd", "statusline"],
            &["gsd", "statusline", "--compact"],
            &["gsd", "statusline", ".planning/STATE.md"],
            &["gsd", "status"],
            &["gsd", "status", "--exit-code"],
            &["gsd", "check"],
            &["gsd", "sync"],
            &["gsd", "recover"],
            &["gsd", "recover", "--from", "HEAD"],
            &["gsd", "recover", "--write", "--pick", "no-such-piece"],
            &["gsd", "decision", "add", "--summary", "x", "--dry-run"],
            &["gsd", "blocker", "add", "--text", "x", "--dry-run"],
            &["gsd", "blocker", "resolve", "--text", "no such blocker"],
            &["gsd", "session", "record", "--dry-run"],
        ],
    );
    // The redaction is visible where a value was (not a silently dropped line).
    assert!(outputs[0].contains(REDACTED), "{}", outputs[0]);
    assert!(
        outputs[6].contains(&format!("Keys {REDACTED}")),
        "{}",
        outputs[6]
    );
    assert!(
        outputs[14].contains(REDACTED),
        "recover lists the lost pieces: {}",
        outputs[14]
    );
    // The statusline from a subfolder finds the project's .env beside .planning/.
    std::fs::create_dir_all(root.join("src/deep")).expect("mkdir");
    let (code, line) = run(&root.join("src/deep"), &["gsd", "statusline"]);
    assert_eq!(code, 0);
    assert_eq!(
        line,
        format!("v2.0 Launch {REDACTED} · executing · Keys {REDACTED} (2/4)")
    );
    // The write path: a restoration through the store prints no value either.
    run_all_clean(
        &root,
        &[
            &["gsd", "recover", "--write", "--all"],
            &["gsd", "sync", "--write"],
        ],
    );
    assert!(
        std::fs::read_to_string(root.join(".planning/STATE.md"))
            .expect("state")
            .contains(SECRETS[1]),
        "files keep their own text: only output is redacted"
    );
}

#[test]
fn gsd_statusline_without_env_prints_values_as_they_are() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir_all(dir.path().join(".planning")).expect("mkdir");
    std::fs::write(
        dir.path().join(".planning/STATE.md"),
        gsd_state("", "- Keep order\n"),
    )
    .expect("write");
    let (code, line) = run(dir.path(), &["gsd", "statusline"]);
    assert_eq!(code, 0);
    assert_eq!(
        line,
        format!(
            "v2.0 Launch {} · executing · Keys {} (2/4)",
            SECRETS[0], SECRETS[1]
        )
    );
}

/// Replaces the first `from` in a file of the plan with `to` (the text must be there).
fn plant(file: &Path, from: &str, to: &str) {
    let text = std::fs::read_to_string(file).expect("plan file");
    assert!(text.contains(from), "{} has no `{from}`", file.display());
    std::fs::write(file, text.replacen(from, to, 1)).expect("write");
}

#[test]
fn dwp_commands_never_print_an_env_value_found_in_plan_files() {
    let case = support::plans::clean();
    let root = case.root.clone();
    let plan = case.plan_rel();
    std::fs::write(root.join(".env"), env_file()).expect("env");
    // Committed: a task title and a gate log quote a secret, and a commit subject does too.
    plant(
        &case.plan.join("README.md"),
        "Retry loop in the deliverer",
        &format!("Retry loop in the deliverer {}", SECRETS[0]),
    );
    plant(
        &case.plan.join("2.task_retry_loop.md"),
        "Retry loop in the deliverer",
        &format!("Retry loop in the deliverer {}", SECRETS[0]),
    );
    let log = case.plan.join("analysis_results/gates/t2-suite-green.log");
    let mut text = std::fs::read_to_string(&log).expect("gate log");
    text.push_str(&format!("DB_PASSWORD={}\n", SECRETS[1]));
    std::fs::write(&log, text).expect("write");
    support::gitrepo::git(&root, &["add", "-f", &plan]);
    support::gitrepo::git_command(&root)
        .args([
            "commit",
            "-q",
            "--no-verify",
            "-m",
            &format!("docs: note the key {}", SECRETS[0]),
        ])
        .status()
        .expect("git commit");
    // Uncommitted: state.json quotes secrets in the checkpoint note and the title of task 2.
    plant(
        &case.plan.join("state.json"),
        "\"note\": \"Plan completed.\"",
        &format!(
            "\"note\": \"Plan completed with {} and {}\"",
            SECRETS[1], SECRETS[2]
        ),
    );
    plant(
        &case.plan.join("state.json"),
        "\"title\": \"Retry loop in the deliverer\"",
        &format!("\"title\": \"Retry loop {}\"", SECRETS[1]),
    );
    // The other systems beside the plan, so `verify` and every subcommand see secrets too.
    std::fs::create_dir_all(root.join(".reversa")).expect("mkdir");
    std::fs::write(
        root.join(".reversa/state.json"),
        format!(
            "{{\"version\": \"1.0.0\", \"project\": \"p {s1}\", \"user_name\": \"{s0}\", \"phase\": \"reconhecimento\", \"completed\": [], \"pending\": [\"reconhecimento\",\"escavacao\",\"interpretacao\",\"geracao\",\"revisao\"]}}",
            s0 = SECRETS[0],
            s1 = SECRETS[1]
        ),
    )
    .expect("reversa state");
    std::fs::create_dir_all(root.join("docs/stories")).expect("mkdir");
    std::fs::write(
        root.join("docs/stories/1.1.md"),
        format!("---\nid: 1.1\nstatus: Done\ntitle: {}\n---\n", SECRETS[0]),
    )
    .expect("story");
    std::fs::write(
        root.join("docs/PROJECT-CHECKPOINT.md"),
        format!(
            "# Project Checkpoint\n\n## Contexto Ativo\n\nrotating {s0}\n\n## Status das Stories\n\n| Story | Status |\n|---|---|\n| 1.1 {s1} | Draft |\n\n## Ambiente Detectado\n\nexport API_KEY={s0}\n",
            s0 = SECRETS[0],
            s1 = SECRETS[1]
        ),
    )
    .expect("checkpoint");
    std::fs::create_dir_all(root.join(".planning")).expect("mkdir");
    std::fs::write(
        root.join(".planning/STATE.md"),
        gsd_state("", "- Keep order\n"),
    )
    .expect("gsd state");
    let state = format!("{plan}/state.json");
    let readme = format!("{plan}/README.md");
    let outputs = run_all_clean(
        &root,
        &[
            &["verify"],
            &["verify", &plan],
            &["diff", &plan],
            &["diff", &plan, "--against", "HEAD"],
            &["diff", &plan, "--format", "markdown"],
            &["diff", &plan, "--candidate", &state],
            &["rebuild", &plan],
            &["rebuild", &plan, "--exit-code"],
            &["log", &plan],
            &["log", &plan, "--file", &readme],
            &["update", &state, "--task", "2", "--status", "in_progress"],
            &["update", &state, "--task", "9", "--status", "completed"],
            &["finalize", &plan, "--dry-run"],
            &[
                "finalize",
                &plan,
                "--dry-run",
                "--allow-dirty",
                "--reason",
                "test",
            ],
            &["recover", &plan],
            &["unlock", &state],
            &[
                "refine",
                &plan,
                "--skip",
                "2",
                "--reason",
                "r",
                "--authority",
                "user",
            ],
            &["refine", &plan, "--add-task", "--title", "x", "--dry-run"],
            &["promote", &plan, "--dry-run"],
            &["gsd", "statusline"],
            &["gsd", "status"],
            &["gsd", "check"],
            &["gsd", "sync"],
            &["gsd", "recover"],
            &["reversa", "status"],
            &["reversa", "history"],
            &["reversa", "set", "user_name", "\"Ana\"", "--dry-run"],
            &["reversa", "set", "project", "not json"],
            &["checkpoint", "status"],
            &["checkpoint", "refresh"],
            &["checkpoint", "diff", "--against", "HEAD"],
            &["checkpoint", "init", "--dry-run"],
            &["checkpoint", "context"],
            &["checkpoint", "restore", "--from", "HEAD"],
            &[
                "reversa",
                "advance",
                "--phase-done",
                "reconhecimento",
                "--dry-run",
            ],
            // writes last: their reports quote the values they wrote
            &["reversa", "advance", "--phase-done", "reconhecimento"],
            &["reversa", "set", "doc_level", "\"completo\""],
            &["checkpoint", "refresh", "--write"],
            &["gsd", "sync", "--write"],
            &["verify"],
        ],
    );
    let all = outputs.join("\n");
    assert!(
        all.contains(REDACTED),
        "the redaction shows somewhere: {all}"
    );
}
