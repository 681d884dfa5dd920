//! The built-in list of English words (`words.txt`: the public-domain "web2" list, built by
//! `scripts/make-words`) and the keys words are looked up by: which words are known, as listed
//! or as a plain inflection, so that the speller never corrects them.

use std::collections::HashSet;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::OnceLock;

/// The built-in list: sorted, front-coded (each line: how many leading letters it shares with
/// the line before, one digit, then the rest).
const WORDS: &str = include_str!("words.txt");

/// Words longer than this are never corrected (and never targets).
pub(super) const MAX_WORD: usize = 16;
// Two eight-letter halves (see `padded_word_key`).
const _: () = assert!(MAX_WORD == 16);
/// Stems of inflections ("takes", "treated") count from this length.
const MIN_STEM: usize = 4;

/// Keys are mixed already: the index hashes them as they are.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 = (self.0 << 8) ^ u64::from(*b);
        }
    }
    fn write_u64(&mut self, key: u64) {
        self.0 = key;
    }
}

/// How well the built-in list knows a word.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Known {
    /// Not at all.
    No,
    /// As the plain inflection (-s, -es, -ed, -d, -ing, -ly, -er) of a word it holds: the list
    /// has no inflections, and its stems include rare old words ("sond"), so such a word still
    /// yields to a vocabulary phrase it would complete ("sonds good").
    Inflection,
    /// Word for word.
    Listed,
}

/// Negated auxiliaries typed without their apostrophe, which the built-in list does not hold
/// ("hasnt" is no misspelt "wasnt").
const CONTRACTIONS: [&str; 16] = [
    "isnt", "arent", "wasnt", "werent", "hasnt", "havent", "hadnt", "doesnt", "didnt", "cant",
    "couldnt", "wont", "wouldnt", "shouldnt", "mustnt", "neednt",
];

/// How the built-in list knows `w` (lower-case ASCII).
pub(super) fn known(w: &[u8]) -> Known {
    let dict = dictionary();
    if dict.contains(w) || CONTRACTIONS.iter().any(|c| c.as_bytes() == w) {
        return Known::Listed;
    }
    let n = w.len();
    let stem = |cut: usize, add: &[u8]| {
        if n < cut || n - cut + add.len() < MIN_STEM {
            return false;
        }
        let mut buf = [0u8; MAX_WORD + 2];
        let base = &w[..n - cut];
        buf[..base.len()].copy_from_slice(base);
        buf[base.len()..base.len() + add.len()].copy_from_slice(add);
        dict.contains(&buf[..base.len() + add.len()])
    };
    let inflection = (w.ends_with(b"s") && stem(1, b""))
        || (w.ends_with(b"es") && stem(2, b""))
        || (w.ends_with(b"ed") && (stem(2, b"") || stem(1, b"")))
        || (w.ends_with(b"ing") && (stem(3, b"") || stem(3, b"e")))
        || (w.ends_with(b"ly") && stem(2, b""))
        || (w.ends_with(b"er") && (stem(2, b"") || stem(1, b"")));
    if inflection {
        Known::Inflection
    } else {
        Known::No
    }
}

/// The built-in list, decoded once per process into the keys of its words (a word's key is
/// its first key in the speller's deletion keys): about 2 MB, a lookup is a hash and a probe. Two words sharing a
/// 64-bit key would make one of them known: a missed correction at worst.
pub(super) struct Dictionary {
    pub(super) keys: HashSet<u64, BuildHasherDefault<KeyHasher>>,
}

impl Dictionary {
    fn contains(&self, w: &[u8]) -> bool {
        w.len() <= MAX_WORD && self.keys.contains(&word_key(w))
    }
}

/// The key of a whole word (or of two words and the space between them), for the look-ups of
/// known words: eight letters at a time, so a word of up to 16 letters costs two
/// multiplications. Not the key the speller's deletion keys give it (that one must agree with its deletions').
pub(super) fn word_key(w: &[u8]) -> u64 {
    let mut h = w.len() as u64;
    for chunk in w.chunks(8) {
        let mut eight = [0u8; 8];
        eight[..chunk.len()].copy_from_slice(chunk);
        h = key_step(h, eight);
    }
    h
}

/// [`word_key`] of the first `n` letters of `w`, the rest of which are zeros.
pub(super) fn padded_word_key(w: &[u8; MAX_WORD], n: usize) -> u64 {
    let (first, second) = w.split_at(8);
    let mut h = key_step(n as u64, first.try_into().unwrap_or_default());
    if n > 8 {
        h = key_step(h, second.try_into().unwrap_or_default());
    }
    h
}

/// One multiplication per eight letters, its high bits turned down to where the index looks.
fn key_step(h: u64, eight: [u8; 8]) -> u64 {
    (h ^ u64::from_le_bytes(eight))
        .wrapping_mul(0x9e37_79b9_7f4a_7c15)
        .rotate_left(26)
}

pub(super) fn dictionary() -> &'static Dictionary {
    static DICTIONARY: OnceLock<Dictionary> = OnceLock::new();
    DICTIONARY.get_or_init(|| {
        let mut keys = HashSet::with_capacity_and_hasher(WORDS.len() / 5, Default::default());
        let mut word = [0u8; 32];
        let mut len = 0;
        for line in WORDS.lines() {
            let Some(shared) = line.get(..1).and_then(|d| d.parse::<usize>().ok()) else {
                continue;
            };
            let rest = &line.as_bytes()[1..];
            let keep = shared.min(len);
            if keep + rest.len() > word.len() {
                continue;
            }
            word[keep..keep + rest.len()].copy_from_slice(rest);
            len = keep + rest.len();
            if len <= MAX_WORD {
                keys.insert(word_key(&word[..len]));
            }
        }
        Dictionary { keys }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_built_in_list_decodes_whole() {
        let d = dictionary();
        assert!(d.keys.len() > 200_000);
        assert!(d.contains(b"treat") && d.contains(b"crate") && d.contains(b"zebra"));
        assert!(!d.contains(b"perfct"));
        assert_eq!(known(b"treat"), Known::Listed);
        for w in ["creates", "treated", "features", "takes", "sonds"] {
            assert_eq!(known(w.as_bytes()), Known::Inflection, "{w}");
        }
        assert_eq!(known(b"perfct"), Known::No);
    }
}
