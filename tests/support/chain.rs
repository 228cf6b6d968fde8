//! Following planseal's hints the way a person or an agent does: run `verify`, take the first
//! hint that names a `planseal …` command, run it, follow any hint that command prints in turn,
//! and verify again — until the verdict is CONFORMANT or the walk goes round in circles.
//!
//! Placeholders in a hinted command (`--reason …`, `TEXT`) are filled with a reason; nothing
//! else is invented: a chain that needs a command no hint names fails the walk.

use super::run::{Planseal, Run};
use std::path::Path;

/// One step of a walk: the command run (as typed) and its exit code.
#[derive(Debug, Clone)]
pub struct Step {
    pub command: String,
    pub code: i32,
}

/// The walk: every command run, in order, and whether it ended CONFORMANT.
#[derive(Debug)]
pub struct Walk {
    pub steps: Vec<Step>,
    pub conformant: bool,
    /// The last verify's text, for failure messages.
    pub last_verify: String,
}

impl Walk {
    /// The commands run after the first verify, without the verifies in between.
    pub fn actions(&self) -> Vec<String> {
        self.steps
            .iter()
            .map(|s| s.command.clone())
            .filter(|c| c != "planseal verify")
            .collect()
    }

    /// Panics with the whole trail unless the walk reached CONFORMANT.
    pub fn assert_conformant(&self) {
        assert!(
            self.conformant,
            "the hints did not lead to CONFORMANT; commands run:\n{}\nlast verify:\n{}",
            self.trail(),
            self.last_verify
        );
    }

    pub fn trail(&self) -> String {
        self.steps
            .iter()
            .map(|s| format!("  {} → exit {}", s.command, s.code))
            .collect::<Vec<_>>()
            .join("\n")
    }
}

/// Every backticked `planseal …` or `git …` command in `text`, in order of appearance on
/// `hint:` lines (a hint may tell the user to run git, e.g. to undo a reset).
pub fn hinted_commands(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in text.lines() {
        let Some(pos) = line.find("hint:") else {
            continue;
        };
        let mut rest = &line[pos..];
        while let Some(start) = rest.find('`') {
            let after = &rest[start + 1..];
            let Some(end) = after.find('`') else { break };
            let quoted = &after[..end];
            if quoted.starts_with("planseal ") || quoted.starts_with("git ") {
                out.push(quoted.to_string());
            }
            rest = &after[end + 1..];
        }
    }
    out
}

/// Splits a hinted command into arguments (single and double quotes group), dropping the
/// leading `planseal` and filling placeholders.
pub fn arguments(command: &str) -> Vec<String> {
    let mut args = Vec::new();
    let mut cur = String::new();
    let mut quote: Option<char> = None;
    let mut any = false;
    for c in command.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => cur.push(c),
            (None, '"' | '\'') => {
                quote = Some(c);
                any = true;
            }
            (None, c) if c.is_whitespace() => {
                if any || !cur.is_empty() {
                    args.push(std::mem::take(&mut cur));
                    any = false;
                }
            }
            (None, c) => cur.push(c),
        }
    }
    if any || !cur.is_empty() {
        args.push(cur);
    }
    if args.first().map(String::as_str) == Some("planseal") {
        args.remove(0);
    }
    // `git …` stays whole: run() tells the two apart.
    args.into_iter()
        .map(|a| match a.as_str() {
            "…" | "..." | "TEXT" | "REASON" | "<reason>" => {
                "following planseal's hint in a test".to_string()
            }
            _ => a,
        })
        .collect()
}

fn run(root: &Path, args: &[String], env: &[(String, String)]) -> Run {
    if args.first().map(String::as_str) == Some("git") {
        let out = super::gitrepo::git_command(root)
            .args(&args[1..])
            .output()
            .expect("git runs");
        return Run {
            code: out.status.code().unwrap_or(-1),
            status: out.status,
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        };
    }
    let mut cmd = Planseal::new().cwd(root).args(args);
    for (k, v) in env {
        cmd = cmd.env(k, v);
    }
    cmd.output()
}

/// Walks the hints from `verify` in `root` for at most `limit` commands.
pub fn walk(root: &Path, limit: usize, env: &[(String, String)]) -> Walk {
    let mut steps = Vec::new();
    let mut seen: Vec<(String, String)> = Vec::new();
    loop {
        let verify = run(root, &["verify".to_string()], env);
        let text = format!("{}{}", verify.stdout, verify.stderr);
        steps.push(Step {
            command: "planseal verify".into(),
            code: verify.code,
        });
        if verify.code == 0 && text.contains("Verdict: CONFORMANT") {
            return Walk {
                steps,
                conformant: true,
                last_verify: text,
            };
        }
        let mut next = hinted_commands(&text).into_iter().next();
        let mut followed = 0;
        while let Some(command) = next.take() {
            let actions = steps
                .iter()
                .filter(|s| s.command != "planseal verify")
                .count();
            if actions >= limit {
                return Walk {
                    steps,
                    conformant: false,
                    last_verify: text,
                };
            }
            let out = run(root, &arguments(&command), env);
            let said = format!("{}{}", out.stdout, out.stderr);
            steps.push(Step {
                command: command.clone(),
                code: out.code,
            });
            // The same command answering the same thing twice is a circle.
            let key = (command.clone(), said.clone());
            if seen.contains(&key) {
                return Walk {
                    steps,
                    conformant: false,
                    last_verify: text,
                };
            }
            seen.push(key);
            followed += 1;
            // A command that points on (a dry run naming the real run, a refusal naming the
            // command that clears it) is followed before verifying again.
            next = hinted_commands(&said).into_iter().find(|c| *c != command);
            if followed > limit {
                break;
            }
        }
        if followed == 0 {
            return Walk {
                steps,
                conformant: false,
                last_verify: text,
            };
        }
    }
}

/// Leaves in `plan_dir` the lock of a planseal writer killed before its marker: an owner record
/// whose pid is gone, on this host.
pub fn dead_writers_lock(plan_dir: &Path) {
    let mut child = super::run::hermetic("true").spawn().expect("spawn");
    let pid = child.id();
    child.wait().expect("wait");
    let lock = plan_dir.join("state.json.lock");
    std::fs::create_dir(&lock).expect("lock");
    let owner = serde_json::json!({
        "pid": pid,
        "host": planseal::recovery::store::process::host_name(),
        "process_start": null,
        "operation": "update task 3 → completed",
        "token": "c0ffee",
        "tool": "planseal 0.1.0",
        "acquired_at": "2026-10-12T15:10:00+00:00",
    });
    std::fs::write(lock.join("owner.json"), owner.to_string()).expect("owner");
}
