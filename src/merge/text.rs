//! The plain line-based 3-way merge, for a registered file whose content the driver does not
//! recognise, and the conflict markers every format writes.
//!
//! Git adds no markers around a custom driver's result (and planseal never runs `git
//! merge-file`), so the driver writes them itself, in git's own form: `<<<<<<< ours-label`,
//! `=======`, `>>>>>>> theirs-label`, each marker `marker_size` characters long (git's `%L`).
//! A hunk changed on one side only is taken from that side; the same change on both sides is
//! taken once; different changes to the same lines conflict, with the lines both sides share at
//! the start and the end of the hunk moved out of the markers (as git's own merge does).
//!
//! ```
//! use planseal::merge::text::{merge_lines, Markers};
//! let base = "a\nb\nc\n";
//! let ours = "A\nb\nc\n";
//! let theirs = "a\nb\nC\n";
//! let merged = merge_lines(base, ours, theirs, &Markers::default());
//! assert_eq!(merged.text, "A\nb\nC\n");
//! assert_eq!(merged.conflicts, 0);
//! ```

use similar::{Algorithm, DiffOp, capture_diff_slices};

/// How conflict markers are written: their length and the labels git passed (`%L`, `%X`,
/// `%Y`), and the line ending of the file they go into.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Markers {
    /// The number of `<`, `=` and `>` characters of a marker (git's `%L`, 7 by default).
    pub size: usize,
    /// The label after `<<<<<<<` (git's `%X`; empty: none).
    pub ours: String,
    /// The label after `>>>>>>>` (git's `%Y`; empty: none).
    pub theirs: String,
    /// `"\n"` or `"\r\n"`: the line ending of the markers and notes.
    pub newline: &'static str,
}

impl Default for Markers {
    fn default() -> Self {
        Markers {
            size: 7,
            ours: "ours".into(),
            theirs: "theirs".into(),
            newline: "\n",
        }
    }
}

impl Markers {
    /// The same markers with the line ending `text` uses (`\r\n` when its first line ends so).
    pub fn for_text(&self, text: &str) -> Markers {
        let newline = match text.find('\n') {
            Some(i) if i > 0 && text.as_bytes()[i - 1] == b'\r' => "\r\n",
            _ => "\n",
        };
        Markers {
            newline,
            ..self.clone()
        }
    }

    fn marker(&self, c: char, label: &str) -> String {
        let mut line: String = std::iter::repeat_n(c, self.size.max(1)).collect();
        if !label.is_empty() {
            line.push(' ');
            line.push_str(label);
        }
        line.push_str(self.newline);
        line
    }

    /// One conflict block: `notes` (each a `planseal: …` line), then ours' text and theirs' text
    /// between the markers. Each side's text is written as given; a side that does not end
    /// with a line break gets one, so the next marker starts its own line.
    pub fn block(&self, notes: &[String], ours: &str, theirs: &str) -> String {
        let mut out = String::new();
        for note in notes {
            out.push_str("planseal: ");
            out.push_str(note);
            out.push_str(self.newline);
        }
        out.push_str(&self.marker('<', &self.ours));
        self.push_side(&mut out, ours);
        out.push_str(&self.marker('=', ""));
        self.push_side(&mut out, theirs);
        out.push_str(&self.marker('>', &self.theirs));
        out
    }

    fn push_side(&self, out: &mut String, text: &str) {
        out.push_str(text);
        if !text.is_empty() && !text.ends_with('\n') {
            out.push_str(self.newline);
        }
    }
}

/// What [`merge_lines`] gives: the merged text, and how many conflict blocks it holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LineMerge {
    /// The merged text, with conflict blocks where the sides disagree.
    pub text: String,
    /// The number of conflict blocks (0: a clean merge).
    pub conflicts: usize,
}

/// The lines of `text`, each with its line end (the last one may have none).
fn lines(text: &str) -> Vec<&str> {
    text.split_inclusive('\n').collect()
}

/// For each line of `old`, the line of `new` it is matched with (a monotone matching).
fn matching(old: &[&str], new: &[&str]) -> Vec<Option<usize>> {
    let mut out = vec![None; old.len()];
    for op in capture_diff_slices(Algorithm::Myers, old, new) {
        if let DiffOp::Equal {
            old_index,
            new_index,
            len,
        } = op
        {
            for k in 0..len {
                out[old_index + k] = Some(new_index + k);
            }
        }
    }
    out
}

