//! Typo tolerance (the spec's "Real phrasing", rule 4): a word that is not a known word and is
//! one edit (a letter inserted, deleted or replaced, or two neighbours swapped) from exactly one
//! vocabulary word of five or more letters is read as that word. The edit keeps the first
//! letter or swaps it with the second ("gmail" is no "email"), and a word in capitals or
//! capitalised inside a sentence is a name or a code ("ERESOLVE", "the Procfile"), never read
//! as another; nor is a part of a dotted name or a path ("java.util.Arrays").
//!
//! Known words are the vocabulary of the pattern files and a built-in list of English words
//! (`words.txt`: the public-domain "web2" list, Webster's Second New International Dictionary of
//! 1934, built by `scripts/make-words`, read in `dictionary.rs`), with their plain inflections.
//!
//! The vocabulary words and their one-letter deletions are indexed once, when the patterns are
//! compiled (a deletion neighbourhood: two words are one edit apart only if they share a key).
//! Reading a word costs, for most words, a letter-pair test, then one hash and a look-up among
//! the known words (a vocabulary word or a word of the list is never corrected). Only a word
//! known to neither, or known as an inflection, has its deletions hashed, in one pass, and
//! tested against a Bloom filter; only a candidate is checked letter by letter. Nothing is
//! allocated unless a word is corrected.
//!
//! A hesitation inside a sentence ("set a timer for uh twenty five minutes", the language
//! file's `hesitations`) is read as nothing, with the comma or space after it: the reader sees
//! the sentence the user meant. At a message's start it stays (fillers and non-answers read
//! it there), and so does one that makes a vocabulary phrase with its neighbour.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::hash::BuildHasherDefault;
use std::ops::Range;

use smallvec::SmallVec;

use super::dictionary::{KeyHasher, Known, MAX_WORD, dictionary, known, padded_word_key, word_key};
pub use super::said::{Correction, Said};

mod spoken;

/// Vocabulary words shorter than this are never the correction.
const MIN_TARGET: usize = 5;
/// Words shorter than this are never corrected.
const MIN_WORD: usize = 4;
const BLOOM_BITS: usize = 1 << 18;
const PRIME: u64 = 0x100_0000_01b3;

/// The compiled vocabulary.
#[derive(Clone, Debug)]
pub struct Speller {
    /// Vocabulary words of [`MIN_TARGET`] letters or more (the corrections).
    targets: Vec<Box<str>>,
    /// Keys of the targets and their deletions, two bits each.
    bloom: Box<[u64]>,
    /// Key → the targets it belongs to.
    index: HashMap<u64, SmallVec<[u32; 2]>, BuildHasherDefault<KeyHasher>>,
    /// Keys of known words one edit from a target at its end ("components", "created"), and
    /// how they are known: the commonest near misses, found without a look into the list.
    near: HashMap<u64, Known, BuildHasherDefault<KeyHasher>>,
    /// Pairs of neighbouring words in the vocabulary's phrases ("sounds good"), for words
    /// known only as an inflection.
    /// Kept as the keys of "word word" (see [`word_key`]).
    pairs: HashSet<u64, BuildHasherDefault<KeyHasher>>,
    /// For each pair of letters, the lengths of the targets that start (`starts`) or end
    /// (`ends`) with it, one bit per length. A word one edit from a target shares its first two
    /// or its last two letters and is at most one letter longer or shorter: a word that does
    /// not is near no target, and is passed over with two lookups.
    starts: Box<[u32; 26 * 26]>,
    ends: Box<[u32; 26 * 26]>,
    /// Words of hesitation, lower case, read as nothing inside a sentence.
    hesitations: Vec<Box<str>>,
    /// The first letters of `hesitations`, a bit per letter: most words stop at one test.
    hesitation_firsts: u32,
    /// Phrases that restate a spoken value ("no wait make it"), lower case.
    /// Per word of `restatement_heads`, the phrases it opens, in the order given.
    restatements: Vec<Vec<Box<str>>>,
    /// The first words of the restatement phrases ("no", "wait", "i"), lower case.
    restatement_heads: Vec<Box<str>>,
    /// Their first letters, a bit per letter: most words stop at one test.
    restatement_firsts: u32,
    /// Words of spoken numbers and times ("five", "thirty", "pm").
    numbers: Vec<Box<str>>,
}

