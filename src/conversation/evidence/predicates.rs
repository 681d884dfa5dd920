//! The predicates of a clause: problem words, modals and verbs describing behaviour, found
//! for a strength of evidence.

use super::*;

impl View<'_> {
    /// The predicates of a clause, in order, for a strength of evidence: (where, a modal).
    pub(in crate::conversation) fn predicates(
        &self,
        span: Range<usize>,
        strength: Strength,
    ) -> SmallVec<[(Range<usize>, bool); 4]> {
        let mut out = SmallVec::new();
        match strength {
            // A word of the `predicates` list (looked up by word: they are common words, and
            // only a message with no goal elsewhere needs them), not inside a signal phrase.
            Strength::Predicate => {
                let mut next_hit = self.hits.partition_point(|h| h.start() < span.start);
                let mut signal_end = 0;
                for w in words(self.text, span.clone()) {
                    while let Some(h) = self.hits.get(next_hit).filter(|h| h.start() <= w.start) {
                        if h.start() > span.start
                            && self
                                .meanings(*h)
                                .iter()
                                .any(|m| matches!(m, Meaning::Signal(_)))
                        {
                            signal_end = signal_end.max(h.end());
                        }
                        next_hit += 1;
                    }
                    if w.start > span.start && signal_end < w.end && self.is_predicate(w.clone()) {
                        out.push((w, false));
                        if out.len() >= 4 {
                            break;
                        }
                    }
                }
            }
            Strength::Problem => {
                let want = |m: &Meaning| matches!(m, Meaning::Problem | Meaning::Modal);
                let first = self.hits.partition_point(|h| h.start() < span.start);
                for h in &self.hits[first..] {
                    if h.start() >= span.end {
                        break;
                    }
                    let meanings = self.meanings(*h);
                    // Not inside a signal phrase ("makes sense", "mission accomplished").
                    // (A modal counts inside one: "should be" is a change request's phrase too.)
                    let modal = meanings.contains(&Meaning::Modal);
                    if h.start() > span.start && (!h.shadowed || modal) && meanings.iter().any(want)
                    {
                        out.push((h.start()..h.end(), meanings.contains(&Meaning::Modal)));
                    }
                }
            }
            Strength::Suffix => {
                let mut previous: Option<Range<usize>> = None;
                let mut next_hit = self.hits.partition_point(|h| h.start() < span.start);
                let mut signal_end = 0;
                let all: SmallVec<[Range<usize>; 16]> = words(self.text, span).collect();
                for (i, w) in all.iter().cloned().enumerate() {
                    // The furthest end of the signal phrases started so far (one pass).
                    while let Some(h) = self.hits.get(next_hit).filter(|h| h.start() <= w.start) {
                        if self
                            .meanings(*h)
                            .iter()
                            .any(|m| matches!(m, Meaning::Signal(_)))
                        {
                            signal_end = signal_end.max(h.end());
                        }
                        next_hit += 1;
                    }
                    let word = self.text[w.clone()].to_ascii_lowercase();
                    // A pronoun or a determiner ("this", "its", "his") is neither a plural
                    // nor a verb.
                    let function_word = self.cls.lower_in(&self.cls.words.non_subjects, &word)
                        || self.cls.lower_in(&self.cls.words.determiners, &word)
                        || self.cls.lower_in(&self.cls.words.auxiliaries, &word);
                    let plural = !function_word
                        && word.len() >= 4
                        && word.ends_with('s')
                        && !word.ends_with("ss")
                        && !word.ends_with("us")
                        && !word.ends_with("'s");
                    // (A noun's own ending is no verb's: "emoji reactions on comments".)
                    let verb = plural && !noun_ending(&word)
                        || (!function_word && word.len() >= 5 && word.ends_with("ed"));
                    let after_thing = previous.as_ref().is_some_and(|p| {
                        !self
                            .cls
                            .lower_in(&self.cls.words.determiners, &self.text[p.clone()])
                    });
                    // What follows a verb: a determiner, a preposition, an adverb, a number
                    // ("closes as soon as", "runs twice", "shows yesterday's date" aside).
                    let next = all.get(i + 1).map(|n| &self.text[n.clone()]);
                    let continues = next.is_some_and(|n| {
                        PARTICLES.iter().any(|p| n.eq_ignore_ascii_case(p))
                            || self.cls.lower_in(&self.cls.words.determiners, n)
                            || self.cls.lower_in(&self.cls.words.ends, n)
                            || self.cls.lower_in(&self.cls.words.auxiliaries, n)
                            || PLACES.iter().any(|p| n.eq_ignore_ascii_case(p))
                            || n.starts_with(|c: char| c.is_ascii_digit())
                            || n.ends_with("ly")
                    }) || {
                        // An adjective in -ed before a noun ("suggests deleted customers"),
                        // not a participle before a clause ("orders created when ...").
                        let after = all.get(i + 2).map(|a| &self.text[a.clone()]);
                        next.is_some_and(|n| n.len() >= 5 && n.ends_with("ed"))
                            && after.is_some_and(|a| {
                                !self.cls.lower_in(&self.cls.words.ends, a)
                                    && !PLACES.iter().any(|p| a.eq_ignore_ascii_case(p))
                                    && !self.cls.lower_in(&self.cls.words.auxiliaries, a)
                                    && !["by", "when", "after", "before"]
                                        .iter()
                                        .any(|p| a.eq_ignore_ascii_case(p))
                            })
                    };
                    // A verb with something after it ("closes as soon as ..."), not a signal's
                    // word ("mission accomplished") or a sentence of two words ("greatness
                    // awaits").
                    let in_signal = signal_end >= w.end;
                    // (After an adverb of time, a word in -s is a verb: "the install guide
                    // still mentions python 3.7".)
                    let after_adverb = previous.as_ref().is_some_and(|p| {
                        let t = &self.text[p.clone()];
                        self.cls.lower_in(&self.cls.words.auxiliaries, t)
                            && ![
                                "is", "are", "was", "were", "be", "been", "being", "has", "have",
                            ]
                            .iter()
                            .any(|b| t.eq_ignore_ascii_case(b))
                            && i >= 2
                    });
                    if verb
                        && after_thing
                        && (continues || after_adverb && plural)
                        && all.len() >= i + 3
                        && !in_signal
                    {
                        out.push((w.clone(), false));
                    }
                    // A plural noun before a bare word: that word is the verb ("my bluetooth
                    // headphones disconnect every few minutes", "reminders show up late").
                    // (Or past an adverb of time: "my headphones sometimes disconnect".)
                    let adverb_next = next.is_some_and(|n| {
                        self.cls.lower_in(&self.cls.words.auxiliaries, n)
                            && ![
                                "is", "are", "was", "were", "be", "been", "being", "has", "have",
                            ]
                            .iter()
                            .any(|b| n.eq_ignore_ascii_case(b))
                    });
                    if plural
                        && adverb_next
                        && !after_adverb
                        && !in_signal
                        && all.len() >= i + 4
                        && let Some(v) = all.get(i + 2)
                        && !self
                            .cls
                            .lower_in(&self.cls.words.determiners, &self.text[v.clone()])
                    {
                        out.push((v.clone(), false));
                    }
                    if plural
                        && !continues
                        && !after_adverb
                        && !in_signal
                        && all.len() >= i + 3
                        && let Some(n) = all.get(i + 1)
                    {
                        out.push((n.clone(), false));
                    }
                    // A plain verb after a plural and its place ("emails from the contact form
                    // go to spam", "links in the footer open in a new tab").
                    // (The plural may follow a word of its own: "dropdown menus on the admin
                    // panel close before ...".)
                    let plural_at = |k: usize| {
                        let head = self.text[all[k].clone()].to_ascii_lowercase();
                        head.len() >= 4
                            && head.ends_with('s')
                            && !head.ends_with("ss")
                            && PLACES
                                .iter()
                                .any(|p| self.text[all[k + 1].clone()].eq_ignore_ascii_case(p))
                    };
                    if i >= 3
                        && !in_signal
                        && continues
                        && self.cls.lower_in(&self.cls.words.verbs, &word)
                        && (plural_at(0) || i >= 4 && plural_at(1))
                    {
                        // (The plural is then the subject, no verb of its own: "calendar
                        // invites from outlook show up an hour off".)
                        let k = usize::from(!plural_at(0));
                        out.retain(|(p, _)| *p != all[k]);
                        out.push((w.clone(), false));
                    }
                    if out.len() >= 4 {
                        break;
                    }
                    previous = Some(w);
                }
            }
        }
        out
    }

    /// A word of the `predicates` list.
    pub(in crate::conversation) fn is_predicate(&self, w: Range<usize>) -> bool {
        self.cls.lower_in(&self.cls.words.predicates, &self.text[w])
    }
}
