//! The bench runner scripts/bench/all.sh uses: its output format, its per-round ratios and its
//! refusals. No timing is asserted, only what the numbers are made of.

use std::process::Command;

fn bench(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_planseal-bench"))
        .args(args)
        .output()
        .unwrap()
}

fn rounds(spec: &str) -> std::process::Output {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("spec");
    std::fs::write(&path, spec.replace("TMP", tmp.path().to_str().unwrap())).unwrap();
    bench(&["rounds", path.to_str().unwrap()])
}

#[test]
fn rounds_print_each_item_and_each_ratio_of_the_same_rounds() {
    let out = rounds(
        "runs 3\nwarmup 0\nitem t\n  run /bin/true 'one word'\nitem w\n  durable-write 64 TMP\n\
         ratio same = t : t\nratio twice = 2*t : t\nratio none = t - t : w\n",
    );
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<Vec<&str>> = text.lines().map(|l| l.split('\t').collect()).collect();
    let names: Vec<(&str, &str)> = lines.iter().map(|l| (l[0], l[1])).collect();
    assert_eq!(
        names,
        [
            ("item", "t"),
            ("item", "w"),
            ("ratio", "same"),
            ("ratio", "twice"),
            ("ratio", "none")
        ]
    );
    assert_eq!(lines[0].len(), 6, "min, median, max, max RSS: {text}");
    assert!(
        lines[0][5].parse::<i64>().unwrap() > 0,
        "a child's peak RSS: {text}"
    );
    // Each ratio is taken within a round, so an item over itself is exactly 1 in every round.
    assert_eq!(&lines[2][2..5], ["1.000", "1.000", "1.000"]);
    assert_eq!(&lines[3][2..5], ["2.000", "2.000", "2.000"]);
    assert_eq!(&lines[4][2..5], ["0.000", "0.000", "0.000"]);
}

#[test]
fn a_command_with_an_unexpected_exit_code_stops_the_run() {
    let out = rounds("runs 2\nitem f\n  run /bin/false\n");
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("item f: `/bin/false`"), "{err}");
    assert!(err.contains("expected exit 0"), "{err}");
    assert_eq!(
        rounds("runs 2\nitem f\n  expect 1\n  run /bin/false\n")
            .status
            .code(),
        Some(0)
    );
}

#[test]
fn a_ratio_naming_no_item_is_refused_with_its_line() {
    let out = rounds("item t\n  run /bin/true\nratio r = t : missing\n");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("line 3: no item named `missing`"), "{err}");
}

#[test]
fn read_tree_reads_nested_folders() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(tmp.path().join("a/b")).unwrap();
    std::fs::write(tmp.path().join("a/b/f"), "x").unwrap();
    let out = bench(&["read-tree", tmp.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let missing = bench(&["read-tree", tmp.path().join("nope").to_str().unwrap()]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("cannot list"));
}
