//! Speech as a recogniser writes it: a hesitation inside a sentence ("set a timer for uh
//! twenty five minutes") and a spoken value restated ("alarm for five thirty no wait make it
//! five fifteen") are read as nothing, so the reader sees the sentence the user meant.

use std::ops::Range;

use super::Speller;

/// Words after which a hesitation's word is a value or a noun ("to um", "the er diagram").
const BINDING: [&str; 16] = [
    "to", "called", "named", "as", "the", "a", "an", "my", "our", "your", "this", "that", "in",
    "is", "of", "and",
];

/// Words that open a noun phrase said again after a restatement ("the costco list wait no the
/// trader joes list").
const DETERMINERS: [&str; 9] = ["the", "my", "our", "your", "his", "her", "their", "a", "an"];

impl Speller {
    /// The speller reading `words` as hesitations (see the module's notes).
    pub fn with_hesitations<'w>(mut self, words: impl IntoIterator<Item = &'w str>) -> Speller {
        self.hesitations = words
            .into_iter()
            .map(|w| w.to_ascii_lowercase().into_boxed_str())
            .collect();
        self.hesitation_firsts = self
            .hesitations
            .iter()
            .filter_map(|h| h.bytes().next())
            .filter(u8::is_ascii_lowercase)
            .fold(0, |m, b| m | 1 << (b - b'a'));
        self
    }

    /// Whether the word at `start..end` of `text` is a hesitation read as nothing: a word of
    /// the list in lower case between spaces or commas ("uh_id", "um/uh", "Er Jun" and
    /// "uh-huh" are words of their own), after a word of its sentence that does not make it a
    /// value or a noun ("set the unit to um", "a column called um", "five um", "the er
    /// diagram"), not before "oh" or "huh" ("the uh oh sound") and no part of a vocabulary
    /// phrase.
    pub(super) fn hesitates(
        &self,
        text: &str,
        start: usize,
        end: usize,
        before: Option<Range<usize>>,
    ) -> bool {
        let word = &text[start..end];
        let spaced = |c: Option<char>| c.is_none_or(|c| c == ' ' || c == ',');
        if word.len() > 4
            || word.bytes().any(|b| b.is_ascii_uppercase())
            || !self.hesitations.iter().any(|h| &**h == word)
            || !spaced(text[..start].chars().next_back())
            || !spaced(text[end..].chars().next())
        {
            return false;
        }
        let lead = text[..start].trim_end_matches([' ', ',']);
        let previous = lead
            .rsplit(|c: char| !c.is_alphanumeric() && c != '\'')
            .next()
            .unwrap_or("");
        let next = text[end..]
            .trim_start_matches([' ', ','])
            .split(|c: char| !c.is_alphanumeric())
            .next()
            .unwrap_or("");
        if previous.is_empty()
            || !lead.ends_with(|c: char| c.is_alphabetic())
            || BINDING.iter().any(|b| previous.eq_ignore_ascii_case(b))
                && !(text[..start].ends_with(", ") && text[end..].starts_with(','))
            || previous.bytes().all(|b| b.is_ascii_digit())
            || ["oh", "huh"].iter().any(|n| next.eq_ignore_ascii_case(n))
        {
            return false;
        }
        !self.completes_pair(text, before, word, end)
    }

    /// What a restatement at `at` drops when a noun phrase follows it (`next` its first word,
    /// `after` the text from there): the phrase said before it with the same determiner,
    /// within its sentence and six words, and the restatement ("add it to the costco list
    /// wait no the trader joes list", "text my mom no sorry my dad"). `None` elsewhere.
    fn restated_phrase(
        &self,
        text: &str,
        at: usize,
        next: &str,
        after: &str,
    ) -> Option<Range<usize>> {
        if !DETERMINERS.iter().any(|d| next.eq_ignore_ascii_case(d)) {
            return None;
        }
        let mut before = text[..at].trim_end_matches([' ', ',']);
        for _ in 0..6 {
            let word_start = before
                .rfind([' ', ',', '.', '!', '?', '\n'])
                .map_or(0, |p| p + 1);
            let word = &before[word_start..];
            if word.is_empty() {
                return None;
            }
            if word.eq_ignore_ascii_case(next) {
                return Some(word_start..text.len() - after.len());
            }
            if word_start == 0 || !text[..word_start].ends_with([' ', ',']) {
                return None;
            }
            before = text[..word_start].trim_end_matches([' ', ',']);
        }
        None
    }

    /// Where a restart around the hesitation at `start..end` begins: the word `before` it is
    /// one that binds the next ("the", "to", "a" ...) and is said again right after it ("set
    /// the uh the downstairs thermostat", "move it to um to friday"), so the first saying and
    /// the hesitation are read as nothing. `None` elsewhere.
    pub(super) fn restarts(
        &self,
        text: &str,
        start: usize,
        end: usize,
        before: Option<&Range<usize>>,
    ) -> Option<usize> {
        let before = before?;
        let word = &text[start..end];
        let previous = &text[before.clone()];
        if !self.hesitations.iter().any(|h| &**h == word)
            || !BINDING.iter().any(|b| previous.eq_ignore_ascii_case(b))
        {
            return None;
        }
        let next = text[end..]
            .trim_start_matches([' ', ','])
            .split(|c: char| !c.is_alphanumeric())
            .next()
            .unwrap_or("");
        next.eq_ignore_ascii_case(previous).then_some(before.start)
    }

    /// The speller reading a spoken number or time restated after one of `phrases` ("no wait
    /// make it") as the restatement alone; `numbers` are the words of spoken numbers and times.
    pub fn with_restatements<'w>(
        mut self,
        phrases: impl IntoIterator<Item = &'w str>,
        numbers: impl IntoIterator<Item = &'w str>,
    ) -> Speller {
        let phrases: Vec<Box<str>> = phrases
            .into_iter()
            .map(|w| w.to_ascii_lowercase().into_boxed_str())
            .collect();
        let head = |p: &str| p.split([' ', '\'']).next().unwrap_or("").to_string();
        let mut heads: Vec<Box<str>> = phrases.iter().map(|p| Box::from(head(p))).collect();
        heads.sort_unstable();
        heads.dedup();
        // (A word opening a phrase is compared with that word's phrases only.)
        self.restatements = heads
            .iter()
            .map(|h| phrases.iter().filter(|p| head(p) == **h).cloned().collect())
            .collect();
        self.restatement_firsts = heads
            .iter()
            .filter_map(|h| h.bytes().next())
            .filter(u8::is_ascii_lowercase)
            .fold(0, |m, b| m | 1 << (b - b'a'));
        self.restatement_heads = heads;
        self.numbers = numbers
            .into_iter()
            .map(|w| w.to_ascii_lowercase().into_boxed_str())
            .collect();
        self
    }

    /// Whether a word of `text` is a spoken number or time: digits (with ":" inside, "5:30",
    /// or "am"/"pm" after, "7pm") or a word of `numbers`.
    pub(super) fn number(&self, word: &str) -> bool {
        let digits = word.trim_end_matches(|c: char| c.is_ascii_alphabetic());
        !word.is_empty()
            && (digits.starts_with(|c: char| c.is_ascii_digit())
                && digits.bytes().all(|b| b.is_ascii_digit() || b == b':')
                || self.numbers.iter().any(|n| word.eq_ignore_ascii_case(n)))
    }

    /// What a restatement starting at `at` drops: the spoken number or time right before it,
    /// with the phrase and the spaces after it, when a number or time follows ("five thirty
    /// no wait make it five fifteen" keeps "five fifteen"). `None` elsewhere.
    /// (`word` is the word at `at`: a phrase's first word, or nothing is looked at.)
    pub(super) fn restated_at(&self, text: &str, at: usize, word: &str) -> Option<Range<usize>> {
        let k = self
            .restatement_heads
            .iter()
            .position(|h| h.eq_ignore_ascii_case(word))?;
        let rest = &text[at..];
        let phrase = self.restatements[k].iter().find(|p| {
            rest.get(..p.len())
                .is_some_and(|h| h.eq_ignore_ascii_case(p))
                && rest[p.len()..].starts_with([' ', ','])
        })?;
        let after = rest[phrase.len()..].trim_start_matches([' ', ',']);
        let next = after.split([' ', ',', '.', '!', '?']).next().unwrap_or("");
        if !self.number(next) {
            // (A noun phrase only after a correction that says no or wait: a bare "sorry" or
            // "i mean" in prose goes on, "add bread to the costco list, sorry, the costco
            // list is full".)
            let corrects = phrase
                .split(' ')
                .any(|w| matches!(w, "no" | "wait" | "rather" | "nope"));
            return corrects
                .then(|| self.restated_phrase(text, at, next, after))
                .flatten();
        }
        // The number or time before the phrase: its words back to the first that is none.
        // (A unit may stand after it, and goes with it: "twelve minutes no make that
        // fifteen".)
        let mut start = at;
        let mut before = text[..at].trim_end_matches([' ', ',']);
        // (A day may stand after it and a unit after the number, and they go with it:
        // "twelve minutes no make that fifteen", "six forty five tomorrow no wait six thirty".)
        for after_number in [
            &["tomorrow", "today", "tonight"][..],
            &[
                "minutes", "minute", "mins", "min", "seconds", "second", "secs", "hours", "hour",
                "hrs", "degrees", "percent",
            ][..],
        ] {
            let word_start = before.rfind([' ', ',']).map_or(0, |p| p + 1);
            let head = before[..word_start].trim_end_matches([' ', ',']);
            if after_number
                .iter()
                .any(|u| before[word_start..].eq_ignore_ascii_case(u))
                && self.number(head.rsplit([' ', ',']).next().unwrap_or(""))
            {
                before = head;
            }
        }
        for _ in 0..4 {
            let word_start = before.rfind([' ', ',']).map_or(0, |p| p + 1);
            if !self.number(&before[word_start..]) {
                break;
            }
            start = word_start;
            before = before[..word_start].trim_end_matches([' ', ',']);
        }
        (start < at).then(|| start..text.len() - after.len())
    }
}
