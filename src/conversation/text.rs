//! Text helpers of the reader: normalising, word boundaries, sentences, noun phrases. Plain
//! functions of a text, no vocabulary.

use std::ops::Range;

/// Straight quotes for curly ones, so phrases written with `'` match "I’ll".
pub fn normalize(text: &str) -> std::borrow::Cow<'_, str> {
    // (Both quotes start with the byte 0xE2, looked for first: most messages hold none.)
    if memchr::memchr(0xE2, text.as_bytes()).is_some() && text.contains(['\u{2019}', '\u{2018}']) {
        std::borrow::Cow::Owned(text.replace(['\u{2019}', '\u{2018}'], "'"))
    } else {
        std::borrow::Cow::Borrowed(text)
    }
}

/// A phrase as the automaton stores it: lowercase, single spaces, straight quotes.
pub fn normalize_phrase(phrase: &str) -> String {
    normalize(phrase)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// `phrase` with each "n't" written "nt" ("hasn't been" gives "hasnt been"), if it holds one.
pub(super) fn without_apostrophes(phrase: &str) -> Option<String> {
    phrase.contains("n't").then(|| phrase.replace("n't", "nt"))
}

/// The forms of `phrase` (normalized) with one contraction of `pairs` (short, long) swapped
/// for the other form wherever it stands as whole words: "it'd be nice to" gives "it would be
/// nice to", and the other way round.
pub(super) fn contraction_variants(phrase: &str, pairs: &[(String, String)]) -> Vec<String> {
    let whole = |at: usize, len: usize| {
        (at == 0 || phrase.as_bytes()[at - 1] == b' ')
            && phrase.as_bytes().get(at + len).is_none_or(|b| *b == b' ')
    };
    let mut out = Vec::new();
    for (short, long) in pairs {
        for (from, to) in [(short, long), (long, short)] {
            if from.is_empty() || !phrase.contains(from.as_str()) {
                continue;
            }
            let mut variant = String::with_capacity(phrase.len() + 8);
            let mut copied = 0;
            for (at, _) in phrase.match_indices(from.as_str()) {
                if at >= copied && whole(at, from.len()) {
                    variant.push_str(&phrase[copied..at]);
                    variant.push_str(to);
                    copied = at + from.len();
                }
            }
            if copied > 0 {
                variant.push_str(&phrase[copied..]);
                out.push(variant);
            }
        }
    }
    out
}

pub(super) fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// `'` joins words ("don't"): it counts as a word character when a letter follows it.
pub(super) fn boundary_after(text: &str, at: usize) -> bool {
    // (Most bytes are ASCII: one look decides, but for the apostrophe.)
    match text.as_bytes().get(at) {
        None => return true,
        Some(&b) if b.is_ascii() && b != b'\'' => return !(b.is_ascii_alphanumeric() || b == b'_'),
        _ => {}
    }
    let mut rest = text[at..].chars();
    match rest.next() {
        None => true,
        Some('\'') => !rest.next().is_some_and(char::is_alphabetic),
        Some(c) => !is_word_char(c),
    }
}

pub(super) fn boundary_before(text: &str, at: usize) -> bool {
    match at.checked_sub(1).map(|i| text.as_bytes()[i]) {
        None => return true,
        Some(b) if b.is_ascii() && b != b'\'' => return !(b.is_ascii_alphanumeric() || b == b'_'),
        _ => {}
    }
    let mut before = text[..at].chars().rev();
    match before.next() {
        None => true,
        Some('\'') => !before.next().is_some_and(char::is_alphabetic),
        Some(c) => !is_word_char(c),
    }
}

pub(super) fn is_clause_byte(b: u8) -> bool {
    matches!(b, b',' | b';' | b'.' | b'!' | b'?' | b'\n')
}

/// Whether the comma at `at` separates a number's thousands ("$1,200", "12,000 rows"): a digit
/// on each side, three after it. It ends no clause.
pub(super) fn thousands_comma(bytes: &[u8], at: usize) -> bool {
    at > 0
        && bytes[at - 1].is_ascii_digit()
        && bytes.len() >= at + 4
        && bytes[at + 1..at + 4].iter().all(u8::is_ascii_digit)
        && bytes.get(at + 4).is_none_or(|b| !b.is_ascii_digit())
}

/// Past white space and punctuation that does not end a sentence.
pub(super) fn skip_soft(text: &str, at: usize) -> usize {
    let rest = &text[at..];
    at + rest.len()
        - rest
            .trim_start_matches(|c: char| {
                c.is_whitespace() || matches!(c, ',' | ':' | '-' | '—' | '–' | '"' | '(' | '*')
            })
            .len()
}

/// Whether an emoji (a character of U+1F000 to U+1FFFF) starts at byte `at` and ends a
/// sentence: white space, the end or another such emoji after it ("the sync is broken 😭 can
/// you look at it"). Its four bytes then stand as one sentence end. (Only the sentences
/// read one by one split there: the view's byte offsets of clause and sentence ends stay those
/// of punctuation, one byte each.)
/// An emoji after a word that needs one after it is a word of the phrase: "Build a 🎉 party
/// invitation page".
fn emoji_end(bytes: &[u8], at: usize) -> bool {
    const JOINING: [&[u8]; 24] = [
        b"a", b"an", b"the", b"my", b"our", b"your", b"their", b"his", b"her", b"its", b"this",
        b"that", b"with", b"for", b"of", b"and", b"or", b"to", b"in", b"on", b"at", b"by", b"some",
        b"no",
    ];
    bytes[at] == 0xF0
        && bytes.get(at + 1) == Some(&0x9F)
        && at + 4 <= bytes.len()
        && bytes
            .get(at + 4)
            .is_none_or(|b| b.is_ascii_whitespace() || *b == 0xF0)
        && {
            let before = bytes[..at].trim_ascii_end();
            let word = before
                .rsplit(|b| !b.is_ascii_alphabetic())
                .next()
                .unwrap_or_default();
            !JOINING.iter().any(|j| j.eq_ignore_ascii_case(word))
        }
}

/// The bytes that may end a sentence: its marks, and an emoji's first byte.
static MAY_END: [bool; 256] = {
    let mut t = [false; 256];
    t[b'!' as usize] = true;
    t[b'?' as usize] = true;
    t[b';' as usize] = true;
    t[b'\n' as usize] = true;
    t[b'.' as usize] = true;
    t[0xF0] = true;
    t
};

/// Sentence spans: split on `!`, `?`, `;`, line breaks, `.` followed by white space or the
/// end (so `Node.js` and `3.5` stay whole), and an emoji before white space.
pub(super) fn sentences(text: &str) -> impl Iterator<Item = Range<usize>> + '_ {
    let bytes = text.as_bytes();
    let mut start = 0;
    let mut i = 0;
    std::iter::from_fn(move || {
        while i < bytes.len() {
            let b = bytes[i];
            i += 1;
            // (Most bytes end nothing: one look in a table passes them. An emoji's first byte
            // is looked at only where one starts.)
            if !MAY_END[b as usize] {
                continue;
            }
            let emoji = b == 0xF0 && emoji_end(bytes, i - 1);
            let ends = match b {
                b'!' | b'?' | b';' | b'\n' => true,
                b'.' => i == bytes.len() || bytes[i].is_ascii_whitespace(),
                _ => emoji,
            };
            if ends {
                let s = start..i - 1;
                if emoji {
                    i += 3;
                }
                start = i;
                if !text[s.clone()].trim().is_empty() {
                    return Some(s);
                }
            }
        }
        if start < bytes.len() {
            let s = start..bytes.len();
            start = bytes.len();
            if !text[s.clone()].trim().is_empty() {
                return Some(s);
            }
        }
        None
    })
}

