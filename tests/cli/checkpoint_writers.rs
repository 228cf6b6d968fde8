//! `planseal checkpoint session add`, `checkpoint context`, `checkpoint restore`: the bytes
//! before and after on a hand-written CRLF checkpoint with accented headings, same-date entries
//! joining their session, pruning to 3 with the text in the journal, refusals byte-identical,
//! `--dry-run` writing nothing, the session-start summary in every mode (several projects listed,
//! never refused; staleness over stories, PRD, ADR and memory files), and lost sections put back
//! from git.

use crate::support::gitrepo::FixtureRepo;
use crate::support::run::Planseal;
use serde_json::Value;
use std::path::Path;

const NOW: &str = "2026-10-05T09:00:00+00:00";

/// A project checkpoint written by people: accented headings, emoji, a richer story table,
/// prose in the sessions section, CRLF.
const CHECKPOINT: &str = "# Checkpoint — CW\r\n\r\n> Ultima atualizacao: 2026-09-30\r\n\r\n## 📍 Contexto Ativo\r\n\r\nCW-3.1 em andamento (SSO).\r\n\r\n## Status das Stories\r\n\r\n| Story | Título | Status |\r\n|---|---|---|\r\n| CW-3.1 | Login SSO | InProgress |\r\n\r\n## Decisões Tomadas\r\n\r\n- OIDC via biblioteca oficial\r\n\r\n## Ambiente Configurado\r\n\r\n- staging\r\n\r\n## Último Trabalho Realizado\r\n\r\n### Sessão 2026-09-30\r\n\r\n**Story CW-3.1 — Login SSO** (InProgress):\r\n- rota de callback\r\n- Arquivos: src/sso.rs\r\n- Testes: 2 novos, 40 total\r\n\r\n## Próximos Passos\r\n\r\n- [ ] refresh token\r\n- [x] callback\r\n";

const STORY: &str =
    "---\r\nid: CW-3.1\r\nstatus: InProgress\r\n---\r\n# Story CW-3.1: Login SSO\r\n";

fn workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    let p = dir.path().join("projects/cw");
    std::fs::create_dir_all(p.join("stories")).expect("mkdir");
    std::fs::write(p.join(".project.yaml"), "prefix: CW\n").expect("yaml");
    std::fs::write(p.join("PROJECT-CHECKPOINT.md"), CHECKPOINT).expect("checkpoint");
    std::fs::write(p.join("stories/CW-3.1.md"), STORY).expect("story");
    dir
}

fn checkpoint(dir: &Path) -> String {
    String::from_utf8(std::fs::read(dir.join("projects/cw/PROJECT-CHECKPOINT.md")).expect("read"))
        .expect("utf8")
}

fn journal(dir: &Path) -> Vec<Value> {
    std::fs::read_to_string(crate::support::fs::journal_of(
        dir,
        "projects/cw/PROJECT-CHECKPOINT.md",
    ))
    .unwrap_or_default()
    .lines()
    .map(|l| serde_json::from_str(l).expect("json"))
    .collect()
}

fn run_at(dir: &Path, now: &str, args: &[&str]) -> (i32, String, String) {
    let out = Planseal::new().cwd(dir).clock(now).args(args).output();
    (out.code, out.stdout, out.stderr)
}

fn session_add(dir: &Path, now: &str, extra: &[&str]) -> (i32, String, String) {
    let mut args = vec![
        "checkpoint",
        "session",
        "add",
        "--story",
        "cw-3.1",
        "--did",
        "token refresh",
        "--did",
        "testes de expiração",
        "--files",
        "src/token.rs",
        "src/sso.rs",
        "--tests",
        "3/43",
    ];
    args.extend_from_slice(extra);
    run_at(dir, now, &args)
}

const ENTRY: &str = "**Story CW-3.1 — Login SSO** (InProgress):\r\n- token refresh\r\n- testes de expiração\r\n- Arquivos: src/token.rs, src/sso.rs\r\n- Testes: 3 novos, 43 total\r\n";

