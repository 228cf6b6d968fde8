//! `planseal refine --add-task`: a task inserted before the Final Review, which is renumbered
//! wherever the plan's structure names it (task file, heading, README index line and link,
//! inline record, state.json). Every other byte is kept; the manifest is never touched.

use crate::support::reshape::{JOURNAL, Scratch, changed, text};
use crate::support::{stderr, stdout};
use serde_json::json;

const TITLE: &str = "Load test the retries";

fn add(s: &Scratch, extra: &[&str]) -> crate::support::run::Run {
    let mut args = vec![
        "refine",
        s.rel,
        "--add-task",
        "--title",
        TITLE,
        "--goal",
        "Measure delivery under 5% packet loss.",
        "--acceptance",
        "no event is lost",
        "--acceptance",
        "p95 delivery under 2 s",
        "--validation",
        "python3 -m unittest tests.test_load",
    ];
    args.extend_from_slice(extra);
    s.run(&args)
}

const NEW_FULL_TASK: &str = "# Task 4: Load test the retries

## 1. Context

TODO: what the task starts from

## 2. Read Before Starting

TODO: the files and earlier task outputs to read first

## 3. Goal

Measure delivery under 5% packet loss.

## 4. Touched Surface

TODO: the files and consumers it changes

## 5. Instructions

TODO: the steps, in order

## 6. Acceptance Criteria

- [ ] no event is lost
- [ ] p95 delivery under 2 s

## 7. Outputs

TODO: the files or artifacts it produces

## 8. Validation

```bash
python3 -m unittest tests.test_load
```

## 9. Execution Checklist

- [ ] Acceptance criteria met
- [ ] Validation run and recorded under `analysis_results/gates/`
- [ ] Commit created

## 10. Completion & Log

Status: pending
";

#[test]
fn add_task_to_a_full_plan_renumbers_the_final_review_everywhere() {
    let s = Scratch::full();
    let before = s.tree();
    let out = add(&s, &["--reason", "operations asked for it"]);
    assert_eq!(out.code, 0, "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        "PLAN_webhook_retry_backoff: task 4 (Load test the retries) added before the Final Review; the Final Review is now task 5\n\
wrote 5.task_final_review.md, 4.task_load_test_the_retries.md, PROGRESS.md, README.md, state.json; removed 4.task_final_review.md\n\
fill in before the task starts: Context, Touched Surface (written as `TODO:`)\n"
    );
    let after = s.tree();
    assert_eq!(
        changed(&before, &after),
        [
            "4.task_final_review.md",
            "4.task_load_test_the_retries.md",
            "5.task_final_review.md",
            "PROGRESS.md",
            "README.md",
            JOURNAL,
            "state.json"
        ]
    );
    assert!(!after.contains_key("4.task_final_review.md"));
    // The Final Review moved whole; only its heading says 5.
    assert_eq!(
        text(&after, "5.task_final_review.md"),
        text(&before, "4.task_final_review.md")
            .replace("# Task 4: Final Review", "# Task 5: Final Review")
    );
    // The new task file numbers its sections as the plan's other task files do.
    assert_eq!(
        text(&after, "4.task_load_test_the_retries.md"),
        NEW_FULL_TASK
    );
    assert_eq!(
        text(&after, "README.md"),
        text(&before, "README.md")
            .replace(
                "- [ ] Task 4: Final Review — [4.task_final_review.md](./4.task_final_review.md)\n",
                "- [ ] Task 4: Load test the retries — [4.task_load_test_the_retries.md](./4.task_load_test_the_retries.md)\n\
- [ ] Task 5: Final Review — [5.task_final_review.md](./5.task_final_review.md)\n"
            )
            .replace("Plan Status: 0/4 completed", "Plan Status: 0/5 completed")
    );
    assert_eq!(
        text(&after, "PROGRESS.md"),
        format!(
            "{}\n## Refinement — 2026-10-05\n\n- Task 4 (Load test the retries) added to scope before the Final Review, which is now Task 5 (refine --add-task)\n- Reason: operations asked for it\n",
            text(&before, "PROGRESS.md")
        )
    );
    let mut expected: serde_json::Value =
        serde_json::from_str(&text(&before, "state.json")).unwrap();
    expected["updated_at"] = json!("2026-10-05T09:00:00+00:00");
    expected["task_count"] = json!(5);
    let tasks = expected["tasks"].as_array_mut().unwrap();
    tasks[3]["id"] = json!(5);
    tasks[3]["locator"]["value"] = json!("5.task_final_review.md");
    tasks.insert(
        3,
        json!({"id": 4, "locator": {"kind": "file", "value": "4.task_load_test_the_retries.md"}, "title": TITLE, "status": "pending", "gates": []}),
    );
    // Compared as text: the key order is part of what is kept.
    assert_eq!(
        text(&after, "state.json"),
        format!("{}\n", serde_json::to_string_pretty(&expected).unwrap())
    );
    assert_eq!(after.get("manifest.json"), before.get("manifest.json"));
    let line = s.journal().pop().unwrap();
    assert_eq!(line["operation"], "refine");
    assert_eq!(line["action"], "add-task");
    assert_eq!(line["renumbered"], json!({"from": 4, "to": 5}));
    assert_eq!(line["removed"], json!(["4.task_final_review.md"]));
    // A replay of the journal reaches the new state (docs/journal.md).
    assert_eq!(line["applied"]["replaced"], s.state());
    let verify = s.run(&["verify", s.rel]);
    assert_eq!(verify.code, 0, "{}", stdout(&verify));
    assert!(
        stdout(&verify).contains("5 task file(s) present, complete and linked; Final Review last")
    );
}