pub(super) fn count_words(text: &str) -> usize {
    text.split(|c: char| !is_word_char(c) && c != '\'')
        .filter(|w| !w.is_empty())
        .count()
}

/// Whether `text` starts with the whole word (or words) `word`, ignoring ASCII case.
pub(super) fn starts_with_word(text: &str, word: &str) -> bool {
    text.len() >= word.len()
        && text.is_char_boundary(word.len())
        && text[..word.len()].eq_ignore_ascii_case(word)
        && boundary_after(text, word.len())
}

pub(super) fn ends_with_word(text: &str, word: &str) -> bool {
    let at = text.len().wrapping_sub(word.len());
    text.len() >= word.len()
        && text.is_char_boundary(at)
        && text[at..].eq_ignore_ascii_case(word)
        && boundary_before(text, at)
}

/// The noun phrase at the start of `text`: up to the first word of `ends` or clause
/// punctuation.
pub(super) fn noun_phrase<'t>(text: &'t str, ends: &[String]) -> &'t str {
    let mut at = 0;
    while at < text.len() {
        let rest = &text[at..];
        // (A colon before a space ends it too: "an onboarding flow: welcome screen, ...".)
        // (A dot inside a word is part of it: "a Next.js route", "backup.ps1".)
        let in_word = rest.starts_with('.')
            && text[..at].ends_with(|c: char| c.is_alphanumeric())
            && rest[1..].starts_with(|c: char| c.is_alphanumeric());
        if !in_word && rest.starts_with(|c: char| c.is_ascii() && is_clause_byte(c as u8))
            || rest.starts_with(": ")
        {
            return &text[..at];
        }
        // (Not inside a hyphenated compound: "right-to-left", "end-to-end", "drag-and-drop".)
        if boundary_before(text, at)
            && !text[..at].ends_with('-')
            && ends
                .iter()
                .any(|w| starts_with_word(rest, w) && !rest[w.len()..].starts_with('-'))
        {
            return text[..at].trim_end();
        }
        at += rest.chars().next().map_or(1, char::len_utf8);
    }
    text
}

