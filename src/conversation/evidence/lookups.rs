//! The classifier's word lookups the reader's passes share: a goal type's index, words of
//! its lists in any case, plurals and -ing forms of its verbs.

use super::*;

impl Classifier {
    /// The goal index of a type (every type is defined: the loader checks it).
    pub(in crate::conversation) fn goal_index(&self, t: GoalType) -> Option<usize> {
        self.goals.iter().position(|g| g.goal_type == t)
    }

    /// Whether `text` holds a pronoun or another word that is no thing's name ("I need ...",
    /// "it should have ..."): a reply that does states a sentence, not a list of parts.
    pub(in crate::conversation) fn has_subject_word(&self, text: &str) -> bool {
        words(text, 0..text.len()).any(|w| self.lower_in(&self.words.non_subjects, &text[w]))
    }

    /// Whether the lowercase `word` is the -ing form of a plain verb of `verbs`: its stem of
    /// three letters at least as it is, with an "e" ("parsing"), or with a doubled ASCII
    /// letter cut ("running"; cutting one keeps a character whole).
    pub(in crate::conversation) fn ing_of_verb(&self, word: &str) -> bool {
        let Some(stem) = word.strip_suffix("ing").filter(|s| s.len() >= 3) else {
            return false;
        };
        let b = stem.as_bytes();
        let doubled = b.len() >= 2
            && b[b.len() - 1].is_ascii_alphabetic()
            && b[b.len() - 1] == b[b.len() - 2];
        self.lower_in(&self.words.verbs, stem)
            || (doubled && self.lower_in(&self.words.verbs, &stem[..stem.len() - 1]))
            || self.lower_in(&self.words.verbs, &format!("{stem}e"))
    }

    /// A word in -s that reads as a plural: by its letters, and neither a name with a dot
    /// ("Next.js") nor one of `singular_in_s` ("Pandas", "Kubernetes").
    pub(in crate::conversation) fn plural(&self, word: &str) -> bool {
        plural_form(word) && !word.contains('.') && !self.lower_in(&self.words.singular_in_s, word)
    }

    /// Whether `set` (of lowercase words) holds `word`, in any case. A short ASCII word is
    /// lowercased on the stack: this runs for many words of every message.
    pub(in crate::conversation) fn lower_in(&self, set: &Words, word: &str) -> bool {
        let mut buf = [0u8; 24];
        if word.len() <= buf.len() && word.is_ascii() {
            let lower = &mut buf[..word.len()];
            lower.copy_from_slice(word.as_bytes());
            lower.make_ascii_lowercase();
            // ASCII stays UTF-8.
            std::str::from_utf8(lower).is_ok_and(|w| set.contains(w))
        } else {
            set.contains(&word.to_lowercase())
        }
    }
}