#[test]
fn a_session_entry_in_the_protocols_format_and_nothing_else_changes() {
    let dir = workspace();
    let (code, out, err) = session_add(dir.path(), NOW, &[]);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("projects/cw/PROJECT-CHECKPOINT.md: added Story CW-3.1 — Login SSO (InProgress) to a new session (2026-10-05)\n"), "{out}");
    let expected = CHECKPOINT
        .replace("> Ultima atualizacao: 2026-09-30", "> Ultima atualizacao: 2026-10-05")
        .replace(
            "## Último Trabalho Realizado\r\n\r\n### Sessão 2026-09-30",
            &format!("## Último Trabalho Realizado\r\n\r\n### Sessão 2026-10-05\r\n\r\n{ENTRY}\r\n### Sessão 2026-09-30"),
        );
    assert_eq!(checkpoint(dir.path()), expected);
    let j = journal(dir.path());
    assert_eq!(j.len(), 1);
    assert_eq!(j[0]["operation"], "checkpoint-session-add");
    assert_eq!(j[0]["story"], "CW-3.1");

    // The same date again: the entry joins that session, after its last entry.
    let (code, out, _) = session_add(dir.path(), "2026-10-05T18:00:00+00:00", &[]);
    assert_eq!(code, 0);
    assert!(out.contains("to that date's session (2026-10-05)"), "{out}");
    assert!(checkpoint(dir.path()).contains(&format!(
        "### Sessão 2026-10-05\r\n\r\n{ENTRY}\r\n{ENTRY}\r\n### Sessão 2026-09-30"
    )));
}

#[test]
fn sessions_beyond_three_are_pruned_into_the_journal() {
    let dir = workspace();
    for day in ["2026-10-01", "2026-10-02", "2026-10-03"] {
        assert_eq!(
            session_add(dir.path(), &format!("{day}T09:00:00+00:00"), &[]).0,
            0
        );
    }
    let text = checkpoint(dir.path());
    assert_eq!(text.matches("### Sessão").count(), 3);
    assert!(!text.contains("### Sessão 2026-09-30"), "{text}");
    let j = journal(dir.path());
    let removed = j[2]["sessions_removed"].as_array().expect("array");
    assert_eq!(removed.len(), 1);
    assert!(
        removed[0]
            .as_str()
            .expect("text")
            .starts_with("### Sessão 2026-09-30\r\n\r\n**Story CW-3.1")
    );
    assert_eq!(text.matches("**Story CW-3.1").count(), 3);
}