/// The most quoted labels [`quoted_spans`] keeps.
const MAX_QUOTED: usize = 8;

/// The quoted labels of `text`, quote marks included: a pair of double quotes (straight or
/// curly), or of single quotes that open at a word's start and close at a word's end ("add an
/// 'export to CSV' button": the words inside are one name, not "to" and a place; an apostrophe
/// inside a word, "don't", opens nothing). One pass; at most [`MAX_QUOTED`] spans.
pub(super) fn quoted_spans(text: &str) -> smallvec::SmallVec<[Range<usize>; 2]> {
    let mut out: smallvec::SmallVec<[Range<usize>; 2]> = smallvec::SmallVec::new();
    let mut open: Option<(usize, char)> = None;
    let mut prev: Option<char> = None;
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let next = chars.peek().map(|(_, n)| *n);
        match open {
            None => {
                // (An elision is no quote: "the '90s theme".)
                let starts = prev.is_none_or(|p| p.is_whitespace() || "([{".contains(p))
                    && next.is_some_and(|n| !n.is_whitespace() && !n.is_ascii_digit());
                if matches!(c, '"' | '\u{201c}') || matches!(c, '\'' | '\u{2018}') && starts {
                    open = Some((i, c));
                }
            }
            Some((at, q)) => {
                let closes = match q {
                    '"' => c == '"',
                    '\u{201c}' => c == '\u{201d}' || c == '"',
                    _ => {
                        matches!(c, '\'' | '\u{2019}')
                            && prev.is_some_and(|p| !p.is_whitespace())
                            && next.is_none_or(|n| !n.is_alphanumeric())
                    }
                };
                if closes {
                    open = None;
                    out.push(at..i + c.len_utf8());
                    if out.len() == MAX_QUOTED {
                        break;
                    }
                } else if c == '\n' {
                    open = None;
                }
            }
        }
        prev = Some(c);
    }
    out
}

/// The most code blocks [`code_blocks`] keeps; a message with more is read with the rest as
/// prose.
const MAX_CODE_BLOCKS: usize = 16;

