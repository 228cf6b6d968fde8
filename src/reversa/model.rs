//! Reading `.reversa/state.json`: the bytes, the JSON value (key order kept) and the phase
//! vocabulary. Typed views only read; writers splice the original text (see [`super::splice`]).

use serde_json::{Map, Value};

/// The five phases, in order, in the original's Portuguese names.
pub const PHASES_PT: [&str; 5] = [
    "reconhecimento",
    "escavacao",
    "interpretacao",
    "geracao",
    "revisao",
];
/// The same five phases as the English fork names them.
pub const PHASES_EN: [&str; 5] = [
    "reconnaissance",
    "excavation",
    "interpretation",
    "generation",
    "review",
];

/// Fields that record the spec-organisation decision, which belongs in `.reversa/config.toml`.
pub const SPEC_DECISION_FIELDS: [&str; 3] = ["specs_choice", "granularity", "custom_folders"];

/// The fields Reversa's own description documents, in its order.
pub const KNOWN_FIELDS: [&str; 15] = [
    "version",
    "project",
    "user_name",
    "chat_language",
    "doc_language",
    "answer_mode",
    "doc_level",
    "output_folder",
    "phase",
    "completed",
    "pending",
    "engines",
    "agents",
    "checkpoints",
    "created_files",
];

/// Which language a file names its phases in; one file uses one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Vocabulary {
    /// The original's names ([`PHASES_PT`]: `reconhecimento` … `revisao`).
    Portuguese,
    /// The English fork's names ([`PHASES_EN`]: `reconnaissance` … `review`).
    English,
}

impl Vocabulary {
    /// The five phase names of this vocabulary, in order.
    pub fn names(self) -> &'static [&'static str; 5] {
        match self {
            Vocabulary::Portuguese => &PHASES_PT,
            Vocabulary::English => &PHASES_EN,
        }
    }
    /// The vocabulary's name in messages (`Portuguese`, `English`).
    pub fn label(self) -> &'static str {
        match self {
            Vocabulary::Portuguese => "Portuguese",
            Vocabulary::English => "English",
        }
    }
}

/// The vocabulary and position (0-based) of a phase name, if it is one.
pub fn phase_position(name: &str) -> Option<(Vocabulary, usize)> {
    if let Some(i) = PHASES_PT.iter().position(|p| *p == name) {
        return Some((Vocabulary::Portuguese, i));
    }
    PHASES_EN
        .iter()
        .position(|p| *p == name)
        .map(|i| (Vocabulary::English, i))
}

/// Why a state file could not be read as a JSON object.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReadError {
    /// The bytes are not UTF-8; the value is the offset of the first bad byte.
    #[error("the file is not UTF-8 text (byte {0})")]
    NotUtf8(usize),
    /// The text does not parse as JSON.
    #[error("the file is not valid JSON: {message}")]
    Json {
        /// serde_json's message, which names the line and column too.
        message: String,
        /// The 1-based line where parsing stopped (in the text without its BOM).
        line: usize,
        /// The 1-based column where parsing stopped.
        column: usize,
    },
    /// The text is JSON, but not an object.
    #[error("the top level is not a JSON object")]
    NotObject,
}

/// One state.json as read: the text (without a BOM), whether it had one, and its value.
#[derive(Debug, Clone)]
pub struct StateFile {
    /// The file started with a UTF-8 byte-order mark (writers put it back).
    pub bom: bool,
    /// The file's text, without the BOM; writers splice their changes into it.
    pub text: String,
    /// The top-level object, keys in file order.
    pub object: Map<String, Value>,
}

const BOM: &str = "\u{feff}";

impl StateFile {
    /// Parses the raw bytes (a UTF-8 BOM is accepted, as the original strips it on read).
    pub fn parse(bytes: &[u8]) -> Result<Self, ReadError> {
        let text = std::str::from_utf8(bytes).map_err(|e| ReadError::NotUtf8(e.valid_up_to()))?;
        let (bom, text) = match text.strip_prefix(BOM) {
            Some(rest) => (true, rest),
            None => (false, text),
        };
        let value: Value = serde_json::from_str(text).map_err(|e| ReadError::Json {
            message: e.to_string(),
            line: e.line(),
            column: e.column(),
        })?;
        match value {
            Value::Object(object) => Ok(Self {
                bom,
                text: text.to_string(),
                object,
            }),
            _ => Err(ReadError::NotObject),
        }
    }

    /// The bytes of `text` with this file's BOM choice applied.
    pub fn with_bom(&self, text: &str) -> Vec<u8> {
        let mut out = Vec::with_capacity(text.len() + 3);
        if self.bom {
            out.extend_from_slice(BOM.as_bytes());
        }
        out.extend_from_slice(text.as_bytes());
        out
    }

    /// A top-level field's value, when present.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.object.get(key)
    }

    /// A top-level field's value when it is a string; `None` when absent or of another type.
    pub fn str_field(&self, key: &str) -> Option<&str> {
        self.object.get(key).and_then(Value::as_str)
    }

    /// The phase bookkeeping view (fields of the wrong type read as absent).
    pub fn phases(&self) -> Phases {
        Phases::from_object(&self.object)
    }
}

