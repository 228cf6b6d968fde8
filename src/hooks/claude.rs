//! Claude Code integration (`docs/claude-code.md`): what `planseal hooks install --claude`
//! writes into a Claude Code settings file, and what the two hook commands decide.
//!
//! **The settings file.** Three entries, in Claude Code's settings format:
//!
//! ```json
//! {
//!   "statusLine": {"type": "command", "command": "<planseal> gsd statusline --stdin"},
//!   "hooks": {
//!     "SessionStart": [{"hooks": [{"type": "command", "command": "<planseal> hook session-start"}]}],
//!     "Stop": [{"hooks": [{"type": "command", "command": "<planseal> hook stop"}]}]
//!   }
//! }
//! ```
//!
//! They are edited as text, never re-serialised: an install inserts each missing entry after the
//! last member (or element) of the object (or list) it belongs to, copying the separator and the
//! indentation found there, and an uninstall cuts exactly that text out again. So every other
//! byte of the file stays, installing twice changes nothing, and an uninstall after an install
//! gives the file back byte for byte. Two shapes cannot be told apart afterwards and are
//! documented: an empty object written `{` newline `}` comes back as `{}`, and an empty `hooks`
//! object or event list that held nothing before the install goes with the uninstall.
//!
//! A command is planseal's when its first word names a program called `planseal` and the rest
//! is one of the three command lines: an install with another planseal path rewrites just the
//! path, an uninstall removes planseal's entries whatever their path. A `statusLine` that runs
//! something else is refused (`claude-statusline-taken`): the file holds one status line only.
//!
//! **The hooks.** [`read_hook_input`] reads what Claude Code sends on stdin (bounded; empty
//! stdin is allowed); [`stop_decision`] decides whether the Stop hook blocks: a plan whose
//! publication was interrupted (`.finalizing.json`), a lock whose owner is provably gone, or a
//! plan whose state.json says `completed` while `verify` finds it NOT CONFORMANT. It does the
//! `status` work for every plan and runs the checks of `verify` only on plans that claim
//! completion.

use crate::jsonscan::{skip_space, string_end, value_end};
use crate::report::{Refusal, RefusalKind};
use serde::Serialize;
use std::path::{Path, PathBuf};

/// Which settings file `--scope` names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Default, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Scope {
    /// `.claude/settings.local.json` of the project (not shared; the default).
    #[default]
    Local,
    /// `.claude/settings.json` of the project (shared through the repository).
    Project,
    /// `~/.claude/settings.json` (every project of this user).
    User,
}

impl Scope {
    /// The settings file of this scope: under `project` for `local` and `project`, under
    /// `home` for `user`.
    pub fn settings_file(self, project: &Path, home: &Path) -> PathBuf {
        match self {
            Scope::Local => project.join(".claude").join("settings.local.json"),
            Scope::Project => project.join(".claude").join("settings.json"),
            Scope::User => home.join(".claude").join("settings.json"),
        }
    }
}

/// The three command lines registered, each starting with the planseal program.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Commands {
    /// `statusLine.command`.
    pub statusline: String,
    /// The `SessionStart` hook's command.
    pub session_start: String,
    /// The `Stop` hook's command.
    pub stop: String,
}

/// What follows the program in the status line's command.
pub const STATUSLINE_ARGS: &str = "gsd statusline --stdin";
/// What follows the program in the SessionStart hook's command.
pub const SESSION_START_ARGS: &str = "hook session-start";
/// What follows the program in the Stop hook's command.
pub const STOP_ARGS: &str = "hook stop";

impl Commands {
    /// The commands for `program` (quoted for the shell when it needs to be).
    pub fn for_program(program: &str) -> Self {
        let p = shell_word(program);
        Commands {
            statusline: format!("{p} {STATUSLINE_ARGS}"),
            session_start: format!("{p} {SESSION_START_ARGS}"),
            stop: format!("{p} {STOP_ARGS}"),
        }
    }
}

