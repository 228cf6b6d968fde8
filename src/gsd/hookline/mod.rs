//! GSD's whole statusline — model │ GSD state or current task │ directory, the context meter,
//! the update notice, the git segment — byte for byte as gsd-core's `hooks/gsd-statusline.js`
//! prints it for the same Claude Code JSON and the same files (docs/gsd.md).
//!
//! [`render`] only reads; the bridge file the hook writes for its context monitor is returned
//! as bytes for the caller to write through `crate::write`. Git is opened only when the
//! project's `statusline.show_git` is `true`.

pub mod js;

use super::compat::{is_js_space, js_trim};
use super::layout::Format;
use super::locate::{self, Located};
use super::statusline::{NO_ACTIVE_WORKSTREAM, render_text};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// How many folders the config and STATE.md walks climb, the start included.
const MAX_LEVELS: usize = 10;
/// The package whose update cache counts (the hook's lineage guard).
const PACKAGE_NAME: &str = "@opengsd/gsd-core";
/// The update check's cache, under `~/.cache/gsd/`.
const UPDATE_CACHE_FILE: &str = "gsd-update-check-opengsd-gsd-core.json";
/// Claude Code's default autocompact buffer, in percent of the window.
const DEFAULT_BUFFER_PCT: f64 = 16.5;
/// How much of a transcript's end is searched for the last slash command.
const TRANSCRIPT_TAIL: u64 = 256 * 1024;

const RESET: &str = "\x1b[0m";
const DIM: &str = "\x1b[2m";
const SEP: &str = " │ ";

/// What the hook reads from its process besides the JSON: all of it fixed by the caller, so a
/// render is a function of these and the files.
#[derive(Debug, Clone, Default)]
pub struct Environment {
    /// The process's working directory (`process.cwd()`): the directory when the JSON names
    /// none, and what relative paths are relative to.
    pub cwd: PathBuf,
    /// `os.homedir()`; `None` when it cannot be known (the walks then stop only at 10 levels and
    /// nothing under the home is read).
    pub home: Option<String>,
    /// `os.tmpdir()`: where the bridge file goes.
    pub tmp_dir: PathBuf,
    /// `CLAUDE_CONFIG_DIR` (the todos are under it, else under `~/.claude`).
    pub claude_config_dir: Option<String>,
    /// `CLAUDE_CODE_AUTO_COMPACT_WINDOW`, as text.
    pub auto_compact_window: Option<String>,
    /// `GSD_WORKSTREAM`.
    pub workstream: Option<String>,
    /// Now, in whole seconds since 1970 (the bridge file's `timestamp`).
    pub now_epoch_s: i64,
}

impl Environment {
    /// `os.homedir()` and `os.tmpdir()` as Node computes them on Unix, from this process.
    pub fn from_process(cwd: PathBuf, now_epoch_s: i64) -> Self {
        let var = |k: &str| std::env::var(k).ok();
        let home = std::env::var_os("HOME")
            .map(|h| h.to_string_lossy().into_owned())
            .or_else(|| {
                #[allow(deprecated)] // on Unix it falls back to the password database, as Node does
                std::env::home_dir().map(|h| h.to_string_lossy().into_owned())
            });
        let tmp = ["TMPDIR", "TMP", "TEMP"]
            .iter()
            .find_map(|k| var(k).filter(|v| !v.is_empty()))
            .unwrap_or_else(|| "/tmp".into());
        let tmp = if tmp.len() > 1 && tmp.ends_with('/') {
            tmp[..tmp.len() - 1].to_string()
        } else {
            tmp
        };
        Self {
            cwd,
            home,
            tmp_dir: PathBuf::from(tmp),
            claude_config_dir: var("CLAUDE_CONFIG_DIR").filter(|v| !v.is_empty()),
            auto_compact_window: var("CLAUDE_CODE_AUTO_COMPACT_WINDOW"),
            workstream: var("GSD_WORKSTREAM"),
            now_epoch_s,
        }
    }
}

/// The rendered line and what goes beside it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Line {
    /// The line, no trailing newline; "" when the hook prints nothing.
    pub text: String,
    /// The bridge file for GSD's context monitor: `<tmp>/claude-ctx-<session>.json`.
    pub bridge: Option<Bridge>,
    /// The STATE.md the GSD segment came from (for the `.env` redaction).
    pub state_file: Option<PathBuf>,
}

/// A file to write beside the line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bridge {
    /// Where.
    pub path: PathBuf,
    /// The bytes (JSON, no newline).
    pub bytes: Vec<u8>,
}

