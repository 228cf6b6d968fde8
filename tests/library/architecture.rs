//! The shape of the code, checked: every `use crate::…` / `super::…` path of `src/` and
//! `recovery/src/` is read, and
//! - no two modules import each other, directly or in a circle (a module and its own
//!   submodules excepted: a folder's `mod.rs` declares its children, which may use it);
//! - the stages import in one direction: `cli → ops → {check, decide, publish} → {model,
//!   history} → {read, locate, layout} → {report, write, recovery}`, so a stage never imports one
//!   above it;
//! - `src/cli` never names the store (every write goes through `planseal::write`);
//! - no file in `src/cli` is over 300 lines, and no module outside `src/cli` and `src/main.rs`
//!   prints.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// One source file and the module path it defines (`dwp::check::current`).
struct Source {
    file: PathBuf,
    module: Vec<String>,
    /// The code with comments and `#[cfg(test)]` modules left out.
    code: String,
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("a source folder") {
        let path = entry.expect("a folder entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Comments and string literals out (a path named in a doc comment or a message is not an
/// import), then everything from the first `#[cfg(test)]` on (test modules sit at the end).
fn code_of(text: &str) -> String {
    let text = match text.find("#[cfg(test)]") {
        Some(i) => &text[..i],
        None => text,
    };
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    let mut in_string = false;
    while let Some(c) = chars.next() {
        if in_string {
            match c {
                '\\' => {
                    chars.next();
                }
                '"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match c {
            '/' if chars.peek() == Some(&'/') => {
                for c in chars.by_ref() {
                    if c == '\n' {
                        out.push('\n');
                        break;
                    }
                }
            }
            '"' => in_string = true,
            '\'' => {
                // A char literal ('"', '\'') must not open a string; a lifetime has no closing
                // quote two or three characters on.
                let ahead: String = chars.clone().take(3).collect();
                if ahead.starts_with('\\') && ahead.chars().nth(2) == Some('\'') {
                    chars.nth(2);
                } else if ahead.chars().nth(1) == Some('\'') {
                    chars.nth(1);
                } else {
                    out.push(c);
                }
            }
            _ => out.push(c),
        }
    }
    out
}

fn sources(crate_dir: &Path, prefix: &[&str]) -> Vec<Source> {
    let src = crate_dir.join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    files
        .into_iter()
        .map(|file| {
            let rel = file.strip_prefix(&src).expect("inside src");
            let mut module: Vec<String> = prefix.iter().map(|s| s.to_string()).collect();
            for part in rel.with_extension("").iter() {
                module.push(part.to_string_lossy().into_owned());
            }
            if matches!(
                module.last().map(String::as_str),
                Some("mod" | "lib" | "main")
            ) {
                module.pop();
            }
            let text = std::fs::read_to_string(&file).expect("a source file");
            Source {
                code: code_of(&text),
                module,
                file,
            }
        })
        .collect()
}

/// Every module path the code names through `crate::` or `super::`.
fn imports(s: &Source, crate_root: &[&str]) -> BTreeSet<Vec<String>> {
    let mut out = BTreeSet::new();
    let code = s.code.as_bytes();
    for (keyword, base) in [("crate::", crate_root.to_vec()), ("super::", Vec::new())] {
        let mut from = 0;
        while let Some(at) = s.code[from..].find(keyword) {
            let start = from + at;
            from = start + keyword.len();
            if start > 0 && (code[start - 1].is_ascii_alphanumeric() || code[start - 1] == b'_') {
                continue;
            }
            let mut path: Vec<String> = if keyword == "super::" {
                // `super` is the parent module: of `a/b.rs` (module a::b) and of
                // `a/b/mod.rs` (also a::b) alike, `a`.
                s.module[..s.module.len().saturating_sub(1)].to_vec()
            } else {
                base.iter().map(|p| p.to_string()).collect()
            };
            let mut rest = &s.code[from..];
            while rest.starts_with("super::") {
                path.pop();
                rest = &rest["super::".len()..];
            }
            for seg in rest.split("::") {
                let name: String = seg
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                if name.is_empty() || name.chars().next().is_some_and(|c| c.is_uppercase()) {
                    break;
                }
                path.push(name.clone());
                if name.len() != seg.len() {
                    break;
                }
            }
            out.insert(path);
        }
    }
    out
}

/// The modules of both crates, by path, with what each imports (resolved to known modules).
fn graph() -> BTreeMap<Vec<String>, BTreeSet<Vec<String>>> {
    let mut all = sources(&root(), &[]);
    all.extend(sources(&root().join("recovery"), &["recovery"]));
    let known: BTreeSet<Vec<String>> = all.iter().map(|s| s.module.clone()).collect();
    let mut g = BTreeMap::new();
    for s in &all {
        let crate_root: &[&str] = if s.module.first().map(String::as_str) == Some("recovery")
            && s.file.starts_with(root().join("recovery"))
        {
            &["recovery"]
        } else {
            &[]
        };
        let mut targets = BTreeSet::new();
        for mut path in imports(s, crate_root) {
            // The longest prefix that is a module (the rest names an item in it).
            while !path.is_empty() && !known.contains(&path) {
                path.pop();
            }
            if !path.is_empty() && path != s.module {
                targets.insert(path);
            }
        }
        // `planseal_recovery::` from planseal is the lower crate.
        if s.code.contains("planseal_recovery::") {
            targets.insert(vec!["recovery".to_string()]);
        }
        g.insert(s.module.clone(), targets);
    }
    g
}

fn is_ancestor(a: &[String], b: &[String]) -> bool {
    a.len() < b.len() && b.starts_with(a)
}

/// The stage a module belongs to, by the name of the folder or file that holds it.
fn rank(module: &[String]) -> u8 {
    let has = |name: &str| module.iter().any(|p| p == name);
    match module.first().map(String::as_str) {
        Some("cli") | None => 7,
        Some(
            "report" | "write" | "clock" | "jsonfmt" | "jsonscan" | "markdown" | "dotenv"
            | "parallel" | "recovery",
        ) => 1,
        // Whole features over every format: hooks (its Stop and pre-commit checks run verify)
        // sits beside verify, unlock, demo and picture.
        Some("verify" | "unlock" | "demo" | "picture" | "hooks") => 6,
        // A format's error type only gathers the lower layers' errors.
        _ if module.last().is_some_and(|m| m == "error") => 2,
        _ if has("ops") => 6,
        _ if has("check") || has("decide") || has("publish") => 5,
        _ if has("model") || has("history") => 4,
        _ if has("read") || has("locate") || has("layout") => 3,
        // The rest of a format's modules (gsd's document, rules, …): between its model and
        // its ops.
        _ => 5,
    }
}

fn shown(m: &[String]) -> String {
    if m.is_empty() {
        "crate".into()
    } else {
        m.join("::")
    }
}

/// Every circle of imports, each as `a → b → … → a`; a module and its own ancestors or
/// descendants are not an edge (a folder declares its children, which may use it).
fn circles(g: &BTreeMap<Vec<String>, BTreeSet<Vec<String>>>) -> Vec<String> {
    let edges: BTreeMap<&Vec<String>, Vec<&Vec<String>>> = g
        .iter()
        .map(|(a, bs)| {
            (
                a,
                bs.iter()
                    .filter(|b| !is_ancestor(a, b) && !is_ancestor(b, a))
                    .collect(),
            )
        })
        .collect();
    // A circle is a path back to where it started: a depth-first search from every module.
    let mut found = Vec::new();
    for start in edges.keys() {
        let mut stack = vec![(*start, vec![*start])];
        let mut seen = BTreeSet::new();
        while let Some((at, path)) = stack.pop() {
            for next in edges.get(at).into_iter().flatten() {
                if *next == *start {
                    let names: Vec<String> = path.iter().map(|m| shown(m)).collect();
                    found.push(format!("{} → {}", names.join(" → "), shown(start)));
                } else if seen.insert(*next) {
                    let mut p = path.clone();
                    p.push(*next);
                    stack.push((*next, p));
                }
            }
        }
    }
    found.sort();
    found.dedup();
    found
}

#[test]
fn no_import_circle_anywhere() {
    let found = circles(&graph());
    assert!(found.is_empty(), "import circles:\n{}", found.join("\n"));
}

/// The finder itself: it reports a circle through three modules, and not a folder whose child
/// uses it.
#[test]
fn the_circle_finder_finds_circles() {
    let m = |s: &str| s.split("::").map(str::to_string).collect::<Vec<_>>();
    let mut g = BTreeMap::new();
    g.insert(m("a"), BTreeSet::from([m("b"), m("a::child")]));
    g.insert(m("a::child"), BTreeSet::from([m("a")]));
    g.insert(m("b"), BTreeSet::from([m("c")]));
    g.insert(m("c"), BTreeSet::from([m("a")]));
    let found = circles(&g);
    assert!(found.contains(&"a → b → c → a".to_string()), "{found:?}");
    assert!(found.iter().all(|c| !c.contains("child")), "{found:?}");
    // and the graph of the real code is not empty (the reader found the imports)
    assert!(graph().values().map(BTreeSet::len).sum::<usize>() > 200);
}

#[test]
fn stages_import_downwards_only() {
    let mut wrong = Vec::new();
    for (from, targets) in graph() {
        for to in targets {
            if is_ancestor(&to, &from) || is_ancestor(&from, &to) {
                continue;
            }
            if rank(&to) > rank(&from) {
                wrong.push(format!(
                    "{} (stage {}) imports {} (stage {})",
                    shown(&from),
                    rank(&from),
                    shown(&to),
                    rank(&to)
                ));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "imports against the stage order:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn the_cli_never_names_the_store_and_stays_small() {
    for s in sources(&root(), &[]) {
        if s.module.first().map(String::as_str) != Some("cli") {
            continue;
        }
        assert!(
            !s.code.contains("store::"),
            "{} names the store: writes go through planseal::write",
            s.file.display()
        );
        let lines = std::fs::read_to_string(&s.file)
            .expect("a source file")
            .lines()
            .count();
        assert!(
            lines <= 300,
            "{} has {lines} lines: the CLI only parses arguments and prints",
            s.file.display()
        );
    }
}

#[test]
fn only_the_binary_prints() {
    for s in sources(&root(), &[]) {
        if matches!(s.module.first().map(String::as_str), Some("cli") | None) {
            continue;
        }
        for needle in [
            "println!",
            "print!(",
            "eprintln!",
            "eprint!(",
            "std::io::stdout",
        ] {
            assert!(
                !s.code.contains(needle),
                "{} prints ({needle}): the library returns text, the binary prints it",
                s.file.display()
            );
        }
    }
}
