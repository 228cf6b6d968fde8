//! Real `git merge` of the other plan state files with the driver registered: GSD's STATE.md
//! (the stale-worktree milestone merge of gsd-build/get-shit-done#1756 is a conflict; parallel
//! decisions and plan counters merge clean), Reversa's state.json (lists grown on both sides),
//! PROJECT-CHECKPOINT.md (sessions added on both sides) and a tracked `*.journal.ndjson`. Each
//! checks the merged bytes and what `planseal verify` says.

use super::repo::*;
use crate::support::fs::copy_dir;
use std::path::Path;

fn fixtures() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures"))
}

const GSD: &str = ".planning/STATE.md";

/// A repository holding GSD's `clean` fixture as `.planning/STATE.md` (milestone v2.0, phase 4
/// of 8), the driver registered.
fn gsd_repo() -> Repo {
    let mut r = Repo::new();
    r.write(
        GSD,
        &std::fs::read_to_string(fixtures().join("gsd/check/clean.md")).unwrap(),
    );
    r.register_driver();
    r.commit("gsd: state");
    r
}

fn edit(r: &Repo, rel: &str, pairs: &[(&str, &str)]) {
    let mut text = r.read(rel);
    for (from, to) in pairs {
        assert!(text.contains(from), "{rel} lacks {from:?}");
        text = text.replacen(from, to, 1);
    }
    r.write(rel, &text);
}

#[test]
fn a_milestone_switched_on_main_against_old_phase_work_is_a_conflict_never_a_resurrection() {
    let mut r = gsd_repo();
    // The worktree branch finishes phase 4 of milestone v2.0 …
    r.git(&["checkout", "-q", "-b", "worktree-phase-4"]);
    edit(
        &r,
        GSD,
        &[
            ("current_phase: \"4\"", "current_phase: \"5\""),
            ("active_phase: \"4\"", "active_phase: \"5\""),
            (
                "current_phase_name: Observability",
                "current_phase_name: Hardening",
            ),
            ("completed_phases: 3", "completed_phases: 4"),
            ("completed_plans: 9", "completed_plans: 11"),
            ("percent: 38", "percent: 50"),
            ("Phase: 4 of 8 (Observability)", "Phase: 5 of 8 (Hardening)"),
            ("Status: Executing Phase 4", "Status: Executing Phase 5"),
        ],
    );
    r.commit("phase 4 done");
    // … while main moved on to milestone v3.0.
    r.git(&["checkout", "-q", "main"]);
    edit(
        &r,
        GSD,
        &[
            ("milestone: v2.0", "milestone: v3.0"),
            (
                "milestone_name: Code Quality",
                "milestone_name: Performance",
            ),
            ("current_phase: \"4\"", "current_phase: \"1\""),
            ("active_phase: \"4\"", "active_phase: \"1\""),
            (
                "current_phase_name: Observability",
                "current_phase_name: Baseline",
            ),
            ("Phase: 4 of 8 (Observability)", "Phase: 1 of 8 (Baseline)"),
            ("Status: Executing Phase 4", "Status: Executing Phase 1"),
        ],
    );
    r.commit("milestone v3.0");
    let (ours, theirs) = (
        r.read(GSD),
        r.git(&["show", &format!("worktree-phase-4:{GSD}")]),
    );
    let out = r.try_git(&["merge", "--no-edit", "worktree-phase-4"]);
    assert!(!out.status.success(), "{}", text(&out));
    assert_eq!(r.unmerged(), [GSD]);
    let note = "planseal: the milestone changed on HEAD (v2.0 Code Quality → v3.0 Performance) while worktree-phase-4 recorded phase work of milestone v2.0 Code Quality (current_phase 4 → 5); merging would bring back the old milestone's state or lose that work: decide which milestone STATE.md describes, and carry the phase work over by hand\n";
    assert_eq!(
        r.read(GSD),
        format!("{note}<<<<<<< HEAD\n{ours}=======\n{theirs}>>>>>>> worktree-phase-4\n")
    );
    let v = r.planseal("2026-10-05T09:00:00+00:00", &["verify"]);
    assert_eq!(v.code, 1, "{}", v.stdout);
    assert!(
        v.stdout.contains("STATE.md has no frontmatter"),
        "{}",
        v.stdout
    );
}

