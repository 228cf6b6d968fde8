//! A PROJECT-CHECKPOINT.md as `## ` sections with byte ranges, so that a writer can replace one
//! section and keep every other byte. Headings are matched ignoring accents and case.

/// Lower-case, accents removed, everything but letters, digits and single spaces dropped:
/// `## 📍 Último  Trabalho Realizado` and `## Ultimo trabalho realizado` give the same key.
pub fn normalize(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for base in fold(s).chars() {
        if base.is_alphanumeric() {
            out.push(base);
        } else if !out.is_empty() && !out.ends_with(' ') {
            out.push(' ');
        }
    }
    while out.ends_with(' ') {
        out.pop();
    }
    out
}

/// Lower-case with accents removed; punctuation kept.
fn fold(s: &str) -> String {
    s.chars()
        .flat_map(char::to_lowercase)
        .filter_map(|c| match c {
            'á' | 'à' | 'â' | 'ã' | 'ä' | 'å' => Some('a'),
            'é' | 'è' | 'ê' | 'ë' => Some('e'),
            'í' | 'ì' | 'î' | 'ï' => Some('i'),
            'ó' | 'ò' | 'ô' | 'õ' | 'ö' => Some('o'),
            'ú' | 'ù' | 'û' | 'ü' => Some('u'),
            'ç' => Some('c'),
            'ñ' => Some('n'),
            // combining marks (a decomposed accent) vanish
            '\u{300}'..='\u{36f}' => None,
            c => Some(c),
        })
        .collect()
}

/// One `## ` section: the heading line through the line before the next `## ` heading.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Section {
    /// The heading as written, without `## ` and the line end.
    pub heading: String,
    /// [`normalize`]d heading.
    pub key: String,
    /// Offset of the `## ` line.
    pub start: usize,
    /// Offset just after the heading line's line end.
    pub body_start: usize,
    /// Offset of the next `## ` line, or the end of the text.
    pub end: usize,
}

impl Section {
    /// The section's text after its heading line, up to the next `## ` heading.
    pub fn body<'a>(&self, text: &'a str) -> &'a str {
        &text[self.body_start..self.end]
    }
}

/// The lines of `text` with their start offsets (each line keeps its line end).
pub fn lines_with_offsets(text: &str) -> impl Iterator<Item = (usize, &str)> {
    let mut offset = 0;
    text.split_inclusive('\n').map(move |line| {
        let at = offset;
        offset += line.len();
        (at, line)
    })
}

/// `line` without its `\n` / `\r\n`.
pub fn trim_eol(line: &str) -> &str {
    line.strip_suffix('\n')
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .unwrap_or(line)
}

fn is_fence(line: &str) -> bool {
    let t = line.trim_start();
    t.starts_with("```") || t.starts_with("~~~")
}

/// Every `## ` section of `text`, in order (headings inside fenced code are not headings).
pub fn sections(text: &str) -> Vec<Section> {
    let mut out: Vec<Section> = Vec::new();
    let mut in_fence = false;
    for (at, line) in lines_with_offsets(text) {
        if is_fence(line) {
            in_fence = !in_fence;
            continue;
        }
        if in_fence {
            continue;
        }
        let bare = trim_eol(line);
        if let Some(h) = crate::markdown::heading(bare).filter(|h| h.level == 2) {
            if let Some(last) = out.last_mut() {
                last.end = at;
            }
            let heading = h.text.to_string();
            out.push(Section {
                key: normalize(&heading),
                heading,
                start: at,
                body_start: at + line.len(),
                end: text.len(),
            });
        }
    }
    out
}

/// The line ending the text mostly uses.
pub fn newline_of(text: &str) -> &'static str {
    if text.contains("\r\n") { "\r\n" } else { "\n" }
}

/// The agent-written required sections, in the skeleton's order (normalised keys, and the
/// heading the skeleton writes).
pub const AGENT_SECTIONS: [(&str, &str); 6] = [
    ("contexto ativo", "Contexto Ativo"),
    ("status das stories", "Status das Stories"),
    ("decisoes tomadas", "Decisoes Tomadas"),
    ("ambiente configurado", "Ambiente Configurado"),
    ("ultimo trabalho realizado", "Ultimo Trabalho Realizado"),
    ("proximos passos", "Proximos Passos"),
];
/// The generated section of recent commits (normalised key, and the heading `refresh` writes).
pub const GIT_SECTION: (&str, &str) = ("git recente", "Git Recente");
/// The generated section of the `.env` keys, written only when there is a `.env` (normalised key,
/// and the heading `refresh` writes).
pub const ENV_SECTION: (&str, &str) = ("ambiente detectado", "Ambiente Detectado");
/// Other agent sections the protocol names; recognised and kept.
pub const OTHER_SECTIONS: [&str; 4] = [
    "decisoes arquiteturais",
    "documentos do projeto",
    "totais",
    "resumo do projeto",
];