/// `word` as one shell word: as is when it holds only safe characters, else in single quotes.
fn shell_word(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-+,:@%".contains(c));
    if plain {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}

/// Whether `command` is planseal's with `args` after the program: its first shell word (quotes
/// removed) names a file called `planseal`.
fn is_ours(command: &str, args: &str) -> bool {
    let command = command.trim();
    let Some(program) = command.strip_suffix(args).map(str::trim_end) else {
        return false;
    };
    if program.len() == command.len() - args.len() {
        // no blank between the program and the arguments
        return false;
    }
    let unquoted = if program.len() >= 2 && program.starts_with('\'') && program.ends_with('\'') {
        program[1..program.len() - 1].replace("'\\''", "'")
    } else if program.contains([' ', '\'', '"']) {
        return false;
    } else {
        program.to_string()
    };
    Path::new(&unquoted)
        .file_name()
        .is_some_and(|n| n == "planseal" || n == "planseal.exe")
}

/// The text a missing settings file starts from, and what an uninstall that leaves exactly this
/// means: nothing of the user's is in the file, so it is removed.
pub const EMPTY_SETTINGS: &str = "{}\n";

/// The two hook events registered, with the arguments of their command.
const EVENTS: [(&str, &str); 2] = [("SessionStart", SESSION_START_ARGS), ("Stop", STOP_ARGS)];

fn unparseable(file: &str, why: impl std::fmt::Display) -> Refusal {
    Refusal::new(
        RefusalKind::ClaudeSettingsUnparseable,
        format!("{file}: {why}; nothing written"),
    )
    .hint(format!(
        "fix {file} (it must be one JSON object, as Claude Code reads it), then run the command again"
    ))
}

/// The settings text with planseal's entries registered (`None` in: the file does not exist).
/// Refuses when the text is no JSON object, when an entry planseal edits has another type, or
/// when `statusLine` runs something else. `file` names the file in messages.
pub fn install(text: Option<&str>, commands: &Commands, file: &str) -> Result<String, Refusal> {
    let mut doc = Doc::parse(text.unwrap_or(EMPTY_SETTINGS), file)?;
    // statusLine
    let root = doc.object_at(doc.root, file, "the file")?;
    match root.iter().find(|m| m.key == "statusLine") {
        None => doc.insert_member(
            doc.root,
            "statusLine",
            &serde_json::json!({"type": "command", "command": commands.statusline}),
        ),
        Some(m) => {
            let command = doc.command_of(m.value);
            match command {
                Some((cmd, span)) if is_ours(&cmd, STATUSLINE_ARGS) => {
                    if cmd != commands.statusline {
                        doc.replace_string(span, &commands.statusline);
                    }
                }
                _ => {
                    let shown = command
                        .map(|(c, _)| format!("runs `{c}`"))
                        .unwrap_or_else(|| "is set".into());
                    return Err(Refusal::new(
                        RefusalKind::ClaudeStatuslineTaken,
                        format!(
                            "{file}: statusLine {shown}, not planseal's status line; nothing written"
                        ),
                    )
                    .hint(format!(
                        "remove the statusLine entry from {file} (planseal's line keeps the GSD hook's \
                         whole line), or install into another --scope"
                    )));
                }
            }
        }
    }
    // hooks
    for (event, args) in EVENTS {
        let wanted = match event {
            "SessionStart" => &commands.session_start,
            _ => &commands.stop,
        };
        let entry = serde_json::json!({"hooks": [{"type": "command", "command": wanted}]});
        let root = doc.object_at(doc.root, file, "the file")?;
        let Some(hooks) = root.iter().find(|m| m.key == "hooks").map(|m| m.value) else {
            doc.insert_member(doc.root, "hooks", &serde_json::json!({ event: [entry] }));
            continue;
        };
        let members = doc.object_at(hooks, file, "hooks")?;
        let Some(list) = members.iter().find(|m| m.key == event).map(|m| m.value) else {
            doc.insert_member(hooks, event, &serde_json::json!([entry]));
            continue;
        };
        let what = format!("hooks.{event}");
        match doc.find_hook(list, args, file, &what)? {
            Some(found) => {
                if found.command != *wanted {
                    doc.replace_string(found.command_span, wanted);
                }
            }
            None => doc.insert_element(list, &entry),
        }
    }
    Ok(doc.text)
}

/// The settings text without planseal's entries; `None` when nothing of the user's is left
/// (the text would be [`EMPTY_SETTINGS`]: the file goes). `text` is the file's current text.
pub fn uninstall(text: &str, file: &str) -> Result<Option<String>, Refusal> {
    let mut doc = Doc::parse(text, file)?;
    loop {
        let root = doc.object_at(doc.root, file, "the file")?;
        if let Some(i) = root.iter().position(|m| m.key == "statusLine")
            && doc
                .command_of(root[i].value)
                .is_some_and(|(c, _)| is_ours(&c, STATUSLINE_ARGS))
        {
            doc.remove_item(doc.root, &spans(&root), i);
            continue;
        }
        let Some(hooks_index) = root.iter().position(|m| m.key == "hooks") else {
            break;
        };
        let hooks = root[hooks_index].value;
        let Ok(members) = doc.object_at(hooks, file, "hooks") else {
            break;
        };
        let mut edited = false;
        for (event, args) in EVENTS {
            let Some(ei) = members.iter().position(|m| m.key == event) else {
                continue;
            };
            let list = members[ei].value;
            let Some(found) = doc.find_hook(list, args, file, event).ok().flatten() else {
                continue;
            };
            let entries = doc.elements(list).unwrap_or_default();
            let inner = doc.elements(found.inner_list).unwrap_or_default();
            let entry_keys = doc.members(entries[found.entry].0).unwrap_or_default();
            if inner.len() > 1 || entry_keys.len() > 1 {
                // The entry holds more than planseal's hook: only the hook goes.
                doc.remove_item(found.inner_list, &inner, found.hook);
            } else if entries.len() > 1 {
                doc.remove_item(list, &entries, found.entry);
            } else if members.len() > 1 {
                doc.remove_item(hooks, &spans(&members), ei);
            } else {
                doc.remove_item(doc.root, &spans(&root), hooks_index);
            }
            edited = true;
            break;
        }
        if !edited {
            break;
        }
    }
    Ok((doc.text != EMPTY_SETTINGS).then_some(doc.text))
}

/// One member of an object: its key, where it starts (the key's quote) and its value's span.
#[derive(Debug, Clone)]
struct Member {
    key: String,
    start: usize,
    value: usize,
    end: usize,
}

fn spans(members: &[Member]) -> Vec<(usize, usize)> {
    members.iter().map(|m| (m.start, m.end)).collect()
}

/// A planseal hook found in an event's list.
struct FoundHook {
    /// Index of the entry (`{matcher?, hooks}`) in the event's list.
    entry: usize,
    /// Where the entry's `hooks` list starts.
    inner_list: usize,
    /// Index of the hook in that list.
    hook: usize,
    command: String,
    command_span: (usize, usize),
}

/// The settings text being edited, known to parse as JSON.
struct Doc {
    text: String,
    /// Where the top-level value starts (after a BOM and blanks).
    root: usize,
}

impl Doc {
    fn parse(text: &str, file: &str) -> Result<Self, Refusal> {
        let body = text.strip_prefix('\u{feff}').unwrap_or(text);
        let value: serde_json::Value =
            serde_json::from_str(body).map_err(|e| unparseable(file, format!("not JSON ({e})")))?;
        if !value.is_object() {
            return Err(unparseable(file, "the top level is not a JSON object"));
        }
        let root = skip_space(text.as_bytes(), text.len() - body.len());
        Ok(Doc {
            text: text.to_string(),
            root,
        })
    }

    fn bytes(&self) -> &[u8] {
        self.text.as_bytes()
    }

    /// The members of the object at `at`; `None` when no object starts there.
    fn members(&self, at: usize) -> Option<Vec<Member>> {
        let b = self.bytes();
        if b.get(at) != Some(&b'{') {
            return None;
        }
        let mut out = Vec::new();
        let mut i = skip_space(b, at + 1);
        while b.get(i) == Some(&b'"') {
            let key_end = string_end(b, i)?;
            let key: String = serde_json::from_str(&self.text[i..key_end]).ok()?;
            let colon = skip_space(b, key_end);
            let value = skip_space(b, colon + 1);
            let end = value_end(b, value)?;
            out.push(Member {
                key,
                start: i,
                value,
                end,
            });
            i = skip_space(b, end);
            if b.get(i) == Some(&b',') {
                i = skip_space(b, i + 1);
            }
        }
        Some(out)
    }

    fn object_at(&self, at: usize, file: &str, what: &str) -> Result<Vec<Member>, Refusal> {
        self.members(at)
            .ok_or_else(|| unparseable(file, format!("{what} is not a JSON object")))
    }

    /// The element spans of the list at `at`; `None` when no list starts there.
    fn elements(&self, at: usize) -> Option<Vec<(usize, usize)>> {
        let b = self.bytes();
        if b.get(at) != Some(&b'[') {
            return None;
        }
        let mut out = Vec::new();
        let mut i = skip_space(b, at + 1);
        while b.get(i).is_some_and(|c| *c != b']') {
            let end = value_end(b, i)?;
            out.push((i, end));
            i = skip_space(b, end);
            if b.get(i) == Some(&b',') {
                i = skip_space(b, i + 1);
            }
        }
        Some(out)
    }

    /// The `command` string of the object at `at` and the span of its JSON string.
    fn command_of(&self, at: usize) -> Option<(String, (usize, usize))> {
        let m = self.members(at)?.into_iter().find(|m| m.key == "command")?;
        let s: String = serde_json::from_str(&self.text[m.value..m.end]).ok()?;
        Some((s, (m.value, m.end)))
    }

    /// planseal's hook (command ending in `args`) in the event list at `list`.
    fn find_hook(
        &self,
        list: usize,
        args: &str,
        file: &str,
        what: &str,
    ) -> Result<Option<FoundHook>, Refusal> {
        let entries = self
            .elements(list)
            .ok_or_else(|| unparseable(file, format!("{what} is not a JSON list")))?;
        for (e, (start, _)) in entries.iter().enumerate() {
            let Some(members) = self.members(*start) else {
                continue;
            };
            let Some(inner) = members.iter().find(|m| m.key == "hooks") else {
                continue;
            };
            let Some(hooks) = self.elements(inner.value) else {
                continue;
            };
            for (h, (hs, _)) in hooks.iter().enumerate() {
                if let Some((command, span)) = self.command_of(*hs)
                    && is_ours(&command, args)
                {
                    return Ok(Some(FoundHook {
                        entry: e,
                        inner_list: inner.value,
                        hook: h,
                        command,
                        command_span: span,
                    }));
                }
            }
        }
        Ok(None)
    }

    fn replace_string(&mut self, span: (usize, usize), value: &str) {
        let quoted = serde_json::to_string(value).unwrap_or_default();
        self.text.replace_range(span.0..span.1, &quoted);
    }

    fn newline(&self) -> &'static str {
        if self.text.contains("\r\n") {
            "\r\n"
        } else {
            "\n"
        }
    }

    /// The blanks a line starts with, for the line holding byte `at`.
    fn indent_of_line(&self, at: usize) -> &str {
        let start = self.text[..at].rfind('\n').map_or(0, |i| i + 1);
        let line = &self.text[start..];
        let n = line.len() - line.trim_start_matches([' ', '\t']).len();
        &line[..n]
    }

    /// One level of indentation as the file writes it: that of the first indented member line,
    /// else two spaces.
    fn unit(&self) -> String {
        for line in self.text.lines() {
            let rest = line.trim_start_matches([' ', '\t']);
            if rest.starts_with('"') && rest.len() < line.len() {
                let lead = &line[..line.len() - rest.len()];
                // The top level's members are the least indented; take the smallest found.
                return lead.to_string();
            }
        }
        "  ".into()
    }

    /// `value` written at `indent` (lines after the first get it), pretty with `unit`, or on
    /// one line when `compact`.
    fn render(&self, value: &serde_json::Value, indent: &str, compact: bool) -> String {
        if compact {
            return String::from_utf8(crate::jsonfmt::to_python_line(value)).unwrap_or_default();
        }
        let unit = self.unit();
        let mut buf = Vec::new();
        let formatter = serde_json::ser::PrettyFormatter::with_indent(unit.as_bytes());
        let mut ser = serde_json::Serializer::with_formatter(&mut buf, formatter);
        let _ = value.serialize(&mut ser);
        let pretty = String::from_utf8(buf).unwrap_or_default();
        let nl = self.newline();
        pretty
            .split('\n')
            .enumerate()
            .map(|(i, l)| {
                if i == 0 {
                    l.to_string()
                } else {
                    format!("{indent}{l}")
                }
            })
            .collect::<Vec<_>>()
            .join(nl)
    }

    /// Appends an item (`item` is `"key": value` or a value) to the object or list at `at`
    /// whose items are `items`.
    fn append(
        &mut self,
        at: usize,
        items: &[(usize, usize)],
        item: impl Fn(&Doc, &str, bool) -> String,
    ) {
        let b = self.bytes();
        let close = value_end(b, at).map_or(self.text.len(), |e| e - 1);
        if let Some((last_start, last_end)) = items.last().copied() {
            // Copy the separator the last item has before it.
            let before = match items.len() {
                1 => at + 1,
                n => {
                    let prev_end = items[n - 2].1;
                    prev_end + self.text[prev_end..].find(',').map_or(0, |i| i + 1)
                }
            };
            let sep = self.text[before..last_start].to_string();
            let compact = !sep.contains('\n');
            let indent = self.indent_of_line(last_start).to_string();
            let text = format!(",{sep}{}", item(self, &indent, compact));
            self.text.insert_str(last_end, &text);
            return;
        }
        let inner = self.text[at + 1..close].to_string();
        let outer = self.indent_of_line(at).to_string();
        let indent = format!("{outer}{}", self.unit());
        let nl = self.newline();
        let text = format!("{nl}{indent}{}", item(self, &indent, false));
        if inner.is_empty() {
            self.text.insert_str(close, &format!("{text}{nl}{outer}"));
        } else {
            self.text.insert_str(at + 1, &text);
        }
    }

    fn insert_member(&mut self, object: usize, key: &str, value: &serde_json::Value) {
        let members = self.members(object).unwrap_or_default();
        let colon = members
            .last()
            .map(|m| {
                let key_end = string_end(self.bytes(), m.start).unwrap_or(m.start);
                self.text[key_end..m.value].to_string()
            })
            .unwrap_or_else(|| ": ".into());
        let key = serde_json::to_string(key).unwrap_or_default();
        self.append(object, &spans(&members), |doc, indent, compact| {
            format!("{key}{colon}{}", doc.render(value, indent, compact))
        });
    }

    fn insert_element(&mut self, list: usize, value: &serde_json::Value) {
        let elements = self.elements(list).unwrap_or_default();
        self.append(list, &elements, |doc, indent, compact| {
            doc.render(value, indent, compact)
        });
    }

    /// Removes item `i` of the object or list at `at` (`items` its spans), the exact inverse
    /// of [`Doc::append`].
    fn remove_item(&mut self, at: usize, items: &[(usize, usize)], i: usize) {
        let (start, end) = items[i];
        if i > 0 {
            self.text.replace_range(items[i - 1].1..end, "");
            return;
        }
        if let Some((next, _)) = items.get(1) {
            self.text.replace_range(start..*next, "");
            return;
        }
        // The only item: what append put around it into an empty container goes too.
        self.text.replace_range(at + 1..end, "");
        let close = value_end(self.bytes(), at).map_or(self.text.len(), |e| e - 1);
        let outer = self.indent_of_line(at).to_string();
        let left = &self.text[at + 1..close];
        if left == format!("{}{outer}", self.newline()) {
            self.text.replace_range(at + 1..close, "");
        }
    }
}

