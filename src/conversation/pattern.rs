//! A regex of the pattern files and the text it reads: `Pattern` (with its ASCII twin),
//! `PatternSet` (several matched in one pass) and `Haystack`.

use regex::Regex;

/// A regex of the pattern files (case-insensitive), with a twin for ASCII text.
///
/// Unicode's `\w`, `\s` and case folding make large automata: a class like `[\w'-]+` is
/// hundreds of UTF-8 sequences, which the captures' backtracker walks through at every byte.
/// On ASCII text they match exactly what their ASCII forms match, so an ASCII message is read
/// with the same pattern compiled without Unicode, and any other message with the pattern as
/// written. There is no twin when the source names a character beyond ASCII, written or
/// escaped (`\x{212A}`, `\u017F`: two letters fold to ASCII ones, the Kelvin sign to `k` and
/// the long s to `s`, which only the Unicode regex knows), or needs Unicode (`\p{L}`): the
/// one regex serves.
#[derive(Clone, Debug)]
pub struct Pattern {
    any: Regex,
    ascii: Option<regex::bytes::Regex>,
    /// The `value` group by two anchored runs of the fast engine, beside the ASCII twin (see
    /// [`super::split`]).
    split: Option<super::split::Split>,
}

/// Where a pattern matched, or its `value` group.
pub type Span = std::ops::Range<usize>;

/// A text to match, with whether it is ASCII, found once for all the patterns that read it.
#[derive(Clone, Copy, Debug)]
pub struct Haystack<'t> {
    text: &'t str,
    ascii: bool,
}

impl<'t> Haystack<'t> {
    pub fn new(text: &'t str) -> Haystack<'t> {
        Haystack {
            text,
            ascii: text.is_ascii(),
        }
    }

    pub fn text(&self) -> &'t str {
        self.text
    }

    /// A part of the text: ASCII when the whole is (any other part is read as written, which
    /// matches the same).
    pub fn slice(&self, span: Span) -> Haystack<'t> {
        Haystack {
            text: &self.text[span],
            ascii: self.ascii,
        }
    }
}

/// Several patterns matched in one pass: whether any of them matches a text. (Most messages
/// match none of a slot's extractors, and one search that stops at the first match, or finds
/// none, costs less than a search per pattern; telling which ones match costs more than trying
/// them in order, each with its own search, once one does.)
#[derive(Clone, Debug)]
pub struct PatternSet {
    any: regex::RegexSet,
    ascii: Option<regex::bytes::RegexSet>,
}

impl PatternSet {
    /// The set of `patterns` (case-insensitive, as each was compiled); `None` when there are
    /// none or the set does not compile within `size_limit`.
    pub fn new(patterns: &[&Pattern], size_limit: usize) -> Option<PatternSet> {
        if patterns.is_empty() {
            return None;
        }
        let sources: Vec<&str> = patterns.iter().map(|p| p.as_str()).collect();
        let any = regex::RegexSetBuilder::new(&sources)
            .case_insensitive(true)
            .size_limit(size_limit)
            .build()
            .ok()?;
        let ascii = patterns
            .iter()
            .all(|p| p.ascii.is_some())
            .then(|| {
                regex::bytes::RegexSetBuilder::new(&sources)
                    .unicode(false)
                    .case_insensitive(true)
                    .size_limit(size_limit)
                    .build()
                    .ok()
            })
            .flatten();
        Some(PatternSet { any, ascii })
    }

    /// Whether any pattern matches somewhere in the text.
    pub fn is_match(&self, hay: Haystack<'_>) -> bool {
        match self.ascii.as_ref().filter(|_| hay.ascii) {
            Some(set) => set.is_match(hay.text.as_bytes()),
            None => self.any.is_match(hay.text),
        }
    }
}

impl Pattern {
    /// Compiles `source` (case-insensitive, its program at most `size_limit` bytes).
    pub fn new(source: &str, size_limit: usize) -> Result<Pattern, regex::Error> {
        let any = regex::RegexBuilder::new(source)
            .case_insensitive(true)
            .size_limit(size_limit)
            .build()?;
        let ascii = names_only_ascii(source)
            .then(|| {
                regex::bytes::RegexBuilder::new(source)
                    .unicode(false)
                    .case_insensitive(true)
                    .size_limit(size_limit)
                    .build()
                    .ok()
            })
            .flatten();
        let split = ascii
            .as_ref()
            .filter(|_| any.capture_names().any(|n| n == Some("value")))
            .and_then(|_| super::split::Split::new(source, "value", size_limit));
        Ok(Pattern { any, ascii, split })
    }

    /// The ASCII twin, when there is one and the text is ASCII.
    pub(super) fn twin(&self, hay: Haystack<'_>) -> Option<&regex::bytes::Regex> {
        self.ascii.as_ref().filter(|_| hay.ascii)
    }

    pub fn is_match(&self, hay: Haystack<'_>) -> bool {
        match self.twin(hay) {
            Some(re) => re.is_match(hay.text.as_bytes()),
            None => self.any.is_match(hay.text),
        }
    }

    /// The first match for which `take` gives something, in the order of the matches.
    pub fn find_map<T>(&self, hay: Haystack<'_>, take: impl FnMut(Span) -> Option<T>) -> Option<T> {
        let text = hay.text;
        match self.twin(hay) {
            Some(re) => re
                .find_iter(text.as_bytes())
                .map(|m| m.range())
                .find_map(take),
            None => self.any.find_iter(text).map(|m| m.range()).find_map(take),
        }
    }