/// The index of a pair of lower-case letters.
fn letter_pair(a: u8, b: u8) -> usize {
    (a.wrapping_sub(b'a') as usize % 26) * 26 + (b.wrapping_sub(b'a') as usize % 26)
}

impl Speller {
    /// From every word of the pattern files' phrases.
    /// From every phrase of the pattern files (their words are the vocabulary: known, and the
    /// corrections) and the language file's known words (known only).
    pub fn new<'w>(
        phrases: impl IntoIterator<Item = &'w str>,
        known_words: impl IntoIterator<Item = &'w str>,
    ) -> Speller {
        let phrases: Vec<&str> = phrases.into_iter().collect();
        let words = |p: &'w str| {
            p.split(|c: char| !c.is_ascii_alphabetic())
                .filter(|w| !w.is_empty())
                .map(|w| w.to_ascii_lowercase())
        };
        let mut pairs = HashSet::default();
        for p in &phrases {
            let list: Vec<String> = words(p).collect();
            for pair in list.windows(2) {
                pairs.insert(word_key(format!("{} {}", pair[0], pair[1]).as_bytes()));
            }
        }
        let mut vocabulary: Vec<Box<str>> = phrases
            .iter()
            .flat_map(|p| words(p))
            .map(String::into_boxed_str)
            .collect();
        let mut targets: Vec<Box<str>> = vocabulary
            .iter()
            .filter(|w| (MIN_TARGET..=MAX_WORD).contains(&w.len()))
            .cloned()
            .collect();
        targets.sort_unstable();
        targets.dedup();
        vocabulary.extend(
            known_words
                .into_iter()
                .flat_map(words)
                .map(String::into_boxed_str),
        );
        vocabulary.sort_unstable();
        vocabulary.dedup();
        let mut speller = Speller {
            targets,
            bloom: vec![0u64; BLOOM_BITS / 64].into_boxed_slice(),
            index: HashMap::default(),
            near: HashMap::default(),
            pairs,
            starts: Box::new([0; 26 * 26]),
            ends: Box::new([0; 26 * 26]),
            hesitations: Vec::new(),
            hesitation_firsts: 0,
            restatements: Vec::new(),
            restatement_heads: Vec::new(),
            restatement_firsts: 0,
            numbers: Vec::new(),
        };
        let Speller {
            targets,
            bloom,
            index,
            near: near_known,
            starts,
            ends,
            ..
        } = &mut speller;
        // Vocabulary words are known: found at their first key; and so are they in -s, for
        // the short ones the built-in list leaves out ("use": "the widget uses ...").
        for v in vocabulary.iter().filter(|v| v.len() <= MAX_WORD) {
            near_known.insert(word_key(v.as_bytes()), Known::Listed);
            if v.len() < MAX_WORD {
                let mut s: SmallVec<[u8; MAX_WORD]> = SmallVec::from_slice(v.as_bytes());
                s.push(b's');
                near_known.entry(word_key(&s)).or_insert(Known::Listed);
            }
        }
        for (id, t) in targets.iter().enumerate() {
            let b = t.as_bytes();
            let n = b.len();
            starts[letter_pair(b[0], b[1])] |= 1 << n;
            ends[letter_pair(b[n - 2], b[n - 1])] |= 1 << n;
            keys(t.as_bytes(), |key| {
                let ids = index.entry(key).or_default();
                if !ids.contains(&(id as u32)) {
                    ids.push(id as u32);
                }
                let (a, b) = bloom_bits(key);
                bloom[a / 64] |= 1 << (a % 64);
                bloom[b / 64] |= 1 << (b % 64);
                true
            });
            let t = t.as_bytes();
            let mut near: SmallVec<[SmallVec<[u8; MAX_WORD + 1]>; 6]> = SmallVec::new();
            for end in [b's', b'd', b'r', b'y', b'n'] {
                let mut w: SmallVec<[u8; MAX_WORD + 1]> = SmallVec::from_slice(t);
                w.push(end);
                near.push(w);
            }
            near.push(SmallVec::from_slice(&t[..t.len() - 1]));
            for w in near.iter().filter(|w| w.len() <= MAX_WORD) {
                let how = known(w);
                if how != Known::No {
                    near_known.entry(word_key(w)).or_insert(how);
                }
            }
        }
        speller
    }

    /// `text` with its misspelt words read as the vocabulary words they are one edit from.
    /// Borrows `text` when nothing is corrected (no allocation).
    pub fn spell<'a>(&self, text: &'a str) -> Said<'a> {
        let mut said = Said::as_written(text);
        let bytes = text.as_bytes();
        let mut i = 0;
        let mut out: Option<String> = None;
        let mut copied = 0;
        // The word before, when only spaces stand between it and this one.
        let mut previous: Option<Range<usize>> = None;
        while i < bytes.len() {
            if !bytes[i].is_ascii_alphabetic() {
                if bytes[i] != b' ' {
                    previous = None;
                }
                i += 1;
                continue;
            }
            let start = i;
            while i < bytes.len() && bytes[i].is_ascii_alphabetic() {
                i += 1;
            }
            let before = previous.replace(start..i);
            let word = &text[start..i];
            // (A spoken value restated: the value before it and the phrase read as nothing,
            // "five thirty no wait make it five fifteen".)
            if self.restatement_firsts & (1 << (bytes[start].to_ascii_lowercase() - b'a')) != 0
                && let Some(drop) = self
                    .restated_at(text, start, word)
                    .filter(|d| d.start >= copied)
            {
                let buf = out.get_or_insert_with(|| String::with_capacity(text.len() + 8));
                buf.push_str(&text[copied..drop.start]);
                let at = buf.len();
                copied = drop.end;
                said.corrections.push(Correction {
                    original: drop.clone(),
                    read: at..at,
                });
                previous = None;
                i = drop.end;
                continue;
            }
            let hesitation = i - start <= 4
                && bytes[start].is_ascii_lowercase()
                && self.hesitation_firsts & (1 << (bytes[start] - b'a')) != 0;
            // (A word said again after it restarts there: the first is read as nothing too,
            // "set the uh the downstairs thermostat".)
            let restart = hesitation
                .then(|| self.restarts(text, start, i, before.as_ref()))
                .flatten()
                .filter(|r| *r >= copied);
            if hesitation && (restart.is_some() || self.hesitates(text, start, i, before.clone())) {
                // (Read as nothing, with the comma and the spaces after it; between two
                // commas, with the one before it: "move it to, uh, thursday".)
                let mut start = restart.unwrap_or(start);
                let mut end = i;
                let lead = text[..start].trim_end_matches(' ');
                if bytes.get(end) == Some(&b',') && lead.ends_with(',') && lead.len() > copied {
                    start = lead.len() - 1;
                    end = i + 1;
                } else {
                    if bytes.get(end) == Some(&b',') {
                        end += 1;
                    }
                    while bytes.get(end) == Some(&b' ') {
                        end += 1;
                    }
                }
                if end == i || end == bytes.len() {
                    // (Ending the message, it leaves the space before it.)
                    end = i;
                }
                let buf = out.get_or_insert_with(|| String::with_capacity(text.len() + 8));
                buf.push_str(&text[copied..start]);
                let at = buf.len();
                copied = end;
                said.corrections.push(Correction {
                    original: start..end,
                    read: at..at,
                });
                previous = if restart.is_some() { None } else { before };
                i = end;
                continue;
            }
            if !(MIN_WORD..=MAX_WORD).contains(&word.len())
                || !stands_alone(text, start, i)
                || named(text, start, word)
            {
                continue;
            }
            let Some((target, inflection)) = self.correction(word) else {
                continue;
            };
            if inflection && !self.completes_pair(text, before, target, i) {
                continue;
            }
            let buf = out.get_or_insert_with(|| String::with_capacity(text.len() + 8));
            buf.push_str(&text[copied..start]);
            let read = buf.len()..buf.len() + target.len();
            buf.push_str(target);
            copied = i;
            said.corrections.push(Correction {
                original: start..i,
                read,
            });
        }
        if let Some(mut buf) = out {
            buf.push_str(&text[copied..]);
            said.text = Cow::Owned(buf);
        }
        said
    }

    /// Whether `target`, standing where the word ending at `end` stands, makes a pair of a
    /// vocabulary phrase with the word before it or the one after it.
    fn completes_pair(
        &self,
        text: &str,
        before: Option<Range<usize>>,
        target: &str,
        end: usize,
    ) -> bool {
        let mut buf = [0u8; 2 * MAX_WORD + 1];
        let mut pair = |a: &str, b: &str| {
            if a.len() + b.len() + 1 > buf.len() {
                return false;
            }
            buf[..a.len()].copy_from_slice(a.as_bytes());
            buf[a.len()] = b' ';
            buf[a.len() + 1..a.len() + 1 + b.len()].copy_from_slice(b.as_bytes());
            let joined = &mut buf[..a.len() + 1 + b.len()];
            joined.make_ascii_lowercase();
            self.pairs.contains(&word_key(joined))
        };
        let rest = &text[end..];
        let after = rest.trim_start_matches(' ');
        let next_len = after.bytes().take_while(u8::is_ascii_alphabetic).count();
        (after.len() < rest.len() && next_len > 0 && pair(target, &after[..next_len]))
            || before.is_some_and(|b| pair(&text[b], target))
    }

    /// The target `word` is read as, if any, and whether `word` is known as an inflection (it is
    /// then read so only within a phrase).
    fn correction(&self, word: &str) -> Option<(&str, bool)> {
        // Lower case: `word` is ASCII letters only (see `spell`).
        let mut lower = [0u8; MAX_WORD];
        for (l, b) in lower.iter_mut().zip(word.as_bytes()) {
            *l = b.to_ascii_lowercase();
        }
        let n = word.len();
        let w = &lower[..n];
        // A word near no target (none of about its length shares its first or last two letters)
        // stops at two look-ups.
        let lengths = 0b111u32 << (n - 1);
        if self.starts[letter_pair(w[0], w[1])] & lengths == 0
            && self.ends[letter_pair(w[n - 2], w[n - 1])] & lengths == 0
        {
            return None;
        }
        // Then the word itself: a vocabulary word or a word of the built-in list (most words
        // of a message) stops here, at one hash and a look-up or two. Only an unknown word or an
        // inflection ("takes") has its deletions hashed.
        let key = padded_word_key(&lower, n);
        let how = match self.near.get(&key) {
            Some(Known::Listed) => return None,
            Some(how) => Some(*how),
            None if dictionary().keys.contains(&key) => return None,
            None => None,
        };
        // The one target near `w`; `None` inside when `w` is a target or near two.
        let mut found: Option<Option<u32>> = None;
        keys(w, |key| {
            let (a, b) = bloom_bits(key);
            if self.bloom[a / 64] & (1 << (a % 64)) == 0
                || self.bloom[b / 64] & (1 << (b % 64)) == 0
            {
                return true;
            }
            let ids = self.index.get(&key);
            let Some(ids) = ids else {
                return true;
            };
            for &id in ids {
                let target = self.targets[id as usize].as_bytes();
                if target == w {
                    found = Some(None); // a vocabulary word
                    return false;
                }
                // (A typo keeps the first letter, or swaps it with the second: "gmail" is no
                // "email", "maven" no "haven".)
                let first = w[0] == target[0] || w[0] == target[1] && w[1] == target[0];
                if found != Some(Some(id)) && first && one_edit(w, target) {
                    if found.is_some() {
                        found = Some(None); // near two vocabulary words: ambiguous
                        return false;
                    }
                    found = Some(Some(id));
                }
            }
            true
        });
        let target = &*self.targets[found?? as usize];
        // Known words are never corrected (an inflection is checked only for the rare candidate).
        let how = how.unwrap_or_else(|| known(w));
        match how {
            Known::Listed => None,
            Known::Inflection => Some((target, true)),
            Known::No => Some((target, false)),
        }
    }
}

