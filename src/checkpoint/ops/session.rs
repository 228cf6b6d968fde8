//! `checkpoint session add`: the protocol's core act — a session entry after every relevant
//! action — as a command (docs/checkpoint.md, "session add").

use super::{
    CheckpointError, Place, Written, checked_text, require_existing, unreadable_input, write_tail,
};
use crate::checkpoint::gather;
use crate::checkpoint::generate::{self, Changes};
use crate::checkpoint::layout;
use crate::checkpoint::locate::shown;
use crate::checkpoint::session::{self, StoryEntry};
use crate::checkpoint::stories::StoryFile;
use crate::clock::{Clock, format_timestamp, format_timestamp_seconds_z};
use crate::recovery::hash::sha256_hex;
use crate::report::redact::EnvRedactor;
use crate::report::text::{printable, unified_diff};
use crate::report::{Refusal, RefusalKind};
use crate::write::{JournalEntry, Writer};
use serde::Serialize;

/// `checkpoint session add`.
#[derive(Debug, Clone, Default)]
pub struct SessionOptions {
    /// The story the work was on (`3.1`, `CW-3.1`, or the story file's name).
    pub story: String,
    /// What was done: 2–3 bullets (one is accepted, with an advisory).
    pub did: Vec<String>,
    /// The files created or changed.
    pub files: Vec<String>,
    /// `NEW/TOTAL` tests.
    pub tests: (u64, u64),
    /// Show the change; write nothing.
    pub dry_run: bool,
    /// Refuse unless the checkpoint's current SHA-256 is this.
    pub expected_sha256: Option<String>,
}

/// What `checkpoint session add` did (or would do).
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct SessionOutcome {
    /// `applied`, or `ok` for a dry run.
    pub result: &'static str,
    /// Nothing was written: the change is what a run without `--dry-run` would make.
    pub dry_run: bool,
    /// The checkpoint, as the user sees it.
    pub file: String,
    /// The story's id, as its file gives it.
    pub story: String,
    /// The story's title, from its file.
    pub title: String,
    /// The story's status, from its file.
    pub status: String,
    /// The session's date (`YYYY-MM-DD`, UTC).
    pub date: String,
    /// A new `### Sessão` was opened (false: the entry joined that date's session).
    pub new_session: bool,
    /// How many old sessions were pruned (the protocol keeps 3); their text is in the journal.
    pub sessions_removed: usize,
    /// What the protocol asks for and the entry lacks (it is written all the same).
    pub advisories: Vec<String>,
    /// The unified diff of the change.
    pub diff: String,
    /// SHA-256 of the checkpoint before.
    pub sha256_before: String,
    /// SHA-256 after (what it is, or would be).
    pub sha256_after: String,
    /// The journal, as shown to the user.
    #[serde(skip)]
    pub journal: String,
    /// The write, when one was made.
    #[serde(skip)]
    pub written: Option<Written>,
}

impl SessionOutcome {
    /// The text output; control characters escaped, `.env` values not yet hidden.
    pub fn to_text(&self) -> String {
        let verb = if self.written.is_some() {
            "added"
        } else {
            "would add"
        };
        let place = if self.new_session {
            "a new session"
        } else {
            "that date's session"
        };
        let mut out = format!(
            "{}: {verb} Story {} — {} ({}) to {place} ({})\n",
            self.file, self.story, self.title, self.status, self.date
        );
        for a in &self.advisories {
            out.push_str(&format!("advisory: {a}\n"));
        }
        if self.sessions_removed > 0 {
            out.push_str(&format!(
                "{} older session(s) pruned (the protocol keeps 3); their text is in {}\n",
                self.sessions_removed, self.journal
            ));
        }
        write_tail(
            &mut out,
            self.written.is_some(),
            &self.diff,
            &self.sha256_after,
        );
        printable(&out).into_owned()
    }
}

