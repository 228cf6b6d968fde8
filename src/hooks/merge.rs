//! The merge driver's registration (`docs/merge.md`), as text edits of the two files git reads
//! it from — pure, so that an install followed by an uninstall is provably the identity:
//!
//! - the repository's git config gets the section
//!   ```text
//!   [merge "planseal"]
//!       name = planseal: plan state files merged by meaning
//!       driver = /path/to/planseal merge-driver %O %A %B %L %P %S %X %Y
//!   ```
//! - the work tree's `.gitattributes` gets [`ATTRIBUTE_LINES`] after [`ATTRIBUTES_HEADER`].
//!
//! Installing adds only what is missing (a present entry with another value is set to this one)
//! and appends at the end; uninstalling removes exactly those lines. Every other byte of both
//! files stays.

/// The driver's name in `merge=<name>` and `[merge "<name>"]`.
pub const DRIVER_NAME: &str = "planseal";
/// The config section's header line.
pub const SECTION_HEADER: &str = "[merge \"planseal\"]";
/// The driver's human name (`merge.planseal.name`).
pub const DRIVER_LABEL: &str = "planseal: plan state files merged by meaning";
/// What git passes the driver, after the program: every placeholder of git's protocol.
pub const DRIVER_ARGUMENTS: &str = "merge-driver %O %A %B %L %P %S %X %Y";
/// The comment line above the attribute lines.
pub const ATTRIBUTES_HEADER: &str =
    "# plan state files merged by planseal (planseal hooks install --merge; docs/merge.md)";
/// The `.gitattributes` lines: every plan state file the driver knows, wherever it lives in the
/// work tree (an orchestrator hub's child plans included).
pub const ATTRIBUTE_LINES: [&str; 10] = [
    "**/.dwp/plans/*/state.json merge=planseal",
    "**/.dwp/plans/*/manifest.json merge=planseal",
    "**/.dwp/plans/*/.finalizing.json merge=planseal",
    "**/.dwp/plans/*/analysis_results/FINALIZATION.json merge=planseal",
    "**/.dwp/plans/*/analysis_results/STATE_JOURNAL.ndjson merge=planseal",
    ".planning/STATE.md merge=planseal",
    ".planning/workstreams/*/STATE.md merge=planseal",
    ".reversa/state.json merge=planseal",
    "PROJECT-CHECKPOINT.md merge=planseal",
    "*.journal.ndjson merge=planseal",
];

/// The shell command git runs: `program` (quoted for the shell when it needs to be) and
/// [`DRIVER_ARGUMENTS`].
pub fn driver_command(program: &str) -> String {
    let plain = !program.is_empty()
        && program
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-+,:@%".contains(c));
    let program = if plain {
        program.to_string()
    } else {
        format!("'{}'", program.replace('\'', "'\\''"))
    };
    format!("{program} {DRIVER_ARGUMENTS}")
}

/// A value as git's config syntax reads it back unchanged: quoted (with `\` and `"` escaped)
/// when it holds a comment character, a quote, a backslash or blanks at its ends.
fn config_value(value: &str) -> String {
    let needs_quotes = value.contains(['#', ';', '"', '\\'])
        || value.starts_with([' ', '\t'])
        || value.ends_with([' ', '\t']);
    if needs_quotes {
        format!("\"{}\"", value.replace('\\', "\\\\").replace('"', "\\\""))
    } else {
        value.to_string()
    }
}

/// The two entries the section holds: (key, `key = value` line).
fn entries(driver: &str) -> [(&'static str, String); 2] {
    [
        ("name", format!("\tname = {}", config_value(DRIVER_LABEL))),
        ("driver", format!("\tdriver = {}", config_value(driver))),
    ]
}

fn newline_of(text: &str) -> &'static str {
    if text.contains("\r\n") { "\r\n" } else { "\n" }
}

/// Whether a config line is the header of the driver's section (`[merge "planseal"]`, blanks
/// allowed as git allows them).
fn is_our_header(line: &str) -> bool {
    let t = line.trim();
    let Some(inner) = t.strip_prefix('[').and_then(|r| r.strip_suffix(']')) else {
        return false;
    };
    let mut parts = inner.splitn(2, char::is_whitespace);
    parts
        .next()
        .is_some_and(|s| s.eq_ignore_ascii_case("merge"))
        && parts.next().map(str::trim) == Some("\"planseal\"")
}

/// The key of a `key = value` config line (lower-cased), if it is one.
fn key_of(line: &str) -> Option<String> {
    let t = line.trim_start();
    if t.starts_with(['#', ';', '[']) || t.is_empty() {
        return None;
    }
    let end = t
        .find(|c: char| c == '=' || c.is_whitespace())
        .unwrap_or(t.len());
    Some(t[..end].to_ascii_lowercase())
}

/// The line range `start..end` of the driver's section (header included), if there is one.
fn our_section(lines: &[&str]) -> Option<(usize, usize)> {
    let start = lines.iter().position(|l| is_our_header(l))?;
    let end = lines[start + 1..]
        .iter()
        .position(|l| l.trim_start().starts_with('['))
        .map_or(lines.len(), |i| start + 1 + i);
    Some((start, end))
}

