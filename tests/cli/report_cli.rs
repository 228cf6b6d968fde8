//! `planseal report`: the page of the fixture plans byte for byte (snapshots under `snapshots/`),
//! the same bytes on every run, hostile titles shown as text, `.env` values never written,
//! `--format svg|markdown`, `--json`, `--dry-run`, `--open`, the header of a plan with a marker or
//! a dead writer's lock, a plan in git with its commits and a failed gate, and a 5,000-task plan
//! drawn in grouped lanes within a few MB.

use super::snapshots::{Filters, check};
use crate::support::finalize::Workspace;
use crate::support::fs::{copy_dir, tree};
use crate::support::plans;
use crate::support::run::{Planseal, Run, hermetic};
use std::path::{Path, PathBuf};

fn project() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A copy of a fixture folder in a temp folder of its own (no git around it).
fn fixture(rel: &str) -> tempfile::TempDir {
    let tmp = tempfile::tempdir().expect("temp dir");
    copy_dir(&project().join(rel), tmp.path());
    tmp
}

fn report(dir: &Path, args: &[&str]) -> Run {
    Planseal::new().cwd(dir).arg("report").args(args).output()
}

fn read(path: impl AsRef<Path>) -> String {
    std::fs::read_to_string(path.as_ref())
        .unwrap_or_else(|e| panic!("{}: {e}", path.as_ref().display()))
}

/// Every file's modification time set to one instant, so that no check that compares them (a
/// checkpoint older than its stories) depends on the order of the copy.
fn pin_mtimes(dir: &Path) {
    let at = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_791_190_800);
    for (rel, bytes) in tree(dir) {
        if bytes.is_some() {
            let file = std::fs::File::options()
                .write(true)
                .open(dir.join(rel))
                .expect("open");
            file.set_modified(at).expect("set mtime");
        }
    }
}

/// The examples plus a GSD, a Reversa and a checkpoint file: every format in one workspace.
fn every_format() -> tempfile::TempDir {
    let tmp = fixture("fixtures/examples");
    let root = tmp.path();
    std::fs::create_dir_all(root.join(".planning")).expect("mkdir");
    std::fs::copy(
        project().join("fixtures/gsd/check/clean.md"),
        root.join(".planning/STATE.md"),
    )
    .expect("copy");
    copy_dir(&project().join("fixtures/reversa/good-in-progress"), root);
    copy_dir(
        &project().join("fixtures/checkpoint/legacy-good/docs"),
        &root.join("docs"),
    );
    pin_mtimes(root);
    tmp
}

#[test]
fn the_page_of_the_examples_is_byte_stable() {
    let tmp = fixture("fixtures/examples");
    let run = report(tmp.path(), &[]);
    assert_eq!(run.code, 0, "{}", run.all());
    assert_eq!(
        run.stdout,
        format!(
            "wrote planseal-report.html ({} bytes)\n2 plan(s), verdict CONFORMANT:\n  PLAN_cli_color_flag — CONFORMANT\n  PLAN_csv_export_done — CONFORMANT\n",
            std::fs::metadata(tmp.path().join("planseal-report.html"))
                .expect("written")
                .len()
        )
    );
    let page = read(tmp.path().join("planseal-report.html"));
    check(
        "report_examples_html",
        "planseal report (fixtures/examples)",
        &page,
        Filters::default().root(tmp.path()),
    );
    // the same plans elsewhere give the same bytes
    let again = fixture("fixtures/examples");
    assert_eq!(report(again.path(), &[]).code, 0);
    assert_eq!(read(again.path().join("planseal-report.html")), page);
}

#[test]
fn every_format_in_one_page() {
    let tmp = every_format();
    let run = report(tmp.path(), &["--out", "all.html"]);
    assert_eq!(run.code, 0, "{}", run.all());
    let page = read(tmp.path().join("all.html"));
    for part in [
        "data-system=\"dwp\"",
        "data-system=\"gsd\"",
        "data-system=\"reversa\"",
        "data-system=\"checkpoint\"",
        "class=\"statusline\"",
        "class=\"meter\"",
        "class=\"phases\"",
        "Never-remove history",
        "class=\"session\"",
        "class=\"stories\"",
    ] {
        assert!(page.contains(part), "{part}");
    }
    check(
        "report_every_format_html",
        "planseal report --out all.html (examples, GSD, Reversa, checkpoint)",
        &page,
        Filters::default().root(tmp.path()),
    );
}