#[test]
fn add_task_to_a_lite_plan_inserts_its_record_before_the_final_reviews() {
    let s = Scratch::lite();
    let before = s.tree();
    let out = s.add_docs_task();
    assert_eq!(out.code, 0, "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        "PLAN_http_rate_limit: task 3 (Document the limiter) added before the Final Review; the Final Review is now task 4\nwrote PROGRESS.md, README.md, state.json\n"
    );
    let after = s.tree();
    assert_eq!(
        changed(&before, &after),
        ["PROGRESS.md", "README.md", JOURNAL, "state.json"]
    );
    assert_eq!(
        text(&after, "README.md"),
        text(&before, "README.md")
            .replace("Plan Status: 0/3 completed", "Plan Status: 0/4 completed")
            .replace(
                "## Task 3: Final Review {#task-3}\n",
                "## Task 3: Document the limiter {#task-3}\n\n### Goal\n\nExplain the limiter in the README.\n\n\
### Context\n\nUsers ask how to set the rate.\n\n### Touched Surface\n\nREADME.md only.\n\n\
### Acceptance Criteria\n\n- README has a Rate limiting section\n\n\
### Validation\n\n`python3 -m unittest discover -s tests -t .`\n\n### Completion & Log\n\nStatus: pending\n\n\
## Task 4: Final Review {#task-4}\n"
            )
            .replace("- [ ] Task 3: Final Review\n", "- [ ] Task 3: Document the limiter\n- [ ] Task 4: Final Review\n")
    );
    let state = s.state();
    assert_eq!(state["task_count"], 4);
    assert_eq!(
        state["tasks"][2],
        json!({"id": 3, "locator": {"kind": "inline", "value": "#task-3"}, "title": "Document the limiter", "status": "pending", "gates": []})
    );
    assert_eq!(state["tasks"][3]["id"], 4);
    assert_eq!(state["tasks"][3]["locator"]["value"], "#task-4");
    assert_eq!(after.get("manifest.json"), before.get("manifest.json"));
    let verify = s.run(&["verify", s.rel]);
    assert_eq!(verify.code, 0, "{}", stdout(&verify));
}

