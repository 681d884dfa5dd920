//! A clause that says its thing works ("timestamps look fine to me", rule 1) or when it is
//! ("parents evening is next week"): it rules a cause out or sets the scene, and reports
//! nothing.

use super::*;

impl View<'_> {
    /// Whether a clause's report by a verb (not by a problem word) says its thing works: its
    /// problem, after the auxiliaries, opens with a word of `fine_states` ("timestamps look fine to me", "the env vars seem
    /// ok"), ending the clause or followed only by whom it seems so to ("to me", "so far"):
    /// "the totals are correct only on page one" and "green on my machine and red in github
    /// actions" report. Such a clause rules a cause out; it reports nothing.
    pub(super) fn says_fine(&self, g: &GoalLead) -> bool {
        self.says_recovered(g)
            || self.says_fine_state(g)
            || self.says_no_problem(g)
            || self.says_already(g)
            || self.says_workaround(g)
    }

    /// Whether a clause's report tells what makes its thing work, a workaround the user found:
    /// its problem opens with a verb of making or getting, "it" or "them", and "work" or the
    /// trouble's end ("Rolling back to 1.11.3 makes it work again", "a restart gets it
    /// working", "pinning 2.7 makes it go away"), or a verb of fixing
    /// and "it" ("downgrading the driver fixes it"). It reports nothing.
    fn says_workaround(&self, g: &GoalLead) -> bool {
        problem_of(g).is_some_and(|p| {
            let is = |w: &str, list: &[&str]| list.iter().any(|x| w.eq_ignore_ascii_case(x));
            let mut ws = self.text[p.clone()].split(' ').filter(|w| !w.is_empty());
            let (Some(verb), Some(object)) = (ws.next(), ws.next()) else {
                return false;
            };
            let fixing = ["fixes", "fixed", "solves", "solved", "resolves", "resolved"];
            if !(is(verb, &["makes", "made", "gets", "got"]) || is(verb, &fixing))
                || !is(
                    object.trim_end_matches(['.', ',', '!']),
                    &["it", "them", "everything"],
                )
            {
                return false;
            }
            match ws.next() {
                Some(w) => {
                    is(verb, &["makes", "made", "gets", "got"])
                        && is(w, &["work", "working", "go", "stop", "disappear"])
                }
                None => is(verb, &fixing),
            }
        })
    }

    /// Whether a clause's report by a verb tells what is already so, a cause the user ruled
    /// out: its problem opens with "already" after its auxiliaries ("photos are already in the
    /// cloud", "the cache is already cleared"). It reports nothing.
    fn says_already(&self, g: &GoalLead) -> bool {
        problem_of(g).is_some_and(|p| {
            words(self.text, p.clone())
                .take(3)
                .find(|w| {
                    !self
                        .cls
                        .lower_in(&self.cls.words.auxiliaries, &self.text[w.clone()])
                })
                .is_some_and(|w| self.text[w].eq_ignore_ascii_case("already"))
        })
    }

    /// Whether a clause's report says that no problem was met: "no issues so far", "never had
    /// a single issue with it", "zero errors since the upgrade" (a word of `met_problems` after
    /// "no", "zero" or "never" and the verb of having or seeing, among the clause's first
    /// words). What follows a contrast still reports: "no errors but the page is blank".
    pub(super) fn says_no_problem(&self, g: &GoalLead) -> bool {
        let cls = self.cls;
        let from = g.description.start;
        let to = g.description.end;
        let is = |w: &Range<usize>, list: &[&str]| {
            list.iter()
                .any(|x| self.text[w.clone()].eq_ignore_ascii_case(x))
        };
        let ws: SmallVec<[Range<usize>; 8]> = words(self.text, from..to).take(8).collect();
        let Some(n) = ws
            .iter()
            .take(4)
            .position(|w| is(w, &["no", "zero", "never", "nary"]))
        else {
            return false;
        };
        let noun = ws[n + 1..].iter().find(|w| {
            !is(
                w,
                &[
                    "had", "have", "has", "seen", "saw", "got", "hit", "a", "an", "any", "one",
                    "single", "real", "major", "big",
                ],
            )
        });
        // (The noun ends its phrase: "No error message when the upload fails" misses the
        // message.)
        let Some(noun) =
            noun.filter(|w| cls.lower_in(&cls.words.met_problems, &self.text[(*w).clone()]))
        else {
            return false;
        };
        let mut after = words(self.text, noun.end..to);
        after.next().is_none_or(|w| {
            cls.lower_in(&cls.words.times, &self.text[w.clone()])
                || PLACES
                    .iter()
                    .any(|p| self.text[w.clone()].eq_ignore_ascii_case(p))
                || is(
                    &w,
                    &[
                        "so",
                        "yet",
                        "since",
                        "with",
                        "at",
                        "until",
                        "till",
                        "anymore",
                        "lately",
                        "now",
                        "here",
                        "there",
                        "whatsoever",
                        "reported",
                        "found",
                    ],
                )
        }) && !words(self.text, from..to).any(|w| is(&w, &["but", "except", "although"]))
    }

    /// Whether a clause's problem is a direction to a value, no failure: "down" before "to"
    /// and a number ("kitchen speaker down to 4", "the brightness down to 30 percent").
    pub(super) fn says_direction(&self, g: &GoalLead) -> bool {
        let Some(s) = problem_of(g) else {
            return false;
        };
        let mut ws = words(self.text, s.start..self.text.len());
        ws.next()
            .is_some_and(|d| self.text[d].eq_ignore_ascii_case("down"))
            && ws
                .next()
                .is_some_and(|t| self.text[t].eq_ignore_ascii_case("to"))
            && ws.next().is_some_and(|n| {
                let n = &self.text[n];
                n.starts_with(|c: char| c.is_ascii_digit())
                    || requests::NUMBER_WORDS
                        .iter()
                        .any(|x| n.eq_ignore_ascii_case(x))
            })
    }

    /// Whether a clause's report says its thing is back where it should be: "back" before a
    /// direction or a state ("cpu is back to normal", "the api is back up", "db-2 back down
    /// to 64% after dropping the stale slot", "memory went back down after the restart"),
    /// whatever follows. "back" alone reports ("the bug is back").
    pub(super) fn says_recovered(&self, g: &GoalLead) -> bool {
        let Some(s) = problem_of(g) else {
            return false;
        };
        // (A cheap look for "back" first: most reports hold none.)
        let from = g.description.start.min(s.start);
        let to = s.end.max(g.description.end);
        if !self.text.as_bytes()[from..to]
            .windows(4)
            .any(|w| w.eq_ignore_ascii_case(b"back"))
        {
            return false;
        }
        let is = |w: &Range<usize>, list: &[&str]| {
            list.iter()
                .any(|x| self.text[w.clone()].eq_ignore_ascii_case(x))
        };
        // ("back to" a state is "back to normal" alone: "back to the old broken behaviour"
        // reports.)
        // ("back on" is no recovery: "the light keeps turning itself back on".)
        const DIRECTIONS: [&str; 6] = ["up", "down", "under", "below", "online", "within"];
        let to_normal = |w: &Range<usize>| {
            is(w, &["to"])
                && words(self.text, w.end..s.end)
                    .next()
                    .is_some_and(|n| is(&n, &["normal"]))
        };
        // (Among the clause's first words, before any condition: "db-2 back down to 64%",
        // "error rate back down to 0.1%", "p95 back under 300ms since the rollback"; "when i
        // scroll back up the header vanishes" reports.)
        let ws: SmallVec<[Range<usize>; 8]> = words(self.text, from..to)
            .take(8)
            .take_while(|w| !is(w, &CONDITIONS))
            .collect();
        ws.windows(2)
            .any(|p| is(&p[0], &["back"]) && (is(&p[1], &DIRECTIONS) || to_normal(&p[1])))
    }

    /// [`View::says_fine`] by a word of `fine_states`.
    fn says_fine_state(&self, g: &GoalLead) -> bool {
        let cls = self.cls;
        problem_of(g).is_some_and(|s| {
            let ws = words(self.text, s.clone())
                .skip_while(|w| cls.lower_in(&cls.words.auxiliaries, &self.text[w.clone()]));
            // (After a verb of how things went: "the speech went great".)
            let fine = |w: &Range<usize>| {
                g.lead.start <= w.start
                    && cls.lower_in(&cls.words.fine_states, &self.text[w.clone()])
            };
            // (Past the degree of a comparison: "the new checkout is soooo much faster".)
            let mut ws = ws.skip_while(|w| degree(&self.text[w.clone()]));
            // (An exception reports: "numbers match what finance had except for march".)
            let except = || {
                words(self.text, s.clone()).any(|w| {
                    ["except", "apart", "besides"]
                        .iter()
                        .any(|x| self.text[w.clone()].eq_ignore_ascii_case(x))
                })
            };
            let mut placed = false;
            // (After any verb, a fine state of manner: "zones behave properly now", "it runs
            // fine".)
            let manner = |n: &Range<usize>| {
                let t = self.text[n.clone()].to_ascii_lowercase();
                t.ends_with("ly") || ["fine", "well", "ok", "okay"].contains(&t.as_str())
            };
            ws.next().is_some_and(|w| {
                fine(&w)
                    || ws
                        .next()
                        .is_some_and(|n| fine(&n) && (manner(&n) || self.is_predicate(w.clone())))
            }) && !except()
                && ws
                    // (What follows a time's opening word tells when: "so much quicker since the
                    // upgrade"; after "what", what the figures were checked against: "numbers
                    // match what finance had".)
                    .take_while(|w| {
                        !["since", "after", "what"]
                            .iter()
                            .any(|x| self.text[w.clone()].eq_ignore_ascii_case(x))
                    })
                    .all(|w| {
                        let t = &self.text[w.clone()];
                        // (Where it is so, to the clause's end: "works fine in Chrome", "looks
                        // ok on my phone"; not with a second state or an exception after it,
                        // "green on my machine and red in github actions".)
                        if placed {
                            return ![
                                "and", "but", "only", "except", "unless", "or", "until", "when",
                                "if", "whenever", "not", "whereas", "yet", "while", "so", "though",
                                "then",
                            ]
                            .iter()
                            .any(|x| t.eq_ignore_ascii_case(x));
                        }
                        // (Only in a sentence that ends with it: after a comma or a dash the
                        // place is a contrast's, "the build is green on my machine, red on CI".)
                        if ["in", "on", "at", "with", "under", "across", "from"]
                            .iter()
                            .any(|x| t.eq_ignore_ascii_case(x))
                            && self.ends_sentence(s.end)
                        {
                            placed = true;
                            return true;
                        }
                        cls.lower_in(&cls.words.times, &self.text[w.clone()])
                            || [
                                "to", "for", "me", "us", "so", "far", "now", "though", "tbh",
                                "btw", "again", "today", "overall", "too", "lol",
                            ]
                            .iter()
                            .any(|x| self.text[w.clone()].eq_ignore_ascii_case(x))
                    })
        })
    }
}

