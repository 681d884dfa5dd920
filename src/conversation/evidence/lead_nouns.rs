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
                // (Or before a singular noun, a verb in -s and a determiner: "Update query
                // locks the whole table", "Add task opens the wrong dialog".)
                let singular = after.len() >= 3 && {
                    let (n, v, d) = (
                        &self.text[after[0].clone()],
                        self.text[after[1].clone()].to_ascii_lowercase(),
                        &self.text[after[2].clone()],
                    );
                    n.bytes().all(|b| b.is_ascii_alphabetic())
                        && !cls.plural(n)
                        && !cls.lower_in(&cls.words.determiners, n)
                        && !cls.is_pronoun(n)
                        && v.len() > 3
                        && v.ends_with('s')
                        && !v.ends_with("ss")
                        && v.bytes().all(|b| b.is_ascii_lowercase())
                        && cls.lower_in(&cls.words.determiners, d)
                };
                (names(0) || second || singular)
                    .then(|| self.evidence(span, Strength::Suffix))
                    .flatten()
                    .filter(subject_holds_lead)
            })
    }
}

impl View<'_> {
    /// Rule 4: a lead word followed by a predicate is a noun ("Deploy keeps timing out", "Fix
    /// is not working").
    pub(in crate::conversation) fn noun_use(&self, lead: Hit) -> bool {
        // Rule 4 is about a lead word used as a name ("Deploy", "Update"): a lead of several
        // words ("would be nice to have ...") is no noun.
        if self.text[lead.start()..lead.end()].contains(' ') {
            return false;
        }
        let next = skip_soft(self.text, lead.end());
        if next == lead.end() && next < self.text.len() {
            return false;
        }
        let Some(word) = words(self.text, next..self.text.len()).next() else {
            return false;
        };
        let predicate = self
            .at(next, |m| matches!(m, Meaning::Problem | Meaning::Modal))
            .is_some();
        let auxiliary = self
            .cls
            .lower_in(&self.cls.words.auxiliaries, &self.text[word.clone()])
            && self.at(next, |m| m == Meaning::Filler).is_none();
        // (No verb takes "of" right after it: "Deploy of the route planner hangs", "Build of
        // the docs fails".)
        let of = self.text[word.clone()].eq_ignore_ascii_case("of");
        // (A lead word that is a problem's modifier before a bare noun qualifies it:
        // "Duplicate entries in the export"; "duplicate the board" keeps its verb.)
        let cls = self.cls;
        let w = &self.text[word.clone()];
        // (The lead is looked up first: most leads are no modifier.)
        let modifier = || {
            cls.lower_in(
                &cls.words.problem_modifiers,
                &self.text[lead.start()..lead.end()],
            ) && w.bytes().all(|b| b.is_ascii_alphabetic())
                && !cls.lower_in(&cls.words.determiners, w)
                && !cls.lower_in(&cls.words.non_subjects, w)
        };
        // (Nor is one after a comma followed only by a word of sharing: "Happens every time,
        // save attached"; "Review attached" asks.)
        let shared = || {
            self.text[..lead.start()].trim_end().ends_with([',', ';'])
                && ["attached", "included", "enclosed", "below", "above"]
                    .iter()
                    .any(|x| w.eq_ignore_ascii_case(x))
                && self.text[word.end..]
                    .trim_start_matches([' ', '\t'])
                    .chars()
                    .next()
                    .is_none_or(|c| matches!(c, '.' | ',' | '!' | ';' | ')' | '\n' | '\r'))
        };
        predicate
            || auxiliary
            || of
            || modifier()
            || shared()
            || self.labels_control(word, lead.end())
    }

    /// Whether a lead word names a control with the noun after it, whose report follows: "Create
    /// button on my django form submits twice", "Save link does nothing": the control's noun,
    /// then within eight words a problem word or a verb in -s of the vocabulary.
    fn labels_control(&self, noun: Range<usize>, lead_end: usize) -> bool {
        const CONTROLS: [&str; 14] = [
            "button", "link", "tab", "menu", "icon", "field", "dialog", "modal", "toggle",
            "checkbox", "dropdown", "shortcut", "option", "command",
        ];
        let cls = self.cls;
        if !self.text[lead_end..noun.start].trim().is_empty()
            || !CONTROLS
                .iter()
                .any(|c| self.text[noun.clone()].eq_ignore_ascii_case(c))
        {
            return false;
        }
        // (A control described is one asked for: "create button that submits the form".)
        let mut after = words(self.text, noun.end..self.text.len()).peekable();
        if after.peek().is_some_and(|n| {
            ["that", "which", "to", "for", "with", "so"]
                .iter()
                .any(|x| self.text[n.clone()].eq_ignore_ascii_case(x))
        }) {
            return false;
        }
        // (The report stands in the control's own clause: "Change button text, it says
        // Submitt" asks for the change.)
        let ws: SmallVec<[Range<usize>; 9]> = after
            .take(9)
            .take_while(|w| !self.text[noun.end..w.start].contains(['.', '\n', '?', '!', ',']))
            .collect();
        ws.iter().enumerate().take(8).any(|(i, w)| {
            let t = self.text[w.clone()].to_ascii_lowercase();
            // (A word in -s before a particle or a determiner is a verb: "submits twice".)
            let verb_in_s = t.len() > 3
                && t.ends_with('s')
                && !["ss", "us", "is"].iter().any(|e| t.ends_with(e))
                && ws.get(i + 1).is_some_and(|n| {
                    let n = &self.text[n.clone()];
                    PARTICLES.iter().any(|p| n.eq_ignore_ascii_case(p))
                        || cls.lower_in(&cls.words.determiners, n)
                });
            self.at(w.start, |m| m == Meaning::Problem).is_some()
                || self.is_predicate(w.clone())
                || verb_in_s
                || t.len() > 3
                    && t.ends_with('s')
                    && (cls.lower_in(&cls.words.verbs, &t[..t.len() - 1])
                        || cls.lower_in(&cls.words.verbs, &t[..t.len() - 2]))
        })
    }
}

impl View<'_> {
    /// Whether the lead `h` opens a quoted name that words follow: "\"Archive all\" archives
    /// the pinned chats too" names a command, it gives none. (The quote closes within 40
    /// bytes.)
    pub(in crate::conversation) fn quoted_name(&self, h: Hit) -> bool {
        // (The byte before it, past one space: a quote's, '"' or the last of '“'.)
        let b = self.text.as_bytes();
        let mut at = h.start();
        if at > 0 && b[at - 1] == b' ' {
            at -= 1;
        }
        if at == 0 || !(b[at - 1] == b'"' || self.text[..at].ends_with('“')) {
            return false;
        }
        let rest = &self.text[h.start()..];
        let mut near = rest.len().min(40);
        while !rest.is_char_boundary(near) {
            near -= 1;
        }
        // (Not a quote that is what was said: "\"fix the login page\" is all my boss said".)
        rest[..near].find(['"', '”']).is_some_and(|c| {
            let close = if rest[c..].starts_with('"') {
                1
            } else {
                '”'.len_utf8()
            };
            let next = rest[c + close..].split_whitespace().next().unwrap_or("");
            next.starts_with(|ch: char| ch.is_alphanumeric())
                && !["is", "was", "are", "were", "said", "says"]
                    .iter()
                    .any(|b| next.eq_ignore_ascii_case(b))
        })
    }
}