/// Asks whether a folder is in a git work tree and how its branch stands; `None` outside git
/// or when git cannot be read. Only called when the project turned `show_git` on.
pub type GitProbe<'a> = &'a dyn Fn(&Path) -> Option<planseal_recovery::git::BranchStatus>;

/// The hook's line for Claude Code's statusline JSON `input`. `compact` forces GSD's compact
/// state form (else `statusline.state_format` decides).
pub fn render(input: &Value, env: &Environment, compact: bool, git: GitProbe<'_>) -> Line {
    // `data.model` of `null` throws in the hook, which then prints nothing.
    if input.is_null() {
        return Line::default();
    }
    let get = |v: &Value, k: &str| v.as_object().and_then(|o| o.get(k)).cloned();
    let display = get(input, "model").and_then(|m| get(&m, "display_name"));
    let model = if js::truthy(display.as_ref()) {
        match display.as_ref() {
            Some(Value::String(s)) => compact_model_name(s),
            Some(other) => js::to_string(other),
            None => unreachable!("truthy"),
        }
    } else {
        "Claude".to_string()
    };
    let dir_value = get(input, "workspace").and_then(|w| get(&w, "current_dir"));
    // A directory that is not a string makes the hook's path functions throw: it prints
    // nothing, after having written the bridge file.
    let mut unusable_dir = false;
    let dir: String = if js::truthy(dir_value.as_ref()) {
        match dir_value {
            Some(Value::String(s)) => s,
            _ => {
                unusable_dir = true;
                String::new()
            }
        }
    } else {
        env.cwd.to_string_lossy().into_owned()
    };
    let session = get(input, "session_id").filter(|s| js::truthy(Some(s)));
    let session_text = session.as_ref().map(js::to_string).unwrap_or_default();
    let context = get(input, "context_window");
    let remaining = context
        .as_ref()
        .and_then(|c| get(c, "remaining_percentage"))
        .filter(|r| !r.is_null());

    let levels = if unusable_dir {
        Vec::new()
    } else {
        walk_levels(&dir, env)
    };
    let cfg = read_config(&levels, env);
    let mut line = Line::default();

    // The context meter.
    let mut ctx = String::new();
    if let Some(remaining) = &remaining {
        let rem = js::to_number(remaining);
        let total = context
            .as_ref()
            .and_then(|c| get(c, "total_tokens"))
            .filter(|t| js::truthy(Some(t)))
            .map_or(1_000_000.0, |t| js::to_number(&t));
        let acw = js::parse_int(env.auto_compact_window.as_deref().unwrap_or("0"));
        let buffer = if acw > 0.0 {
            js::min(100.0, js::max(0.0, (1.0 - acw / total) * 100.0))
        } else {
            DEFAULT_BUFFER_PCT
        };
        let usable = js::max(0.0, ((rem - buffer) / (100.0 - buffer)) * 100.0);
        let used = js::max(0.0, js::min(100.0, js::round(100.0 - usable)));

        let safe = !session_text.is_empty()
            && !session_text.contains(['/', '\\'])
            && !session_text.contains("..");
        if safe && let Some(session) = &session {
            line.bridge = Some(bridge(env, session, &session_text, remaining, rem));
        }

        // `'█'.repeat(NaN)` is "", and so is the rest of an unreadable meter.
        let bar = if used.is_nan() {
            String::new()
        } else {
            let filled = (used / 10.0).floor() as usize;
            format!("{}{}", "█".repeat(filled), "░".repeat(10 - filled))
        };
        let tokens =
            if config_value(&cfg, "statusline.show_context_tokens") == Some(&Value::Bool(true)) {
                token_suffix(
                    context
                        .as_ref()
                        .and_then(|c| get(c, "current_usage"))
                        .as_ref(),
                )
            } else {
                String::new()
            };
        let used_text = js::number_to_string(used);
        ctx = if used < 50.0 {
            format!(" \x1b[32m{bar} {used_text}%{tokens}{RESET}")
        } else if used < 65.0 {
            format!(" \x1b[33m{bar} {used_text}%{tokens}{RESET}")
        } else if used < 80.0 {
            format!(" \x1b[38;5;208m{bar} {used_text}%{tokens}{RESET}")
        } else {
            format!(" \x1b[5;31m💀 {bar} {used_text}%{tokens}{RESET}")
        };
    }

    if unusable_dir {
        return line;
    }

    // The current task, from Claude Code's todos.
    let task = if session_text.is_empty() {
        String::new()
    } else {
        let claude_dir = match &env.claude_config_dir {
            Some(d) => PathBuf::from(d),
            None => Path::new(env.home.as_deref().unwrap_or("")).join(".claude"),
        };
        current_task(&env.cwd.join(claude_dir).join("todos"), &session_text)
    };

    // The update notice.
    let update = env
        .home
        .as_deref()
        .map(|home| {
            let path = env
                .cwd
                .join(home)
                .join(".cache")
                .join("gsd")
                .join(UPDATE_CACHE_FILE);
            update_notice(&path)
        })
        .unwrap_or_default();

    // The settings of `.planning/config.json`.
    let is_true = |key: &str| config_value(&cfg, key) == Some(&Value::Bool(true));
    let last_command = if is_true("statusline.show_last_command") {
        get(input, "transcript_path")
            .and_then(|p| {
                p.as_str()
                    .filter(|s| !s.is_empty())
                    .map(|s| env.cwd.join(s))
            })
            .and_then(|p| last_slash_command(&p))
            .map(|c| format!("{SEP}{DIM}last: /{c}{RESET}"))
            .unwrap_or_default()
    } else {
        String::new()
    };
    let front = config_value(&cfg, "statusline.context_position")
        .is_some_and(|v| v.as_str() == Some("front"));
    let format = if compact
        || config_value(&cfg, "statusline.state_format").and_then(Value::as_str) == Some("compact")
    {
        Format::Compact
    } else {
        Format::Full
    };
    let git_segment = if is_true("statusline.show_git") {
        let target = env.cwd.join(&dir);
        if target.is_dir() {
            git(&target).map(|s| git_segment(&s)).unwrap_or_default()
        } else {
            String::new()
        }
    } else {
        String::new()
    };

    // The GSD state, shown when no task is.
    let mut state = String::new();
    if task.is_empty() {
        let paths: Vec<PathBuf> = levels.iter().map(|l| env.cwd.join(l)).collect();
        match locate::locate_levels(&paths, env.workstream.as_deref()) {
            Located::File { path, text } => {
                state = render_text(&text, format);
                if !state.is_empty() {
                    line.state_file = Some(path);
                }
            }
            Located::NoActiveWorkstream { .. } => state = NO_ACTIVE_WORKSTREAM.into(),
            Located::MissingWorkstreamState(_) | Located::NotFound => {}
        }
    }

    let dirname = js::basename(&dir);
    let middle = if !task.is_empty() {
        Some(format!("\x1b[1m{task}{RESET}"))
    } else if !state.is_empty() {
        Some(format!("{DIM}{state}{RESET}"))
    } else {
        None
    };
    let model_seg = format!("{DIM}{model}{RESET}");
    let dir_seg = format!("{DIM}{dirname}{RESET}");
    let middle = middle.map(|m| format!("{SEP}{m}")).unwrap_or_default();
    line.text = if front {
        format!("{update}{model_seg}{ctx}{middle}{SEP}{dir_seg}{git_segment}{last_command}")
    } else {
        format!("{update}{model_seg}{middle}{SEP}{dir_seg}{git_segment}{ctx}{last_command}")
    };
    line
}

