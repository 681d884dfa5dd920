//! Rule 1: where the problem's verb starts among the words before a problem predicate, which
//! would otherwise be the subject's ("search returns nothing for ...", "the copy link button
//! copies the wrong url", "Onboarding emails go out in the wrong language").

use super::*;

impl View<'_> {
    /// Where a verb the subject would end with starts, the subject cut before it: the problem
    /// starts there. `subject` holds the words before the predicate `predicate`, in a clause
    /// ending at `end`.
    pub(super) fn verb_in_subject(
        &self,
        subject: &mut SmallVec<[Range<usize>; 8]>,
        predicate: Range<usize>,
        end: usize,
    ) -> Option<usize> {
        let cls = self.cls;
        let h = predicate;
        let span_end = end;
        let mut verb_start = None;
        // (So does an adverb of restriction or frequency before a verb in -s or -ed: "my
        // OPML import only brings in the first 50 shows", "the sync still uploads
        // everything twice".)
        if verb_start.is_none()
            && let Some(k) = (1..subject.len().saturating_sub(1)).find(|&k| {
                let a = &self.text[subject[k].clone()];
                let v = self.text[subject[k + 1].clone()].to_ascii_lowercase();
                ["only", "still", "always", "sometimes", "just"]
                    .iter()
                    .any(|x| a.eq_ignore_ascii_case(x))
                    && v.len() > 3
                    && (v.ends_with('s') && !v.ends_with("ss") || v.ends_with("ed"))
            })
        {
            verb_start = Some(subject[k].start);
            subject.truncate(k);
        }
        // (Or before a determiner and the problem: "the copy link button copies the wrong
        // url", "the weather widget uses the wrong timezone".)
        let det_last = subject.len() >= 3
            && subject
                .last()
                .is_some_and(|w| cls.lower_in(&cls.words.determiners, &self.text[w.clone()]));
        // (A preposition may stand between: "the reset link lands on a blank page", "the
        // redirect goes to an empty screen".)
        let prep = det_last
            && subject.len() >= 4
            && subject.get(subject.len() - 2).is_some_and(|p| {
                let p = &self.text[p.clone()];
                p.eq_ignore_ascii_case("to") || PLACES.iter().any(|x| p.eq_ignore_ascii_case(x))
            });
        let skipped = usize::from(det_last) + usize::from(prep);
        let vi = subject.len().saturating_sub(1 + skipped);
        if verb_start.is_none()
            && subject.len() >= 2
            && let Some(w) = subject.get(vi)
            && !["that", "which", "who"]
                .iter()
                .any(|c| self.text[w.clone()].eq_ignore_ascii_case(c))
        {
            // (A verb in -s right before the problem word: "emails are going out" and
            // "the csv export skips" keep their nouns.)
            let t = self.text[w.clone()].to_ascii_lowercase();
            let stem = |cut: usize| t.get(..t.len().saturating_sub(cut)).unwrap_or("");
            // (...and the problem word no verb or modal itself: "emails go out twice",
            // "alerts fire too often", "emails are going out" keep theirs.)
            // (Before a verb's -ing form, a word in -s is a plural unless it takes one:
            // "Motion alerts arriving late", but "the export keeps failing".)
            let takes_ing = [
                "keeps",
                "stops",
                "starts",
                "quits",
                "continues",
                "finishes",
                "begins",
                "avoids",
                "needs",
            ]
            .contains(&t.as_str());
            let next_is_problem = words(self.text, w.end..span_end)
                .nth(skipped)
                .is_some_and(|n| {
                    let t = &self.text[n.clone()];
                    n.start == h.start
                            && (takes_ing
                                || t.len() <= 5
                                || !t.to_ascii_lowercase().ends_with("ing"))
                            // (A negated auxiliary is a verb of its own: "tree supports
                            // aren't generated", "brim supports don't print".)
                            && !t.ends_with("n't")
                            && !t.ends_with("n’t")
                            && !cls.lower_in(&cls.words.verbs, t)
                            && !cls.lower_in(&cls.words.auxiliaries, t)
                            && !self.is_predicate(n.clone())
                            && self.at(n.start, |m| matches!(m, Meaning::Modal)).is_none()
                });
            // (A plain verb after a plural: "the charts render blank".)
            let after_plural = || vi >= 1 && cls.plural(&self.text[subject[vi - 1].clone()]);
            // ("retries": a verb in -y.)
            // (A word in -s before an object pronoun is its verb: "the speaking exercise
            // marks me wrong".)
            let object_next = words(self.text, w.end..span_end).next().is_some_and(|n| {
                ["me", "us", "him", "them"]
                    .iter()
                    .any(|p| self.text[n.clone()].eq_ignore_ascii_case(p))
            });
            let in_s = t.ends_with('s')
                && (object_next
                    || cls.lower_in(&cls.words.verbs, stem(1))
                    || (t.ends_with("es") && cls.lower_in(&cls.words.verbs, stem(2)))
                    || (t.ends_with("ies")
                        && cls.lower_in(&cls.words.verbs, &format!("{}y", stem(3))))
                    || self.is_predicate(w.clone())
                    || self
                        .at(w.start, |m| matches!(m, Meaning::Introducer))
                        .is_some()
                    // (Any word in -s before a determiner and the problem, after the
                    // subject: "asyncio.gather swallows the exception", "the scaler
                    // mangles every fraction"; not "-ss", "-us", "-is": "the status the
                    // api returns".)
                    || det_last
                        && vi >= 1
                        && t.len() > 3
                        && t.bytes().all(|b| b.is_ascii_alphabetic())
                        && !["ss", "us", "is"].iter().any(|e| t.ends_with(e)));
            let verb =
                next_is_problem && (in_s || after_plural() && cls.lower_in(&cls.words.verbs, &t));
            if verb {
                verb_start = Some(w.start);
                subject.truncate(vi);
            }
        }
        // (Further back, a plain verb after a plural, the problem word later in its
        // phrase: "Onboarding emails go out in the wrong language".)
        // (Or the plural heads the subject and a place follows it: "redirects after login
        // go to the wrong page".)
        let plural_head = subject.len() >= 3
            && cls.plural(&self.text[subject[0].clone()])
            && !noun_ending(&self.text[subject[0].clone()].to_ascii_lowercase())
            && {
                let p = &self.text[subject[1].clone()];
                PLACES.iter().any(|x| p.eq_ignore_ascii_case(x))
                    || cls.lower_in(&cls.words.time_prepositions, p)
            };
        if verb_start.is_none()
            && let Some(i) = (1..subject.len()).find(|&i| {
                let noun = &self.text[subject[i - 1].clone()];
                (cls.plural(noun) || plural_head && i >= 3)
                    && !noun_ending(&noun.to_ascii_lowercase())
                    && (cls.lower_in(&cls.words.verbs, &self.text[subject[i].clone()])
                        // (A word the lists do not know is a verb right before a
                        // determiner: "Health checks mark every backend as DOWN".)
                        || subject.get(i + 1).is_some_and(|n| {
                            let w = &self.text[subject[i].clone()];
                            cls.lower_in(&cls.words.determiners, &self.text[n.clone()])
                                && !cls.lower_in(&cls.words.determiners, noun)
                                && !cls.lower_in(&cls.words.times, w)
                                && w.len() > 2
                                && w.bytes().all(|b| b.is_ascii_lowercase())
                                && !cls.lower_in(&cls.words.ends, w)
                                && !cls.lower_in(&cls.words.determiners, w)
                                && !cls.lower_in(&cls.words.auxiliaries, w)
                                && !PLACES.iter().any(|p| w.eq_ignore_ascii_case(p))
                        }))
                    // (A verb has a particle, a place or a determiner after it; a noun
                    // does not: "the weekly sales email went out".)
                    && subject.get(i + 1).is_some_and(|n| {
                        let n = &self.text[n.clone()];
                        PARTICLES
                            .iter()
                            .chain(PLACES.iter())
                            .chain(DEGREES.iter())
                            .any(|p| n.eq_ignore_ascii_case(p))
                            || cls.lower_in(&cls.words.determiners, n)
                    })
                    // (Nor when a singular's verb follows: "the analytics export for March
                    // is empty".)
                    && !words(self.text, subject[i].end..h.end).any(|w| {
                        ["is", "was", "has", "isn't", "wasn't", "hasn't", "doesn't", "does"]
                            .iter()
                            .any(|x| self.text[w.clone()].eq_ignore_ascii_case(x))
                    })
                    && !subject[..i].iter().any(|w| {
                        ["that", "which", "who"]
                            .iter()
                            .any(|c| self.text[w.clone()].eq_ignore_ascii_case(c))
                    })
            })
        {
            verb_start = Some(subject[i].start);
            subject.truncate(i);
        }
        verb_start
    }
}