#[test]
fn parallel_decisions_and_plan_counters_merge_clean_with_the_journal_as_a_union() {
    let mut r = gsd_repo();
    let journal = ".planning/STATE.md.journal.ndjson";
    let line = |t: &str, op: &str| format!("{{\"time\":\"{t}\",\"operation\":\"{op}\"}}\n");
    r.write(journal, &line("2026-06-01T12:00:00Z", "gsd-sync"));
    r.commit("journal");
    r.git(&["checkout", "-q", "-b", "topic"]);
    edit(
        &r,
        GSD,
        &[
            (
                "- Keep the statusline under 2 ms\n",
                "- Keep the statusline under 2 ms\n- Traces go to OTLP\n",
            ),
            ("completed_plans: 9", "completed_plans: 10"),
            ("percent: 38", "percent: 50"),
        ],
    );
    r.write(
        journal,
        &(line("2026-06-01T12:00:00Z", "gsd-sync") + &line("2026-06-02T09:00:00Z", "topic")),
    );
    r.commit("decision and a plan");
    r.git(&["checkout", "-q", "main"]);
    edit(
        &r,
        GSD,
        &[
            (
                "- Keep the statusline under 2 ms\n",
                "- Keep the statusline under 2 ms\n- No new dependencies\n",
            ),
            ("None yet.", "- Flaky CI runner"),
        ],
    );
    r.write(
        journal,
        &(line("2026-06-01T12:00:00Z", "gsd-sync") + &line("2026-06-02T08:00:00Z", "main")),
    );
    r.commit("decision and a blocker");
    let base = std::fs::read_to_string(fixtures().join("gsd/check/clean.md")).unwrap();
    let out = r.try_git(&["merge", "--no-edit", "topic"]);
    assert!(out.status.success(), "{}", text(&out));
    // Both decisions, main's blocker, topic's plan; the percent recomputed from the counters as
    // GSD computes it (min(10/20, 3/8) = 37.5% ⇒ 38).
    let expected = base
        .replace(
            "- Keep the statusline under 2 ms\n",
            "- Keep the statusline under 2 ms\n- No new dependencies\n- Traces go to OTLP\n",
        )
        .replace("None yet.", "- Flaky CI runner")
        .replace("completed_plans: 9", "completed_plans: 10");
    assert_eq!(r.read(GSD), expected);
    assert_eq!(
        r.read(journal),
        line("2026-06-01T12:00:00Z", "gsd-sync")
            + &line("2026-06-02T08:00:00Z", "main")
            + &line("2026-06-02T09:00:00Z", "topic")
    );
    let v = r.planseal("2026-06-03T09:00:00+00:00", &["verify"]);
    assert_eq!(v.code, 0, "{}", v.stdout);
}

/// A repository holding Reversa's `good-in-progress` fixture, the driver registered.
fn reversa_repo() -> Repo {
    let mut r = Repo::new();
    copy_dir(&fixtures().join("reversa/good-in-progress"), &r.root);
    r.register_driver();
    r.commit("reversa: state");
    r
}

#[test]
fn reversa_lists_grown_on_both_sides_merge_as_unions() {
    let mut r = reversa_repo();
    let state = ".reversa/state.json";
    r.git(&["checkout", "-q", "-b", "topic"]);
    r.write("_reversa_sdd/glossary.md", "# Glossary\n");
    edit(
        &r,
        state,
        &[
            (
                "\".reversa/state.json\"\n  ]",
                "\".reversa/state.json\",\n    \"_reversa_sdd/glossary.md\"\n  ]",
            ),
            (
                "\"reversa-archaeologist\"]",
                "\"reversa-archaeologist\", \"reversa-detective\"]",
            ),
            ("{\"modules_done\": 3,", "{\"modules_done\": 5,"),
        ],
    );
    r.commit("detective");
    r.git(&["checkout", "-q", "main"]);
    r.write("_reversa_sdd/architecture.md", "# Architecture\n");
    edit(
        &r,
        state,
        &[
            (
                "\".reversa/state.json\"\n  ]",
                "\".reversa/state.json\",\n    \"_reversa_sdd/architecture.md\"\n  ]",
            ),
            (
                "\"engines\": [\"claude-code\"]",
                "\"engines\": [\"claude-code\", \"codex\"]",
            ),
        ],
    );
    r.commit("architecture");
    let base =
        std::fs::read_to_string(fixtures().join("reversa/good-in-progress/.reversa/state.json"))
            .unwrap();
    let out = r.try_git(&["merge", "--no-edit", "topic"]);
    assert!(out.status.success(), "{}", text(&out));
    let expected = base
        .replace(
            "\".reversa/state.json\"\n  ]",
            "\".reversa/state.json\",\n    \"_reversa_sdd/architecture.md\",\n    \"_reversa_sdd/glossary.md\"\n  ]",
        )
        .replace("\"reversa-archaeologist\"]", "\"reversa-archaeologist\", \"reversa-detective\"]")
        .replace("\"engines\": [\"claude-code\"]", "\"engines\": [\"claude-code\", \"codex\"]")
        .replace("{\"modules_done\": 3,", "{\"modules_done\": 5,");
    assert_eq!(r.read(state), expected);
    let v = r.planseal("2026-10-05T09:00:00+00:00", &["verify"]);
    assert_eq!(v.code, 0, "{}", v.stdout);
}