/// The folders the hook's walks visit from `dir`: itself and its parents by Node's
/// `path.dirname`, at most 10, stopping after the home directory (compared as text).
fn walk_levels(dir: &str, env: &Environment) -> Vec<String> {
    let mut levels = Vec::with_capacity(MAX_LEVELS);
    let mut current = dir.to_string();
    for _ in 0..MAX_LEVELS {
        levels.push(current.clone());
        let parent = js::dirname(&current);
        if parent == current || env.home.as_deref() == Some(current.as_str()) {
            break;
        }
        current = parent;
    }
    levels
}

/// The first `.planning/config.json` on the walk, parsed; `{}` when there is none or it is not
/// JSON (an unreadable one ends the walk, as in the hook).
fn read_config(levels: &[String], env: &Environment) -> Value {
    for level in levels {
        let candidate = crate::gsd::layout::planning_dir(&env.cwd.join(level))
            .join(crate::gsd::layout::CONFIG_FILE);
        if candidate.exists() {
            return planseal_recovery::read::read(
                &candidate,
                planseal_recovery::read::Kind::Settings,
            )
            .ok()
            .flatten()
            .and_then(|bytes| serde_json::from_slice::<Value>(&lossy(bytes).into_bytes()).ok())
            .filter(|v| js::truthy(Some(v)))
            .unwrap_or_else(|| Value::Object(Default::default()));
        }
    }
    Value::Object(Default::default())
}

