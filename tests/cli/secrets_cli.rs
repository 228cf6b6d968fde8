//! Secret values planted in `.env` and in the environment never appear in any output of the
//! `checkpoint` and `reversa` commands — text or JSON, stdout or stderr, success or refusal —
//! nor in the journals those commands write.

use crate::support::gitrepo;
use crate::support::run::Planseal;
use std::path::Path;

const SECRETS: [&str; 5] = [
    "sk-live-PLANTED-4f9a0c2e7b",
    "hunter2-PLANTED-pass",
    "quoted PLANTED value with spaces",
    "env-PLANTED-from-the-environment",
    "PLANTED-db-password-771",
];

fn run(dir: &Path, args: &[&str]) -> (i32, String) {
    let out = Planseal::new()
        .cwd(dir)
        .clock("2026-10-05T09:00:00+00:00")
        .env("API_KEY", SECRETS[0])
        .env("PLANSEAL_TEST_TOKEN", SECRETS[3])
        .env("DATABASE_PASSWORD", SECRETS[4])
        .args(args)
        .output();
    let all = out.all();
    (out.status.code().expect("exit code"), all)
}

fn assert_clean(what: &str, text: &str) {
    for s in SECRETS {
        assert!(
            !text.contains(s),
            "{what} printed a planted secret:\n{text}"
        );
    }
}

#[test]
fn no_output_of_any_command_holds_a_secret_value() {
    let mut repo = gitrepo::FixtureRepo::new();
    let root = repo.path().to_path_buf();
    repo.write(
        ".env",
        &format!(
            "# planted values\nexport API_KEY={}\nPASSWORD = {}\nTOKEN=\"{}\"\nAPI_KEY=dup\nDATABASE_PASSWORD={}\n",
            SECRETS[0], SECRETS[1], SECRETS[2], SECRETS[4]
        ),
    );
    repo.write("docs/stories/1.1.md", "---\nid: 1.1\nstatus: Done\n---\n");
    // A hook already leaked `.env` lines into the checkpoint, and an agent pasted one into a
    // session: the commands must report this without repeating the values.
    repo.write(
        "docs/PROJECT-CHECKPOINT.md",
        &format!(
            "# Project Checkpoint\n\n> Ultima atualizacao: 2026-01-01\n\n## Contexto Ativo\n\nx\n\n## Status das Stories\n\n| Story | Status |\n|---|---|\n| 1.1 | Draft |\n\n## Decisoes Tomadas\n\n- a\n\n## Ambiente Configurado\n\n- senha {}\n\n## Ultimo Trabalho Realizado\n\n### Sessão 2026-01-04\n\n**Story 1.1 — A** (Done):\n- token {}\n- Arquivos: a\n- Testes: 1\n\n### Sessão 2026-01-03\n\n**Story 1.1 — A** (Done):\n- b\n- Arquivos: a\n- Testes: 1\n\n### Sessão 2026-01-02\n\n**Story 1.1 — A** (Done):\n- c\n- Arquivos: a\n- Testes: 1\n\n### Sessão 2026-01-01\n\n**Story 1.1 — A** (Done):\n- key {}\n- Arquivos: a\n- Testes: 1\n\n## Proximos Passos\n\n- [ ] x\n\n## Ambiente Detectado\n\nexport API_KEY={}\nPASSWORD={}\n",
            SECRETS[1], SECRETS[2], SECRETS[0], SECRETS[0], SECRETS[1]
        ),
    );
    repo.write(
        ".reversa/state.json",
        &format!("{{\"version\": \"1.0.0\", \"project\": \"p\", \"phase\": null, \"completed\": [], \"pending\": [], \"user_name\": \"{}\"}}", SECRETS[1]),
    );
    repo.commit("planted");

    let commands: &[&[&str]] = &[
        &["checkpoint", "status"],
        &["checkpoint", "status", "--exit-code"],
        &["checkpoint", "refresh"],
        &["checkpoint", "refresh", "--prune-sessions"],
        &["checkpoint", "diff", "--against", "HEAD"],
        &["checkpoint", "diff", "--against", "no-such-revision"],
        &[
            "checkpoint",
            "refresh",
            "--write",
            "--expected-sha256",
            "00",
        ],
        &["checkpoint", "init"],
        &["checkpoint", "status", "--project", "x"],
        &["reversa", "status"],
        &["reversa", "history"],
        &["reversa", "set", "doc_level", "not json"],
        &["reversa", "set", "user_name", "\"Ana\"", "--dry-run"],
        &["reversa", "set", "phase", "\"escavacao\""],
        &["checkpoint", "refresh", "--prune-sessions", "--write"],
        &["checkpoint", "diff", "--against", "HEAD"],
        &["checkpoint", "status"],
    ];
    for args in commands {
        for json in [false, true] {
            let mut full: Vec<&str> = Vec::new();
            if json {
                full.push("--json");
            }
            full.extend_from_slice(args);
            let (_, out) = run(&root, &full);
            assert_clean(&format!("planseal {}", full.join(" ")), &out);
            assert!(
                !out.is_empty(),
                "planseal {} printed nothing",
                full.join(" ")
            );
        }
    }
    let journal = std::fs::read_to_string(crate::support::fs::journal_of(
        &root,
        "docs/PROJECT-CHECKPOINT.md",
    ))
    .expect("refresh --write journaled");
    assert_clean("the journal", &journal);
    assert!(
        journal.contains("Sessão 2026-01-01"),
        "the pruned session is recorded"
    );
    let checkpoint =
        std::fs::read_to_string(root.join("docs/PROJECT-CHECKPOINT.md")).expect("file");
    assert!(
        checkpoint.contains("## Ambiente Detectado\n\nKeys: API_KEY, PASSWORD, TOKEN, DATABASE_PASSWORD\n\n## Git Recente\n"),
        "{checkpoint}"
    );

    // init in a fresh project with the same .env writes keys only
    let fresh = tempfile::tempdir().expect("tempdir");
    std::fs::copy(root.join(".env"), fresh.path().join(".env")).expect("copy");
    for json in [false, true] {
        let mut full = vec!["checkpoint", "init", "--dry-run"];
        if json {
            full.insert(0, "--json");
        }
        let (code, out) = run(fresh.path(), &full);
        assert_eq!(code, 0, "{out}");
        assert_clean("checkpoint init --dry-run", &out);
        assert!(
            out.contains("Keys: API_KEY, PASSWORD, TOKEN, DATABASE_PASSWORD"),
            "{out}"
        );
    }
    let (code, out) = run(fresh.path(), &["checkpoint", "init"]);
    assert_eq!(code, 0, "{out}");
    let written =
        std::fs::read_to_string(fresh.path().join("docs/PROJECT-CHECKPOINT.md")).expect("file");
    assert_clean("the initialised checkpoint", &written);
}