fn string_list(v: Option<&Value>) -> Vec<String> {
    v.and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

/// `phase`, `completed` and `pending` as read.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct Phases {
    /// The current phase; `None` when `phase` is null, absent or not a string.
    pub phase: Option<String>,
    /// The string entries of `completed`, in order (empty when absent or not an array).
    pub completed: Vec<String>,
    /// The string entries of `pending`, in order (empty when absent or not an array).
    pub pending: Vec<String>,
}

/// Where a Reversa analysis stands. There is no terminal phase value: `phase: null` means not
/// started when nothing is completed and finished when all five phases are.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Progress {
    /// `phase: null` and nothing completed.
    NotStarted,
    /// A phase is current.
    InProgress,
    /// `phase: null` and all five completed.
    Finished,
    /// `phase: null` with some but not all phases completed.
    Inconsistent,
}

impl Progress {
    /// How `reversa status` says it (`not started`, `in progress`, `finished`, `inconsistent`).
    pub fn label(self) -> &'static str {
        match self {
            Progress::NotStarted => "not started",
            Progress::InProgress => "in progress",
            Progress::Finished => "finished",
            Progress::Inconsistent => "inconsistent",
        }
    }
}

impl Phases {
    /// The bookkeeping of a state object; fields of the wrong type read as absent.
    pub fn from_object(object: &Map<String, Value>) -> Self {
        Self {
            phase: object
                .get("phase")
                .and_then(Value::as_str)
                .map(str::to_string),
            completed: string_list(object.get("completed")),
            pending: string_list(object.get("pending")),
        }
    }

    /// Every phase name used anywhere in the bookkeeping.
    pub fn all_names(&self) -> impl Iterator<Item = &str> {
        self.phase
            .iter()
            .chain(self.completed.iter())
            .chain(self.pending.iter())
            .map(String::as_str)
    }

    /// The vocabulary the file uses: `Ok(None)` when it names no phase, `Err` on a mix.
    pub fn vocabulary(&self) -> Result<Option<Vocabulary>, (Vocabulary, Vocabulary)> {
        let mut found: Option<Vocabulary> = None;
        for name in self.all_names() {
            if let Some((v, _)) = phase_position(name) {
                match found {
                    None => found = Some(v),
                    Some(f) if f != v => return Err((f, v)),
                    _ => {}
                }
            }
        }
        Ok(found)
    }

    /// Where the analysis stands, from `phase` and `completed`.
    pub fn progress(&self) -> Progress {
        match &self.phase {
            Some(_) => Progress::InProgress,
            None if self.completed.is_empty() => Progress::NotStarted,
            None => {
                let all = PHASES_PT
                    .iter()
                    .enumerate()
                    .all(|(i, _)| self.completed_position(i));
                if all {
                    Progress::Finished
                } else {
                    Progress::Inconsistent
                }
            }
        }
    }

    fn completed_position(&self, index: usize) -> bool {
        self.completed
            .iter()
            .any(|c| phase_position(c).is_some_and(|(_, i)| i == index))
    }

    /// How far the analysis got: the number of phases in order that are behind it. The current
    /// phase's index while one is current; 5 when finished; else the completed prefix.
    pub fn rank(&self) -> usize {
        if let Some(p) = &self.phase
            && let Some((_, i)) = phase_position(p)
        {
            return i;
        }
        (0..5).take_while(|&i| self.completed_position(i)).count()
    }

    /// The first phase (by position) that is not completed, if any.
    pub fn next_position(&self) -> Option<usize> {
        (0..5).find(|&i| !self.completed_position(i))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bom_is_stripped_and_remembered() {
        let f = StateFile::parse("\u{feff}{\"phase\":null}".as_bytes()).expect("parses");
        assert!(f.bom);
        assert_eq!(f.text, "{\"phase\":null}");
        assert_eq!(f.with_bom("{}"), "\u{feff}{}".as_bytes());
        assert_eq!(f.phases().progress(), Progress::NotStarted);
    }

    #[test]
    fn not_an_object_or_not_json() {
        assert_eq!(
            StateFile::parse(b"[1]").map(|_| ()),
            Err(ReadError::NotObject)
        );
        assert!(matches!(
            StateFile::parse(b"{\"a\":"),
            Err(ReadError::Json { .. })
        ));
        assert!(matches!(
            StateFile::parse(b"{\"a\":\"\xff\"}"),
            Err(ReadError::NotUtf8(_))
        ));
    }

    #[test]
    fn progress_and_rank() {
        let p = |phase: Option<&str>, done: &[&str]| Phases {
            phase: phase.map(str::to_string),
            completed: done.iter().map(|s| s.to_string()).collect(),
            pending: vec![],
        };
        assert_eq!(p(None, &PHASES_PT).progress(), Progress::Finished);
        assert_eq!(p(None, &PHASES_PT).rank(), 5);
        assert_eq!(
            p(None, &["reconhecimento"]).progress(),
            Progress::Inconsistent
        );
        assert_eq!(p(Some("geracao"), &[]).rank(), 3);
        assert_eq!(
            p(Some("excavation"), &["reconnaissance"]).vocabulary(),
            Ok(Some(Vocabulary::English))
        );
        assert!(
            p(Some("escavacao"), &["reconnaissance"])
                .vocabulary()
                .is_err()
        );
    }
}