/// The git config text with the driver registered (`driver` from [`driver_command`]).
pub fn config_install(text: &str, driver: &str) -> String {
    let nl = newline_of(text);
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let wanted = entries(driver);
    let Some((start, end)) = our_section(&lines) else {
        let mut out = text.to_string();
        if !out.is_empty() && !out.ends_with('\n') {
            out.push_str(nl);
        }
        out.push_str(SECTION_HEADER);
        out.push_str(nl);
        for (_, line) in &wanted {
            out.push_str(line);
            out.push_str(nl);
        }
        return out;
    };
    // Present entries are set where they stand; missing ones go right after the header.
    let mut out = String::with_capacity(text.len() + 128);
    for (i, line) in lines.iter().enumerate() {
        let key = (start < i && i < end).then(|| key_of(line)).flatten();
        match wanted.iter().find(|(k, _)| Some(*k) == key.as_deref()) {
            Some((_, wanted_line)) if line.trim_end() != wanted_line.as_str() => {
                out.push_str(wanted_line);
                out.push_str(nl);
            }
            _ => out.push_str(line),
        }
        if i == start {
            if !line.ends_with('\n') {
                out.push_str(nl);
            }
            for (key, wanted_line) in &wanted {
                if !(start + 1..end).any(|j| key_of(lines[j]).as_deref() == Some(*key)) {
                    out.push_str(wanted_line);
                    out.push_str(nl);
                }
            }
        }
    }
    out
}

/// The git config text without the driver: its `name` and `driver` entries go, and the section
/// header too when nothing else is left in it.
pub fn config_uninstall(text: &str) -> String {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let Some((start, end)) = our_section(&lines) else {
        return text.to_string();
    };
    let ours = |i: usize| matches!(key_of(lines[i]).as_deref(), Some("name" | "driver"));
    let rest_empty = (start + 1..end).all(ours);
    let mut out = String::with_capacity(text.len());
    for (i, line) in lines.iter().enumerate() {
        let inside = (start..end).contains(&i);
        if inside && ((i == start && rest_empty) || (i > start && ours(i))) {
            continue;
        }
        out.push_str(line);
    }
    out
}

/// The `.gitattributes` text with every attribute line present (the missing ones appended, the
/// header before them when it is missing too).
pub fn attributes_install(text: &str) -> String {
    let present: Vec<&str> = text.lines().map(str::trim_end).collect();
    let missing: Vec<&str> = ATTRIBUTE_LINES
        .iter()
        .copied()
        .filter(|l| !present.contains(l))
        .collect();
    if missing.is_empty() {
        return text.to_string();
    }
    let nl = newline_of(text);
    let mut out = text.to_string();
    if !out.is_empty() && !out.ends_with('\n') {
        out.push_str(nl);
    }
    if !present.contains(&ATTRIBUTES_HEADER) {
        out.push_str(ATTRIBUTES_HEADER);
        out.push_str(nl);
    }
    for line in missing {
        out.push_str(line);
        out.push_str(nl);
    }
    out
}

/// The `.gitattributes` text without the header and the attribute lines.
pub fn attributes_uninstall(text: &str) -> String {
    text.split_inclusive('\n')
        .filter(|l| {
            let bare = l.trim_end();
            bare != ATTRIBUTES_HEADER && !ATTRIBUTE_LINES.contains(&bare)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const DRIVER: &str = "/opt/bin/planseal merge-driver %O %A %B %L %P %S %X %Y";

    #[test]
    fn install_then_uninstall_is_the_identity() {
        for config in [
            "",
            "[core]\n\tbare = false\n",
            "[core]\n\tbare = false\n[merge \"other\"]\n\tdriver = x\n",
            "[core]\r\n\tbare = false\r\n",
        ] {
            let installed = config_install(config, DRIVER);
            assert_eq!(config_install(&installed, DRIVER), installed, "idempotent");
            assert_eq!(config_uninstall(&installed), config);
        }
        for attributes in ["", "*.png binary\n", "# mine\n*.md text\n"] {
            let installed = attributes_install(attributes);
            assert_eq!(attributes_install(&installed), installed, "idempotent");
            assert_eq!(attributes_uninstall(&installed), attributes);
        }
    }

    #[test]
    fn an_existing_section_is_updated_in_place() {
        let config =
            "[merge \"planseal\"]\n\tdriver = old\n\trecursive = binary\n[core]\n\tx = 1\n";
        let installed = config_install(config, DRIVER);
        assert_eq!(
            installed,
            format!(
                "[merge \"planseal\"]\n\tname = {DRIVER_LABEL}\n\tdriver = {DRIVER}\n\trecursive = binary\n[core]\n\tx = 1\n"
            )
        );
        // what else the section holds keeps it
        assert_eq!(
            config_uninstall(&installed),
            "[merge \"planseal\"]\n\trecursive = binary\n[core]\n\tx = 1\n"
        );
    }

    #[test]
    fn programs_and_values_are_quoted_for_the_shell_and_for_git() {
        assert_eq!(
            driver_command("/opt/my tools/planseal"),
            "'/opt/my tools/planseal' merge-driver %O %A %B %L %P %S %X %Y"
        );
        assert_eq!(config_value("a # b"), "\"a # b\"");
        assert_eq!(config_value("it's \"x\""), "\"it's \\\"x\\\"\"");
    }
}
