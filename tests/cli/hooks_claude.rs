//! `planseal hooks install|uninstall --claude [--scope local|project|user]`: Claude Code's
//! settings file gets the status line and the SessionStart and Stop hooks — idempotent, every
//! other key and hook kept, undone byte for byte (a file and a `.claude` folder the install made
//! go again), `--dry-run` writing nothing, `--json`, and the refusals (a file that is not JSON,
//! a status line that runs something else) leaving the file as it was. `HOME` is a scratch
//! folder of each test, so `--scope user` never touches a real one.

use crate::support::gitrepo::git;
use crate::support::run::{BIN, Planseal, Run};
use std::path::{Path, PathBuf};

/// A project (a git repository) and a home folder of its own.
struct Scratch {
    _tmp: tempfile::TempDir,
    project: PathBuf,
    home: PathBuf,
}

impl Scratch {
    fn new() -> Self {
        let tmp = tempfile::tempdir().expect("temp dir");
        let project = tmp.path().join("app");
        let home = tmp.path().join("home");
        std::fs::create_dir_all(project.join("src")).unwrap();
        std::fs::create_dir_all(&home).unwrap();
        git(&project, &["init", "-q", "--template=", "-b", "main", "."]);
        Scratch {
            _tmp: tmp,
            project,
            home,
        }
    }

    /// `planseal hooks ARGS` started in `dir`.
    fn hooks_in(&self, dir: &Path, args: &[&str]) -> Run {
        Planseal::new()
            .cwd(dir)
            .env("HOME", &self.home)
            .arg("hooks")
            .args(args)
            .output()
    }

    fn hooks(&self, args: &[&str]) -> Run {
        self.hooks_in(&self.project, args)
    }

    fn settings(&self, scope: &str) -> PathBuf {
        match scope {
            "local" => self.project.join(".claude/settings.local.json"),
            "project" => self.project.join(".claude/settings.json"),
            _ => self.home.join(".claude/settings.json"),
        }
    }
}

fn program() -> String {
    Path::new(BIN).canonicalize().unwrap().display().to_string()
}

fn read(path: &Path) -> Option<Vec<u8>> {
    std::fs::read(path).ok()
}