    /// The first `group` of the matches for which `take` gives something. On ASCII text the
    /// group is found by the split when the pattern has one (`split.rs`), else by a capture
    /// search (which finds the match's bounds by the fast engine first, then resolves the
    /// groups within them).
    pub fn find_map_group<T>(
        &self,
        hay: Haystack<'_>,
        group: &str,
        mut take: impl FnMut(Span) -> Option<T>,
    ) -> Option<T> {
        let text = hay.text;
        // Past a match: its end, or one character further for an empty one.
        let next = |whole: Span| {
            if whole.is_empty() {
                whole.end + text[whole.end..].chars().next().map_or(1, char::len_utf8)
            } else {
                whole.end
            }
        };
        match self.twin(hay) {
            Some(re) => {
                let bytes = text.as_bytes();
                let split = self.split.as_ref().filter(|s| s.group_name() == group);
                // The match at or after `at` and its group: by the split when it can tell.
                let found = |at: usize| -> Option<(Span, Option<Span>)> {
                    if let Some(split) = split {
                        let whole = re.find_at(bytes, at)?.range();
                        if let Some(g) = split.group(bytes, whole.clone()) {
                            return Some((whole, Some(g)));
                        }
                    }
                    let c = re.captures_at(bytes, at)?;
                    Some((c.get(0)?.range(), c.name(group).map(|m| m.range())))
                };
                let mut at = 0;
                while at <= text.len() {
                    let (whole, value) = found(at)?;
                    if let Some(v) = value.and_then(&mut take) {
                        return Some(v);
                    }
                    at = next(whole);
                }
                None
            }
            None => {
                let mut at = 0;
                while at <= text.len() {
                    let c = self.any.captures_at(text, at)?;
                    if let Some(v) = c.name(group).and_then(|m| take(m.range())) {
                        return Some(v);
                    }
                    at = next(c.get(0)?.range());
                }
                None
            }
        }
    }

    pub fn has_group(&self, group: &str) -> bool {
        self.any.capture_names().any(|n| n == Some(group))
    }

    /// Whether its `value` group is found without a capture search on ASCII text.
    #[cfg(test)]
    pub(crate) fn has_split(&self) -> bool {
        self.split.is_some()
    }

    pub fn as_str(&self) -> &str {
        self.any.as_str()
    }

    /// Every match of `text` with its `group`, by the pattern as written and by its ASCII twin
    /// (for the test that they agree on ASCII text).
    #[cfg(test)]
    #[allow(clippy::type_complexity)]
    pub(crate) fn matches_both(
        &self,
        text: &str,
        group: &str,
    ) -> (Vec<(Span, Option<Span>)>, Option<Vec<(Span, Option<Span>)>>) {
        let any = self
            .any
            .captures_iter(text)
            .map(|c| (c.get(0).unwrap().range(), c.name(group).map(|m| m.range())))
            .collect();
        let ascii = self.ascii.as_ref().map(|re| {
            re.captures_iter(text.as_bytes())
                .map(|c| (c.get(0).unwrap().range(), c.name(group).map(|m| m.range())))
                .collect()
        });
        (any, ascii)
    }

    /// On ASCII text, the matches whose `value` group the split found, and where it found
    /// another group than the capture search does (for the test that it never does).
    #[cfg(test)]
    pub(crate) fn split_against_captures(&self, text: &str) -> (usize, Option<String>) {
        let (Some(re), Some(split)) = (&self.ascii, &self.split) else {
            return (0, None);
        };
        let mut found = 0;
        for c in re.captures_iter(text.as_bytes()) {
            let whole = c.get(0).unwrap().range();
            if let Some(group) = split.group(text.as_bytes(), whole.clone()) {
                found += 1;
                let captured = c.name("value").map(|m| m.range());
                if captured != Some(group.clone()) {
                    let why = format!(
                        "{} on {text:?}: the split found {group:?}, the captures {captured:?}",
                        self.as_str()
                    );
                    return (found, Some(why));
                }
            }
        }
        (found, None)
    }
}

/// Whether `source` names only ASCII characters: it is ASCII and has no escape that names a
/// character by its number beyond two hex digits (`\x{..}`, `\u..`, `\U..`). Cautious: an
/// escaped backslash before a `u` counts too, which only costs that pattern its twin.
fn names_only_ascii(source: &str) -> bool {
    source.is_ascii()
        && !source.contains("\\x{")
        && !source.contains("\\u")
        && !source.contains("\\U")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two letters beyond ASCII fold to ASCII ones; a pattern that names them by escape reads
    /// ASCII text as written, without a twin (which would not fold them).
    #[test]
    fn escapes_of_letters_that_fold_to_ascii_keep_the_pattern_as_written() {
        let kelvin = Pattern::new(r"\x{212A}otlin", 1 << 20).unwrap();
        assert!(kelvin.ascii.is_none());
        assert_eq!(
            kelvin.find_map(Haystack::new("use Kotlin"), Some),
            Some(4..10)
        );
        for source in [r"\bu\x{17F}e (?P<value>\w+)", r"\bu\u017Fe (?P<value>\w+)"] {
            let long_s = Pattern::new(source, 1 << 20).unwrap();
            assert!(long_s.ascii.is_none(), "{source}");
            assert_eq!(
                long_s.find_map_group(Haystack::new("use redis"), "value", Some),
                Some(4..9)
            );
        }
        let plain = Pattern::new(r"\buse (?P<value>\w+)", 1 << 20).unwrap();
        assert!(plain.ascii.is_some());
        assert_eq!(
            plain.find_map_group(Haystack::new("USE redis"), "value", Some),
            Some(4..9)
        );
        // Not ASCII text: the pattern as written.
        assert!(plain.twin(Haystack::new("use rédis")).is_none());
        assert_eq!(
            plain.find_map_group(Haystack::new("use rédis"), "value", Some),
            Some(4..10)
        );
    }
}