/// Regression: a `.env` line `KEY=value # comment` was read as the value `value # comment`, so
/// the real value (what a program gets) was never hidden. The checkpoint that leaked it is
/// reported without it.
#[test]
fn a_env_value_before_an_inline_comment_is_redacted() {
    let mut repo = gitrepo::FixtureRepo::new();
    let root = repo.path().to_path_buf();
    let secret = "sk-PLANTED-inline-9b1d";
    repo.write(".env", &format!("API_TOKEN={secret} # rotated monthly\n"));
    repo.write(
        "docs/PROJECT-CHECKPOINT.md",
        &format!("# Project Checkpoint\n\n## Contexto Ativo\n\nx\n\n## Ambiente Detectado\n\nAPI_TOKEN={secret}\n"),
    );
    repo.commit("docs: checkpoint");
    // refresh shows the diff of the generated section, whose old text holds the leaked line.
    for args in [
        vec!["checkpoint", "refresh"],
        vec!["--json", "checkpoint", "refresh"],
        vec!["checkpoint", "status"],
    ] {
        let (_, all) = run(&root, &args);
        assert!(!all.contains(secret), "{args:?} printed the value:\n{all}");
    }
    let (_, diff) = run(&root, &["checkpoint", "refresh"]);
    assert!(diff.contains("-API_TOKEN=[redacted .env value]"), "{diff}");
}

/// Regression: a FIFO in place of `.env` made every command wait forever on it (the redactor
/// and the checkpoint's key list opened it for reading). Now it is never opened: verify and
/// checkpoint status end at once, and the checkpoint names the file.
#[test]
fn a_fifo_in_place_of_env_never_hangs_a_command() {
    let mut repo = gitrepo::FixtureRepo::new();
    let root = repo.path().to_path_buf();
    repo.write(
        "docs/PROJECT-CHECKPOINT.md",
        "# Project Checkpoint\n\n## Contexto Ativo\n\nx\n",
    );
    repo.commit("docs: checkpoint");
    let made = std::process::Command::new("mkfifo")
        .arg(root.join(".env"))
        .status()
        .expect("mkfifo runs");
    assert!(made.success());
    for args in [vec!["verify"], vec!["checkpoint", "status"]] {
        let run = Planseal::new()
            .cwd(&root)
            .args(&args)
            .spawn()
            .wait_at_most(std::time::Duration::from_secs(20))
            .unwrap_or_else(|| panic!("{args:?} waited on the FIFO"));
        assert_ne!(run.code, -1, "{args:?}");
        if args[0] == "checkpoint" {
            assert!(run.stderr.contains(".env"), "{}", run.stderr);
            assert!(run.stderr.contains("not a regular file"), "{}", run.stderr);
        }
    }
}

/// Regression: outside a repository, `.env` was read from every folder up to `/`: a `.env`
/// above the project (someone else's) was read. Now only the target's own folder is.
#[test]
fn outside_a_repository_only_the_targets_own_env_is_read() {
    let tmp = tempfile::tempdir().expect("tmp");
    std::fs::write(tmp.path().join(".env"), "OUTER=outer-PLANTED-value\n").expect("env");
    let inner = tmp.path().join("project");
    std::fs::create_dir(&inner).expect("dir");
    let here = planseal::report::redact::EnvRedactor::for_target(&inner);
    assert!(here.is_empty(), "the outer .env was read");
    let outer = planseal::report::redact::EnvRedactor::for_target(tmp.path());
    assert_eq!(outer.clean("outer-PLANTED-value"), "[redacted .env value]");
}

/// Regression: a usage error echoed the offending argument without the `.env` redactor, so a
/// secret pasted into the wrong option was printed back.
#[test]
fn a_usage_error_never_echoes_a_env_value() {
    let repo = gitrepo::FixtureRepo::new();
    let root = repo.path().to_path_buf();
    let secret = "sk-PLANTED-usage-51c0";
    repo.write(".env", &format!("API_TOKEN={secret}\n"));
    for json in [false, true] {
        let mut args = vec!["update", "state.json", "--task", secret, "--status", "done"];
        if json {
            args.push("--json");
        }
        let (code, all) = run(&root, &args);
        assert_eq!(code, 2, "{all}");
        assert!(all.contains("usage-error"), "{all}");
        assert!(
            !all.contains(secret),
            "the usage error printed the value:\n{all}"
        );
    }
}
