//! Story files (`stories/**/*.md`) and the story status table of the checkpoint.

use super::doc::{lines_with_offsets, normalize, trim_eol};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// One story file as far as the checkpoint cares.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct StoryFile {
    /// `id:` / `story:` front-matter value, else the file name without `.md` (and without a
    /// `.story` suffix: `1.2.story.md` is story `1.2`).
    pub id: String,
    /// The file name without `.md` (a row may name the story this way too).
    pub stem: String,
    /// The front-matter `status:`, else the first `Status:` / `**Status:**` line; `None` when the
    /// file has neither.
    pub status: Option<String>,
    /// Where the file is.
    pub path: PathBuf,
}

impl StoryFile {
    /// Does a table's first cell name this story?
    pub fn matches(&self, cell: &str) -> bool {
        let c = cell.trim();
        self.names().iter().any(|n| c.eq_ignore_ascii_case(n))
    }

    /// The names a row may give this story: its id, its file stem, and the stem without `.story`
    /// (`1.2.story.md` is story `1.2` in the protocol's own naming).
    pub fn names(&self) -> [&str; 3] {
        let short = self.stem.strip_suffix(".story").unwrap_or(&self.stem);
        [self.id.as_str(), self.stem.as_str(), short]
    }
}

/// A table cell as [`StoryFile::matches`] compares it: trimmed and ASCII case folded. Keys of
/// this form let a lookup replace a scan of every story (or row) per row (or story).
pub fn cell_key(cell: &str) -> String {
    cell.trim().to_ascii_lowercase()
}

/// The stories by every name a row may give them: `find(cell)` is the first story (in the
/// slice's order) that `matches` the cell, without comparing the cell with each story.
#[derive(Debug, Clone, Default)]
pub struct StoryLookup {
    first: HashMap<String, usize>,
}

impl StoryLookup {
    /// Indexes `stories` by their names (folded, not trimmed: `matches` trims only the cell).
    pub fn new(stories: &[StoryFile]) -> Self {
        let mut first = HashMap::new();
        for (i, s) in stories.iter().enumerate() {
            for name in s.names() {
                first.entry(name.to_ascii_lowercase()).or_insert(i);
            }
        }
        Self { first }
    }

    /// The index of the first story that [`StoryFile::matches`] `cell`.
    pub fn find(&self, cell: &str) -> Option<usize> {
        self.first.get(&cell_key(cell)).copied()
    }
}

fn clean_value(v: &str) -> String {
    let v = v.trim().trim_matches('*').trim();
    let v = v.split(" #").next().unwrap_or(v).trim();
    v.trim_matches(|c| c == '"' || c == '\'').trim().to_string()
}

/// Reads `id`/`story` and `status` from a story's text: front matter first, else the first
/// `status:` / `**Status:**` line.
pub fn parse_story(text: &str, stem: &str, path: PathBuf) -> StoryFile {
    let mut id = None;
    let mut status = None;
    let mut lines = text.lines();
    if lines.next().map(str::trim) == Some("---") {
        for l in lines.by_ref() {
            if l.trim() == "---" {
                break;
            }
            if let Some((k, v)) = l.split_once(':') {
                let key = k.trim().to_lowercase();
                if (key == "id" || key == "story") && id.is_none() {
                    id = Some(clean_value(v));
                } else if key == "status" && status.is_none() {
                    status = Some(clean_value(v));
                }
            }
        }
    }
    if status.is_none() {
        for l in text.lines() {
            let t = l.trim_start().trim_start_matches(['-', '*', ' ']);
            let lower = t.to_lowercase();
            if let Some(rest) = lower.strip_prefix("status") {
                let rest = rest.trim_start_matches('*').trim_start();
                if let Some(value) = rest.strip_prefix(':') {
                    // take the value from the original line, same length after the prefix
                    let offset = t.len() - value.len();
                    let v = clean_value(&t[offset..]);
                    if !v.is_empty() {
                        status = Some(v);
                        break;
                    }
                }
            }
        }
    }
    StoryFile {
        id: id
            .filter(|s| !s.is_empty())
            .unwrap_or_else(|| stem.strip_suffix(".story").unwrap_or(stem).to_string()),
        stem: stem.to_string(),
        status: status.filter(|s| !s.is_empty()),
        path,
    }
}

/// Why the stories could not be read: the folder walk failed, or a story file was refused.
#[derive(Debug)]
pub enum StoriesError {
    /// Listing the folder failed.
    Io(std::io::Error),
    /// A story file could not be read (a FIFO, a folder, too large, an I/O error).
    Read(planseal_recovery::read::ReadError),
}

/// Every `*.md` under `dir` (recursively, sorted), read as stories. A missing folder is none.
pub fn read_stories(dir: &Path) -> Result<Vec<StoryFile>, StoriesError> {
    let mut files = Vec::new();
    collect(dir, &mut files).map_err(StoriesError::Io)?;
    files.sort();
    let mut out = Vec::new();
    for f in files {
        let bytes =
            planseal_recovery::read::read_existing(&f, planseal_recovery::read::Kind::Document)
                .map_err(StoriesError::Read)?;
        let text = String::from_utf8_lossy(&bytes).into_owned();
        let stem = f
            .file_name()
            .and_then(|n| n.to_str())
            .map(|n| n.strip_suffix(".md").unwrap_or(n).to_string())
            .unwrap_or_default();
        out.push(parse_story(&text, &stem, f));
    }
    Ok(out)
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(e),
    };
    for e in entries {
        let e = e?;
        let ft = e.file_type()?;
        let p = e.path();
        if ft.is_dir() {
            collect(&p, out)?;
        } else if p.extension().is_some_and(|x| x == "md") {
            out.push(p);
        }
    }
    Ok(())
}