#[test]
fn a_published_plan_in_git_shows_its_commits_and_the_gate_that_failed_first() {
    let case = plans::clean();
    let run = report(&case.root, &["--out", "b.html"]);
    assert_eq!(run.code, 0, "{}", run.all());
    let page = read(case.root.join("b.html"));
    assert_eq!(page.matches("<g class=\"lane ").count(), 4);
    assert_eq!(page.matches("<g class=\"commit\" data-task=").count(), 4);
    // task 2's first suite run failed: a square with a cross, the word, the command on hover
    let failed = page
        .find("<g class=\"gate gate-fail\" data-task=\"2\"><title>gate failed (exit 1)")
        .expect("the failed gate run");
    assert!(page[failed..].starts_with(
        "<g class=\"gate gate-fail\" data-task=\"2\"><title>gate failed (exit 1) — task 2 — 2026-10-12 13:44:01 UTC: python3 -m unittest discover -s tests -t .</title><rect"
    ));
    assert!(page.contains(">fail</text>"));
    assert!(page.contains("sealed — every covered file matches"));
    check(
        "report_published_in_git_html",
        "planseal report --out b.html (B, published, in git)",
        &page,
        Filters::default().root(&case.root),
    );
}

#[test]
fn svg_and_markdown_formats() {
    let case = plans::clean();
    let run = report(&case.root, &["--format", "svg"]);
    assert_eq!(run.code, 0, "{}", run.all());
    let svg = read(case.root.join("planseal-timeline.svg"));
    assert!(svg.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg class=\"timeline\" xmlns=\"http://www.w3.org/2000/svg\""));
    assert!(
        svg.contains("<style>"),
        "a standalone file carries its style"
    );
    check(
        "report_published_in_git_svg",
        "planseal report --format svg (B, published, in git)",
        &svg,
        Filters::default().root(&case.root),
    );
    let run = report(
        &case.root,
        &["--format", "markdown", "--out", "ci/comment.md"],
    );
    assert_eq!(run.code, 3, "no ci/ folder: {}", run.all());
    std::fs::create_dir(case.root.join("ci")).expect("mkdir");
    let run = report(
        &case.root,
        &["--format", "markdown", "--out", "ci/comment.md"],
    );
    assert_eq!(run.code, 0, "{}", run.all());
    assert!(
        run.stdout.starts_with("wrote ci/comment.md ("),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("\nwrote ci/comment.svg ("),
        "{}",
        run.stdout
    );
    assert_eq!(read(case.root.join("ci/comment.svg")), svg);
    check(
        "report_published_in_git_markdown",
        "planseal report --format markdown --out ci/comment.md (B, published, in git)",
        &read(case.root.join("ci/comment.md")),
        Filters::default().root(&case.root),
    );
}

/// What a page must never hold raw: markup a title could inject, and control characters.
fn assert_inert(text: &str, what: &str) {
    for raw in ["<script", "<img", "<svg onload", "onerror=\"", "onload=\""] {
        assert!(!text.contains(raw), "{what} holds {raw:?}");
    }
    assert!(
        !text
            .chars()
            .any(|c| c.is_control() && c != '\n' && c != '\t' || c == '\u{202e}'),
        "{what} holds a control character"
    );
}

#[test]
fn hostile_titles_are_shown_as_text() {
    let tmp = fixture("fixtures/report/hostile");
    let run = report(tmp.path(), &[]);
    assert_eq!(run.code, 0, "{}", run.all());
    let page = read(tmp.path().join("planseal-report.html"));
    assert_inert(&page, "the page");
    for shown in [
        "&lt;script&gt;alert(&quot;t1&quot;)&lt;/script&gt;",
        "&quot;&gt;&lt;img src=x onerror=alert(2)&gt;",
        "&quot;&gt;&lt;svg onload=alert(3)&gt;",
        "&lt;/title&gt;&lt;script&gt;alert(&quot;manifest&quot;)&lt;/script&gt;",
        "Final Review \\u{1b}[31mred\\u{1b}[0m \\u{7}bell \\u{202e}right-to-left",
    ] {
        assert!(page.contains(shown), "{shown} is not shown as text");
    }
    // the page's own markup is intact: one section, one timeline, three lanes
    assert_eq!(page.matches("<section class=\"plan ").count(), 1);
    assert_eq!(page.matches("<g class=\"lane ").count(), 3);
    check(
        "report_hostile_html",
        "planseal report (fixtures/report/hostile)",
        &page,
        Filters::default().root(tmp.path()),
    );
    for (format, file) in [
        ("svg", "planseal-timeline.svg"),
        ("markdown", "planseal-report.md"),
    ] {
        let run = report(tmp.path(), &["--format", format]);
        assert_eq!(run.code, 0, "{}", run.all());
        assert_inert(&read(tmp.path().join(file)), file);
    }
}