/// The most a hook reads from stdin: Claude Code's hook input is a small JSON object.
pub const HOOK_INPUT_LIMIT: usize = 1 << 20;

/// What Claude Code sends a hook on stdin — the fields planseal reads (others are ignored).
#[derive(Debug, Default, Clone, PartialEq, Eq, serde::Deserialize)]
pub struct HookInput {
    /// The session's id.
    #[serde(default)]
    pub session_id: Option<String>,
    /// The folder Claude Code runs in: the project the hook looks at.
    #[serde(default)]
    pub cwd: Option<PathBuf>,
    /// `SessionStart`, `Stop`, …
    #[serde(default)]
    pub hook_event_name: Option<String>,
    /// Set when Claude is already continuing because a Stop hook blocked: planseal then never
    /// blocks again (no loop).
    #[serde(default)]
    pub stop_hook_active: bool,
}

fn malformed(why: impl std::fmt::Display) -> Refusal {
    Refusal::new(
        RefusalKind::HookInputMalformed,
        format!("the hook input on stdin {why}"),
    )
    .hint("run it as a Claude Code hook (planseal hooks install --claude), which sends one JSON object on stdin; empty stdin is allowed")
}

/// Reads the hook input from `reader`: at most [`HOOK_INPUT_LIMIT`] bytes; empty (or blank)
/// input is the default (no field set). Refuses (`hook-input-malformed`) input that is longer,
/// not UTF-8 or not a JSON object, or a field of the wrong type.
pub fn read_hook_input(reader: impl std::io::Read) -> Result<HookInput, Refusal> {
    use std::io::Read;
    let mut bytes = Vec::new();
    reader
        .take(HOOK_INPUT_LIMIT as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| malformed(format!("cannot be read: {e}")))?;
    if bytes.len() > HOOK_INPUT_LIMIT {
        return Err(malformed(format!(
            "is longer than {HOOK_INPUT_LIMIT} bytes"
        )));
    }
    let text = std::str::from_utf8(&bytes).map_err(|_| malformed("is not UTF-8"))?;
    if text.trim().is_empty() {
        return Ok(HookInput::default());
    }
    let value: serde_json::Value =
        serde_json::from_str(text).map_err(|e| malformed(format!("is not JSON ({e})")))?;
    if !value.is_object() {
        return Err(malformed("is not a JSON object"));
    }
    serde_json::from_value(value)
        .map_err(|e| malformed(format!("has a field of the wrong type ({e})")))
}