/// Bytes as Node's `'utf8'` decoding reads them.
fn lossy(bytes: Vec<u8>) -> String {
    match String::from_utf8(bytes) {
        Ok(s) => s,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    }
}

/// The hook's `getConfigValue`: a flat `"a.b"` key first, else the nested path.
fn config_value<'v>(cfg: &'v Value, key: &str) -> Option<&'v Value> {
    let obj = cfg.as_object()?;
    if let Some(v) = obj.get(key) {
        return Some(v);
    }
    let mut cur = cfg;
    for part in key.split('.') {
        cur = match cur {
            Value::Object(o) => o.get(part)?,
            // An array has no such named property either (JSON has no other objects).
            _ => return None,
        };
    }
    Some(cur)
}

/// `Sonnet 4.5 (1M context)` → `Sonnet 4.5 (1M)`: a trailing parenthesised token ending in
/// `context` or `ctx` (any case) keeps only what comes before that word.
pub fn compact_model_name(name: &str) -> String {
    let Some(body) = name.strip_suffix(')') else {
        return name.to_string();
    };
    // The opening parenthesis: the first one after which no `)` occurs before the end.
    let after_last_close = body.rfind(')').map_or(0, |i| i + 1);
    let Some(open_rel) = body[after_last_close..].find('(') else {
        return name.to_string();
    };
    let open = after_last_close + open_rel;
    let inner = &body[open + 1..];
    let lower = inner.to_ascii_lowercase();
    let word_len = if lower.ends_with("context") {
        7
    } else if lower.ends_with("ctx") {
        3
    } else {
        return name.to_string();
    };
    let before_word = &inner[..inner.len() - word_len];
    let kept = before_word.trim_end_matches(is_js_space);
    if kept.len() == before_word.len() {
        return name.to_string(); // no white space before the word
    }
    // The kept part must be at least one character (the lazy group is `+?`): with nothing
    // before the white space, one white-space character stays in the group when there are two.
    let kept = if kept.is_empty() {
        let spaces = before_word;
        let mut chars = spaces.chars();
        match (chars.next(), chars.next()) {
            (Some(first), Some(_)) => &spaces[..first.len_utf8()],
            _ => return name.to_string(),
        }
    } else {
        kept
    };
    let start = body[..open].trim_end_matches(is_js_space).len();
    format!("{} ({kept})", &name[..start])
}

/// The JSON the hook writes for its context monitor.
fn bridge(
    env: &Environment,
    session: &Value,
    session_text: &str,
    remaining: &Value,
    rem: f64,
) -> Bridge {
    let raw_used = js::round(100.0 - rem);
    let text = format!(
        "{{\"session_id\":{},\"remaining_percentage\":{},\"used_pct\":{},\"timestamp\":{}}}",
        json_text(session),
        json_text(remaining),
        json_number(raw_used),
        env.now_epoch_s
    );
    Bridge {
        path: env
            .cwd
            .join(&env.tmp_dir)
            .join(format!("claude-ctx-{session_text}.json")),
        bytes: text.into_bytes(),
    }
}

/// `JSON.stringify(x)` for a JSON value (numbers printed as JavaScript prints them).
fn json_text(v: &Value) -> String {
    match v {
        Value::Number(n) => json_number(n.as_f64().unwrap_or(f64::NAN)),
        Value::Array(items) => format!(
            "[{}]",
            items.iter().map(json_text).collect::<Vec<_>>().join(",")
        ),
        Value::Object(map) => format!(
            "{{{}}}",
            map.iter()
                .map(|(k, v)| format!("{}:{}", Value::String(k.clone()), json_text(v)))
                .collect::<Vec<_>>()
                .join(",")
        ),
        other => other.to_string(),
    }
}

fn json_number(x: f64) -> String {
    if x.is_finite() {
        js::number_to_string(x)
    } else {
        "null".into()
    }
}

/// ` (156k)`: the tokens of `current_usage` (input, cache creation, cache read, output), or ""
/// when there are none.
fn token_suffix(usage: Option<&Value>) -> String {
    let Some(Value::Object(u)) = usage else {
        return String::new();
    };
    let field = |k: &str| {
        let n = u.get(k).map_or(f64::NAN, js::to_number);
        if n.is_nan() || n == 0.0 { 0.0 } else { n }
    };
    let total = field("input_tokens")
        + field("cache_creation_input_tokens")
        + field("cache_read_input_tokens")
        + field("output_tokens");
    if total > 0.0 {
        format!(" ({})", format_tokens(total))
    } else {
        String::new()
    }
}

