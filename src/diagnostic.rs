//! What a loader says about a file it could not take: `path:line: message`, one type for the
//! pattern files, the guide's phrases, the configuration and the scripts, and one way of
//! finding a line: `flow::lines`, owned by the flow loader (a leaf that imports nothing of
//! ours, which hands its problems over as `flow::Problem`s) and used by every other loader
//! through this module.

use std::collections::BTreeMap;
use std::fmt;

use toml::de::{DeTable, DeValue};

/// A problem of a file: where and what.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub path: String,
    /// 1-based; `None` when the problem is the file as a whole (it cannot be read).
    pub line: Option<usize>,
    pub message: String,
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(line) => write!(f, "{}:{}: {}", self.path, line, self.message),
            None => write!(f, "{}: {}", self.path, self.message),
        }
    }
}

/// Every problem a load found, one per line when shown.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostics(pub Vec<Diagnostic>);

impl fmt::Display for Diagnostics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, e) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str("\n")?;
            }
            write!(f, "{e}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Diagnostics {}

/// Where each line of a text starts (the flow loader's, a leaf's: one lookup for every loader).
pub use crate::flow::lines::Lines;

/// The line (from 1) of the byte at `offset` of `text`, for a single lookup.
pub fn line_of(text: &str, offset: usize) -> usize {
    text.as_bytes()[..offset.min(text.len())]
        .iter()
        .filter(|b| **b == b'\n')
        .count()
        + 1
}

/// The line of each key of a TOML text, by its dotted path ("llm.instructions.greeting"), and
/// of each element of an array, by its path and 1-based index ("examples[2]"): problems found
/// after deserialising are reported where their value is written.
#[derive(Debug, Default)]
pub struct KeyLines(BTreeMap<String, usize>);

impl KeyLines {
    /// The lines of `text`'s keys; none when it does not parse (deserialising reports that).
    pub fn new(text: &str) -> KeyLines {
        let mut out = KeyLines::default();
        if let Ok(table) = DeTable::parse(text) {
            let lines = Lines::new(text);
            out.walk(&lines, "", table.get_ref());
        }
        out
    }

    fn walk(&mut self, lines: &Lines, prefix: &str, table: &DeTable<'_>) {
        for (key, value) in table.iter() {
            let path = if prefix.is_empty() {
                key.get_ref().to_string()
            } else {
                format!("{prefix}.{}", key.get_ref())
            };
            self.0.insert(path.clone(), lines.of(key.span().start));
            self.value(lines, &path, value.get_ref());
        }
    }

    fn value(&mut self, lines: &Lines, path: &str, value: &DeValue<'_>) {
        if let Some(table) = value.as_table() {
            self.walk(lines, path, table);
        } else if let Some(items) = value.as_array() {
            for (i, item) in items.iter().enumerate() {
                let at = format!("{path}[{}]", i + 1);
                self.0.insert(at.clone(), lines.of(item.span().start));
                self.value(lines, &at, item.get_ref());
            }
        }
    }

    /// The line of the key or element at `path`.
    pub fn line(&self, path: &str) -> Option<usize> {
        self.0.get(path).copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_count_from_one_and_a_line_start_is_its_own_line() {
        let text = "a\nbc\n\nd";
        let lines = Lines::new(text);
        let got: Vec<usize> = (0..7).map(|o| lines.of(o)).collect();
        assert_eq!(got, [1, 1, 2, 2, 2, 3, 4]);
        assert_eq!(lines.of(100), 4);
        // The single lookup agrees, at the start of a line above all.
        for o in 0..=text.len() {
            assert_eq!(line_of(text, o), lines.of(o), "offset {o}");
        }
        assert_eq!(line_of(text, 2), 2, "the start of line 2");
        assert_eq!(line_of(text, 5), 3, "the start of an empty line");
    }

    #[test]
    fn keys_and_elements_have_their_lines() {
        let text = "greeting = \"hi\"\n\n[ask]\ntarget = [\n  \"which part?\",\n  \"where?\",\n]\n[llm.instructions]\nidle = \"x\"\n";
        let keys = KeyLines::new(text);
        assert_eq!(keys.line("greeting"), Some(1));
        assert_eq!(keys.line("ask"), Some(3));
        assert_eq!(keys.line("ask.target"), Some(4));
        assert_eq!(keys.line("ask.target[1]"), Some(5));
        assert_eq!(keys.line("ask.target[2]"), Some(6));
        assert_eq!(keys.line("llm.instructions.idle"), Some(9));
        assert_eq!(keys.line("nothing"), None);
        assert_eq!(KeyLines::new("not = [toml").line("not"), None);
    }

    #[test]
    fn a_diagnostic_shows_as_path_line_message() {
        let d = Diagnostic {
            path: "patterns/goals.toml".into(),
            line: Some(3),
            message: "unknown key".into(),
        };
        assert_eq!(d.to_string(), "patterns/goals.toml:3: unknown key");
        let whole = Diagnostic { line: None, ..d };
        assert_eq!(whole.to_string(), "patterns/goals.toml: unknown key");
    }
}