#[test]
fn env_values_planted_in_plan_files_never_appear() {
    const PLANTED: &str = "tok-planted-4f2c9e1a";
    let tmp = fixture("fixtures/report/hostile");
    let plan = tmp.path().join(".dwp/plans/PLAN_hostile_titles");
    assert!(read(plan.join("state.json")).contains(PLANTED));
    assert!(read(plan.join("manifest.json")).contains(PLANTED));
    let mut printed = String::new();
    for args in [
        &["--json"][..],
        &[],
        &["--format", "svg"],
        &["--format", "markdown"],
        &["--dry-run", "--out", "other.html"],
    ] {
        let run = Planseal::new()
            .cwd(tmp.path())
            .args(args.iter().filter(|a| **a == "--json"))
            .arg("report")
            .args(args.iter().filter(|a| **a != "--json"))
            .output();
        assert_eq!(run.code, 0, "{args:?}: {}", run.all());
        printed.push_str(&run.all());
    }
    assert!(!printed.contains(PLANTED), "printed: {printed}");
    for file in [
        "planseal-report.html",
        "planseal-timeline.svg",
        "planseal-report.md",
        "planseal-report.svg",
    ] {
        let text = read(tmp.path().join(file));
        assert!(!text.contains(PLANTED), "{file}");
    }
    let page = read(tmp.path().join("planseal-report.html"));
    assert!(page.contains("[redacted .env value]"));
}

#[test]
fn json_names_the_files_written_and_the_plans_covered() {
    let tmp = every_format();
    let run = Planseal::new()
        .cwd(tmp.path())
        .args(["--json", "report", "--format", "markdown"])
        .output();
    assert_eq!(run.code, 0, "{}", run.all());
    let doc = run.json();
    assert_eq!(doc["result"], "written");
    assert_eq!(doc["format"], "markdown");
    assert_eq!(doc["verdict"], "CONFORMANT");
    let files: Vec<&str> = doc["files"]
        .as_array()
        .expect("files")
        .iter()
        .map(|f| f["path"].as_str().expect("path"))
        .collect();
    assert_eq!(files, ["planseal-report.md", "planseal-report.svg"]);
    for f in doc["files"].as_array().expect("files") {
        let bytes =
            std::fs::read(tmp.path().join(f["path"].as_str().expect("path"))).expect("file");
        assert_eq!(f["bytes"], bytes.len());
        assert_eq!(f["sha256"], crate::support::fs::sha256(&bytes));
    }
    let plans: Vec<(String, String)> = doc["plans"]
        .as_array()
        .expect("plans")
        .iter()
        .map(|p| {
            (
                p["system"].as_str().expect("system").to_string(),
                p["name"].as_str().expect("name").to_string(),
            )
        })
        .collect();
    let expected = [
        ("dwp", "PLAN_cli_color_flag"),
        ("dwp", "PLAN_csv_export_done"),
        ("gsd", ".planning/STATE.md"),
        ("reversa", ".reversa/state.json"),
        ("checkpoint", "docs/PROJECT-CHECKPOINT.md"),
    ]
    .map(|(a, b)| (a.to_string(), b.to_string()));
    assert_eq!(plans, expected);
}

#[test]
fn dry_run_writes_nothing_and_shows_the_change_as_a_diff() {
    let tmp = fixture("fixtures/examples");
    let before = tree(tmp.path());
    let run = report(tmp.path(), &["--dry-run"]);
    assert_eq!(run.code, 0, "{}", run.all());
    assert!(run.stdout.starts_with("would write planseal-report.html ("));
    assert!(run.stdout.contains("+++ b/planseal-report.html\n"));
    assert!(run.stdout.contains("\n+<!DOCTYPE html>\n"));
    assert_eq!(tree(tmp.path()), before, "nothing written");
    assert_eq!(report(tmp.path(), &[]).code, 0);
    let written = tree(tmp.path());
    let run = report(tmp.path(), &["--dry-run"]);
    assert!(run.stdout.contains("\n  (no change)\n"), "{}", run.stdout);
    assert_eq!(tree(tmp.path()), written);
}