/// The first section with this normalised key.
pub fn find<'s>(sections: &'s [Section], key: &str) -> Option<&'s Section> {
    sections.iter().find(|s| s.key == key)
}

const PLACEHOLDERS: [&str; 3] = [
    "(atualizado pelos agentes",
    "(nenhum",
    "(checkpoint criado automaticamente",
];

/// True when a body holds nothing but blank lines, rules and placeholder lines.
pub fn is_placeholder(body: &str) -> bool {
    body.lines().all(|l| {
        let t = l.trim().trim_matches(|c| c == '*' || c == '_').trim();
        if t.is_empty() || t.chars().all(|c| c == '-') {
            return true;
        }
        let folded = fold(t);
        PLACEHOLDERS.iter().any(|p| folded.starts_with(p))
    })
}

/// A `### ` block inside a section.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Block {
    /// The heading as written, without `### ` and surrounding blanks.
    pub heading: String,
    /// [`normalize`]d heading.
    pub key: String,
    /// Offset of the `### ` line in the whole text.
    pub start: usize,
    /// Offset of the next `### ` line, or the end of the section.
    pub end: usize,
}

/// The `### ` blocks of a section (absolute offsets), each running to the next `### ` or the end.
pub fn blocks(text: &str, section: &Section) -> Vec<Block> {
    let mut out: Vec<Block> = Vec::new();
    let mut in_fence = false;
    for (rel, line) in lines_with_offsets(section.body(text)) {
        let at = section.body_start + rel;
        if is_fence(line) {
            in_fence = !in_fence;
            continue;
        }
        if in_fence {
            continue;
        }
        if let Some(h) = crate::markdown::heading(trim_eol(line)).filter(|h| h.level == 3) {
            if let Some(last) = out.last_mut() {
                last.end = at;
            }
            out.push(Block {
                heading: h.text.to_string(),
                key: normalize(h.text),
                start: at,
                end: section.end,
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headings_match_without_accents_or_case() {
        assert_eq!(
            normalize("Último Trabalho Realizado"),
            "ultimo trabalho realizado"
        );
        assert_eq!(normalize("📍 PRÓXIMOS  passos:"), "proximos passos");
        assert_eq!(normalize("Decisões Tomadas"), "decisoes tomadas");
        assert_eq!(normalize("Decisoe\u{301}s"), "decisoes");
    }

    #[test]
    fn sections_have_exact_ranges() {
        let text = "# T\n\n## A\nbody\n```\n## not a heading\n```\n## B ##\r\nx\n";
        let s = sections(text);
        assert_eq!(s.len(), 2);
        assert_eq!(s[0].heading, "A");
        assert_eq!(s[0].body(text), "body\n```\n## not a heading\n```\n");
        assert_eq!(s[1].key, "b");
        assert_eq!(&text[s[1].start..s[1].end], "## B ##\r\nx\n");
    }

    proptest::proptest! {
        // Sections are contiguous, ordered, start at a `## ` line and end where the next begins.
        #[test]
        fn sections_tile_the_text(lines in proptest::collection::vec(
            proptest::prop_oneof![
                "## [A-Za-zÁÚé ]{0,12}", "### [a-z]{0,5}", "[a-z |-]{0,12}", proptest::strategy::Just("```".to_string())
            ], 0..30), crlf in proptest::bool::ANY) {
            let nl = if crlf { "\r\n" } else { "\n" };
            let text: String = lines.iter().map(|l| format!("{l}{nl}")).collect();
            let secs = sections(&text);
            for w in secs.windows(2) {
                proptest::prop_assert_eq!(w[0].end, w[1].start);
            }
            for s in &secs {
                proptest::prop_assert!(text[s.start..].starts_with("## "));
                proptest::prop_assert!(s.start < s.body_start && s.body_start <= s.end);
                for b in blocks(&text, s) {
                    proptest::prop_assert!(s.body_start <= b.start && b.end <= s.end);
                }
            }
            if let Some(last) = secs.last() {
                proptest::prop_assert_eq!(last.end, text.len());
            }
        }
    }

    #[test]
    fn placeholders() {
        assert!(is_placeholder("\n(atualizado pelos agentes)\n\n"));
        assert!(is_placeholder("_(nenhuma decisão registrada)_\n"));
        assert!(!is_placeholder("\n- usar Postgres\n"));
    }
}
