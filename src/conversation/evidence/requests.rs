//! What a request states by its structure (rules 2, 3, 4, 6, 10): requests asked as questions,
//! the thing and its value, lead words used as nouns, and the details of a request.

use super::*;

/// Numbers as words, the way a speech recogniser writes them ("set a timer for twelve
/// minutes").
pub(super) const NUMBER_WORDS: [&str; 20] = [
    "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
    "twelve", "fifteen", "twenty", "thirty", "forty", "fifty", "sixty", "ninety", "half",
];

/// What says a feature asked about is planned ("is dark mode planned?").
const PLANNED: [&str; 4] = [
    "planned",
    "on the roadmap",
    "on your roadmap",
    "in the works",
];

impl View<'_> {
    /// Rule 2, a feature asked about as a plan ("Is incremental build planned?", "are
    /// webhooks on the roadmap"): "is" or "are", the feature, then one of `PLANNED` ending
    /// the sentence. A request of the feature, which is the change.
    pub(in crate::conversation) fn planned_question(
        &self,
        question: &GoalLead,
        end: usize,
    ) -> Option<GoalLead> {
        let lead = &self.text[question.lead.clone()];
        if !["is", "are"].iter().any(|w| lead.eq_ignore_ascii_case(w)) {
            return None;
        }
        let said = self.text[question.lead.end..end].trim_end_matches(['?', '.', '!', ' ']);
        let lower = said.to_ascii_lowercase();
        let plan = PLANNED
            .iter()
            .find(|p| lower.ends_with(*p) && lower[..lower.len() - p.len()].ends_with(' '))?;
        let from = question.lead.end;
        let feature = self
            .cls
            .clean(self.text, from..from + said.len() - plan.len(), true);
        // (A thing named with a determiner is asked about: "is the outage this morning
        // planned?", "is my ticket on the roadmap".)
        let determined = self.text[from..]
            .split_whitespace()
            .next()
            .is_some_and(|w| {
                [
                    "the", "my", "our", "your", "their", "this", "that", "these", "those",
                ]
                .iter()
                .any(|d| w.eq_ignore_ascii_case(d))
            });
        if feature.is_empty() || determined || count_words(&self.text[feature.clone()]) > 8 {
            return None;
        }
        let task = self.cls.goal_index(GoalType::TaskExecution)?;
        Some(GoalLead {
            goal: task,
            description: feature.clone(),
            lead: question.lead.clone(),
            wrapper: 0..0,
            rule: Found::Request,
            details: SmallVec::from_iter([detail(1, feature)]),
        })
    }

    /// A question opened by "can", "could", "would" or "will" whose subject is a thing of
    /// the user's (a definite determiner) followed by a verb: a request of that thing ("could
    /// the CI pipeline cache node_modules between runs?"). Its target is the thing, its change
    /// what follows.
    pub(in crate::conversation) fn request_question(
        &self,
        question: &GoalLead,
        end: usize,
    ) -> Option<GoalLead> {
        let cls = self.cls;
        let lead = &self.text[question.lead.clone()];
        if !["can", "could", "would", "will"]
            .iter()
            .any(|w| lead.eq_ignore_ascii_case(w))
        {
            return None;
        }
        let first = words(self.text, question.lead.end..end).next()?;
        if !["the", "my", "our", "your", "this", "these"]
            .iter()
            .any(|d| self.text[first.clone()].eq_ignore_ascii_case(d))
        {
            return None;
        }
        // The thing runs to the first verb of the vocabulary after its first noun ("could the
        // CI pipeline cache node_modules ...", "can the scheduler retry jobs ..."), else as
        // far as a noun phrase goes.
        let ws: SmallVec<[Range<usize>; 8]> = words(self.text, first.end..end).take(6).collect();
        let known = ws.iter().enumerate().skip(1).find(|(_, w)| {
            let t = &self.text[(*w).clone()];
            cls.lower_in(&cls.words.verbs, t)
        });
        let (thing, verb) = match known {
            Some((i, v)) => (
                cls.clean(self.text, first.start..ws[i - 1].end, true),
                v.clone(),
            ),
            None => {
                let thing = self.thing(first.start..end, true)?;
                let verb = words(self.text, thing.end..end).next()?;
                (thing, verb)
            }
        };
        let v = &self.text[verb.clone()];
        // "can the API be ..." asks about it, unless a value follows ("can the timeout be 60
        // seconds instead of 30": a setting's new value).
        let value = v.eq_ignore_ascii_case("be")
            && words(self.text, verb.end..end)
                .next()
                .is_some_and(|n| self.text[n].starts_with(|c: char| c.is_ascii_digit()));
        if !value
            && ["be", "is", "are", "i", "you", "we"]
                .iter()
                .any(|w| v.eq_ignore_ascii_case(w))
        {
            return None;
        }
        let from = if value { verb.end } else { verb.start };
        let change = cls.clean(self.text, from..self.instead_of_doing(from..end), false);
        let task = cls.goal_index(GoalType::TaskExecution)?;
        // "will my alarm still go off if ...?" asks what happens.
        let conditional = words(self.text, change.clone()).any(|w| {
            ["if", "when", "whether", "unless"]
                .iter()
                .any(|c| self.text[w.clone()].eq_ignore_ascii_case(c))
        });
        if change.is_empty() || conditional || cls.goals[task].slots.len() < 2 {
            return None;
        }
        Some(GoalLead {
            goal: task,
            description: cls.clean(self.text, first.start..end, true),
            lead: question.lead.clone(),
            wrapper: 0..0,
            rule: Found::Request,
            details: SmallVec::from_iter([detail(0, thing), detail(1, change)]),
        })
    }

    /// The noun phrase at the start of `span` (up to a connector such as "to", "for", "so"),
    /// when it names a thing: `definite` asks that it open with a determiner or a
    /// demonstrative ("the indent width", "this JS file"); at most five words either way.
    pub(in crate::conversation) fn thing(
        &self,
        span: Range<usize>,
        definite: bool,
    ) -> Option<Range<usize>> {
        let cls = self.cls;
        let mut ws = words(self.text, span.clone()).peekable();
        let first = ws.peek()?.clone();
        let opens = cls.lower_in(&cls.words.determiners, &self.text[first.clone()]);
        if definite && !opens {
            return None;
        }
        let mut end = first.end;
        let mut previous_of = false;
        // (A noun phrase of more than five words is none: twelve are looked at at most.)
        for (i, w) in words(self.text, span.clone()).enumerate().take(12) {
            let word = &self.text[w.clone()];
            let after_of = std::mem::replace(&mut previous_of, word.eq_ignore_ascii_case("of"));
            // A noun phrase ends at a connector, a symbol, or a verb ("the signup form showed
            // ...").
            // (A problem word before a verb of its own is a noun: "the timezone bug didn't
            // work".)
            let problem_noun = || {
                words(self.text, w.end..span.end).next().is_some_and(|n| {
                    let n = &self.text[n];
                    cls.lower_in(&cls.words.auxiliaries, n)
                        || [
                            "didn't", "doesn't", "isn't", "wasn't", "won't", "never", "still",
                        ]
                        .iter()
                        .any(|x| n.eq_ignore_ascii_case(x))
                })
            };
            // (A problem word in its bare form after a singular noun, before a place, is the
            // phrase's head: "the Copywright typo in the footer", "the memory leak in the
            // worker"; "the buttons overlap on mobile", "the app crashes on start" report.)
            let head_noun = || {
                let bare = word.bytes().all(|b| b.is_ascii_alphanumeric())
                    && !["s", "ed", "ing", "en"]
                        .iter()
                        .any(|e| word.to_ascii_lowercase().ends_with(e));
                let singular_before = self.text[end..w.start].trim().is_empty()
                    && words(self.text, first.start..end)
                        .last()
                        .is_some_and(|p| !cls.plural(&self.text[p]));
                // (A place named with a determiner, a part of the thing's product: "in the
                // footer"; "in Safari", "on Android", "in production" tell where it shows.)
                let mut next = words(self.text, w.end..span.end);
                bare && singular_before
                    && next.next().is_some_and(|n| {
                        PLACES
                            .iter()
                            .any(|p| self.text[n.clone()].eq_ignore_ascii_case(p))
                    })
                    && next
                        .next()
                        .is_some_and(|d| cls.lower_in(&cls.words.determiners, &self.text[d]))
            };
            let verb = self
                .at(w.start, |m| matches!(m, Meaning::Problem | Meaning::Modal))
                .is_some_and(|_| i < 2 || !problem_noun() && !head_noun())
                || self.is_predicate(w.clone())
                || cls.lower_in(&cls.words.auxiliaries, word);
            // (A lead word after the thing's first noun and before a determiner is its verb:
            // "can the export include the custom fields"; elsewhere it names the thing: "the
            // Update button", "the rate limit on ...".)
            // (Nor is a quantity an object: "the staging deploy a few times a week".)
            let object_after = |at: usize| {
                let mut next = words(self.text, at..span.end);
                next.next().is_some_and(|n| {
                    cls.lower_in(&cls.words.determiners, &self.text[n.clone()])
                        && !(self.text[n].eq_ignore_ascii_case("a")
                            && next.next().is_some_and(|q| {
                                ["few", "lot", "couple", "bit", "little"]
                                    .iter()
                                    .any(|x| self.text[q.clone()].eq_ignore_ascii_case(x))
                            }))
                })
            };
            let lead = i >= 2
                && self
                    .at(w.start, |m| matches!(m, Meaning::Lead(_)))
                    .is_some()
                && object_after(w.end);
            // (A connector right after a determiner is a noun: "the about page".)
            let named = i == 1
                && opens
                && !["this", "that", "these", "those"]
                    .iter()
                    .any(|d| self.text[first.clone()].eq_ignore_ascii_case(d));
            if i > 0
                && ((cls.lower_in(&cls.words.ends, word)
                    && !word.eq_ignore_ascii_case("of")
                    && !named)
                    || (verb && !named)
                    || lead
                    // (A quoted name is a word of the phrase: "the 'Inbox' tab"; so is a number
                    // after "#": "order #58213".)
                    || word.starts_with(|c: char| !c.is_alphanumeric() && c != '/' && c != '.')
                        && !(word.len() > 1
                            && word.starts_with('#')
                            && word[1..].bytes().all(|b| b.is_ascii_digit()))
                        && !word
                            .strip_prefix(['\'', '‘', '`'])
                            .is_some_and(|w| w.starts_with(char::is_alphanumeric)))
            {
                break;
            }
            if i > 0 && self.text[end..w.start].contains([',', ';']) {
                break;
            }
            // An adverb ending the phrase is the verb's: "sort the list alphabetically".
            if i >= 2
                && word.len() > 5
                && word.to_ascii_lowercase().ends_with("ly")
                && words(self.text, w.end..span.end).next().is_none()
            {
                break;
            }
            // A determiner after the head starts an object: "the chart cover the legend" is
            // a thing and its verb ("of the" stays: "the top of the inbox").
            if i > 1 && cls.lower_in(&cls.words.determiners, word) && !after_of {
                break;
            }
            end = w.end;
        }
        let np = cls.clean(self.text, span.start..end, true);
        let n = count_words(&self.text[np.clone()]);
        (!np.is_empty() && n <= 5).then_some(np)
    }

    /// A thing with the place or owner that follows it ("the node version in CI", "the eslint
    /// rule for unused vars", "notifications from the work group"): the thing and one phrase
    /// after "in", "on", "for", "from" or "of" that names a thing, at most seven words in
    /// all; `np` alone otherwise. ("to" brings a value, not a place: "... to 20".)
    pub(in crate::conversation) fn with_modifier(
        &self,
        np: Range<usize>,
        end: usize,
    ) -> Range<usize> {
        let cls = self.cls;
        let mut ws = words(self.text, np.end..end);
        let Some(p) = ws.next() else { return np };
        if !self.text[np.end..p.start].trim().is_empty()
            || !["in", "on", "for", "from", "of"]
                .iter()
                .any(|c| self.text[p.clone()].eq_ignore_ascii_case(c))
        {
            return np;
        }
        let Some(n) = ws.next() else { return np };
        let t = &self.text[n.clone()];
        if PLACES.iter().any(|c| t.eq_ignore_ascii_case(c))
            || cls.lower_in(&cls.words.ends, t)
            || t.starts_with(|c: char| c.is_ascii_digit())
            // (An indefinite article says how, not where: "rewrite this in a friendlier tone".)
            || ["now", "me", "us", "them", "it", "good", "real", "sure", "a", "an"]
                .iter()
                .any(|c| t.eq_ignore_ascii_case(c))
            // (Nor does a gerund after "for", a purpose: "a user for debugging".)
            || purpose_gerund(&self.text[p.clone()], t)
        {
            return np;
        }
        // (The place ends where the user's own clause starts: "on /dashboard in prod i get a
        // 404".)
        let end = words(self.text, n.end..end)
            .take(12)
            .find(|w| {
                ["i", "we", "i'm", "im", "we're"]
                    .iter()
                    .any(|p| self.text[w.clone()].eq_ignore_ascii_case(p))
            })
            .map_or(end, |w| w.start);
        match self.thing(n.start..end, false) {
            Some(t) if count_words(&self.text[np.start..t.end]) <= 7 => np.start..t.end,
            _ => np,
        }
    }

    /// The value after "to", "into", "at" or an arrow in `span` ("... to 2 spaces", "... at
    /// 6:45", "... -> 16px").
    pub(in crate::conversation) fn after_to(&self, span: Range<usize>) -> Option<Range<usize>> {
        let ws: SmallVec<[Range<usize>; 12]> = words(self.text, span.clone()).take(12).collect();
        // ("quarter to seven", "half past six": a time, whose "to" is no value's.)
        let clock = |i: usize| {
            let is = |i: usize, list: &[&str]| {
                ws.get(i).is_some_and(|w| {
                    list.iter()
                        .any(|x| self.text[w.clone()].eq_ignore_ascii_case(x))
                })
            };
            is(i, &["quarter"]) && is(i + 1, &["to", "past"])
                || is(i, &["half"]) && is(i + 1, &["past"])
        };
        let w = ws.iter().enumerate().find_map(|(i, w)| {
            let t = &self.text[w.clone()];
            if i > 0 && clock(i - 1) {
                return None;
            }
            // "for" gives a value only when a number follows ("a timer for 25 minutes", "for
            // twelve minutes" as a speech recogniser writes it).
            // (A hedge may stand before the number: "for like twelve minutes", "for about
            // 20 minutes".)
            let number_at = |k: usize| {
                ws.get(k).is_some_and(|n| {
                    let t = &self.text[n.clone()];
                    t.starts_with(|c: char| c.is_ascii_digit())
                        || NUMBER_WORDS.iter().any(|x| t.eq_ignore_ascii_case(x))
                })
            };
            let hedged = || {
                ws.get(i + 1).is_some_and(|h| {
                    [
                        "like",
                        "about",
                        "around",
                        "roughly",
                        "approximately",
                        "maybe",
                    ]
                    .iter()
                    .any(|x| self.text[h.clone()].eq_ignore_ascii_case(x))
                }) && number_at(i + 2)
            };
            // (Looked for after "for" and "by" only.)
            let for_or_by = t.eq_ignore_ascii_case("for") || t.eq_ignore_ascii_case("by");
            let number = for_or_by && (number_at(i + 1) || hedged() || clock(i + 1));
            // "by" with a number or a fraction is the change itself ("reduce the logo size by
            // half", "raise prices by 5%").
            let by = t.eq_ignore_ascii_case("by")
                && (number
                    || ws.get(i + 1).is_some_and(|n| {
                        ["half", "a third", "a quarter", "double", "twice"]
                            .iter()
                            .any(|f| self.text[n.clone()].eq_ignore_ascii_case(f))
                    }));
            (["to", "into", "at"]
                .iter()
                .any(|c| t.eq_ignore_ascii_case(c))
                || ASSIGNS.contains(&t)
                || (t.eq_ignore_ascii_case("for") && number)
                || by)
                .then(|| w.clone())
        })?;
        let from = if self.text[w.clone()].eq_ignore_ascii_case("by") {
            w.start
        } else {
            w.end
        };
        // The value ends at a connector ("to python so it runs ..."), a colon, or a clause's
        // end.
        let span = span.start
            ..self.text[w.end..span.end]
                .match_indices(':')
                .find(|(c, _)| {
                    self.text[w.end + c + 1..]
                        .chars()
                        .next()
                        .is_none_or(char::is_whitespace)
                })
                .map_or(span.end, |(c, _)| w.end + c);
        // (Or at a place named with a determiner: "rename `archived` to `isArchived` in the
        // sync payload"; what follows "for" may be the value's own words, "Sign up for
        // free", or its scope, "10 for free users".)
        let mut after = words(self.text, w.end..span.end).peekable();
        after.next();
        let end = std::iter::from_fn(|| after.next().map(|n| (n, after.peek().cloned())))
            .find(|(n, next)| {
                let t = &self.text[n.clone()];
                [
                    "so", "because", "since", "which", "that", "when", "while", "as",
                ]
                .iter()
                .any(|c| t.eq_ignore_ascii_case(c))
                    || (["in", "on", "inside", "within"]
                        .iter()
                        .any(|c| t.eq_ignore_ascii_case(c))
                        && next.as_ref().is_some_and(|d| {
                            self.cls
                                .lower_in(&self.cls.words.determiners, &self.text[d.clone()])
                        }))
            })
            .map_or(span.end, |(n, _)| n.start);
        let v = self.cls.clean(self.text, from..end, true);
        (!v.is_empty()).then_some(v)
    }

    /// A thing and the particle that states what happens to it ("dark mode off", "the volume
    /// all the way down"): the particle ends the thing; the particle and what qualifies it
    /// before ("all the way") are the change.
    pub(in crate::conversation) fn particle(
        &self,
        span: Range<usize>,
    ) -> Option<(Range<usize>, Range<usize>)> {
        let ws: SmallVec<[Range<usize>; 12]> = words(self.text, span).take(12).collect();
        // A particle ends its clause or is followed by a place ("dark mode off on my phone")
        // or "a bit"; before a determiner it is a preposition ("the link on the page").
        // (Or by a time, which the change keeps: "the doorbell chime off till four".)
        let mut timed = false;
        let p = ws.iter().enumerate().skip(1).find_map(|(i, w)| {
            let next = ws
                .get(i + 1)
                .map(|n| self.text[n.clone()].to_ascii_lowercase());
            let ends = next.as_deref().is_none_or(|n| {
                PLACES.contains(&n)
                    || self.cls.lower_in(&self.cls.words.non_subjects, n)
                    || ["please", "pls", "now", "again", "too", "completely"].contains(&n)
                    || (n == "a"
                        && ws.get(i + 2).is_some_and(|b| {
                            ["bit", "little"]
                                .iter()
                                .any(|q| self.text[b.clone()].eq_ignore_ascii_case(q))
                        }))
            });
            let time = next
                .as_deref()
                .is_some_and(|n| ["till", "until", "til"].contains(&n));
            timed = time;
            ((ends || time)
                && ["off", "on", "up", "down"]
                    .iter()
                    .any(|p| self.text[w.clone()].eq_ignore_ascii_case(p)))
            .then_some(i)
        })?;
        // "all the way down", "way up": the qualifier belongs to the change.
        let mut from = p;
        while from > 1
            && ["all", "the", "way", "a", "bit", "little", "more"]
                .iter()
                .any(|q| self.text[ws[from - 1].clone()].eq_ignore_ascii_case(q))
        {
            from -= 1;
        }
        let thing = self.cls.clean(self.text, ws[0].start..ws[from].start, true);
        let change = ws[from].start..if timed {
            ws[ws.len() - 1].end
        } else {
            ws[p].end
        };
        (!thing.is_empty() && count_words(&self.text[thing.clone()]) <= 6)
            .then_some((thing, change))
    }

    /// Whether the determiner `ws[i]` opens a time, no thing (its phrase runs to `end`):
    /// "every" or "each" before a number or a word of time, or one word before one ("every
    /// 90 days", "each morning", "every two weeks", "every other day"); or, after a
    /// preposition, a thing whose last word is a word of time ("after the deadline", "within
    /// the first hour", "until the end of the week"). (An event is a thing: "after the token
    /// refresh", "before the session expires".)
    pub(in crate::conversation) fn timed(&self, ws: &[Range<usize>], i: usize, end: usize) -> bool {
        let cls = self.cls;
        let word = |k: usize| ws.get(k).map(|w| &self.text[w.clone()]);
        if self.frequency(ws, i) {
            return true;
        }
        let after_preposition = i > 0
            && word(i - 1).is_some_and(|p| {
                PLACES.iter().any(|c| p.eq_ignore_ascii_case(c))
                    || cls.lower_in(&cls.words.time_prepositions, p)
            });
        after_preposition
            && self
                .thing(ws[i].start..end, true)
                .and_then(|t| words(self.text, t).last())
                .is_some_and(|w| {
                    let t = &self.text[w];
                    t.starts_with(|c: char| c.is_ascii_digit()) || cls.lower_in(&cls.words.times, t)
                })
    }

    /// Whether `ws[i]` opens how often: "every" or "each" before a number or a word of time,
    /// or one word before one ("every 90 days", "each morning", "every other day").
    pub(in crate::conversation) fn frequency(&self, ws: &[Range<usize>], i: usize) -> bool {
        let cls = self.cls;
        let time = |k: usize| {
            ws.get(k).is_some_and(|w| {
                let t = &self.text[w.clone()];
                t.starts_with(|c: char| c.is_ascii_digit()) || cls.lower_in(&cls.words.times, t)
            })
        };
        ws.get(i).is_some_and(|w| {
            let d = &self.text[w.clone()];
            d.eq_ignore_ascii_case("every") || d.eq_ignore_ascii_case("each")
        }) && (time(i + 1) || time(i + 2))
    }

    /// The thing in `span` named with a definite determiner ("the editor", "my profile
    /// page"): after a preposition ("in the editor") if there is one, else the first; a time
    /// is none ([`View::timed`]).
    pub(in crate::conversation) fn definite_thing(
        &self,
        span: Range<usize>,
    ) -> Option<Range<usize>> {
        let definite = [
            "the", "my", "our", "your", "their", "this", "these", "those", "its", "every", "all",
            "each",
        ];
        let ws: SmallVec<[Range<usize>; 16]> = words(self.text, span.clone()).collect();
        let is = |w: &Range<usize>, list: &[&str]| {
            list.iter()
                .any(|d| self.text[w.clone()].eq_ignore_ascii_case(d))
        };
        // (A position is no thing: "pin a chat to the top", "at the bottom of the page" name
        // where, and the thing may follow: "to the top of the inbox".)
        // (Before a noun it is an adjective: "the back button", "the top bar".)
        let position = |i: usize| {
            ws.get(i + 1).is_some_and(|w| is(w, &POSITIONS))
                && ws
                    .get(i + 2)
                    .is_none_or(|n| is(n, &["of"]) || is(n, &PLACES))
        };
        let located = ws
            .windows(2)
            .enumerate()
            // ("of" joins nouns, it names no place, "the name of the person", unless after a
            // position: "at the bottom of the invoice list".)
            .filter(|(i, p)| {
                is(&p[0], &PLACES)
                    && (!is(&p[0], &["of"]) || *i > 0 && is(&ws[i - 1], &POSITIONS))
                    && is(&p[1], &definite)
                    && !position(i + 1)
            })
            .map(|(i, _)| i + 1);
        let first = ws
            .iter()
            .enumerate()
            .filter(|(i, w)| is(w, &definite) && !position(*i))
            .map(|(i, _)| i);
        // (At most 8 looked at: each is a pass over the rest of the span.)
        let mut candidates = located.chain(first).take(8).peekable();
        if candidates.peek().is_some() {
            return candidates
                .find(|i| !self.timed(&ws, *i, span.end))
                .and_then(|i| self.thing(ws[i].start..span.end, true));
        }
        // "support markdown in ticket comments": a thing after "in" or "on" without one.
        // (A time is no thing: "on friday", "log in since yesterday".)
        let bare = ws
            .windows(2)
            .find(|p| {
                is(&p[0], &["in", "on"])
                    && !self
                        .cls
                        .lower_in(&self.cls.words.times, &self.text[p[1].clone()])
            })
            .map(|p| p[1].start)?;
        self.thing(bare..span.end, false)
    }
}

