//! Rule 4 for a lead word that is the subject of a predicate: a noun, no verb ("Deploy to
//! staging keeps failing" reports the deploy).

use super::*;

impl View<'_> {
    /// Rule 4: a lead word that is the subject of a predicate is a noun ("Deploy to staging
    /// keeps failing"): the sentence's evidence, when its subject holds the lead. A lead before
    /// a determiner or a pronoun is a verb ("fix the ..."), and so is a question's.
    pub(super) fn lead_as_noun(&self, g: &GoalLead, span: Range<usize>) -> Option<GoalLead> {
        let cls = self.cls;
        // (A question's lead is its sentence's; a lead of three words or more is a clause of
        // its own, no noun: "users keep asking for dark mode". Both are looked at first: they
        // cost nothing.)
        let object_lead = g.description.start > g.lead.start;
        if !object_lead || words(self.text, g.lead.clone()).nth(2).is_some() {
            return None;
        }
        // (Nor is a lead after a wrapper that addresses the assistant: whom it asks does it,
        // "can you explain how grid differs".)
        let first = self.hits.partition_point(|h| h.start() < g.wrapper.start);
        if self.hits[first..]
            .iter()
            .take_while(|h| h.end() <= g.wrapper.end)
            .any(|h| self.meanings(*h).contains(&Meaning::Addressee))
        {
            return None;
        }
        let next = words(self.text, g.lead.end..span.end).next();
        // (A lead word before a verb of reporting is whoever reports: "support told me the
        // reset link expires too fast" reports the link.)
        if next
            .as_ref()
            .is_some_and(|w| cls.lower_in(&cls.words.reporting_verbs, &self.text[w.clone()]))
        {
            return self.evidence(span, Strength::Predicate);
        }
        // (So is a lead that ends with its determiner: "make the cards stack on mobile".)
        let verb = next.is_none_or(|w| {
            cls.lower_in(&cls.words.determiners, &self.text[w.clone()])
                || cls.is_pronoun(&self.text[w])
        }) || words(self.text, g.lead.clone()).nth(1).is_some()
            && words(self.text, g.lead.clone())
                .last()
                .is_some_and(|w| cls.lower_in(&cls.words.determiners, &self.text[w]))
            // (So is one whose object a clause follows: "text Jamie that dinner is at 7", "text
            // jo tell her the keys are under the mat".)
            || words(self.text, g.lead.end..span.end)
                .take(3)
                .any(|w| self.text[w].eq_ignore_ascii_case("that"))
            || self.whom_that(g.lead.end..span.end).is_some_and(|(_, said)| {
                count_words(&self.text[g.lead.end..said.start]) >= 2
            });
        if verb {
            return None;
        }
        // (A subject that holds a condition's word is no subject: the predicate is the
        // condition's, "support exporting invoices after the month closes".)
        // (Nor is one that ends with an article: the problem word after it describes the noun
        // after it, "ideas for speeding up a slow build".)
        // (Nor one whose predicate comes after a question word following the lead: that
        // predicate is a clause's inside the lead's object, "ways to see which devices are on
        // my wifi".)
        let embedded = |e: &GoalLead| {
            words(self.text, g.lead.end..e.lead.start.max(g.lead.end)).any(|w| {
                [
                    "which", "what", "who", "whom", "whose", "where", "whether", "how", "why",
                ]
                .iter()
                .any(|x| self.text[w.clone()].eq_ignore_ascii_case(x))
            })
        };
        let subject_holds_lead = |e: &GoalLead| {
            !embedded(e)
                && e.details.iter().find(|d| d.slot == 0).is_some_and(|d| {
                    d.spans.first().is_some_and(|s| {
                        s.start <= g.lead.start
                            && !words(self.text, s.clone()).last().is_some_and(|w| {
                                ["a", "an", "the"]
                                    .iter()
                                    .any(|x| self.text[w.clone()].eq_ignore_ascii_case(x))
                            })
                            && !words(self.text, s.clone())
                                .take(MAX_SUBJECT_WORDS + 2)
                                .any(|w| {
                                    CONDITIONS
                                        .iter()
                                        .any(|c| self.text[w.clone()].eq_ignore_ascii_case(c))
                                })
                    })
                })
        };
        self.evidence(span.clone(), Strength::Predicate)
            .filter(subject_holds_lead)
            .or_else(|| {
                // (A lead word before a plural and a plain verb names the thing: "Profile
                // pictures upload sideways on iPhone".)
                // (Or after a noun and a plural: "Reset password emails go to spam".)
                let after: SmallVec<[Range<usize>; 4]> =
                    words(self.text, g.lead.end..span.end).take(4).collect();
                let is_plural = |w: &Range<usize>| cls.plural(&self.text[w.clone()]);
                // ("sideways", "backwards": adverbs.)
                let adverb = |w: &Range<usize>| {
                    let t = self.text[w.clone()].to_ascii_lowercase();
                    t.ends_with("ways") || t.ends_with("wards")
                };
                // (Not a compound noun after the verb: "change pandas display options".)
                let names = |i: usize| {
                    after.len() > i + 2
                        && is_plural(&after[i])
                        && (!is_plural(&after[i + 2]) || adverb(&after[i + 2]))
                        && cls.lower_in(&cls.words.verbs, &self.text[after[i + 1].clone()])
                };
                let second =
                    names(1) && !cls.lower_in(&cls.words.determiners, &self.text[after[0].clone()]);
                (names(0) || second)
                    .then(|| self.evidence(span, Strength::Suffix))
                    .flatten()
                    .filter(subject_holds_lead)
            })
    }
}