/// The runs of lines of `text` that are pasted code, not the user's sentences: lines inside
/// a ``` fence, indented lines (two spaces or a tab) of a message of several lines, and a
/// signature that opens a block ("def total(xs):", "function load() {"). One pass, in
/// order; at most [`MAX_CODE_BLOCKS`] runs.
pub(super) fn code_blocks(text: &str) -> smallvec::SmallVec<[Range<usize>; 4]> {
    let mut out: smallvec::SmallVec<[Range<usize>; 4]> = smallvec::SmallVec::new();
    if memchr::memchr(b'\n', text.as_bytes()).is_none() {
        return out;
    }
    let mut fenced = false;
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        let span = at..at + line.trim_end().len();
        at += line.len();
        let t = line.trim();
        let fence = t.starts_with("```");
        let code = fence
            || fenced
            || (!t.is_empty() && (line.starts_with("  ") || line.starts_with('\t')) && !bullet(t))
            || (t.contains('(')
                && (t.ends_with(':') || t.ends_with('{'))
                && !t.contains(" (")
                // (A signature names its thing in a few words before its parenthesis; a
                // sentence runs longer: "Rewrite this so it runs in O(n log n):".)
                && t[..t.find('(').unwrap_or(0)].split_whitespace().count() <= 4);
        if fence {
            fenced = !fenced;
        }
        if !code || t.is_empty() {
            continue;
        }
        let joins = out
            .last()
            .is_some_and(|last| text[last.end..span.start].trim().is_empty());
        if joins {
            if let Some(last) = out.last_mut() {
                last.end = span.end;
            }
        } else if out.len() < MAX_CODE_BLOCKS {
            out.push(span);
        } else {
            break;
        }
    }
    out
}