/// Whether `word` at `start` is a name or a code rather than a misspelt word: all capitals
/// ("ERESOLVE"), or a capital inside a sentence ("the Procfile", "builds with Maven").
fn named(text: &str, start: usize, word: &str) -> bool {
    let b = word.as_bytes();
    if !b[0].is_ascii_uppercase() {
        return false;
    }
    if b.iter().all(u8::is_ascii_uppercase) {
        return true;
    }
    text[..start]
        .trim_end_matches([' ', '\t'])
        .chars()
        .last()
        .is_some_and(|c| {
            !matches!(
                c,
                '\n' | '\r' | '.' | '!' | '?' | ':' | '"' | '(' | '[' | '-' | '*' | '>'
            )
        })
}

/// Not part of a longer token: no digit, underscore, non-ASCII letter or joining apostrophe
/// next to it ("café", "v2", "don't" are left alone).
fn stands_alone(text: &str, start: usize, end: usize) -> bool {
    let b = text.as_bytes();
    // A byte of a non-ASCII character joins too (conservatively: "café").
    let joins = |c: u8| c.is_ascii_alphanumeric() || c == b'_' || c >= 0x80;
    let before = start.checked_sub(1).map(|i| b[i]);
    let after = b.get(end).copied();
    let apostrophe_before =
        before == Some(b'\'') && start >= 2 && b[start - 2].is_ascii_alphabetic();
    let apostrophe_after =
        after == Some(b'\'') && b.get(end + 1).is_some_and(u8::is_ascii_alphabetic);
    // (A dot or a slash between letters makes a name of code or a path: "java.util.Arrays",
    // "src/util/date.ts".)
    let dotted_before =
        matches!(before, Some(b'.' | b'/')) && start >= 2 && b[start - 2].is_ascii_alphanumeric();
    let dotted_after =
        matches!(after, Some(b'.' | b'/')) && b.get(end + 1).is_some_and(u8::is_ascii_alphanumeric);
    !before.is_some_and(joins)
        && !after.is_some_and(joins)
        && !apostrophe_before
        && !apostrophe_after
        && !dotted_before
        && !dotted_after
}