/// One piece of a 3-way merge: lines all three agree on, or a hunk where they differ.
enum Piece<'a> {
    Stable(&'a str),
    Hunk {
        base: &'a [&'a str],
        ours: &'a [&'a str],
        theirs: &'a [&'a str],
    },
}

/// Walks base, ours and theirs together: a base line matched in both sides at the current
/// positions is stable; everything up to the next such line is one hunk.
fn pieces<'a>(base: &'a [&'a str], ours: &'a [&'a str], theirs: &'a [&'a str]) -> Vec<Piece<'a>> {
    let to_ours = matching(base, ours);
    let to_theirs = matching(base, theirs);
    let mut out = Vec::new();
    let (mut i, mut j, mut k) = (0, 0, 0);
    loop {
        // The next base line both sides kept, at or after the current positions.
        let next = (i..base.len()).find(
            |&p| matches!((to_ours[p], to_theirs[p]), (Some(a), Some(b)) if a >= j && b >= k),
        );
        match next {
            Some(p) => {
                let (a, b) = (
                    to_ours[p].expect("found above"),
                    to_theirs[p].expect("found above"),
                );
                if p > i || a > j || b > k {
                    out.push(Piece::Hunk {
                        base: &base[i..p],
                        ours: &ours[j..a],
                        theirs: &theirs[k..b],
                    });
                }
                out.push(Piece::Stable(base[p]));
                (i, j, k) = (p + 1, a + 1, b + 1);
            }
            None => {
                if i < base.len() || j < ours.len() || k < theirs.len() {
                    out.push(Piece::Hunk {
                        base: &base[i..],
                        ours: &ours[j..],
                        theirs: &theirs[k..],
                    });
                }
                return out;
            }
        }
    }
}

/// The 3-way merge of three texts line by line (see the module comment).
pub fn merge_lines(base: &str, ours: &str, theirs: &str, markers: &Markers) -> LineMerge {
    let markers = markers.for_text(ours);
    let (b, o, t) = (lines(base), lines(ours), lines(theirs));
    let mut text = String::with_capacity(ours.len().max(theirs.len()));
    let mut conflicts = 0;
    for piece in pieces(&b, &o, &t) {
        match piece {
            Piece::Stable(line) => text.push_str(line),
            Piece::Hunk { base, ours, theirs } => {
                let taken = if ours == base || ours == theirs {
                    Some(theirs)
                } else if theirs == base {
                    Some(ours)
                } else {
                    None
                };
                match taken {
                    Some(side) => side.iter().for_each(|l| text.push_str(l)),
                    None => {
                        conflicts += 1;
                        push_conflict(&mut text, ours, theirs, &markers);
                    }
                }
            }
        }
    }
    LineMerge { text, conflicts }
}

/// A conflict hunk with the lines both sides share at its start and end written outside the
/// markers.
fn push_conflict(text: &mut String, ours: &[&str], theirs: &[&str], markers: &Markers) {
    let head = ours.iter().zip(theirs).take_while(|(a, b)| a == b).count();
    let tail = ours[head..]
        .iter()
        .rev()
        .zip(theirs[head..].iter().rev())
        .take_while(|(a, b)| a == b)
        .count();
    ours[..head].iter().for_each(|l| text.push_str(l));
    if !text.is_empty() && !text.ends_with('\n') {
        text.push_str(markers.newline);
    }
    text.push_str(&markers.block(
        &[],
        &ours[head..ours.len() - tail].concat(),
        &theirs[head..theirs.len() - tail].concat(),
    ));
    ours[ours.len() - tail..]
        .iter()
        .for_each(|l| text.push_str(l));
}

/// A document cut into sections, each `(key, text)` with keys unique within one version.
pub type Sections = Vec<(String, String)>;

/// Merges three versions of a document section by section: a section one side left as the
/// ancestor had it takes the other side's text (a removed section stays removed); a section
/// both sides changed goes to `both_changed(key, base, ours, theirs)`, whose answer is its
/// text (`None`: left out). Ours' order; a section only theirs has goes after the section it
/// follows there. Each section's text is written as it is, after a line end.
pub fn merge_sections<F>(
    base: &[(String, String)],
    ours: &[(String, String)],
    theirs: &[(String, String)],
    newline: &str,
    mut both_changed: F,
) -> String
where
    F: FnMut(&str, Option<&str>, Option<&str>, Option<&str>) -> Option<String>,
{
    let find = |list: &'_ [(String, String)], key: &str| -> Option<usize> {
        list.iter().position(|(k, _)| k == key)
    };
    let mut order: Vec<&str> = ours.iter().map(|(k, _)| k.as_str()).collect();
    for (i, (k, _)) in theirs.iter().enumerate() {
        if order.contains(&k.as_str()) {
            continue;
        }
        let after = theirs[..i]
            .iter()
            .rev()
            .find_map(|(p, _)| order.iter().position(|x| x == p));
        order.insert(after.map_or(order.len(), |p| p + 1), k);
    }
    let text = |list: &'_ [(String, String)], key: &str| find(list, key).map(|i| list[i].1.clone());
    let mut out = String::new();
    for key in order {
        let (b, o, t) = (text(base, key), text(ours, key), text(theirs, key));
        let merged = if o == t || b == t {
            o
        } else if b == o {
            t
        } else {
            both_changed(key, b.as_deref(), o.as_deref(), t.as_deref())
        };
        if let Some(section) = merged {
            if !out.is_empty() && !out.ends_with('\n') {
                out.push_str(newline);
            }
            out.push_str(&section);
        }
    }
    out
}

/// A whole-file conflict: `notes`, then all of ours against all of theirs.
pub fn whole_file_conflict(
    ours: &str,
    theirs: &str,
    notes: &[String],
    markers: &Markers,
) -> String {
    markers.for_text(ours).block(notes, ours, theirs)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn merge(base: &str, ours: &str, theirs: &str) -> LineMerge {
        merge_lines(base, ours, theirs, &Markers::default())
    }

    #[test]
    fn changes_on_different_lines_merge() {
        let m = merge("1\n2\n3\n4\n", "1\nX\n3\n4\n", "1\n2\n3\nY\n");
        assert_eq!(
            m,
            LineMerge {
                text: "1\nX\n3\nY\n".into(),
                conflicts: 0
            }
        );
    }

    #[test]
    fn the_same_change_on_both_sides_is_taken_once() {
        let m = merge("1\n2\n", "1\nX\n", "1\nX\n");
        assert_eq!(m.text, "1\nX\n");
        assert_eq!(m.conflicts, 0);
    }

    #[test]
    fn different_changes_to_one_line_conflict_with_git_markers() {
        let markers = Markers {
            size: 9,
            ours: "HEAD".into(),
            theirs: "topic".into(),
            newline: "\n",
        };
        let m = merge_lines("a\nb\nc\n", "a\nB1\nc\n", "a\nB2\nc\n", &markers);
        assert_eq!(m.conflicts, 1);
        assert_eq!(
            m.text,
            "a\n<<<<<<<<< HEAD\nB1\n=========\nB2\n>>>>>>>>> topic\nc\n"
        );
    }

    #[test]
    fn shared_lines_at_the_ends_of_a_hunk_stay_outside_the_markers() {
        let m = merge("x\n", "s\nA\ne\n", "s\nB\ne\n");
        assert_eq!(
            m.text,
            "s\n<<<<<<< ours\nA\n=======\nB\n>>>>>>> theirs\ne\n"
        );
    }

    #[test]
    fn a_last_line_without_line_end_gets_one_before_a_marker() {
        let m = merge("a", "b", "c");
        assert_eq!(m.text, "<<<<<<< ours\nb\n=======\nc\n>>>>>>> theirs\n");
    }

    #[test]
    fn crlf_files_get_crlf_markers() {
        let m = merge("a\r\n", "b\r\n", "c\r\n");
        assert_eq!(
            m.text,
            "<<<<<<< ours\r\nb\r\n=======\r\nc\r\n>>>>>>> theirs\r\n"
        );
    }

    #[test]
    fn insertions_at_the_same_place_conflict_and_deletions_merge() {
        assert_eq!(
            merge("a\nb\nc\n", "a\nc\n", "a\nb\nc\nd\n").text,
            "a\nc\nd\n"
        );
        assert_eq!(merge("a\n", "a\nb\n", "a\nc\n").conflicts, 1);
        assert_eq!(merge("", "x\n", "x\n").text, "x\n");
    }
}
