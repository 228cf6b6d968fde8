//! `planseal checkpoint …` on the fixtures in `fixtures/checkpoint/` and on repositories built
//! with pinned dates: resolution, findings, init, refresh (byte layout, hand-written content kept,
//! pruning journaled), diff against a revision.

use crate::support::gitrepo;
use crate::support::run::{self, json};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// (exit code, stdout, stderr) of `planseal ARGS` in `dir`, through the hermetic runner.
fn planseal(dir: &Path, args: &[&str]) -> (i32, String, String) {
    run::planseal(dir, args).into_parts()
}

const CP: &str = "docs/PROJECT-CHECKPOINT.md";

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/checkpoint")
        .join(name)
}

/// Copies a fixture; every file gets the same modification time, so staleness is only what a
/// test makes it.
fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for e in std::fs::read_dir(from).expect("read_dir") {
        let e = e.expect("entry");
        let target = to.join(e.file_name());
        if e.file_type().expect("type").is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), &target).expect("copy");
            set_mtime(&target, 0);
        }
    }
}

fn set_mtime(path: &Path, offset_secs: u64) {
    let t = SystemTime::UNIX_EPOCH + Duration::from_secs(1_780_000_000 + offset_secs);
    std::fs::File::options()
        .write(true)
        .open(path)
        .expect("open")
        .set_modified(t)
        .expect("set mtime");
}

fn project(name: &str) -> tempfile::TempDir {
    let tmp = tempfile::tempdir().expect("tempdir");
    copy_dir(&fixture(name), tmp.path());
    tmp
}

fn ids(doc: &Value, severity: &str) -> Vec<String> {
    doc["sections"][0]["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter(|f| f["severity"] == severity)
        .map(|f| f["id"].as_str().expect("id").to_string())
        .collect()
}

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).expect("readable")
}