#[test]
fn one_bullet_is_accepted_with_an_advisory_and_bad_input_is_refused_byte_identical() {
    let dir = workspace();
    let (code, out, err) = run_at(
        dir.path(),
        NOW,
        &[
            "checkpoint",
            "session",
            "add",
            "--story",
            "CW-3.1",
            "--did",
            "x",
            "--files",
            "a",
            "--tests",
            "0/1",
            "--dry-run",
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("advisory: the protocol asks for 2–3 bullets"),
        "{out}"
    );
    assert!(out.contains("+### Sessão 2026-10-05\\u{d}\n"), "{out}");
    assert!(out.ends_with("nothing written (--dry-run)\n"), "{out}");
    assert_eq!(checkpoint(dir.path()), CHECKPOINT);
    let cases: &[(&[&str], &str)] = &[
        (
            &[
                "--story", "CW-9.9", "--did", "x", "--files", "a", "--tests", "0/1",
            ],
            "story-not-found",
        ),
        (
            &[
                "--story", "CW-3.1", "--did", "a", "--did", "b", "--did", "c", "--did", "d",
                "--files", "a", "--tests", "0/1",
            ],
            "usage-error",
        ),
        (
            &[
                "--story",
                "CW-3.1",
                "--did",
                "x",
                "--files",
                "a",
                "--tests",
                "0/1",
                "--expected-sha256",
                "00",
            ],
            "stale-snapshot",
        ),
    ];
    for (args, kind) in cases {
        let mut full = vec!["checkpoint", "session", "add"];
        full.extend_from_slice(args);
        let (code, _, err) = run_at(dir.path(), NOW, &full);
        assert_eq!(code, 1, "{args:?}: {err}");
        assert!(err.starts_with(&format!("{kind}: ")), "{args:?}: {err}");
        assert_eq!(checkpoint(dir.path()), CHECKPOINT);
    }
    let (code, _, err) = run_at(
        dir.path(),
        NOW,
        &[
            "checkpoint",
            "session",
            "add",
            "--story",
            "CW-3.1",
            "--did",
            "x",
            "--files",
            "a",
            "--tests",
            "5/1",
        ],
    );
    assert_eq!(code, 2, "{err}");
    let without = CHECKPOINT.replace("## Último Trabalho Realizado", "## Outra Coisa");
    std::fs::write(
        dir.path().join("projects/cw/PROJECT-CHECKPOINT.md"),
        &without,
    )
    .expect("write");
    let (code, _, err) = session_add(dir.path(), NOW, &[]);
    assert_eq!(code, 1);
    assert!(
        err.starts_with("section-missing: ") && err.contains("checkpoint restore"),
        "{err}"
    );
    assert_eq!(checkpoint(dir.path()), without);
    assert!(journal(dir.path()).is_empty());
}

fn touch_later(path: &Path) {
    let later = std::time::SystemTime::now() + std::time::Duration::from_secs(120);
    std::fs::File::options()
        .write(true)
        .open(path)
        .and_then(|f| f.set_modified(later))
        .expect("set mtime");
}

#[test]
fn context_summarises_the_active_project_and_its_staleness() {
    let dir = workspace();
    let p = dir.path().join("projects/cw");
    let (code, out, err) = run_at(dir.path(), NOW, &["checkpoint", "context"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        out,
        "Checkpoint: projects/cw/PROJECT-CHECKPOINT.md (project cw, updated 2026-09-30)\nActive context:\n  CW-3.1 em andamento (SSO).\nStory:\n  CW-3.1 (InProgress)\nNext steps:\n  - [ ] refresh token\nLast session:\n  ### Sessão 2026-09-30\n  **Story CW-3.1 — Login SSO** (InProgress):\n  - rota de callback\n  - Arquivos: src/sso.rs\n  - Testes: 2 novos, 40 total\nStale: no story, PRD, architecture, ADR or memory file changed after it\n"
    );
    // A PRD, an ADR, the memory files `.project.yaml` names, a story: newer than the checkpoint.
    std::fs::create_dir_all(p.join("prd")).expect("mkdir");
    std::fs::create_dir_all(p.join("notes")).expect("mkdir");
    for f in [
        "prd/v1.md",
        "adr-003-sso.md",
        "notes/memory.md",
        "CLAUDE.md",
    ] {
        std::fs::write(p.join(f), "x\n").expect("write");
        touch_later(&p.join(f));
    }
    touch_later(&p.join("stories/CW-3.1.md"));
    std::fs::write(
        p.join(".project.yaml"),
        "prefix: CW\nmemory:\n  - notes/memory.md\n",
    )
    .expect("yaml");
    let out = Planseal::new()
        .cwd(dir.path())
        .clock(NOW)
        .args(["--json", "checkpoint", "context"])
        .output();
    assert_eq!(out.code, 0, "{}", out.stderr);
    let v = out.json();
    let stale: Vec<String> = v["stale"]
        .as_array()
        .expect("array")
        .iter()
        .map(|f| {
            format!(
                "{} {}",
                f["kind"].as_str().unwrap(),
                f["path"].as_str().unwrap()
            )
        })
        .collect();
    // CLAUDE.md is not memory here: .project.yaml names the memory files.
    assert_eq!(
        stale,
        [
            "adr projects/cw/adr-003-sso.md",
            "memory projects/cw/notes/memory.md",
            "prd projects/cw/prd/v1.md",
            "story projects/cw/stories/CW-3.1.md"
        ]
    );
    assert_eq!(v["mode"], "project");
    assert_eq!(v["next_steps"][0], "- [ ] refresh token");
}

#[test]
fn context_with_several_projects_and_none_chosen_lists_them() {
    let dir = workspace();
    let other = dir.path().join("projects/lmas");
    std::fs::create_dir_all(&other).expect("mkdir");
    std::fs::write(other.join(".project.yaml"), "prefix: LMAS\n").expect("yaml");
    let (code, out, err) = run_at(dir.path(), NOW, &["checkpoint", "context"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        out,
        "Several projects and none chosen; ask the user which one to work on:\n  cw — CW-3.1 em andamento (SSO).\n  lmas — (no checkpoint yet)\nthen: planseal checkpoint context --project ID\n"
    );
    let (code, out, _) = run_at(
        dir.path(),
        NOW,
        &["checkpoint", "context", "--project", "lmas"],
    );
    assert_eq!(code, 0);
    assert_eq!(
        out,
        "Checkpoint: projects/lmas/PROJECT-CHECKPOINT.md (project lmas) does not exist yet: planseal checkpoint init --project lmas\n"
    );
    let (code, out, _) = run_at(
        &dir.path().join("projects/cw"),
        NOW,
        &["checkpoint", "context"],
    );
    assert_eq!(code, 0);
    assert!(
        out.starts_with("Checkpoint: PROJECT-CHECKPOINT.md (project cw,"),
        "{out}"
    );
}

#[test]
fn restore_puts_a_lost_section_back_from_git() {
    let mut repo = FixtureRepo::new();
    repo.write("projects/cw/.project.yaml", "prefix: CW\n");
    repo.write("projects/cw/stories/CW-3.1.md", STORY);
    repo.write("projects/cw/PROJECT-CHECKPOINT.md", CHECKPOINT);
    repo.commit("checkpoint");
    let lost = CHECKPOINT.replace(
        "## Decisões Tomadas\r\n\r\n- OIDC via biblioteca oficial\r\n\r\n",
        "",
    );
    repo.write("projects/cw/PROJECT-CHECKPOINT.md", &lost);
    let dir = repo.path();
    let (code, out, err) = run_at(dir, NOW, &["checkpoint", "restore", "--from", "HEAD"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        out,
        "projects/cw/PROJECT-CHECKPOINT.md: lost since HEAD:\n  ## Decisões Tomadas\nrestore with: planseal checkpoint restore --from HEAD --section NAME\n"
    );
    let (code, out, _) = run_at(
        dir,
        NOW,
        &[
            "checkpoint",
            "restore",
            "--from",
            "HEAD",
            "--section",
            "decisoes tomadas",
            "--dry-run",
        ],
    );
    assert_eq!(code, 0);
    assert!(out.contains("+## Decisões Tomadas\\u{d}\n"), "{out}");
    assert_eq!(checkpoint(dir), lost);
    for (section, kind) in [
        ("Contexto Ativo", "section-present"),
        ("Nada Disso", "section-not-found"),
    ] {
        let (code, _, err) = run_at(
            dir,
            NOW,
            &[
                "checkpoint",
                "restore",
                "--from",
                "HEAD",
                "--section",
                section,
            ],
        );
        assert_eq!(code, 1);
        assert!(err.starts_with(&format!("{kind}: ")), "{err}");
        assert_eq!(checkpoint(dir), lost);
    }
    let (code, _, err) = run_at(
        dir,
        NOW,
        &[
            "checkpoint",
            "restore",
            "--from",
            "HEAD",
            "--section",
            "Decisões Tomadas",
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(checkpoint(dir), CHECKPOINT);
    let j = journal(dir);
    assert_eq!(j[0]["operation"], "checkpoint-restore");
    assert_eq!(j[0]["sections"][0], "Decisões Tomadas");
}

#[test]
fn session_add_waits_for_a_held_lock_then_writes() {
    let dir = workspace();
    // An empty lock folder: a writer that records no owner (the DWP helper's way) holds it.
    let lock = dir.path().join("projects/cw/PROJECT-CHECKPOINT.md.lock");
    std::fs::create_dir(&lock).expect("lock");
    let (code, _, err) = session_add(dir.path(), NOW, &[]);
    assert_eq!(code, 1);
    assert!(err.starts_with("lock-present: "), "{err}");
    let start = std::time::Instant::now();
    let (code, _, err) = session_add(dir.path(), NOW, &["--wait=300ms"]);
    assert_eq!(code, 1, "{err}");
    assert!(start.elapsed() >= std::time::Duration::from_millis(300));
    assert!(err.contains("waiting up to 300ms: lock-present"), "{err}");
    assert_eq!(checkpoint(dir.path()), CHECKPOINT);
    let remover = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(300));
        std::fs::remove_dir(lock).expect("release");
    });
    let (code, _, err) = session_add(dir.path(), NOW, &["--wait=10s"]);
    remover.join().expect("thread");
    assert_eq!(code, 0, "{err}");
    assert!(checkpoint(dir.path()).contains("### Sessão 2026-10-05"));
}

#[test]
fn session_add_json_documents_are_in_the_envelope() {
    let dir = workspace();
    let (code, out, err) = session_add(dir.path(), NOW, &["--dry-run", "--json"]);
    assert_eq!(code, 0, "{err}");
    let dry: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(dry["result"], "ok");
    let (code, out, err) = session_add(dir.path(), NOW, &["--json"]);
    assert_eq!(code, 0, "{err}");
    let applied: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(applied["result"], "applied");
    assert!(checkpoint(dir.path()).contains(ENTRY));
}