/// Adds the session entry (docs/checkpoint.md, "session add").
pub fn session_add(
    place: &Place,
    opts: &SessionOptions,
    clock: &mut Clock,
) -> Result<SessionOutcome, CheckpointError> {
    check_texts(opts)?;
    let (target, name) = place.locate()?;
    require_existing(&target, &name)?;
    let g = gather(&target, None).map_err(unreadable_input)?;
    let before_sha = sha256_hex(&g.bytes);
    let old = checked_text(&g.bytes, opts.expected_sha256.as_deref(), &name)?;
    let story = find_story(&g.stories, &opts.story, &name)?;
    let mut advisories = Vec::new();
    if opts.did.len() == 1 {
        advisories
            .push("the protocol asks for 2–3 bullets of what was done; one was given".to_string());
    }
    let story_text =
        crate::recovery::read::read_existing(&story.path, crate::recovery::read::Kind::Document)
            .map_err(crate::write::WriteError::read)?;
    let title = match session::story_title(&String::from_utf8_lossy(&story_text)) {
        Some(t) => t,
        None => {
            advisories.push(format!(
                "{} has no `title:` and no `# ` heading; its file name stands for the title",
                shown(&story.path, &place.cwd)
            ));
            story.stem.clone()
        }
    };
    let status = match &story.status {
        Some(s) => s.clone(),
        None => {
            advisories.push(format!(
                "{} has no `status:`; the entry says `?`",
                shown(&story.path, &place.cwd)
            ));
            "?".to_string()
        }
    };
    let now = clock.now();
    let stamp = format_timestamp_seconds_z(now);
    let date = stamp[..10].to_string();
    let entry = StoryEntry {
        story: &story.id,
        title: &title,
        status: &status,
        did: &opts.did,
        files: &opts.files,
        tests: opts.tests,
    };
    let added = session::add(old, &date, &entry).map_err(|e| {
        Refusal::new(RefusalKind::SectionMissing, format!("{name}: {e}; nothing was written"))
            .hint("bring it back: `planseal checkpoint restore --from REV --section \"Ultimo Trabalho Realizado\"`, or add the heading by hand")
    })?;
    let mut changes = Changes::default();
    let pruned = generate::prune(&added.text, &mut changes).map_err(|e| {
        Refusal::new(RefusalKind::SessionOrderUnknown, format!("{name}: {e}"))
            .hint("give every `### Sessão` heading a date, then add the session again")
    })?;
    let new = generate::touch_update_line(&pruned, &stamp);
    let cp_target = layout::checkpoint_target(&target.checkpoint);
    let mut outcome = SessionOutcome {
        result: "ok",
        dry_run: true,
        diff: unified_diff(old, &new, &name),
        file: name,
        story: story.id.clone(),
        title,
        status,
        date: date.clone(),
        new_session: added.new_session,
        sessions_removed: changes.sessions_removed.len(),
        advisories,
        sha256_before: before_sha,
        sha256_after: sha256_hex(new.as_bytes()),
        journal: shown(cp_target.journal().path(), &place.cwd),
        written: None,
    };
    if opts.dry_run {
        return Ok(outcome);
    }
    let redactor = EnvRedactor::from_env_bytes(g.env.as_deref());
    let removed: Vec<String> = changes
        .sessions_removed
        .iter()
        .map(|s| redactor.clean(s))
        .collect();
    let line = JournalEntry::for_file(
        format_timestamp(now),
        "checkpoint-session-add",
        &target.checkpoint.display().to_string(),
    )
    .with("story", story.id.clone())
    .with("date", date)
    .with("new_session", added.new_session)
    .with("sessions_removed", removed);
    let committed = Writer::from_env().commit(&cp_target, Some(&g.bytes), new.as_bytes(), line)?;
    outcome.written = Some(Written {
        path: target.checkpoint.clone(),
        committed,
    });
    outcome.result = "applied";
    outcome.dry_run = false;
    Ok(outcome)
}

fn find_story<'s>(
    stories: &'s [StoryFile],
    wanted: &str,
    name: &str,
) -> Result<&'s StoryFile, Refusal> {
    stories.iter().find(|s| s.matches(wanted)).ok_or_else(|| {
        let ids: Vec<&str> = stories.iter().map(|s| s.id.as_str()).collect();
        let hint = if ids.is_empty() {
            "the checkpoint's stories/ folder holds no story file; create the story first"
                .to_string()
        } else {
            format!("the stories are: {}", ids.join(", "))
        };
        Refusal::new(
            RefusalKind::StoryNotFound,
            format!("{name}: no story file has the id `{wanted}`; nothing was written"),
        )
        .hint(hint)
    })
}

/// `--did` 1 to 3 times, each one line; `--files` and the story one line each.
fn check_texts(opts: &SessionOptions) -> Result<(), Refusal> {
    let one_line =
        |t: &str| !t.trim().is_empty() && !t.contains(['\n', '\r']) && t.chars().count() <= 300;
    if opts.did.is_empty() || opts.did.len() > 3 {
        return Err(Refusal::new(
            RefusalKind::UsageError,
            format!(
                "--did is given {} time(s); the protocol's entry has 1 to 3 bullets (2–3 asked)",
                opts.did.len()
            ),
        )
        .hint("--did \"wired the SSO callback\" --did \"added the token refresh\""));
    }
    for (flag, t) in opts
        .did
        .iter()
        .map(|d| ("--did", d.as_str()))
        .chain(opts.files.iter().map(|f| ("--files", f.as_str())))
        .chain(std::iter::once(("--story", opts.story.as_str())))
    {
        if !one_line(t) {
            return Err(Refusal::new(
                RefusalKind::UsageError,
                format!("{flag} must be one line of 1 to 300 characters"),
            )
            .hint(format!("e.g. {flag} \"src/login.rs\"")));
        }
    }
    Ok(())
}
