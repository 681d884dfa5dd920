//! The predicates of a clause: problem words, modals and verbs describing behaviour, found
//! for a strength of evidence.

use super::*;

/// How a thing is made, before what it is made with: "built with flutter", "hosted on netlify"
/// describe it, they report nothing.
const MADE: [&str; 7] = [
    "built", "written", "made", "based", "hosted", "deployed", "powered",
];
const MADE_BY: [&str; 5] = ["with", "in", "on", "using", "by"];

impl View<'_> {
    /// Whether `at` is a "not" that sets one thing against another, no problem: "unused vars
    /// as warnings not errors", "4 spaces, not tabs", "the customer portal, not the admin
    /// one": after no auxiliary, before a plural, a name or a determiner, with at most three
    /// words to the clause's end (before `end`).
    fn contrast_not(&self, at: Range<usize>, end: usize) -> bool {
        let cls = self.cls;
        if !self.text[at.clone()].eq_ignore_ascii_case("not") {
            return false;
        }
        let before = self.text[..at.start].trim_end();
        let previous = before
            .rsplit(|c: char| c.is_whitespace())
            .next()
            .unwrap_or("")
            .trim_matches(|c: char| !c.is_alphanumeric() && c != '\'');
        if previous.is_empty()
            || cls.lower_in(&cls.words.auxiliaries, previous)
            || cls.lower_in(&cls.words.non_subjects, previous)
        {
            return false;
        }
        // (A hit may run past the clause: nothing of it is left.)
        let Some(rest) = self.text.get(at.end..end) else {
            return false;
        };
        let clause = rest
            .find([',', ';', '.', '!', '?', '\n', ')'])
            .map_or(rest, |c| &rest[..c]);
        let mut ws = clause.split_whitespace();
        let Some(next) = ws.next() else {
            return false;
        };
        let n = 1 + ws.count();
        n <= 3
            && (cls.lower_in(&cls.words.determiners, next)
                || next.starts_with(|c: char| c.is_uppercase())
                || n == 1 && cls.plural(&next.to_ascii_lowercase()))
    }

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
                // (A word after a determiner is a noun: "at the end of generated files".)
                let mut after_determiner = false;
                let mut ws = words(self.text, span.clone()).peekable();
                while let Some(w) = ws.next() {
                    let determined = std::mem::replace(
                        &mut after_determiner,
                        self.cls
                            .lower_in(&self.cls.words.determiners, &self.text[w.clone()]),
                    );
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
                    // (A plural before a word of scope is a feature's noun: "severity
                    // overrides per directory".)
                    let scoped = ws.peek().is_some_and(|n| {
                        self.cls
                            .lower_in(&self.cls.words.feature_scopes, &self.text[n.clone()])
                    });
                    if w.start > span.start
                        && signal_end < w.end
                        && !determined
                        && !scoped
                        && self.is_predicate(w.clone())
                    {
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
                    if h.start() > span.start
                        && (!h.shadowed || modal)
                        && meanings.iter().any(want)
                        && !self.contrast_not(h.start()..h.end(), span.end)
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
                    let plural = !function_word && self.cls.plural(&word);
                    // (A noun's own ending is no verb's: "emoji reactions on comments".)
                    let verb = plural && !noun_ending(&word)
                        || (!function_word
                            && word.len() >= 5
                            && word.ends_with("ed")
                            // (A word saying a thing works is no report: "the update fixed the
                            // export", "whoever resolved the sync issue".)
                            && !self.cls.lower_in(&self.cls.words.fine_states, &word));
                    // (After a number, or a number and a superlative, a word in -s is the
                    // plural it counts: "top 5 products by revenue", "10 slowest pages by load
                    // time"; "Nuxt 3 page flashes ..." names a version.)
                    // (A number after a capitalized name is a version: "Chrome 120 blocks the
                    // payment popup" reports.)
                    // (So is a word of quantity: "every few hours", "for several days".)
                    let number = |j: usize| {
                        all.get(j).is_some_and(|n| {
                            let n = &self.text[n.clone()];
                            n.bytes().all(|b| b.is_ascii_digit())
                                || ["few", "several", "couple"]
                                    .iter()
                                    .chain(requests::NUMBER_WORDS.iter())
                                    .any(|q| n.eq_ignore_ascii_case(q))
                        }) && (j == 0
                            || !self.text[all[j - 1].clone()]
                                .starts_with(|c: char| c.is_uppercase()))
                    };
                    // (Only a verb's: the words before the others are not looked at.)
                    let counted = verb
                        && (i >= 1 && number(i - 1)
                            || i >= 2
                                && number(i - 2)
                                && previous.as_ref().is_some_and(|p| {
                                    let p = &self.text[p.clone()];
                                    p.len() > 4 && p.to_ascii_lowercase().ends_with("est")
                                }));
                    let after_thing = !counted
                        && previous.as_ref().is_some_and(|p| {
                            !self
                                .cls
                                .lower_in(&self.cls.words.determiners, &self.text[p.clone()])
                        });
                    // What follows a verb: a determiner, a preposition, an adverb, a number
                    // ("closes as soon as", "runs twice", "shows yesterday's date" aside).
                    let next = all.get(i + 1).map(|n| &self.text[n.clone()]);
                    // (An auxiliary of a plural after a word in -s makes that word the plural:
                    // "the sensor readings look fine", "shipping rates are wrong".)
                    let plural_auxiliary = |n: &str| {
                        [
                            "are", "were", "look", "seem", "get", "become", "start", "have",
                        ]
                        .iter()
                        .any(|a| n.eq_ignore_ascii_case(a))
                    };
                    let continues = next.is_some_and(|n| {
                        PARTICLES
                            .iter()
                            .chain(DEGREES.iter())
                            .chain(AFTER_VERB.iter())
                            .any(|p| n.eq_ignore_ascii_case(p))
                            || self.cls.lower_in(&self.cls.words.determiners, n)
                            || self.cls.lower_in(&self.cls.words.ends, n)
                            || self.cls.lower_in(&self.cls.words.auxiliaries, n)
                                && !plural_auxiliary(n)
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
                                    && !["by", "when", "after", "before", "with"]
                                        .iter()
                                        .chain(PARTICLES.iter())
                                        .chain(WHEN.iter())
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
                    // (A particle may end the clause: "the map zooms out".)
                    let particle_ends = i >= 2
                        && all.len() == i + 2
                        && next
                            .is_some_and(|n| PARTICLES.iter().any(|p| n.eq_ignore_ascii_case(p)));
                    // (A plural before an adverb and a bare verb is the subject: "my queued
                    // mail jobs just sit in the table".)
                    let bare_after_adverb = plural
                        && next.is_some_and(|n| {
                            self.cls.lower_in(&self.cls.words.auxiliaries, n)
                                && !plural_auxiliary(n)
                                && ![
                                    "is", "was", "has", "been", "be", "being", "had", "gets",
                                    "got", "looks", "seems", "becomes", "became", "starts",
                                ]
                                .iter()
                                .any(|b| n.eq_ignore_ascii_case(b))
                        })
                        && all.get(i + 2).is_some_and(|v| {
                            let v = self.text[v.clone()].to_ascii_lowercase();
                            v.bytes().all(|b| b.is_ascii_alphabetic())
                                && !v.ends_with('s')
                                && !v.ends_with("ed")
                                && !self.cls.lower_in(&self.cls.words.auxiliaries, &v)
                                && !self.cls.lower_in(&self.cls.words.determiners, &v)
                        });
                    let scoped =
                        next.is_some_and(|n| self.cls.lower_in(&self.cls.words.feature_scopes, n));
                    if verb
                        && !bare_after_adverb
                        && !scoped
                        && after_thing
                        && (continues || after_adverb && plural)
                        && (all.len() >= i + 3 || particle_ends)
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
                    // (Not a participle describing the plural: "reminders set for the last
                    // day of the month skip February".)
                    if plural
                        && !continues
                        && !after_adverb
                        && !in_signal
                        && all.len() >= i + 3
                        && let Some(n) = all.get(i + 1)
                        && !self.describes_noun(n.clone())
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
                            && (PLACES
                                .iter()
                                .any(|p| self.text[all[k + 1].clone()].eq_ignore_ascii_case(p))
                                // (Or a participle describing it: "reminders set for the
                                // last day of the month skip February".)
                                || self.describes_noun(all[k + 1].clone()))
                    };
                    // (A name may follow it: "... skip February".)
                    let named_next =
                        next.is_some_and(|n| n.starts_with(|c: char| c.is_uppercase()));
                    if i >= 3
                        && !in_signal
                        && (continues || named_next)
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

    /// Whether the predicate hit `h` in the clause `clause` (its subject from `clause.start`)
    /// is the clause's predicate, not a word that only looks like one: an adjective in -ed
    /// ("retry failed jobs"), a problem word naming a noun, a direction asked for, how a thing
    /// is made, a copula that describes, a plural before a quantifier.
    pub(in crate::conversation) fn predicate_of_clause(
        &self,
        h: Range<usize>,
        modal: bool,
        strength: Strength,
        clause: Range<usize>,
    ) -> bool {
        let cls = self.cls;
        let (start, span) = (clause.start, clause.clone());
        // A word in -ed before a plain word is an adjective ("retry failed jobs"), no
        // predicate; a predicate is followed by a preposition, a determiner, an adverb,
        // a number or nothing ("the build failed on CI").
        if self.text[h.clone()].to_ascii_lowercase().ends_with("ed")
            && let Some(n) = words(self.text, h.end..span.end).next()
        {
            let n = &self.text[n];
            // (A possessive is a determiner: "skipped yesterday's partition".)
            let continues = cls.lower_in(&cls.words.determiners, n)
                || n.ends_with("'s")
                || cls.lower_in(&cls.words.ends, n)
                || cls.lower_in(&cls.words.auxiliaries, n)
                || PLACES.iter().any(|p| n.eq_ignore_ascii_case(p))
                || PARTICLES.iter().any(|p| n.eq_ignore_ascii_case(p))
                || WHEN.iter().any(|p| n.eq_ignore_ascii_case(p))
                || n.starts_with(|c: char| c.is_ascii_digit())
                || n.ends_with("ly")
                || n.ends_with("ing");
            if !continues {
                return false;
            }
        }
        // A word before a quantifier ends a plural subject, no predicate: "the map pins all
        // pile up in one spot" ("eats all the memory": a quantifier before a determiner is
        // the object's).
        let mut after = words(self.text, h.end..span.end);
        if after.next().is_some_and(|n| {
            ["all", "both", "each"]
                .iter()
                .any(|q| self.text[n.clone()].eq_ignore_ascii_case(q))
        }) && after
            .next()
            .is_some_and(|n| !cls.lower_in(&cls.words.determiners, &self.text[n]))
            && self.text[h.clone()].ends_with('s')
            && !self.text[h.clone()].contains(' ')
        {
            return false;
        }
        // A problem word before a verb of its own is a noun: "the fix for the timezone bug
        // didn't work" reports "didn't work".
        if strength == Strength::Problem
            && !modal
            && words(self.text, h.end..span.end).next().is_some_and(|n| {
                let n = &self.text[n];
                [
                    "didn't", "doesn't", "isn't", "wasn't", "won't", "never", "still", "keeps",
                ]
                .iter()
                .any(|x| n.eq_ignore_ascii_case(x))
            })
            && words(self.text, h.clone()).count() == 1
        {
            return false;
        }
        // "volume all the way down": a direction asked for, nothing broken.
        if self.text[h.clone()].eq_ignore_ascii_case("down")
            && self.text[start..h.start]
                .trim_end()
                .to_ascii_lowercase()
                .ends_with("way")
        {
            return false;
        }
        // "the site is hosted on netlify": how a thing is made describes it.
        if MADE
            .iter()
            .any(|m| self.text[h.clone()].eq_ignore_ascii_case(m))
            && words(self.text, h.end..span.end).next().is_some_and(|n| {
                MADE_BY
                    .iter()
                    .any(|p| self.text[n.clone()].eq_ignore_ascii_case(p))
            })
        {
            return false;
        }
        // "Our app is a React Native app", "the frontend is vue 2": a copula before "a" or
        // before a name and its version describes, reports nothing.
        if ["is", "are", "was", "were"]
            .iter()
            .any(|c| self.text[h.clone()].eq_ignore_ascii_case(c))
        {
            let mut after = words(self.text, h.end..span.end);
            let digit = |w: &Range<usize>| self.text.as_bytes()[w.start].is_ascii_digit();
            let (n1, n2, n3) = (after.next(), after.next(), after.next());
            let article = n1.as_ref().is_some_and(|n| {
                ["a", "an"]
                    .iter()
                    .any(|a| self.text[n.clone()].eq_ignore_ascii_case(a))
            });
            // (A name and its version end the clause: "is now 2 seconds slower" reports.)
            // (A number after an adverb is a value, not a version: "is always 5".)
            let name = |n: &Range<usize>| {
                let t = &self.text[n.clone()];
                !digit(n)
                    && ![
                        "always",
                        "still",
                        "now",
                        "only",
                        "never",
                        "just",
                        "usually",
                        "often",
                        "sometimes",
                        "at",
                        "around",
                        "about",
                        "over",
                        "under",
                    ]
                    .iter()
                    .any(|a| t.eq_ignore_ascii_case(a))
            };
            let version = n1.as_ref().is_some_and(name)
                && n2
                    .as_ref()
                    .is_some_and(|n| digit(n) && self.text[n.clone()].matches('.').count() <= 2)
                && n3.is_none();
            // ("Our app is built with flutter": how it is made, not what is wrong.)
            let made = n1.as_ref().is_some_and(|n| {
                MADE.iter()
                    .any(|m| self.text[n.clone()].eq_ignore_ascii_case(m))
            }) && n2.as_ref().is_some_and(|n| {
                MADE_BY
                    .iter()
                    .any(|p| self.text[n.clone()].eq_ignore_ascii_case(p))
            });
            // ("physics tick is 60", "batch size is 500 rows": a number and its unit that end
            // the clause are a setting's value, told as context.)
            let value = n1.as_ref().is_some_and(digit)
                && n2.as_ref().is_none_or(|n| {
                    self.text[n.clone()]
                        .bytes()
                        .all(|b| b.is_ascii_alphabetic())
                        && n3.is_none()
                });
            // ("this tracker is honestly the best corner of the internet", "the new editor is
            // the nicest thing in years": a superlative of praise reports nothing.)
            let superlative = {
                let mut ws = words(self.text, h.end..span.end)
                    .skip_while(|w| {
                        self.text[w.clone()].len() > 4 && self.text[w.clone()].ends_with("ly")
                    })
                    .take(2);
                ws.next()
                    .is_some_and(|w| self.text[w].eq_ignore_ascii_case("the"))
                    && ws.next().is_some_and(|w| {
                        let t = self.text[w].to_ascii_lowercase();
                        ["best", "nicest", "greatest", "coolest", "finest"].contains(&t.as_str())
                    })
            };
            if article || version || made || value || superlative {
                return false;
            }
        }
        true
    }

    /// A participle after a noun and before a preposition, describing the noun: "changes
    /// made in the editor", "emails sent via the api", "files uploaded from iOS" (`participles`,
    /// or a word in "-ed"; "used to" is a habit).
    pub(in crate::conversation) fn describes_noun(&self, w: Range<usize>) -> bool {
        let cls = self.cls;
        let t = &self.text[w.clone()];
        if !(cls.lower_in(&cls.words.participles, t) || t.len() > 4 && t.ends_with("ed")) {
            return false;
        }
        // (The words beside it are looked for within a few bytes: the work stays bounded
        // whatever runs of letters stand around it.)
        let mut from = w.start.saturating_sub(32);
        while !self.text.is_char_boundary(from) {
            from += 1;
        }
        let mut to = (w.end + 16).min(self.text.len());
        while !self.text.is_char_boundary(to) {
            to -= 1;
        }
        let noun_before = words(self.text, from..w.start)
            .last()
            .filter(|n| n.start > from || from == 0)
            .map(|n| &self.text[n])
            .is_some_and(|n| {
                // (A plural: "highlights made on the phone"; after a singular the word is
                // more often the verb, "the router rebooted during the night".)
                !n.is_empty()
                    && cls.plural(n)
                    && n.bytes().all(|b| b.is_ascii_alphabetic())
                    && !cls.lower_in(&cls.words.determiners, n)
                    && !cls.lower_in(&cls.words.non_subjects, n)
                    && !cls.lower_in(&cls.words.auxiliaries, n)
                    && !cls.is_pronoun(n)
            });
        noun_before
            && words(self.text, w.end..to).next().is_some_and(|n| {
                let n = &self.text[n];
                PLACES
                    .iter()
                    .chain(["by", "via", "through", "while", "during", "with"].iter())
                    .any(|p| n.eq_ignore_ascii_case(p))
                    && !(n.eq_ignore_ascii_case("to") && t.eq_ignore_ascii_case("used"))
            })
    }

    /// A word of the `predicates` list.
    pub(in crate::conversation) fn is_predicate(&self, w: Range<usize>) -> bool {
        self.cls.lower_in(&self.cls.words.predicates, &self.text[w])
    }
}