/// Whether a line opens with a list's mark ("- ", "* ", "• ", "1. ", "2) ").
pub(super) fn bullet(line: &str) -> bool {
    let digits = line.len() - line.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    let rest = &line[digits..];
    ["- ", "* ", "• "].iter().any(|b| line.starts_with(b))
        || (digits > 0 && (rest.starts_with(". ") || rest.starts_with(") ")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contractions_swap_for_their_full_forms_as_whole_words() {
        let pairs = vec![
            ("it'd".to_string(), "it would".to_string()),
            ("don't".to_string(), "do not".to_string()),
        ];
        assert_eq!(
            contraction_variants("it'd be nice to", &pairs),
            ["it would be nice to"]
        );
        assert_eq!(
            contraction_variants("it would help if", &pairs),
            ["it'd help if"]
        );
        assert_eq!(
            contraction_variants("i do not want", &pairs),
            ["i don't want"]
        );
        // (Not inside a word: "split would" holds no "it would".)
        assert!(contraction_variants("split would be nice", &pairs).is_empty());
        assert!(contraction_variants("undo nothing", &pairs).is_empty());
    }

    #[test]
    fn code_blocks_are_fenced_indented_or_opened_by_a_signature() {
        let text = "this is slow\n\ndef total(xs):\n    s = 0\n    return s\nthanks";
        let got: Vec<&str> = code_blocks(text).into_iter().map(|r| &text[r]).collect();
        assert_eq!(got, ["def total(xs):\n    s = 0\n    return s"]);
        let text = "see below\n```\nx = 1;\n```\nwhy (again)?";
        let got: Vec<&str> = code_blocks(text).into_iter().map(|r| &text[r]).collect();
        assert_eq!(got, ["```\nx = 1;\n```"]);
        // One line, prose with a parenthesis, or an indented list, is no code.
        assert!(code_blocks("todo:\n  - add dark mode\n  2. fix the footer").is_empty());
        assert!(code_blocks("fix the login (it hangs):").is_empty());
        assert!(code_blocks("Rewrite this so it runs in O(n log n):\n\nx = 1").is_empty());
        let text = "why\nfor i in range(len(a)):\n    pass";
        assert_eq!(code_blocks(text).len(), 1);
        assert!(
            code_blocks("the page hangs\nwhen I open the settings (the gear icon):").is_empty()
        );
    }

    #[test]
    fn a_noun_phrase_runs_through_a_hyphenated_compound() {
        let ends: Vec<String> = ["to", "and", "of", "for"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(
            noun_phrase("right-to-left languages for rtl", &ends),
            "right-to-left languages"
        );
        assert_eq!(
            noun_phrase("drag-and-drop upload and more", &ends),
            "drag-and-drop upload"
        );
        assert_eq!(
            noun_phrase("state-of-the-art search", &ends),
            "state-of-the-art search"
        );
        assert_eq!(noun_phrase("export to csv", &ends), "export");
    }

    #[test]
    fn sentences_split_on_terminators_but_not_inside_words() {
        let text = "Use Node.js 3.5 please. Then stop! Why? a;b\nc";
        let got: Vec<&str> = sentences(text).map(|r| &text[r]).collect();
        assert_eq!(
            got,
            [
                "Use Node.js 3.5 please",
                " Then stop",
                " Why",
                " a",
                "b",
                "c"
            ]
        );
    }

    #[test]
    fn an_emoji_before_white_space_ends_a_sentence() {
        let text = "the sync is broken 😭 can you look 🙏🙏 at it😀x 🎉 build a 🎉 party page";
        let got: Vec<&str> = sentences(text).map(|r| &text[r]).collect();
        assert_eq!(
            got,
            [
                "the sync is broken ",
                " can you look ",
                " at it😀x ",
                " build a 🎉 party page"
            ]
        );
        // An emoji alone, or at the very end, leaves nothing to read.
        assert_eq!(sentences("🎉").count(), 0);
    }

    #[test]
    fn word_boundaries_treat_apostrophes_as_joiners() {
        assert!(boundary_after("ok then", 2));
        assert!(!boundary_after("book", 2));
        assert!(!boundary_after("don't", 3));
        assert!(boundary_after("'ok'", 3));
        assert!(!boundary_before("book", 2));
        assert!(boundary_before("a book", 2));
    }

    #[test]
    fn word_prefixes_and_suffixes_are_whole_words() {
        assert!(starts_with_word("an app", "an"));
        assert!(!starts_with_word("anvil", "an"));
        assert!(ends_with_word("build it please", "please"));
        assert!(!ends_with_word("displease", "please"));
        assert!(!starts_with_word("é", "e"));
    }

    #[test]
    fn noun_phrases_end_at_stop_words_and_punctuation() {
        let ends = vec!["to".to_string(), "for".to_string()];
        assert_eq!(noun_phrase("a minute to think", &ends), "a minute");
        assert_eq!(
            noun_phrase("a landing page, today", &ends),
            "a landing page"
        );
        assert_eq!(noun_phrase("a tomato form", &ends), "a tomato form");
        assert_eq!(
            noun_phrase("a Next.js route. thanks", &ends),
            "a Next.js route"
        );
    }

    #[test]
    fn curly_quotes_are_normalised() {
        assert_eq!(normalize("I’ll start"), "I'll start");
        assert!(matches!(normalize("plain"), std::borrow::Cow::Borrowed(_)));
        assert_eq!(normalize_phrase("  Go   Ahead "), "go ahead");
    }

    #[test]
    fn quoted_labels_are_found_and_apostrophes_open_none() {
        let spans = |t: &str| -> Vec<String> {
            quoted_spans(t)
                .iter()
                .map(|r| t[r.clone()].to_string())
                .collect()
        };
        assert_eq!(
            spans("add an 'export to CSV' button, don't wait"),
            ["'export to CSV'"]
        );
        assert_eq!(
            spans("the \"Save as\" item and the 'Print' one"),
            ["\"Save as\"", "'Print'"]
        );
        assert!(spans("it's the users' own list, isn't it").is_empty());
        // (An unclosed quote ends at its line.)
        assert!(spans("a \"half\nquote").is_empty());
    }
}