#[test]
fn reversa_scalars_set_differently_are_a_conflict() {
    let mut r = reversa_repo();
    let state = ".reversa/state.json";
    r.git(&["checkout", "-q", "-b", "topic"]);
    edit(
        &r,
        state,
        &[(
            "\"doc_level\": \"completo\"",
            "\"doc_level\": \"detalhado\"",
        )],
    );
    r.commit("detalhado");
    r.git(&["checkout", "-q", "main"]);
    edit(
        &r,
        state,
        &[(
            "\"doc_level\": \"completo\"",
            "\"doc_level\": \"essencial\"",
        )],
    );
    r.commit("essencial");
    let out = r.try_git(&["merge", "--no-edit", "topic"]);
    assert!(!out.status.success());
    assert!(r.read(state).contains(
        "planseal: `doc_level` was changed differently on both sides\n<<<<<<< HEAD\n  \"doc_level\": \"essencial\",\n=======\n  \"doc_level\": \"detalhado\",\n>>>>>>> topic\n"
    ), "{}", r.read(state));
    assert_eq!(r.planseal("2026-10-05T09:00:00+00:00", &["verify"]).code, 1);
}

#[test]
fn checkpoint_sessions_added_on_both_sides_are_kept_newest_first() {
    let mut r = Repo::new();
    copy_dir(&fixtures().join("checkpoint/legacy-good"), &r.root);
    r.register_driver();
    r.commit("checkpoint");
    let cp = "docs/PROJECT-CHECKPOINT.md";
    let session = |date: &str, story: &str| {
        format!(
            "### Sessão {date}\n\n**Story {story}** (InProgress):\n- trabalho de {date}\n- Arquivos: src/x.ts\n- Testes: 1 novo\n\n"
        )
    };
    r.git(&["checkout", "-q", "-b", "topic"]);
    edit(
        &r,
        cp,
        &[
            (
                "> Ultima atualizacao: 2026-03-02",
                "> Ultima atualizacao: 2026-03-04",
            ),
            (
                "## Último Trabalho Realizado\n\n",
                &format!(
                    "## Último Trabalho Realizado\n\n{}",
                    session("2026-03-04", "1.2 — Logout")
                ),
            ),
            (
                "- [x] rota de logout\n",
                "- [x] rota de logout\n- [ ] revisar cookies\n",
            ),
        ],
    );
    r.commit("session 4");
    r.git(&["checkout", "-q", "main"]);
    edit(
        &r,
        cp,
        &[
            (
                "> Ultima atualizacao: 2026-03-02",
                "> Ultima atualizacao: 2026-03-03",
            ),
            (
                "## Último Trabalho Realizado\n\n",
                &format!(
                    "## Último Trabalho Realizado\n\n{}",
                    session("2026-03-03", "1.2 — Logout")
                ),
            ),
            (
                "- Sessões em cookie httpOnly: evita token no localStorage.\n",
                "- Sessões em cookie httpOnly: evita token no localStorage.\n- Logout invalida no servidor.\n",
            ),
        ],
    );
    r.commit("session 3");
    let log = r.git(&["log", "-5", "--format=- `%h %s`"]);
    let base = std::fs::read_to_string(
        fixtures().join("checkpoint/legacy-good/docs/PROJECT-CHECKPOINT.md"),
    )
    .unwrap();
    let out = r.try_git(&["merge", "--no-edit", "topic"]);
    assert!(out.status.success(), "{}", text(&out));
    // The union of the sessions, the 3 newest kept; the later date line; both sides' other
    // changes; `## Git Recente` regenerated from the repository as `checkpoint refresh` writes it.
    let old_git = "## Git Recente\n- `0a1b2c3 feat: logout route`\n- `4d5e6f7 feat: login form`\n\nBranch: `feat/logout`\nArquivos modificados: 0\n";
    let expected = base
        .replace("> Ultima atualizacao: 2026-03-02", "> Ultima atualizacao: 2026-03-04")
        .replace(
            "## Último Trabalho Realizado\n\n",
            &format!("## Último Trabalho Realizado\n\n{}{}", session("2026-03-04", "1.2 — Logout"), session("2026-03-03", "1.2 — Logout")),
        )
        .replace(
            "\n\n### Sessão 2026-03-01\n\n**Story 1.1 — Login** (Done):\n- formulário e validação\n- Arquivos: src/routes/login.ts, src/views/login.tsx\n- Testes: 12 novos, 12 total\n",
            "\n",
        )
        .replace("- [x] rota de logout\n", "- [x] rota de logout\n- [ ] revisar cookies\n")
        .replace(
            "- Sessões em cookie httpOnly: evita token no localStorage.\n",
            "- Sessões em cookie httpOnly: evita token no localStorage.\n- Logout invalida no servidor.\n",
        )
        .replace(old_git, &format!("## Git Recente\n{log}\nBranch: `main`\nArquivos modificados: 0\n"));
    assert_eq!(r.read(cp), expected);
    let v = r.planseal("2026-03-05T09:00:00+00:00", &["verify"]);
    assert_eq!(v.code, 0, "{}", v.stdout);
}
