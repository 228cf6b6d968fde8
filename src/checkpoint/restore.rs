//! Bringing a lost `## ` section back from an earlier version of the checkpoint (docs/checkpoint.md,
//! "restore"). Pure: the file now and the file at a revision in, the new text out.
//!
//! A section is lost when the earlier version has it with content and the file now has it not
//! at all, or only with a placeholder body. It goes back where it stood: after the section that
//! preceded it then (when that one is still there), else before the one that followed it, else
//! at the end. Every other byte stays.

use super::doc::{self, Section, is_placeholder, normalize, sections};

/// A section of the earlier version the file lost.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct LostSection {
    /// The heading as the earlier version wrote it.
    pub heading: String,
    /// The file now has the heading, with a placeholder body only.
    pub placeholder_now: bool,
}

/// Every section the earlier version had with content that the file lost, in its order.
pub fn lost(now: &str, then: &str) -> Vec<LostSection> {
    let now_secs = sections(now);
    sections(then)
        .iter()
        .filter(|s| !is_placeholder(s.body(then)))
        .filter_map(|s| match now_secs.iter().find(|n| n.key == s.key) {
            None => Some(LostSection {
                heading: s.heading.clone(),
                placeholder_now: false,
            }),
            Some(n) if is_placeholder(n.body(now)) => Some(LostSection {
                heading: s.heading.clone(),
                placeholder_now: true,
            }),
            Some(_) => None,
        })
        .collect()
}

/// Why a section cannot be restored.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RestoreError {
    /// The earlier version has no section of that name (its headings listed).
    #[error("the revision has no section `{name}` (it has: {})", .available.join(", "))]
    NotFound {
        /// The name asked for.
        name: String,
        /// The headings the revision has.
        available: Vec<String>,
    },
    /// The file has the section now, with content.
    #[error("`## {0}` is there now with content; restore only brings back a lost section")]
    Present(String),
}

/// The text with the section named `name` (matched ignoring accents and case) of `then` put
/// back; its heading as `then` wrote it.
pub fn restore(now: &str, then: &str, name: &str) -> Result<(String, String), RestoreError> {
    let key = normalize(name);
    let then_secs = sections(then);
    let Some(pos) = then_secs.iter().position(|s| s.key == key) else {
        return Err(RestoreError::NotFound {
            name: name.to_string(),
            available: then_secs.iter().map(|s| s.heading.clone()).collect(),
        });
    };
    let old = &then_secs[pos];
    let nl = doc::newline_of(now);
    let block = convert(trim_blank_end(&then[old.start..old.end]), nl);
    let now_secs = sections(now);
    if let Some(n) = now_secs.iter().find(|n| n.key == key) {
        if !is_placeholder(n.body(now)) {
            return Err(RestoreError::Present(n.heading.clone()));
        }
        // The placeholder body gives way to the earlier one (the heading line stays as it is).
        let body = convert(trim_blank_end(old.body(then)), nl);
        let tail = blank_tail(&now[n.start..n.end]);
        let text = format!("{}{body}{nl}{tail}{}", &now[..n.body_start], &now[n.end..]);
        return Ok((text, old.heading.clone()));
    }
    let find_now = |s: &Section| now_secs.iter().find(|n| n.key == s.key);
    let after = then_secs[..pos].iter().rev().find_map(find_now);
    let before = then_secs[pos + 1..].iter().find_map(find_now);
    let text = match (after, before) {
        (Some(a), _) => {
            // After the preceding section's content; its blank lines now follow this one.
            let content_end = a.start + trim_blank_end(&now[a.start..a.end]).len();
            format!(
                "{}{nl}{nl}{block}{}",
                &now[..content_end],
                &now[content_end..]
            )
        }
        (None, Some(b)) => format!("{}{block}{nl}{nl}{}", &now[..b.start], &now[b.start..]),
        (None, None) => {
            let kept = trim_blank_end(now);
            let sep = if kept.is_empty() {
                String::new()
            } else {
                format!("{nl}{nl}")
            };
            format!("{kept}{sep}{block}{nl}")
        }
    };
    Ok((text, old.heading.clone()))
}

/// A text without its trailing blank lines (and without the line end of its last line).
fn trim_blank_end(s: &str) -> &str {
    s.trim_end_matches(['\n', '\r', ' ', '\t'])
}

/// The blank lines at the end of a section (what separates it from the next one).
fn blank_tail(s: &str) -> &str {
    let content = trim_blank_end(s).len();
    let rest = &s[content..];
    rest.strip_prefix("\r\n")
        .or_else(|| rest.strip_prefix('\n'))
        .unwrap_or(rest)
}

fn convert(s: &str, nl: &str) -> String {
    let lf = s.replace("\r\n", "\n");
    if nl == "\n" { lf } else { lf.replace('\n', nl) }
}

#[cfg(test)]
mod tests {
    use super::*;

    const THEN: &str = "# C\n\n## Contexto Ativo\n\nstory 3.1\n\n## Decisoes Tomadas\n\n- usar Postgres\n\n## Proximos Passos\n\n- [ ] x\n";

    #[test]
    fn a_lost_section_goes_back_where_it_stood() {
        let now = "# C\n\n## Contexto Ativo\n\nstory 3.2\n\n## Proximos Passos\n\n- [ ] y\n";
        assert_eq!(
            lost(now, THEN),
            [LostSection {
                heading: "Decisoes Tomadas".into(),
                placeholder_now: false
            }]
        );
        let (text, heading) = restore(now, THEN, "decisões tomadas").unwrap();
        assert_eq!(heading, "Decisoes Tomadas");
        assert_eq!(
            text,
            "# C\n\n## Contexto Ativo\n\nstory 3.2\n\n## Decisoes Tomadas\n\n- usar Postgres\n\n## Proximos Passos\n\n- [ ] y\n"
        );
        assert!(matches!(
            restore(now, THEN, "Contexto Ativo"),
            Err(RestoreError::Present(_))
        ));
        assert!(matches!(
            restore(now, THEN, "Nada"),
            Err(RestoreError::NotFound { .. })
        ));
    }

    #[test]
    fn a_placeholder_body_is_replaced_and_crlf_kept() {
        let now = "# C\r\n\r\n## Decisoes Tomadas\r\n\r\n(nenhuma decisao registrada)\r\n\r\n## Proximos Passos\r\n\r\n- [ ] y\r\n";
        let (text, _) = restore(now, THEN, "Decisoes Tomadas").unwrap();
        assert_eq!(
            text,
            "# C\r\n\r\n## Decisoes Tomadas\r\n\r\n- usar Postgres\r\n\r\n## Proximos Passos\r\n\r\n- [ ] y\r\n"
        );
    }

    #[test]
    fn the_last_section_is_appended() {
        let now = "# C\n\n## Contexto Ativo\n\nstory\n";
        let (text, _) = restore(now, THEN, "Proximos Passos").unwrap();
        assert_eq!(
            text,
            "# C\n\n## Contexto Ativo\n\nstory\n\n## Proximos Passos\n\n- [ ] x\n"
        );
    }
}