/// One reason the Stop hook blocks: what is wrong with which plan, and the command that fixes
/// it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct StopReason {
    /// The plan folder's name.
    pub plan: String,
    /// `marker`, `stale-lock` or `not-conformant`.
    pub kind: &'static str,
    /// What is wrong, one sentence (for NOT CONFORMANT, the failed findings follow).
    pub reason: String,
    /// The command to run.
    pub fix: String,
}

/// What the Stop hook found.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct StopDecision {
    /// Why the stop is blocked (empty: it is not).
    pub block: Vec<StopReason>,
    /// The plans that claim completion and were verified.
    pub verified: Vec<String>,
    /// What could not be read (a plan's state.json): reported, never silently passed.
    pub errors: Vec<String>,
}

impl StopDecision {
    /// The text Claude reads when the stop is blocked: each reason with its command.
    pub fn reason_text(&self) -> String {
        let mut out = String::from("planseal: the plan state is not ready to stop on:\n");
        for r in &self.block {
            out.push_str(&format!("- {}: {}\n  fix: {}\n", r.plan, r.reason, r.fix));
        }
        out
    }
}

/// Decides the Stop hook (see the module comment) for the workspace at `cwd`. Nothing found
/// there is no error: nothing blocks.
///
/// Per plan it reads only what the decision needs — whether the marker is there, the lock's
/// owner record, and state.json's `status` — (not the receipt's hashing that `status` also
/// does), and runs the checks of `verify` on a plan only when its state.json says `completed`.
pub fn stop_decision(cwd: &Path) -> Result<StopDecision, crate::report::HintedError> {
    use crate::dwp::layout;
    use crate::dwp::locate::{DiscoverOptions, discover};
    use crate::recovery::store;
    use crate::report::{HintedError, LockOwnerState};
    let plans = discover(&DiscoverOptions {
        cwd: cwd.to_path_buf(),
        path: None,
        plan: None,
        dwp_dir: None,
    })
    .map_err(|e| HintedError::usage(e.to_string()).hint(e.hint()))?;
    let mut decision = StopDecision::default();
    for loc in &plans {
        let path = loc
            .dir
            .strip_prefix(cwd)
            .unwrap_or(&loc.dir)
            .display()
            .to_string();
        let plan = match &loc.hub_repository {
            Some(repo) => format!("{}:{}", repo.trim_start_matches("repositories/"), loc.name),
            None => loc.name.clone(),
        };
        let marker = loc.dir.join(layout::MARKER_FILE).exists();
        if marker {
            decision.block.push(StopReason {
                plan: plan.clone(),
                kind: "marker",
                reason: "a publication was interrupted (.finalizing.json is there)".into(),
                fix: format!("planseal recover {path}"),
            });
        }
        let target = layout::state_target(&loc.dir);
        match store::inspect(target.path(), target.lock_style()) {
            Ok(Some(holder)) => {
                let status = store::owner_status(&holder);
                if crate::write::lock_owner_state(&status) == LockOwnerState::Dead {
                    let lock = target.lock_path();
                    let lock = lock
                        .strip_prefix(cwd)
                        .unwrap_or(&lock)
                        .display()
                        .to_string();
                    decision.block.push(StopReason {
                        plan: plan.clone(),
                        kind: "stale-lock",
                        reason: format!(
                            "{lock} is held by a writer that is gone ({holder} ({status}))"
                        ),
                        fix: format!("planseal unlock {path}"),
                    });
                }
            }
            Ok(None) => {}
            Err(e) => decision
                .errors
                .push(format!("{path}: the lock cannot be read: {e}")),
        }
        let claims_completion = match crate::dwp::read::read_plan_file(&loc.dir, layout::STATE_FILE)
        {
            Ok(Some(bytes)) => serde_json::from_slice::<serde_json::Value>(&bytes)
                .is_ok_and(|v| v.get("status").and_then(|s| s.as_str()) == Some("completed")),
            Ok(None) => false,
            Err(e) => {
                decision
                    .errors
                    .push(format!("{path}: state.json cannot be read: {}", e.reason()));
                false
            }
        };
        if !claims_completion || marker {
            continue;
        }
        let section = crate::verify::check_location(loc, cwd);
        decision.verified.push(plan.clone());
        let failed: Vec<String> = section
            .findings
            .iter()
            .filter(|f| f.severity == crate::report::Severity::Fail)
            .map(|f| match &f.hint {
                Some(h) => format!("{}: {} ({h})", f.id, f.message),
                None => format!("{}: {}", f.id, f.message),
            })
            .collect();
        if failed.is_empty() {
            continue;
        }
        let mut reason = format!(
            "state.json says completed, but verify finds it NOT CONFORMANT ({} failed):",
            failed.len()
        );
        for f in failed.iter().take(5) {
            reason.push_str(&format!("\n    {f}"));
        }
        if failed.len() > 5 {
            reason.push_str(&format!("\n    … and {} more", failed.len() - 5));
        }
        decision.block.push(StopReason {
            plan,
            kind: "not-conformant",
            reason,
            fix: format!("planseal verify {path}"),
        });
    }
    Ok(decision)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn commands() -> Commands {
        Commands::for_program("/opt/bin/planseal")
    }

    #[test]
    fn install_then_uninstall_is_the_identity() {
        for text in [
            "{}\n",
            "{}",
            "{ }",
            "{\n  \"model\": \"opus\"\n}\n",
            "{\"model\":\"opus\"}",
            "{\r\n    \"model\": \"opus\",\r\n    \"hooks\": {\r\n        \"Stop\": [\r\n            {\"hooks\": [{\"type\": \"command\", \"command\": \"say done\"}]}\r\n        ]\r\n    }\r\n}\r\n",
            "{\n\t\"permissions\": {\"allow\": [\"Bash(ls)\"]},\n\t\"hooks\": {\n\t\t\"PreToolUse\": []\n\t}\n}",
            "\u{feff}{\"a\": [1, 2], \"hooks\": {\"SessionStart\": [{\"matcher\": \"startup\", \"hooks\": []}]}}\n",
        ] {
            let installed = install(Some(text), &commands(), "f").unwrap();
            let v: serde_json::Value =
                serde_json::from_str(installed.trim_start_matches('\u{feff}'))
                    .unwrap_or_else(|e| panic!("{installed}: {e}"));
            assert_eq!(
                v["statusLine"]["command"],
                "/opt/bin/planseal gsd statusline --stdin"
            );
            assert_eq!(
                install(Some(&installed), &commands(), "f").unwrap(),
                installed,
                "idempotent"
            );
            let back = uninstall(&installed, "f").unwrap();
            let expected = (text != EMPTY_SETTINGS).then(|| text.to_string());
            assert_eq!(back, expected, "installed:\n{installed}");
        }
    }

    #[test]
    fn a_missing_file_is_created_and_removed_again() {
        let created = install(None, &commands(), "f").unwrap();
        assert_eq!(
            created,
            "{\n  \"statusLine\": {\n    \"type\": \"command\",\n    \"command\": \"/opt/bin/planseal gsd statusline --stdin\"\n  },\n  \"hooks\": {\n    \"SessionStart\": [\n      {\n        \"hooks\": [\n          {\n            \"type\": \"command\",\n            \"command\": \"/opt/bin/planseal hook session-start\"\n          }\n        ]\n      }\n    ],\n    \"Stop\": [\n      {\n        \"hooks\": [\n          {\n            \"type\": \"command\",\n            \"command\": \"/opt/bin/planseal hook stop\"\n          }\n        ]\n      }\n    ]\n  }\n}\n"
        );
        assert_eq!(uninstall(&created, "f").unwrap(), None);
    }

    #[test]
    fn another_planseal_path_is_rewritten_and_a_foreign_status_line_refused() {
        let old = install(None, &Commands::for_program("/old/planseal"), "f").unwrap();
        let new = install(Some(&old), &commands(), "f").unwrap();
        assert_eq!(new, install(None, &commands(), "f").unwrap());
        let foreign =
            "{\"statusLine\": {\"type\": \"command\", \"command\": \"node gsd-statusline.js\"}}";
        let r = install(Some(foreign), &commands(), "f").unwrap_err();
        assert_eq!(r.kind, RefusalKind::ClaudeStatuslineTaken);
        assert_eq!(uninstall(foreign, "f").unwrap().as_deref(), Some(foreign));
        let r = install(Some("{\"a\": "), &commands(), "f").unwrap_err();
        assert_eq!(r.kind, RefusalKind::ClaudeSettingsUnparseable);
        let r = install(Some("{\"hooks\": []}"), &commands(), "f").unwrap_err();
        assert_eq!(r.kind, RefusalKind::ClaudeSettingsUnparseable);
    }

    #[test]
    fn planseal_commands_are_recognised_by_program_name() {
        assert!(is_ours("/x/planseal hook stop", STOP_ARGS));
        assert!(is_ours("'/my tools/planseal' hook stop", STOP_ARGS));
        assert!(is_ours("planseal hook stop", STOP_ARGS));
        assert!(!is_ours("/x/other hook stop", STOP_ARGS));
        assert!(!is_ours("planseal hook stop && rm -rf x", STOP_ARGS));
        assert!(!is_ours("echo planseal hook stop", STOP_ARGS));
        assert_eq!(shell_word("/my tools/planseal"), "'/my tools/planseal'");
    }
}
