//! The report in a real browser: `planseal demo` writes the report of its plan, and
//! `tests/browser/report_check.py` opens it from file:// in headless Chromium driven by Selenium's
//! WebDriver — one lane per task and the verdict in the DOM, no SEVERE entry in the browser log, a
//! screenshot that is not blank, and the page printed to PDF with one page per plan.
//!
//! Chromium, chromedriver and selenium are installed by scripts/test before the suite runs; a
//! missing one fails this test (it is never skipped).

use super::demo_run::report_page;
use crate::support::fs::copy_dir;
use crate::support::run::{Planseal, hermetic};
use std::path::{Path, PathBuf};

/// The Python interpreter `python3` names here (the test process's own PATH and HOME, so that a
/// version manager's shim resolves), run afterwards in the hermetic environment by its full path.
fn python() -> PathBuf {
    let out = std::process::Command::new("python3")
        .args(["-c", "import sys; print(sys.executable)"])
        .output()
        .expect("python3 runs (scripts/test installs what the browser test needs)");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    PathBuf::from(String::from_utf8_lossy(&out.stdout).trim())
}

fn check_script() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/browser/report_check.py")
}

/// Runs the check script on `page` (its first plan having `tasks` tasks and the verdict
/// CONFORMANT), with a HOME and a temp folder inside `tmp`; returns what it printed, after
/// asserting that it passed.
fn browser_check(page: &Path, tasks: usize, tmp: &Path) -> String {
    let home = tmp.join("home");
    std::fs::create_dir_all(&home).expect("home");
    let check = hermetic(python())
        .arg(check_script())
        .arg(page)
        .args([
            "--tasks",
            &tasks.to_string(),
            "--verdict",
            "CONFORMANT",
            "--out-dir",
        ])
        .arg(tmp.join("browser"))
        .env("HOME", &home)
        .env("TMPDIR", tmp)
        .output()
        .expect("python3 runs");
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&check.stdout),
        String::from_utf8_lossy(&check.stderr)
    );
    assert_eq!(check.status.code(), Some(0), "{said}");
    said
}

#[test]
fn the_demo_report_reads_prints_and_draws_in_chromium() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let demo = Planseal::new()
        .arg("demo")
        .env("TMPDIR", tmp.path())
        .no_fixed_clock()
        .output();
    assert_eq!(demo.code, 0, "{}", demo.all());
    let page = report_page(tmp.path(), &demo.stdout);
    let said = browser_check(&page, 3, tmp.path());
    for line in [
        "ok: lanes: 3 lane(s), 3 task(s)",
        "ok: verdict: 'CONFORMANT'",
        "ok: browser log: 0 SEVERE",
        "ok: screenshot: ",
        "ok: pdf: 1 page(s) (page tree /Count 1) for 1 plan(s)",
    ] {
        assert!(said.contains(line), "{line} in:\n{said}");
    }
    assert!(tmp.path().join("browser/report.png").is_file());
    assert!(tmp.path().join("browser/report.pdf").is_file());
}

/// Several plans print on as many pages: the examples (two plans) and a checkpoint file.
#[test]
fn a_page_of_several_plans_prints_one_page_per_plan() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let root = tmp.path().join("ws");
    let project = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    copy_dir(&project.join("fixtures/examples"), &root);
    copy_dir(
        &project.join("fixtures/checkpoint/legacy-good/docs"),
        &root.join("docs"),
    );
    let run = Planseal::new().cwd(&root).arg("report").output();
    assert_eq!(run.code, 0, "{}", run.all());
    // the first plan, PLAN_cli_color_flag, has three tasks
    let said = browser_check(&root.join("planseal-report.html"), 3, tmp.path());
    assert!(
        said.contains("ok: pdf: 3 page(s) (page tree /Count 3) for 3 plan(s)"),
        "{said}"
    );
}