/// A word of degree before a state: "so", "much", "way", "a lot" ("lot"), "really", and "so"
/// typed long ("soooo").
fn degree(w: &str) -> bool {
    let w = w.to_ascii_lowercase();
    DEGREES.contains(&w.as_str())
        || ["much", "lot", "a", "really", "even", "heaps", "loads"].contains(&w.as_str())
        || w.len() > 2 && w.starts_with("so") && w[1..].bytes().all(|b| b == b'o')
}

impl View<'_> {
    /// Whether a clause's report by a verb says when its thing is: after a form of "be" its
    /// problem is a time and nothing else: a word of `times` ("the recital is tomorrow"),
    /// "next", "this" or "on" before one ("parents evening is next week", "the party is on
    /// saturday"), or "at" before a clock time ("my flight is at 6:30", "at 7pm"). A time
    /// told that way sets the scene; a measure is no time ("the disk is at 100%", "cpu is at
    /// 100"), a verb of doing before the time still reports ("the backup runs at 3am"), and
    /// so does anything after the time ("the retry count is at 5 and it still fails", "the
    /// invoice date is next year instead of this year").
    pub(super) fn says_when(&self, g: &GoalLead) -> bool {
        let cls = self.cls;
        problem_of(g).is_some_and(|s| {
            let ws: SmallVec<[Range<usize>; 6]> = words(self.text, s.clone()).take(6).collect();
            let is = |k: usize, list: &[&str]| {
                ws.get(k).is_some_and(|w| {
                    list.iter()
                        .any(|x| self.text[w.clone()].eq_ignore_ascii_case(x))
                })
            };
            let time = |k: usize| {
                ws.get(k)
                    .is_some_and(|w| cls.lower_in(&cls.words.times, &self.text[w.clone()]))
            };
            // A clock time: "7pm", "noon", or hours before a colon or "am" ("6:30", "7 pm"),
            // and how many words it takes.
            let clock = |k: usize| -> Option<usize> {
                let w = ws.get(k)?;
                let t = self.text[w.clone()].to_ascii_lowercase();
                let digits = t.bytes().all(|b| b.is_ascii_digit());
                if digits && self.text[w.end..].starts_with(':') {
                    Some(2 + usize::from(is(k + 2, &["am", "pm"])))
                } else if digits && is(k + 1, &["am", "pm"]) {
                    Some(2)
                } else if (t.ends_with("am") || t.ends_with("pm"))
                    && t.starts_with(|c: char| c.is_ascii_digit())
                    || t == "noon"
                    || t == "midnight"
                {
                    Some(1)
                } else {
                    None
                }
            };
            if !is(0, &["is", "are", "was", "were", "'s"]) {
                return false;
            }
            // Where the time ends: nothing may follow it in the clause.
            let end = if time(1) {
                2
            } else if is(1, &["next", "this", "on"]) && time(2) {
                3
            } else if is(1, &["at"])
                && let Some(n) = clock(2)
            {
                2 + n
            } else {
                return false;
            };
            // (Another word of time may follow: "at 6:30 tomorrow".)
            words(self.text, s.clone()).count() <= end + 1 && (ws.len() == end || time(end))
        })
    }
}

/// The problem a clause's report states (its change's first span).
fn problem_of(g: &GoalLead) -> Option<&Range<usize>> {
    g.details
        .iter()
        .find(|d| d.slot == 1)
        .and_then(|d| d.spans.first())
}