#[test]
fn open_hands_the_page_to_the_platform_opener() {
    let tmp = fixture("fixtures/examples");
    let bin = tempfile::tempdir().expect("temp dir");
    let opened = bin.path().join("opened");
    let opener = bin.path().join("xdg-open");
    std::fs::write(
        &opener,
        format!(
            "#!/bin/sh\nprintf '%s\\n' \"$@\" > '{}'\n",
            opened.display()
        ),
    )
    .expect("opener");
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&opener, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let path = format!(
        "{}:{}",
        bin.path().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let run = Planseal::new()
        .cwd(tmp.path())
        .env("PATH", path)
        .args(["report", "--open"])
        .output();
    assert_eq!(run.code, 0, "{}", run.all());
    // the opener runs on its own; give it a moment
    for _ in 0..200 {
        if opened.exists() && !read(&opened).is_empty() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(25));
    }
    assert_eq!(
        read(&opened),
        format!("{}\n", tmp.path().join("planseal-report.html").display())
    );
    // no opener at all: the page stands, stderr says so
    let run = Planseal::new()
        .cwd(tmp.path())
        .env("PATH", "")
        .args(["report", "--open", "--out", "again.html"])
        .output();
    assert_eq!(run.code, 0, "{}", run.all());
    assert!(tmp.path().join("again.html").is_file());
    assert!(
        run.stderr.contains("could not start xdg-open"),
        "{}",
        run.stderr
    );
}

#[test]
fn nothing_found_is_a_usage_error_and_nothing_is_written() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let run = report(tmp.path(), &[]);
    assert_eq!(run.code, 2, "{}", run.all());
    assert!(
        run.stderr.contains("nothing to verify under"),
        "{}",
        run.stderr
    );
    assert!(tree(tmp.path()).is_empty());
    let examples = fixture("fixtures/examples");
    std::fs::create_dir(examples.path().join("pages")).expect("mkdir");
    let run = report(examples.path(), &["--out", "pages"]);
    assert_eq!(run.code, 2, "{}", run.all());
    assert!(
        run.stderr.contains("--out pages: a folder, not a file"),
        "{}",
        run.stderr
    );
}

#[test]
fn a_marker_and_a_dead_writers_lock_are_named_in_the_header() {
    let ws = Workspace::from_folder(
        "A_lite_v2",
        plans::PLAN_A,
        &format!(
            "interrupted/before_publish/plan-after-interruption/{}",
            plans::PLAN_A
        ),
    );
    crate::support::chain::dead_writers_lock(&ws.plan_dir());
    let run = report(ws.root(), &[]);
    assert_eq!(run.code, 0, "{}", run.all());
    let page = read(ws.root().join("planseal-report.html"));
    assert!(page.contains(".finalizing.json is there: a publication was interrupted"));
    assert!(page.contains("state.json.lock — "), "the lock is named");
    assert!(page.contains("needs action: a lock whose owner is dead"));
    assert!(page.contains("data-verdict=\"NOT CONFORMANT\""));
}

#[test]
fn a_5000_task_plan_is_drawn_in_grouped_lanes_within_a_few_megabytes() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let out = hermetic("bash")
        .arg(project().join("scripts/gen-plan.sh"))
        .arg("5000")
        .arg(tmp.path())
        .output()
        .expect("bash runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let run = report(tmp.path(), &[]);
    assert_eq!(run.code, 0, "{}", run.all());
    let page = read(tmp.path().join("planseal-report.html"));
    assert!(page.len() < 4 << 20, "{} bytes", page.len());
    assert!(page.contains("data-lanes=\"200\" data-tasks-per-lane=\"25\""));
    assert_eq!(page.matches("<g class=\"lane ").count(), 200);
    assert!(page.contains("5000 tasks: each lane holds 25 consecutive tasks."));
    assert!(page.contains("<g class=\"lane lane-completed\" data-task=\"4976-5000\">"));
}

#[test]
fn amendment_records_of_the_task_logs_are_marked_on_their_lane() {
    // task 1's log holds two amendment records (the second dated before the first)
    let tmp = super::snapshots::broken_variant("amendment-backdated");
    let run = report(tmp.path(), &[]);
    assert_eq!(run.code, 0, "{}", run.all());
    let page = read(tmp.path().join("planseal-report.html"));
    let marks: Vec<&str> = page
        .match_indices("<g class=\"task-mark mark-amendment\" data-task=\"")
        .map(|(at, m)| &page[at + m.len()..at + m.len() + 1])
        .collect();
    assert_eq!(marks, ["1", "1"], "two amendment marks on task 1's lane");
    assert!(page.contains("<title>amendment — task 1 — "));
    assert!(page.contains("amendment-backdated"));
}