impl View<'_> {
    /// A task lead with nothing after it: one that holds its own demonstrative ("clean this
    /// up", "can you speed this up": rule 5, the demonstrative is the thing), or one that is
    /// its own change ("... and after that deploy", "restart": the thing is still open, and a
    /// word that is a waiver, a signal, a non-answer or a deferral too is none: "skip",
    /// "cancel"). The lead is the change.
    pub(in crate::conversation) fn lead_alone(
        &self,
        start: usize,
        lead: Hit,
        info: LeadInfo,
    ) -> Option<GoalLead> {
        let cls = self.cls;
        let task = cls.goal_index(GoalType::TaskExecution)?;
        if info.goal as usize != task || cls.goals[task].slots.len() < 2 {
            return None;
        }
        let span = lead.start()..lead.end();
        let this = words(self.text, span.clone()).skip(1).find(|w| {
            ["this", "these", "that", "those"]
                .iter()
                .any(|d| self.text[w.clone()].eq_ignore_ascii_case(d))
        });
        let mut details = SmallVec::new();
        match this {
            Some(this) => details.push(detail(0, this)),
            None => {
                let other = self.meanings(lead).iter().any(|m| {
                    matches!(
                        m,
                        Meaning::Waiver
                            | Meaning::Signal(_)
                            | Meaning::NonAnswer
                            | Meaning::Deferral
                    )
                });
                if other || info.change != ChangeMode::Lead {
                    return None;
                }
            }
        }
        details.push(detail(1, span.clone()));
        Some(GoalLead {
            goal: task,
            description: span.clone(),
            lead: span,
            wrapper: cls.clean(self.text, start..lead.start(), false),
            rule: Found::Lead,
            details,
        })
    }
}