/// 156342 → `156k`, 1234567 → `1.2M`; 999 500 and up already `1.0M`.
fn format_tokens(tokens: f64) -> String {
    if tokens >= 1_000_000.0 || js::round(tokens / 1000.0) >= 1000.0 {
        format!("{}M", js::to_fixed_1(tokens / 1_000_000.0))
    } else if tokens >= 1000.0 {
        format!("{}k", js::number_to_string(js::round(tokens / 1000.0)))
    } else {
        js::number_to_string(tokens)
    }
}

/// The `activeForm` of the first `in_progress` item of the newest `<session>…-agent-….json` in
/// the todos folder; "" when there is none or anything on the way fails.
fn current_task(todos: &Path, session: &str) -> String {
    let Ok(entries) = std::fs::read_dir(todos) else {
        return String::new();
    };
    let mut latest: Option<(u128, PathBuf)> = None;
    for entry in entries {
        let Ok(entry) = entry else {
            return String::new();
        };
        let name = entry.file_name().to_string_lossy().into_owned();
        if !name.starts_with(session) || !name.contains("-agent-") || !name.ends_with(".json") {
            continue;
        }
        let path = todos.join(&name);
        // A stat that fails ends the lookup in the hook.
        let Ok(mtime) = std::fs::metadata(&path).and_then(|m| m.modified()) else {
            return String::new();
        };
        let ms = mtime
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis());
        if latest.as_ref().is_none_or(|(best, _)| ms > *best) {
            latest = Some((ms, path));
        }
    }
    let Some((_, path)) = latest else {
        return String::new();
    };
    let Some(todos) = std::fs::read(&path)
        .ok()
        .and_then(|b| serde_json::from_str::<Value>(&lossy(b)).ok())
    else {
        return String::new();
    };
    let Value::Array(items) = todos else {
        return String::new();
    };
    for item in &items {
        match item {
            // Reading `.status` of null throws: no task.
            Value::Null => return String::new(),
            Value::Object(o) if o.get("status").and_then(Value::as_str) == Some("in_progress") => {
                let form = o.get("activeForm");
                return if js::truthy(form) {
                    form.map(js::to_string).unwrap_or_default()
                } else {
                    String::new()
                };
            }
            _ => {}
        }
    }
    String::new()
}

/// `⬆ /gsd:update │ ` and the stale-hooks warning, from GSD's update-check cache.
fn update_notice(path: &Path) -> String {
    if !path.exists() {
        return String::new();
    }
    let Some(cache) = std::fs::read(path)
        .ok()
        .and_then(|b| serde_json::from_str::<Value>(&lossy(b)).ok())
    else {
        return String::new();
    };
    let Value::Object(c) = &cache else {
        return String::new();
    };
    if c.get("package_name").and_then(Value::as_str) != Some(PACKAGE_NAME) {
        return String::new();
    }
    let mut out = String::new();
    if js::truthy(c.get("update_available")) {
        out.push_str(&format!("\x1b[33m⬆ /gsd:update{RESET}{SEP}"));
    }
    let stale = js::truthy(c.get("stale_hooks"))
        && match c.get("stale_hooks") {
            Some(Value::Array(a)) => !a.is_empty(),
            Some(Value::String(s)) => js::utf16_len(s) > 0,
            Some(Value::Object(o)) => o.get("length").is_some_and(|l| js::to_number(l) > 0.0),
            _ => false,
        };
    if stale {
        let installed = c.get("installed");
        let latest = c.get("latest");
        let dev = js::truthy(installed)
            && js::truthy(latest)
            && latest.and_then(Value::as_str) != Some("unknown")
            && semver_newer(installed, latest);
        if dev {
            out.push_str(&format!(
                "\x1b[33m⚠ dev install — re-run installer to sync hooks{RESET}{SEP}"
            ));
        } else {
            out.push_str(&format!(
                "\x1b[31m⚠ stale hooks — run /gsd:update{RESET}{SEP}"
            ));
        }
    }
    out
}