fn json(path: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

/// The three entries planseal registers, as Claude Code reads them.
fn assert_registered(v: &serde_json::Value) {
    let p = program();
    assert_eq!(v["statusLine"]["type"], "command");
    assert_eq!(
        v["statusLine"]["command"],
        format!("{p} gsd statusline --stdin")
    );
    for (event, args) in [
        ("SessionStart", "hook session-start"),
        ("Stop", "hook stop"),
    ] {
        let hooks: Vec<&serde_json::Value> = v["hooks"][event]
            .as_array()
            .unwrap_or_else(|| panic!("hooks.{event} in {v}"))
            .iter()
            .flat_map(|e| e["hooks"].as_array().unwrap())
            .filter(|h| h["command"] == format!("{p} {args}"))
            .collect();
        assert_eq!(hooks.len(), 1, "{event} in {v}");
        assert_eq!(hooks[0]["type"], "command");
    }
}

#[test]
fn each_scope_installs_once_and_uninstalls_to_nothing() {
    for scope in ["local", "project", "user"] {
        let s = Scratch::new();
        let settings = s.settings(scope);
        // Started in a subfolder: the project's settings are at the work tree's root.
        let run = s.hooks_in(
            &s.project.join("src"),
            &["install", "--claude", "--scope", scope],
        );
        assert_eq!(run.code, 0, "{scope}: {}", run.stderr);
        assert!(
            run.stdout.starts_with("claude hook registered: "),
            "{}",
            run.stdout
        );
        assert_registered(&json(&settings));
        let installed = read(&settings);
        let again = s.hooks(&["install", "--claude", "--scope", scope]);
        assert_eq!(again.code, 0, "{}", again.stderr);
        assert_eq!(
            again.stdout,
            "claude hook already registered; nothing written\n"
        );
        assert_eq!(
            read(&settings),
            installed,
            "{scope}: install twice changes nothing"
        );
        let un = s.hooks(&["uninstall", "--claude", "--scope", scope]);
        assert_eq!(un.code, 0, "{}", un.stderr);
        assert!(!settings.exists(), "{scope}: the file install made is gone");
        assert!(
            !settings.parent().unwrap().exists(),
            "{scope}: so is the .claude folder it made"
        );
        let un_again = s.hooks(&["uninstall", "--claude", "--scope", scope]);
        assert_eq!(un_again.code, 0, "{}", un_again.stderr);
        assert_eq!(
            un_again.stdout,
            "claude hook already removed; nothing written\n"
        );
    }
}

/// A settings file as a user's Claude Code leaves it: permissions, an env, hooks of its own
/// (including a Stop hook), written with four-space indentation and no final newline.
const USERS_SETTINGS: &str = "{\n    \"permissions\": {\n        \"allow\": [\"Bash(cargo test:*)\"],\n        \"deny\": []\n    },\n    \"env\": {\"RUST_LOG\": \"info\"},\n    \"hooks\": {\n        \"PreToolUse\": [\n            {\n                \"matcher\": \"Bash\",\n                \"hooks\": [{\"type\": \"command\", \"command\": \"./audit.sh\"}]\n            }\n        ],\n        \"Stop\": [\n            {\n                \"hooks\": [{\"type\": \"command\", \"command\": \"notify-send done\"}]\n            }\n        ]\n    }\n}";

#[test]
fn existing_settings_keep_every_key_and_hook_and_come_back_byte_for_byte() {
    for scope in ["local", "project", "user"] {
        let s = Scratch::new();
        let settings = s.settings(scope);
        std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
        std::fs::write(&settings, USERS_SETTINGS).unwrap();
        let run = s.hooks(&["install", "--claude", "--scope", scope]);
        assert_eq!(run.code, 0, "{}", run.stderr);
        let v = json(&settings);
        assert_registered(&v);
        let before: serde_json::Value = serde_json::from_str(USERS_SETTINGS).unwrap();
        for key in ["permissions", "env"] {
            assert_eq!(v[key], before[key], "{key} kept");
        }
        assert_eq!(v["hooks"]["PreToolUse"], before["hooks"]["PreToolUse"]);
        assert_eq!(
            v["hooks"]["Stop"][0], before["hooks"]["Stop"][0],
            "the user's Stop hook stays first"
        );
        // The text before the inserted entries is the user's, unchanged.
        let text = String::from_utf8(read(&settings).unwrap()).unwrap();
        assert!(
            text.starts_with("{\n    \"permissions\": {\n        \"allow\""),
            "{text}"
        );
        assert!(
            text.contains("\n    \"statusLine\": {\n        \"type\": \"command\""),
            "{text}"
        );
        let installed = read(&settings);
        assert_eq!(s.hooks(&["install", "--claude", "--scope", scope]).code, 0);
        assert_eq!(read(&settings), installed, "idempotent");
        let un = s.hooks(&["uninstall", "--claude", "--scope", scope]);
        assert_eq!(un.code, 0, "{}", un.stderr);
        assert_eq!(
            read(&settings).unwrap(),
            USERS_SETTINGS.as_bytes(),
            "{scope}: byte for byte"
        );
    }
}

#[test]
fn dry_run_shows_the_diff_and_json_is_the_envelope() {
    let s = Scratch::new();
    let run = s.hooks(&["install", "--claude", "--dry-run"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout.contains("+++ b/.claude/settings.local.json"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("hook stop\"\n"), "{}", run.stdout);
    assert!(run.stdout.ends_with("nothing written (--dry-run)\n"));
    assert!(!s.project.join(".claude").exists(), "nothing written");
    let run = s.hooks(&["install", "--claude", "--scope", "project", "--json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(v["result"], "applied");
    assert_eq!(v["hooks"], serde_json::json!(["claude"]));
    assert_eq!(v["files"][0]["file"], ".claude/settings.json");
    assert_eq!(v["files"][0]["changed"], true);
    let run = s.hooks(&["install", "--claude", "--scope", "project", "--json"]);
    let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(v["result"], "unchanged");
}

#[test]
fn an_unparseable_file_and_a_foreign_status_line_are_refused_and_left_as_they_were() {
    let s = Scratch::new();
    let settings = s.settings("local");
    std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
    // (content, the refusal, whether uninstall refuses too: it has nothing to remove from a
    // file that parses but holds nothing of planseal's)
    for (content, kind, uninstall_refuses) in [
        (
            "{\"permissions\": {\"allow\": [}\n",
            "claude-settings-unparseable",
            true,
        ),
        ("// comment\n{}\n", "claude-settings-unparseable", true),
        ("[]\n", "claude-settings-unparseable", true),
        (
            "{\"hooks\": [\"x\"]}\n",
            "claude-settings-unparseable",
            false,
        ),
        (
            "{\"statusLine\": {\"type\": \"command\", \"command\": \"node ~/.claude/hooks/gsd-statusline.js\"}}\n",
            "claude-statusline-taken",
            false,
        ),
    ] {
        std::fs::write(&settings, content).unwrap();
        for action in ["install", "uninstall"] {
            let run = s.hooks(&[action, "--claude", "--json"]);
            if action == "uninstall" && !uninstall_refuses {
                assert_eq!(run.code, 0, "{}", run.stderr);
            } else {
                assert_eq!(run.code, 1, "{content}: {}", run.stderr);
                assert!(
                    run.stderr.starts_with(&format!("{kind}: ")),
                    "{}",
                    run.stderr
                );
                assert!(run.stderr.contains("hint: "), "{}", run.stderr);
                let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
                assert_eq!(v["result"], "refused");
                assert_eq!(v["kind"], kind);
            }
            assert_eq!(
                read(&settings).unwrap(),
                content.as_bytes(),
                "file unchanged"
            );
        }
    }
}

#[test]
fn claude_and_merge_install_together_and_scope_needs_claude() {
    let s = Scratch::new();
    let run = s.hooks(&["install", "--claude", "--merge"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout
            .starts_with("claude, merge hook registered: .claude/settings.local.json, "),
        "{}",
        run.stdout
    );
    let run = s.hooks(&["install", "--merge", "--scope", "user"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    let run = s.hooks(&["uninstall", "--claude", "--merge"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(!s.project.join(".claude").exists());
    assert!(!s.project.join(".gitattributes").exists());
}

#[test]
fn outside_git_the_working_folder_is_the_project() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    let dir = tmp.path().join("notes");
    std::fs::create_dir_all(&home).unwrap();
    std::fs::create_dir_all(&dir).unwrap();
    let run = Planseal::new()
        .cwd(&dir)
        .env("HOME", &home)
        .args(["hooks", "install", "--claude", "--scope", "project"])
        .output();
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_registered(&json(&dir.join(".claude/settings.json")));
    let run = Planseal::new()
        .cwd(&dir)
        .env("HOME", &home)
        .args(["hooks", "uninstall", "--claude", "--scope", "project"])
        .output();
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0, "nothing left");
}

#[test]
fn a_settings_file_with_crlf_and_tabs_keeps_its_style() {
    let s = Scratch::new();
    let settings = s.settings("local");
    std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
    let original = "{\r\n\t\"model\": \"opus\"\r\n}\r\n";
    std::fs::write(&settings, original).unwrap();
    assert_eq!(s.hooks(&["install", "--claude"]).code, 0);
    let text = String::from_utf8(read(&settings).unwrap()).unwrap();
    assert!(
        !text.replace("\r\n", "").contains('\n'),
        "CRLF throughout: {text:?}"
    );
    assert!(
        text.contains("\r\n\t\"statusLine\": {\r\n\t\t\"type\""),
        "{text:?}"
    );
    assert_registered(&json(&settings));
    assert_eq!(s.hooks(&["uninstall", "--claude"]).code, 0);
    assert_eq!(read(&settings).unwrap(), original.as_bytes());
}