#[test]
fn good_legacy_checkpoint_is_conformant() {
    let p = project("legacy-good");
    let before = read(&p.path().join(CP));
    let (code, out, err) = planseal(p.path(), &["checkpoint", "status", "--exit-code"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.starts_with("checkpoint: docs/PROJECT-CHECKPOINT.md\nmode: legacy (docs/)\nsections: 8\nstory files: 2\n\n"), "{out}");
    assert!(
        out.contains("Verdict: CONFORMANT (2 passed, 0 advisory)"),
        "{out}"
    );
    let (_, out, _) = planseal(p.path(), &["--json", "checkpoint", "status"]);
    let doc = json(&out);
    assert_eq!(doc["verdict"], "CONFORMANT");
    assert_eq!(doc["project"], Value::Null);
    assert_eq!(doc["headings"][4], "Último Trabalho Realizado");
    assert_eq!(read(&p.path().join(CP)), before);
}

#[test]
fn broken_checkpoint_names_every_problem() {
    let p = project("broken");
    let (code, out, _) = planseal(p.path(), &["--json", "checkpoint", "status"]);
    assert_eq!(code, 0);
    let doc = json(&out);
    assert_eq!(
        ids(&doc, "fail"),
        [
            "checkpoint-section-missing",
            "checkpoint-section-missing",
            "checkpoint-too-many-sessions",
            "checkpoint-story-missing-row",
            "checkpoint-env-value-leaked",
            "checkpoint-env-value-leaked",
        ]
    );
    assert_eq!(
        ids(&doc, "advisory"),
        [
            "checkpoint-generated-section-missing",
            "checkpoint-section-placeholder",
            // 2026-05-05 has no `- Testes:`, 2026-05-04 no story line, `### Notas soltas`
            // is not a session
            "checkpoint-session-format",
            "checkpoint-session-format",
            "checkpoint-session-format",
            "checkpoint-next-steps-checkbox",
        ]
    );
    let (code, text, _) = planseal(p.path(), &["checkpoint", "status", "--exit-code"]);
    assert_eq!(code, 1);
    assert!(
        text.contains("[ ] required section `## Decisoes Tomadas` is missing"),
        "{text}"
    );
    assert!(text.contains("`### Notas soltas` in `## Ultimo Trabalho Realizado` is not a `### Sessão <date>` entry"), "{text}");
    assert!(
        text.contains("[ ] the value of .env key(s) SESSION_SECRET appears in the checkpoint"),
        "{text}"
    );
    assert!(
        !text.contains("fixture-leaked-value-123"),
        "a value is never printed"
    );
}

#[test]
fn placeholder_skeleton_is_advisory_only() {
    let p = project("placeholders");
    let (code, out, _) = planseal(p.path(), &["--json", "checkpoint", "status", "--exit-code"]);
    assert_eq!(code, 0);
    let doc = json(&out);
    assert_eq!(doc["verdict"], "CONFORMANT");
    let (_, text, _) = planseal(p.path(), &["checkpoint", "status"]);
    let mut expected = String::from(
        "checkpoint: docs/PROJECT-CHECKPOINT.md\nmode: legacy (docs/)\nsections: 6\nstory files: 0\n\nCheckpoint: docs/PROJECT-CHECKPOINT.md\n  [x] the six required agent sections are present\n  [~] generated section `## Git Recente` is missing (SHOULD)\n      hint: planseal checkpoint refresh --write\n",
    );
    for s in [
        "Contexto Ativo",
        "Status das Stories",
        "Decisoes Tomadas",
        "Ambiente Configurado",
        "Ultimo Trabalho Realizado",
        "Proximos Passos",
    ] {
        expected.push_str(&format!("  [~] section `## {s}` holds only a placeholder (SHOULD)\n      hint: the agent that acted last should fill it in\n"));
    }
    expected.push_str("\nVerdict: CONFORMANT (1 passed, 7 advisory)\n");
    assert_eq!(text, expected);
    let adv = ids(&doc, "advisory");
    assert_eq!(
        adv.iter()
            .filter(|i| *i == "checkpoint-section-placeholder")
            .count(),
        6
    );
    assert!(adv.contains(&"checkpoint-generated-section-missing".to_string()));
}

#[test]
fn project_resolution() {
    let p = project("multi-project");
    let (code, out, err) = planseal(p.path(), &["--json", "checkpoint", "status"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.starts_with("project-ambiguous: "), "{err}");
    assert!(
        err.contains("(projects: cw, lmas)") && err.contains("hint: pass --project ID"),
        "{err}"
    );
    assert_eq!(json(&out)["kind"], "project-ambiguous");

    let (code, out, _) = planseal(
        p.path(),
        &["--json", "checkpoint", "status", "--project", "lmas"],
    );
    assert_eq!(code, 0);
    let doc = json(&out);
    assert_eq!(doc["project"], "lmas");
    assert_eq!(ids(&doc, "fail"), ["checkpoint-story-prefix"]);
    assert!(
        out.contains("story id `6.1` lacks the project prefix `LMAS-`"),
        "{out}"
    );

    let inside = p.path().join("projects/cw/stories");
    let (code, out, _) = planseal(&inside, &["checkpoint", "status", "--exit-code"]);
    assert_eq!(code, 0, "{out}");
    assert!(out.starts_with("checkpoint: "), "{out}");
    assert!(out.contains("mode: project cw (projects/cw/)"), "{out}");
    assert!(
        out.contains("[x] story ids carry the project prefix `CW-`"),
        "{out}"
    );

    let (_, out, _) = planseal(
        p.path(),
        &[
            "--json",
            "checkpoint",
            "status",
            "--project",
            "cw",
            "--prefix",
            "ZZ",
        ],
    );
    assert_eq!(
        ids(&json(&out), "fail"),
        ["checkpoint-story-prefix", "checkpoint-story-prefix"]
    );

    let (code, _, err) = planseal(p.path(), &["checkpoint", "status", "--project", "nope"]);
    assert_eq!(code, 1);
    assert!(err.starts_with("unknown-project: "), "{err}");

    std::fs::remove_dir_all(p.path().join("projects/lmas")).expect("rm");
    let (code, out, _) = planseal(p.path(), &["checkpoint", "status"]);
    assert_eq!(code, 0, "the only project is chosen");
    assert!(out.contains("mode: project cw"), "{out}");
}

#[test]
fn missing_checkpoint_points_to_init() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (code, _, err) = planseal(dir.path(), &["checkpoint", "status"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("docs/PROJECT-CHECKPOINT.md does not exist"),
        "{err}"
    );
    assert!(err.contains("hint: planseal checkpoint init"), "{err}");
}

#[test]
fn init_writes_the_standard_skeleton_once() {
    let p = project("legacy-good");
    std::fs::remove_file(p.path().join(CP)).expect("rm");
    let (code, out, err) = planseal(p.path(), &["checkpoint", "init"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.starts_with("docs/PROJECT-CHECKPOINT.md: created (sha256 "),
        "{out}"
    );
    let expected = "# Project Checkpoint\n\n> Ultima atualizacao: 2026-10-05\n\n## Contexto Ativo\n\n(atualizado pelos agentes)\n\n## Status das Stories\n\n| Story | Status |\n|-------|--------|\n| 1.1 | Done |\n| 1.2 | InProgress |\n\n## Decisoes Tomadas\n\n(nenhuma decisao registrada)\n\n## Ambiente Configurado\n\n(atualizado pelos agentes)\n\n## Ultimo Trabalho Realizado\n\n(nenhum trabalho registrado)\n\n## Proximos Passos\n\n(atualizado pelos agentes)\n\n## Git Recente\n(nenhum commit encontrado)\n\nArquivos modificados: 0\n\n## Ambiente Detectado\n\nKeys: DATABASE_URL, API_BASE, PORT\n";
    assert_eq!(read(&p.path().join(CP)), expected);
    let journal = read(&p.path().join("docs/PROJECT-CHECKPOINT.md.journal.ndjson"));
    assert!(journal.contains("\"operation\":\"checkpoint-init\""));
    let (code, _, err) = planseal(p.path(), &["checkpoint", "init"]);
    assert_eq!(code, 1);
    assert!(err.starts_with("checkpoint-exists: "), "{err}");
    assert_eq!(read(&p.path().join(CP)), expected);
    let (_, out, _) = planseal(p.path(), &["--json", "checkpoint", "status"]);
    assert_eq!(json(&out)["verdict"], "CONFORMANT");
}

#[test]
fn init_in_a_repository_lists_its_commits() {
    let mut repo = gitrepo::FixtureRepo::new();
    repo.write("README.md", "hello\n");
    let first = repo.commit("docs: readme");
    repo.write("src/main.rs", "fn main() {}\n");
    let second = repo.commit("feat: main\n\nbody line");
    repo.write("README.md", "hello again\n");
    std::fs::create_dir_all(repo.path().join("docs")).expect("mkdir");
    let (code, _, err) = planseal(repo.path(), &["checkpoint", "init"]);
    assert_eq!(code, 0, "{err}");
    let text = read(&repo.path().join(CP));
    let git = format!(
        "## Git Recente\n- `{} feat: main`\n- `{} docs: readme`\n\nBranch: `main`\nArquivos modificados: 1\n",
        &second[..7],
        &first[..7]
    );
    assert!(text.ends_with(&git), "{text}");
    assert!(
        !text.contains("## Ambiente Detectado"),
        "no .env, no section"
    );
}

#[test]
fn refresh_rewrites_only_generated_parts_in_place() {
    let mut repo = gitrepo::FixtureRepo::new();
    copy_dir(&fixture("legacy-good"), repo.path());
    let c1 = repo.commit("feat: login form");
    let before = read(&repo.path().join(CP));
    let (code, out, err) = planseal(repo.path(), &["checkpoint", "refresh"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("+- `")
            && out.ends_with("docs/PROJECT-CHECKPOINT.md: not written (add --write)\n"),
        "{out}"
    );
    assert_eq!(
        read(&repo.path().join(CP)),
        before,
        "no write without --write"
    );

    let (code, out, err) = planseal(repo.path(), &["--json", "checkpoint", "refresh", "--write"]);
    assert_eq!(code, 0, "{err}");
    let doc = json(&out);
    assert_eq!(doc["result"], "applied");
    assert_eq!(doc["changes"]["sections_rewritten"][0], "Git Recente");
    let expected = before
        .replace("> Ultima atualizacao: 2026-03-02", "> Ultima atualizacao: 2026-10-05")
        .replace(
            "- `0a1b2c3 feat: logout route`\n- `4d5e6f7 feat: login form`\n\nBranch: `feat/logout`\n",
            &format!("- `{} feat: login form`\n\nBranch: `main`\n", &c1[..7]),
        );
    assert_ne!(expected, before);
    assert_eq!(read(&repo.path().join(CP)), expected);
    assert!(!repo.path().join("docs/PROJECT-CHECKPOINT.md.lock").exists());
}

#[test]
fn refresh_adds_rows_and_updates_status_but_keeps_a_rich_table() {
    let p = project("legacy-good");
    std::fs::write(
        p.path().join("docs/stories/epic-1/1.2.story.md"),
        "# Story 1.2 — Logout\n\n**Status:** Done\n",
    )
    .expect("write");
    std::fs::write(
        p.path().join("docs/stories/epic-1/1.3.story.md"),
        "---\nstatus: Draft\n---\n# Story 1.3\n",
    )
    .expect("write");
    let (code, out, err) = planseal(p.path(), &["--json", "checkpoint", "refresh", "--write"]);
    assert_eq!(code, 0, "{err}");
    let doc = json(&out);
    assert_eq!(doc["changes"]["rows_added"], serde_json::json!(["1.3"]));
    assert_eq!(
        doc["changes"]["statuses_updated"],
        serde_json::json!([["1.2", "InProgress", "Done"]])
    );
    let text = read(&p.path().join(CP));
    assert!(text.contains("| Story | Título | Status | Responsável |\n|-------|--------|--------|-------------|\n| 1.1 | Login | Done | @dev |\n| 1.2 | Logout | Done | @dev |\n| 1.3 |  | Draft |  |\n\n## Decisões Tomadas\n"), "{text}");
}

#[test]
fn prune_sessions_records_the_removed_text_in_the_journal() {
    let p = project("broken");
    let before = read(&p.path().join(CP));
    let (code, out, err) = planseal(
        p.path(),
        &["checkpoint", "refresh", "--prune-sessions", "--write"],
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains(
            "1 session(s) removed; their text is in docs/PROJECT-CHECKPOINT.md.journal.ndjson"
        ),
        "{out}"
    );
    let after = read(&p.path().join(CP));
    let removed = "### Sessão 2026-05-02\n\n**Story 2.0 — Setup** (Done):\n- projeto criado\n- Arquivos: package.json\n- Testes: 0\n\n";
    assert!(before.contains(removed));
    assert!(!after.contains("Sessão 2026-05-02"));
    assert!(
        after.contains("- Testes: 2 novos\n\n### Notas soltas\ntexto livre\n"),
        "{after}"
    );
    assert!(
        after.contains("## Ambiente Detectado\n\nKeys: SESSION_SECRET, PORT\n"),
        "{after}"
    );
    let journal = read(&p.path().join("docs/PROJECT-CHECKPOINT.md.journal.ndjson"));
    let line: Value = serde_json::from_str(journal.trim_end()).expect("JSON line");
    assert_eq!(line["operation"], "checkpoint-refresh");
    assert_eq!(line["sessions_removed"][0], removed);
    let (_, out, _) = planseal(p.path(), &["--json", "checkpoint", "status"]);
    let fails = ids(&json(&out), "fail");
    assert!(!fails.contains(&"checkpoint-too-many-sessions".to_string()));
    assert!(!fails.contains(&"checkpoint-env-value-leaked".to_string()));
}

#[test]
fn refresh_refusals_keep_every_byte() {
    let p = project("broken");
    let before = read(&p.path().join(CP));
    let (code, _, err) = planseal(
        p.path(),
        &[
            "checkpoint",
            "refresh",
            "--write",
            "--expected-sha256",
            &"a".repeat(64),
        ],
    );
    assert_eq!(code, 1);
    assert!(
        err.starts_with("stale-snapshot: ") && err.contains("hint:"),
        "{err}"
    );
    std::fs::create_dir(p.path().join("docs/PROJECT-CHECKPOINT.md.lock")).expect("lock");
    let (code, _, err) = planseal(p.path(), &["checkpoint", "refresh", "--write"]);
    assert_eq!(code, 1);
    assert!(err.starts_with("lock-present: "), "{err}");
    std::fs::remove_dir(p.path().join("docs/PROJECT-CHECKPOINT.md.lock")).expect("unlock");
    let undated = before.replace("### Sessão 2026-05-04", "### Sessão de ontem");
    std::fs::write(p.path().join(CP), &undated).expect("write");
    let (code, _, err) = planseal(
        p.path(),
        &["checkpoint", "refresh", "--prune-sessions", "--write"],
    );
    assert_eq!(code, 1);
    assert!(
        err.starts_with("session-order-unknown: ") && err.contains("Sessão de ontem"),
        "{err}"
    );
    assert_eq!(read(&p.path().join(CP)), undated);
    assert!(
        !p.path()
            .join("docs/PROJECT-CHECKPOINT.md.journal.ndjson")
            .exists()
    );
}

#[test]
fn a_story_changed_after_the_checkpoint_makes_it_stale() {
    let p = project("legacy-good");
    set_mtime(&p.path().join("docs/stories/epic-1/1.1.story.md"), 3600);
    let (code, out, _) = planseal(p.path(), &["--json", "checkpoint", "status", "--exit-code"]);
    assert_eq!(code, 0);
    let doc = json(&out);
    assert_eq!(ids(&doc, "advisory"), ["checkpoint-stale"]);
    assert!(out.contains("docs/stories/epic-1/1.1.story.md"), "{out}");
}

#[test]
fn history_that_drops_a_field_and_a_rich_table_is_caught() {
    let mut repo = gitrepo::FixtureRepo::new();
    copy_dir(&fixture("legacy-good"), repo.path());
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/reversa/good-in-progress"),
        repo.path(),
    );
    repo.commit("checkpoint and reversa state");
    // A hook rewrites both files: the story table becomes the two-column one, a row goes, a
    // section and a session vanish, and state.json loses a field.
    let cp = read(&repo.path().join(CP));
    let clobbered = cp
        .replace(
            "| Story | Título | Status | Responsável |\n|-------|--------|--------|-------------|\n| 1.1 | Login | Done | @dev |\n| 1.2 | Logout | InProgress | @dev |\n",
            "| Story | Status |\n|-------|--------|\n| 1.2 | InProgress |\n",
        )
        .replace("## Decisões Tomadas\n\n- Sessões em cookie httpOnly: evita token no localStorage.\n\n", "")
        .replace("### Sessão 2026-03-01\n\n**Story 1.1 — Login** (Done):\n- formulário e validação\n- Arquivos: src/routes/login.ts, src/views/login.tsx\n- Testes: 12 novos, 12 total\n\n", "");
    assert_ne!(clobbered, cp);
    repo.write(CP, &clobbered);
    let state = read(&repo.path().join(".reversa/state.json"));
    repo.write(
        ".reversa/state.json",
        &state.replace(",\n  \"forward_folder\": \"_forward\"", ""),
    );
    let hook = repo.commit("hook: refresh checkpoint");

    let (code, out, err) = planseal(
        repo.path(),
        &[
            "--json",
            "checkpoint",
            "diff",
            "--against",
            "HEAD~1",
            "--exit-code",
        ],
    );
    assert_eq!(code, 1, "{err}");
    let doc = json(&out);
    assert_eq!(doc["lost_anything"], true);
    assert_eq!(
        doc["sections"]["lost"],
        serde_json::json!(["Decisões Tomadas"])
    );
    assert_eq!(doc["story_rows"]["lost"], serde_json::json!(["1.1"]));
    assert_eq!(
        doc["story_columns"]["lost"],
        serde_json::json!(["Título", "Responsável"])
    );
    assert_eq!(
        doc["sessions"]["lost"],
        serde_json::json!(["Sessão 2026-03-01"])
    );
    let (code, text, _) = planseal(repo.path(), &["checkpoint", "diff", "--against", "HEAD~1"]);
    assert_eq!(code, 0);
    assert_eq!(
        text,
        "docs/PROJECT-CHECKPOINT.md since HEAD~1:\n  - lost section: Decisões Tomadas\n  - lost story row: 1.1\n  - lost story column: Título\n  - lost story column: Responsável\n  - lost session: Sessão 2026-03-01\n"
    );
    let (code, text, _) = planseal(
        repo.path(),
        &["checkpoint", "diff", "--against", "HEAD", "--exit-code"],
    );
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("no section, story row, column or session lost or gained"));
    let (code, _, err) = planseal(
        repo.path(),
        &["checkpoint", "diff", "--against", "no-such-rev"],
    );
    assert_eq!(code, 2);
    assert!(err.contains("no-such-rev"), "{err}");

    let (code, out, _) = planseal(
        repo.path(),
        &["--json", "reversa", "history", "--exit-code"],
    );
    assert_eq!(code, 1);
    let doc = json(&out);
    assert_eq!(doc["flagged"][0]["field"], "forward_folder");
    assert_eq!(doc["flagged"][0]["commit"], &hook[..7]);
}

#[test]
fn every_subcommand_has_examples_in_its_help() {
    let dir = tempfile::tempdir().expect("tempdir");
    for sub in ["status", "init", "refresh", "diff"] {
        let (code, out, _) = planseal(dir.path(), &["checkpoint", sub, "--help"]);
        assert_eq!(code, 0);
        assert!(out.contains("Examples:"), "{sub}: {out}");
    }
}