/// GSD's version comparison: major, minor, patch as numbers (a leading `v` and anything from
/// the first `-` or `+` dropped, a missing or unreadable part 0); is `a` newer than `b`?
fn semver_newer(a: Option<&Value>, b: Option<&Value>) -> bool {
    let tuple = |v: Option<&Value>| -> [f64; 3] {
        let text = v.map(js::to_string).unwrap_or_default();
        let t = js_trim(&text);
        let t = t.strip_prefix('v').unwrap_or(t);
        let base = js::cut_prerelease(t);
        let mut parts = base.split('.');
        let mut out = [0.0; 3];
        for slot in &mut out {
            let n = parts.next().map_or(f64::NAN, js::parse_int);
            *slot = if n.is_nan() || n == 0.0 { 0.0 } else { n };
        }
        out
    };
    let (x, y) = (tuple(a), tuple(b));
    for i in 0..3 {
        if x[i] != y[i] {
            return x[i] > y[i];
        }
    }
    false
}

/// The last `<command-name>/x</command-name>` in the transcript's last 256 KiB, without the
/// slash; `None` when there is none or it does not look like a command name.
fn last_slash_command(path: &Path) -> Option<String> {
    use std::io::{Read, Seek, SeekFrom};
    let mut file = std::fs::File::open(path).ok()?;
    let size = file.metadata().ok()?.len();
    let start = size.saturating_sub(TRANSCRIPT_TAIL);
    file.seek(SeekFrom::Start(start)).ok()?;
    let mut buf = Vec::with_capacity((size - start) as usize);
    file.take(size - start).read_to_end(&mut buf).ok()?;
    let content = lossy(buf);
    const OPEN: &str = "<command-name>";
    const CLOSE: &str = "</command-name>";
    let close = content.rfind(CLOSE)?;
    // `lastIndexOf(open, close)`: an opening tag starting at or before the closing one.
    let search_end = (close + OPEN.len()).min(content.len());
    let open = content[..search_end].rfind(OPEN)?;
    let from = open + OPEN.len();
    if from > close {
        return None;
    }
    let name = js_trim(&content[from..close]);
    let name = name.strip_prefix('/').unwrap_or(name);
    let bad = |c: char| is_js_space(c) || matches!(c, '\\' | '"' | '<' | '>');
    if name.is_empty() || name.contains(bad) || js::utf16_len(name) > 80 {
        return None;
    }
    Some(name.to_string())
}

/// ` │ main+2~1?3↑1`: the branch (dimmed), then staged, unstaged, untracked, ahead, behind;
/// `✓` when there is nothing to show.
pub fn git_segment(s: &planseal_recovery::git::BranchStatus) -> String {
    let branch = s.branch.as_deref().unwrap_or("(detached)");
    let mut markers = String::new();
    for (n, colour, sign) in [
        (s.staged, "32", "+"),
        (s.unstaged, "33", "~"),
        (s.untracked, "31", "?"),
        (s.ahead, "32", "↑"),
        (s.behind, "31", "↓"),
    ] {
        if n > 0 {
            markers.push_str(&format!("\x1b[{colour}m{sign}{n}{RESET}"));
        }
    }
    if markers.is_empty() {
        markers = format!("\x1b[32m✓{RESET}");
    }
    format!("{SEP}{DIM}{branch}{RESET}{markers}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn model_names() {
        for (name, want) in [
            ("Sonnet 4.5 (1M context)", "Sonnet 4.5 (1M)"),
            ("Opus 4  (200K  CTX)", "Opus 4 (200K)"),
            ("A (b) (c (1M context)", "A (b) (c (1M)"),
            ("Plain", "Plain"),
            ("X (context)", "X (context)"),
            ("X (  context)", "X ( )"),
            ("X(1M context)", "X (1M)"),
            ("X (1Mcontext)", "X (1Mcontext)"),
        ] {
            assert_eq!(compact_model_name(name), want, "{name}");
        }
    }

    #[test]
    fn versions() {
        let v = |s: &str| Value::String(s.into());
        assert!(semver_newer(Some(&v("v2.0.0-beta.1")), Some(&v("1.9.9"))));
        assert!(!semver_newer(Some(&v("1.0.0")), Some(&v("1.0.0"))));
        assert!(semver_newer(Some(&v("1.10")), Some(&v("1.9.9"))));
    }

    #[test]
    fn tokens() {
        assert_eq!(format_tokens(156342.0), "156k");
        assert_eq!(format_tokens(999600.0), "1.0M");
        assert_eq!(format_tokens(500.0), "500");
        assert_eq!(format_tokens(1234567.0), "1.2M");
    }
}