/// Powers of the hash's multiplier, up to the longest word.
const POW: [u64; MAX_WORD + 1] = {
    let mut pow = [1u64; MAX_WORD + 1];
    let mut k = 1;
    while k <= MAX_WORD {
        pow[k] = pow[k - 1].wrapping_mul(PRIME);
        k += 1;
    }
    pow
};

/// Calls `each` with the key of `w` (at most [`MAX_WORD`] bytes) and then the keys of each of
/// its one-letter deletions, computed in one pass; stops when `each` returns false. Keys are
/// polynomial hashes mixed with the length, so a word and a deletion of a longer word that
/// spell the same get the same key.
fn keys(w: &[u8], mut each: impl FnMut(u64) -> bool) {
    let n = w.len();
    // suffix[i]: the hash of w[i..].
    let mut suffix = [0u64; MAX_WORD + 1];
    for i in (0..n).rev() {
        suffix[i] = (w[i] as u64 + 1)
            .wrapping_mul(POW[n - 1 - i])
            .wrapping_add(suffix[i + 1]);
    }
    if !each(mix(suffix[0], n)) {
        return;
    }
    // prefix: the hash of w[..i].
    let mut prefix = 0u64;
    for i in 0..n {
        let deleted = prefix
            .wrapping_mul(POW[n - 1 - i])
            .wrapping_add(suffix[i + 1]);
        if !each(mix(deleted, n - 1)) {
            return;
        }
        prefix = prefix.wrapping_mul(PRIME).wrapping_add(w[i] as u64 + 1);
    }
}