#[test]
fn add_task_keeps_a_hand_edited_crlf_readme_byte_for_byte() {
    let s = Scratch::full();
    let readme = s.read("README.md").replace('\n', "\r\n").replace(
        "## Global Guidelines",
        "## Notas à mão ✍️\r\n\r\nRevisão: a Tarefa 4 é a última.\r\n\r\n## Global Guidelines",
    );
    s.write("README.md", &readme);
    let out = s.run(&[
        "refine",
        s.rel,
        "--add-task",
        "--title",
        "Documentação do operador — revisão",
    ]);
    assert_eq!(out.code, 0, "{}", stderr(&out));
    let file = "4.task_documentacao_do_operador_revisao.md";
    assert_eq!(
        s.read("README.md"),
        readme
            .replace(
                "- [ ] Task 4: Final Review — [4.task_final_review.md](./4.task_final_review.md)\r\n",
                &format!("- [ ] Task 4: Documentação do operador — revisão — [{file}](./{file})\r\n- [ ] Task 5: Final Review — [5.task_final_review.md](./5.task_final_review.md)\r\n")
            )
            .replace("Plan Status: 0/4 completed", "Plan Status: 0/5 completed")
    );
    // A task file written by the command takes the line ending of the plan's task files (LF).
    assert!(
        s.read(file)
            .starts_with("# Task 4: Documentação do operador — revisão\n\n## 1. Context\n\nTODO:")
    );
    assert_eq!(
        s.state()["tasks"][3]["title"],
        "Documentação do operador — revisão"
    );
    let verify = s.run(&["verify", s.rel]);
    assert_eq!(verify.code, 0, "{}", stdout(&verify));
}

#[test]
fn add_task_is_refused_once_the_final_review_has_started_and_writes_nothing() {
    let s = Scratch::full();
    let state = s.read("state.json");
    let at = state.rfind("\"status\": \"pending\"").unwrap();
    s.write(
        "state.json",
        &format!(
            "{}\"status\": \"in_progress\"{}",
            &state[..at],
            &state[at + "\"status\": \"pending\"".len()..]
        ),
    );
    let promoting = Scratch::lite();
    let state = promoting.read("state.json");
    promoting.write(
        "state.json",
        &state
            .replace(
                "\"materialization\": \"ready\"",
                "\"materialization\": \"promoting\"",
            )
            .replace(
                "\"promotion\": null",
                "\"promotion\": {\"from\": \"lite\", \"to\": \"full\", \"phase\": \"intent\"}",
            ),
    );
    for (s, kind) in [(&s, "final-review-started"), (&promoting, "not-ready")] {
        let before = s.tree();
        let out = add(s, &[]);
        assert_eq!(out.code, 1, "{kind}: {}", stdout(&out));
        assert!(stderr(&out).starts_with(kind), "{kind}: {}", stderr(&out));
        assert_eq!(s.tree(), before, "{kind}");
    }
    // A title is one line; clap asks for one at all.
    let plain = Scratch::full();
    let before = plain.tree();
    let out = plain.run(&["refine", plain.rel, "--add-task"]);
    assert_eq!(out.code, 2, "{}", stderr(&out));
    let out = plain.run(&["refine", plain.rel, "--add-task", "--title", "a\nb"]);
    assert!(stderr(&out).starts_with("usage-error"), "{}", stderr(&out));
    let out = plain.run(&[
        "refine",
        plain.rel,
        "--add-task",
        "--skip",
        "2",
        "--title",
        "x",
    ]);
    assert_eq!(
        out.code,
        2,
        "--skip and --add-task together: {}",
        stderr(&out)
    );
    assert_eq!(plain.tree(), before);
}

#[test]
fn add_task_dry_run_shows_every_file_and_writes_nothing() {
    let s = Scratch::full();
    let before = s.tree();
    let out = add(&s, &["--dry-run", "--json"]);
    assert_eq!(out.code, 0, "{}", stderr(&out));
    assert_eq!(s.tree(), before);
    let doc: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(doc["result"], "ok");
    assert_eq!(doc["renumbered"], json!({"from": 4, "to": 5}));
    assert_eq!(doc["removed"], json!(["4.task_final_review.md"]));
    assert_eq!(doc["placeholders"], json!(["Context", "Touched Surface"]));
    let diff = doc["diff"].as_str().unwrap();
    for header in [
        "+++ b/5.task_final_review.md",
        "+++ b/4.task_load_test_the_retries.md",
        "+++ b/4.task_final_review.md",
        "+++ b/README.md",
        "+++ b/PROGRESS.md",
        "+++ b/state.json",
    ] {
        assert!(diff.contains(header), "{header}: {diff}");
    }
    assert!(diff.contains("-# Task 4: Final Review\n"), "{diff}");
}