/// The cells of a table row with their byte ranges inside the line (leading/trailing `|` off).
pub fn cells(line: &str) -> Vec<(usize, usize)> {
    let bare = trim_eol(line);
    let t_start = bare.len() - bare.trim_start().len();
    let trimmed = bare.trim_end();
    let mut bounds = Vec::new();
    let b = trimmed.as_bytes();
    let mut i = t_start;
    if b.get(i) == Some(&b'|') {
        i += 1;
    }
    let mut cell_start = i;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 1,
            b'|' => {
                bounds.push((cell_start, i));
                cell_start = i + 1;
            }
            _ => {}
        }
        i += 1;
    }
    if cell_start < b.len() {
        bounds.push((cell_start, b.len()));
    }
    bounds
}

/// A markdown table: absolute offsets of each line, the header cells and where the story and
/// status columns are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Table {
    /// The header cells, trimmed, as written.
    pub header: Vec<String>,
    /// The index of the story column (headed `Story`, `ID`, `Historia` or `Stories`, compared
    /// normalised).
    pub story_col: usize,
    /// The index of the `Status` column, when the table has one.
    pub status_col: Option<usize>,
    /// (offset, line) of each data row (after the separator).
    pub rows: Vec<(usize, String)>,
    /// Offset just after the table's last line.
    pub end: usize,
}

impl Table {
    /// The trimmed cells of one row line, in column order.
    pub fn row_cells(&self, row: &str) -> Vec<String> {
        cells(row)
            .into_iter()
            .map(|(a, b)| row[a..b].trim().to_string())
            .collect()
    }
    /// The story id of each data row (its story cell), in order.
    pub fn ids(&self) -> Vec<String> {
        self.rows
            .iter()
            .filter_map(|(_, r)| self.row_cells(r).get(self.story_col).cloned())
            .collect()
    }
}

fn is_separator(line: &str) -> bool {
    let t = trim_eol(line).trim();
    t.starts_with('|') && t.chars().all(|c| matches!(c, '|' | '-' | ':' | ' '))
}

/// The first table in `text[from..to]` with a `Story` (or `ID`) header cell.
pub fn find_story_table(text: &str, from: usize, to: usize) -> Option<Table> {
    let region = &text[from..to];
    let lines: Vec<(usize, &str)> = lines_with_offsets(region).collect();
    let mut i = 0;
    while i < lines.len() {
        let (at, line) = lines[i];
        if line.trim_start().starts_with('|')
            && lines.get(i + 1).is_some_and(|(_, l)| is_separator(l))
        {
            let header: Vec<String> = cells(line)
                .into_iter()
                .map(|(a, b)| line[a..b].trim().to_string())
                .collect();
            let keys: Vec<String> = header.iter().map(|h| normalize(h)).collect();
            let story_col = keys
                .iter()
                .position(|k| k == "story" || k == "id" || k == "historia" || k == "stories");
            if let Some(story_col) = story_col {
                let status_col = keys.iter().position(|k| k == "status");
                let mut rows = Vec::new();
                let mut j = i + 2;
                let mut end = from + lines[i + 1].0 + lines[i + 1].1.len();
                while j < lines.len() && lines[j].1.trim_start().starts_with('|') {
                    rows.push((from + lines[j].0, lines[j].1.to_string()));
                    end = from + lines[j].0 + lines[j].1.len();
                    j += 1;
                }
                let _ = at;
                return Some(Table {
                    header,
                    story_col,
                    status_col,
                    rows,
                    end,
                });
            }
        }
        i += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn front_matter_and_status_lines() {
        let s = parse_story(
            "---\nid: CW-3.1\nstatus: InProgress\n---\n# x\n",
            "3.1",
            PathBuf::new(),
        );
        assert_eq!(
            (s.id.as_str(), s.status.as_deref()),
            ("CW-3.1", Some("InProgress"))
        );
        let s = parse_story(
            "# Story\n\n**Status:** Ready for Review\n",
            "1.2.story",
            PathBuf::new(),
        );
        assert_eq!(
            (s.id.as_str(), s.status.as_deref()),
            ("1.2", Some("Ready for Review"))
        );
        assert!(s.matches("1.2.STORY"));
    }

    #[test]
    fn table_with_extra_columns() {
        let text = "intro\n| Story | Título | Status | Notas |\n|---|---|---|---|\n| CW-1.1 | Login | Done | a \\| b |\n| CW-1.2 | Logout | Draft | |\n\nafter\n";
        let t = find_story_table(text, 0, text.len()).expect("table");
        assert_eq!(t.story_col, 0);
        assert_eq!(t.status_col, Some(2));
        assert_eq!(t.ids(), ["CW-1.1", "CW-1.2"]);
        assert_eq!(t.row_cells(&t.rows[0].1)[3], "a \\| b");
        assert_eq!(&text[t.end..], "\nafter\n");
    }
}