/// Spreads a hash (and its length) over 64 bits, for the Bloom filter's bits.
fn mix(h: u64, len: usize) -> u64 {
    let x = (h ^ ((len as u64) << 58)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    x ^ (x >> 31)
}

fn bloom_bits(key: u64) -> (usize, usize) {
    let mask = BLOOM_BITS - 1;
    ((key >> 40) as usize & mask, (key >> 8) as usize & mask)
}

/// Whether `a` and `b` are exactly one edit apart: one letter inserted, deleted or replaced, or
/// two neighbours swapped.
fn one_edit(a: &[u8], b: &[u8]) -> bool {
    match a.len() as isize - b.len() as isize {
        0 => {
            let Some(i) = a.iter().zip(b).position(|(x, y)| x != y) else {
                return false;
            };
            a[i + 1..] == b[i + 1..]
                || (i + 1 < a.len()
                    && a[i] == b[i + 1]
                    && a[i + 1] == b[i]
                    && a[i + 2..] == b[i + 2..])
        }
        1 => deletes_to(a, b),
        -1 => deletes_to(b, a),
        _ => false,
    }
}

/// Whether deleting one letter of `long` gives `short`.
fn deletes_to(long: &[u8], short: &[u8]) -> bool {
    let i = long
        .iter()
        .zip(short)
        .position(|(x, y)| x != y)
        .unwrap_or(short.len());
    long[i + 1..] == short[i..]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn speller() -> Speller {
        Speller::new(
            [
                "perfect",
                "thanks",
                "build",
                "sounds good",
                "proceed",
                "great",
                "create",
                "approve",
            ],
            ["perfcts"],
        )
    }

    #[test]
    fn one_edit_is_one_insertion_deletion_replacement_or_swap() {
        assert!(one_edit(b"perfct", b"perfect"));
        assert!(one_edit(b"perfeect", b"perfect"));
        assert!(one_edit(b"perfekt", b"perfect"));
        assert!(one_edit(b"thnaks", b"thanks"));
        assert!(one_edit(b"procede", b"proceed"));
        assert!(!one_edit(b"perfect", b"perfect"));
        assert!(!one_edit(b"prefcet", b"perfect"));
        assert!(!one_edit(b"perf", b"perfect"));
    }

    #[test]
    fn deletion_keys_equal_the_keys_of_the_deleted_words() {
        let all = |w: &[u8]| {
            let mut out = Vec::new();
            keys(w, |k| {
                out.push(k);
                true
            });
            out
        };
        let thanks = all(b"thanks");
        for w in ["thanks", "abcdefgh", "abcdefghi", "perfectionistic"] {
            let mut padded = [0u8; MAX_WORD];
            padded[..w.len()].copy_from_slice(w.as_bytes());
            assert_eq!(
                padded_word_key(&padded, w.len()),
                word_key(w.as_bytes()),
                "{w}"
            );
        }
        for i in 0..6 {
            let mut d = b"thanks".to_vec();
            d.remove(i);
            assert_eq!(thanks[i + 1], all(&d)[0], "deleting {i}");
        }
    }

    #[test]
    fn misspelt_words_are_read_as_the_one_vocabulary_word_near_them() {
        let s = speller();
        for (typo, word) in [
            ("perfct", "perfect"),
            ("thnaks", "thanks"),
            ("buld", "build"),
            ("procede", "proceed"),
            ("Perfct", "perfect"),
        ] {
            assert_eq!(s.correction(typo), Some((word, false)), "{typo}");
        }
        // Known words, short words, vocabulary words and words near none stay.
        for word in [
            "treat",
            "crate",
            "proceeds",
            "perfect",
            "bld",
            "xyzzy",
            "thanksgiving",
        ] {
            assert_eq!(s.correction(word), None, "{word}");
        }
        // Inflections of listed words ("tanks", "sonds" of the old "sond") are read so only
        // where they complete a phrase.
        assert_eq!(s.correction("tanks"), Some(("thanks", true)));
        assert_eq!(s.spell("tanks").text, "tanks");
        assert_eq!(s.spell("sonds good").text, "sounds good");
        assert_eq!(s.spell("it sonds odd").text, "it sonds odd");
        assert_eq!(
            s.spell("the widget uses the wrong timezone").text,
            "the widget uses the wrong timezone"
        );
        // A known word of the patterns is never corrected.
        assert_eq!(s.correction("perfcts"), None);
        // A typo keeps its first letter (or swaps it with the second); names and codes stay.
        assert_eq!(s.spell("switch to gmail").text, "switch to gmail");
        assert_eq!(s.spell("ubild a page").text, "build a page");
        assert_eq!(s.spell("edit the Procfile").text, "edit the Procfile");
        assert_eq!(s.spell("code ERESOLVE").text, "code ERESOLVE");
        assert_eq!(s.spell("at java.util.Arrays").text, "at java.util.Arrays");
        assert_eq!(s.spell("src/util/x.ts").text, "src/util/x.ts");
        assert_eq!(s.spell("i cant buld.").text, "i cant build.");
        assert_eq!(s.spell("Buld a page").text, "build a page");
        assert_eq!(s.spell("ok.\nBuld a page").text, "ok.\nbuild a page");
        // Negations typed without their apostrophe are words.
        assert_eq!(s.spell("it hasnt synced").text, "it hasnt synced");
    }

    #[test]
    fn corrections_map_back_to_what_was_written() {
        let s = speller();
        let said = s.spell("Perfct, thnaks! a buld");
        assert_eq!(said.text, "perfect, thanks! a build");
        assert_eq!(said.corrections.len(), 3);
        let whole = 0..said.text.len();
        assert_eq!(said.original_text(whole), "Perfct, thnaks! a buld");
        let build = said.text.find("build").unwrap();
        assert_eq!(said.original_text(build..build + 5), "buld");
        assert_eq!(said.original_text(9..16), "thnaks!");
        let plain = s.spell("nothing to fix here");
        assert!(matches!(plain.text, Cow::Borrowed(_)));
    }

    #[test]
    fn words_inside_longer_tokens_are_left_alone() {
        let s = speller();
        for text in ["perfct2", "perfct_x", "perfct'd", "cafébuld", "x'perfct"] {
            assert!(s.spell(text).corrections.is_empty(), "{text}");
        }
        assert_eq!(s.spell("(perfct)").text, "(perfect)");
    }
}
