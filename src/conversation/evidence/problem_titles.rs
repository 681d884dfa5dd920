//! Rule 1 for titles that open with their problem ("Crash when opening the settings screen",
//! "Can't log in after ...").

use super::*;

/// The words of a passive before what is done to the user ("I was charged", "I keep getting
/// logged out", "we've been double charged").
const PASSIVE_MARKS: [&str; 10] = [
    "was", "were", "got", "get", "keep", "kept", "have", "been", "being", "getting",
];

impl View<'_> {
    /// `span` (a sentence past its fillers) with the "no" that opens the sentence, when that
    /// filler is what a title says is missing ("No error message when the upload fails").
    pub(in crate::conversation) fn missing_title(&self, span: Range<usize>) -> Range<usize> {
        let before = self.text[..span.start].trim_end();
        let b = before.as_bytes();
        // (Two ASCII bytes: the slice before them ends on a character's boundary. The "no"
        // opens its sentence, on the line of the words after it.)
        let opens = b.len() >= 2
            && b[b.len() - 2..].eq_ignore_ascii_case(b"no")
            && (b.len() < 3 || !b[b.len() - 3].is_ascii_alphanumeric())
            && {
                let head = before[..b.len() - 2].trim_end();
                head.is_empty() || head.ends_with(['.', '!', '?', '\n', ':'])
            }
            && !self.text[before.len()..span.start].contains('\n');
        if opens {
            before.len() - 2..span.end
        } else {
            span
        }
    }

    /// Rule 1 for a title that opens with its problem and has no subject: a problem noun
    /// ("Crash when opening the settings screen", "Memory leak in the websocket loop", "slow
    /// queries on the reports page") or an inability ("Can't log in after ...", "Unable to
    /// upload files larger than 10MB"). The thing it names with a determiner or after "in"
    /// or "on" is the target; the title is the problem. A negation alone ("not sure",
    /// "no idea") opens none.
    pub(in crate::conversation) fn problem_title(&self, span: Range<usize>) -> Option<GoalLead> {
        // (Not a title saying that none was met: "no issues so far".)
        self.problem_title_of(span)
            .filter(|g| !self.says_no_problem(g))
    }

    /// [`View::problem_title`], whatever it says was met.
    fn problem_title_of(&self, span: Range<usize>) -> Option<GoalLead> {
        let cls = self.cls;
        let task = cls.goal_index(GoalType::TaskExecution)?;
        if cls.goals[task].slots.len() < 2 || self.text[span.clone()].trim_end().ends_with('?') {
            return None;
        }
        // (The user's own inability reads the same: "I can't upload files larger than 10MB",
        // "we're unable to ...", and so does "nothing happens when I press submit".)
        let mut ws2 = words(self.text, span.clone());
        let first = ws2.next()?;
        let second = ws2.next();
        let lower = |w: &Range<usize>| self.text[w.clone()].to_ascii_lowercase();
        let is_unable =
            |w: &str| ["can't", "cant", "cannot", "unable", "couldn't", "couldnt"].contains(&w);
        let person =
            ["i", "we", "i'm", "im", "we're", "i've", "we've"].contains(&lower(&first).as_str());
        let (first, inability) = match &second {
            Some(s)
                if person && (is_unable(&lower(s)) || lower(s) == "am" || lower(s) == "are") =>
            {
                // ("I am unable to", "we are unable to")
                let s = if is_unable(&lower(s)) {
                    s.clone()
                } else {
                    words(self.text, s.end..span.end)
                        .next()
                        .filter(|u| lower(u) == "unable")?
                };
                (s, false)
            }
            // ("i haven't been able to", "we weren't able to", "i'm no longer able to", "i
            // can no longer": a negation, then "able to" within its next four words, or "can" or
            // "could" before "no longer".)
            Some(s)
                if person && {
                    let next: SmallVec<[Range<usize>; 5]> =
                        words(self.text, s.start..span.end).take(5).collect();
                    let negated = |w: &Range<usize>| {
                        let t = lower(w);
                        t == "not" || t == "no" || t == "never" || t.ends_with("n't")
                    };
                    next.iter().position(negated).is_some_and(|n| {
                        next[n + 1..]
                            .windows(2)
                            .any(|p| lower(&p[0]) == "able" && lower(&p[1]) == "to")
                            || lower(&next[n]) == "no"
                                && next.get(n + 1).is_some_and(|l| lower(l) == "longer")
                                && n >= 1
                                && ["can", "could"].contains(&lower(&next[n - 1]).as_str())
                    })
                } =>
            {
                (s.clone(), true)
            }
            // (The user as the one a problem happens to: "I was charged twice for the same
            // order", "I keep getting logged out of the app", "we've been double charged":
            // the problem after the marks of the passive.)
            Some(s)
                if person
                    && [
                        "was", "were", "got", "get", "keep", "kept", "have", "been", "being",
                    ]
                    .contains(&lower(s).as_str())
                    && let Some(p) = words(self.text, s.start..span.end).take(3).find(|w| {
                        !PASSIVE_MARKS.contains(&lower(w).as_str())
                            || self.at(w.start, |m| m == Meaning::Problem).is_some()
                    })
                    && self.at(p.start, |m| m == Meaning::Problem).is_some()
                    // (What is done to the user is a participle: "I keep getting 'permission
                    // denied'" meets an error, `met_problems` reads it.)
                    && words(self.text, s.start..span.end)
                        .take(4)
                        .find(|w| !PASSIVE_MARKS.contains(&lower(w).as_str()))
                        .is_some_and(|w| {
                            let t = lower(&w);
                            t.ends_with("ed") || ["stuck", "hidden", "frozen", "lost"].contains(&t.as_str())
                        }) =>
            {
                (p, false)
            }
            Some(s)
                if lower(&first) == "nothing"
                    && ["happens", "happened", "works", "loads", "shows"]
                        .contains(&lower(s).as_str()) =>
            {
                (first, true)
            }
            _ => (first, false),
        };
        // (Not when a goal of another kind follows: "I can't figure out how to ...", "I can't
        // decide between react and vue" ask for help, they report nothing broken.)
        // (Past the words of an inability: "not able to decide between ...".)
        if first.start > span.start
            && let Some(after) = words(self.text, first.end..span.end).find(|w| {
                !["been", "able", "to", "not", "no", "longer"]
                    .iter()
                    .any(|x| self.text[w.clone()].eq_ignore_ascii_case(x))
            })
            && self
                .at(after.start, |m| {
                    matches!(m, Meaning::Lead(id)
                        if cls.goals[cls.leads[id as usize].goal as usize].goal_type
                            != GoalType::TaskExecution)
                })
                .is_some()
        {
            return None;
        }
        let span = first.start..span.end;
        // How often or how badly may stand before the problem ("Random crashes on Android 14",
        // "Intermittent 502 errors from the gateway", "500 errors on checkout"): up to three
        // such words or numbers.
        let mut problem_word = first.clone();
        let mut rest = words(self.text, first.end..span.end);
        for _ in 0..3 {
            let t = &self.text[problem_word.clone()];
            let skip = cls.lower_in(&cls.words.problem_modifiers, t)
                || t.bytes().next().is_some_and(|b| b.is_ascii_digit());
            match rest.next() {
                Some(n) if skip => problem_word = n,
                _ => break,
            }
        }
        // (A modifier that is a problem itself heads the title when no problem follows it:
        // "Weird spacing under the footer on Safari"; so does any modifier before a condition,
        // "Huge bundle size after adding the charts library".)
        let no_problem = self
            .at(problem_word.start, |m| m == Meaning::Problem)
            .is_none();
        let modified = no_problem
            && problem_word.start > first.start
            && cls.lower_in(&cls.words.problem_modifiers, &self.text[first.clone()])
            && words(self.text, problem_word.start..span.end)
                .take(8)
                .any(|w| self.word_in(&w, &CONDITIONS));
        let first = if no_problem
            && (modified || self.at(first.start, |m| m == Meaning::Problem).is_some())
        {
            first
        } else {
            problem_word
        };
        let word = self.text[first.clone()].to_ascii_lowercase();
        // ("No way to" a verb lacks what an inability lacks: "No way to export conversation
        // transcripts as JSON" acts on the transcripts.)
        let lacking = (word == "no")
            .then(|| {
                let mut after = words(self.text, first.end..span.end);
                let way = after.next()?;
                (["way", "option", "ability", "means"]
                    .iter()
                    .any(|x| self.text[way.clone()].eq_ignore_ascii_case(x))
                    && after
                        .next()
                        .is_some_and(|t| self.text[t].eq_ignore_ascii_case("to")))
                .then_some(way.end)
            })
            .flatten();
        let unable = is_unable(&word) || inability || lacking.is_some();
        let negation = [
            "not", "never", "no", "don't", "dont", "doesn't", "doesnt", "won't", "wont", "isn't",
            "isnt", "aren't", "didn't", "didnt", "wasn't", "wasnt", "weren't", "hasn't", "haven't",
        ]
        .contains(&word.as_str());
        let hit = self.at(first.start, |m| m == Meaning::Problem);
        // (An exception's name heads one too: "TypeError in parse_config() when the path is
        // None", "KeyError on save": a word in -Error or -Exception with two capitals.)
        let original = &self.text[first.clone()];
        let exception = (word.ends_with("error") || word.ends_with("exception"))
            && word.len() > "error".len() + 1
            && original.bytes().filter(u8::is_ascii_uppercase).count() >= 2
            && original
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'.');
        // (So does what is missing, "No error message when the upload fails", "No sound after
        // the update": "no" and a noun of its own, no phrase of the conversation.)
        let missing = word == "no"
            && words(self.text, first.end..span.end)
                .next()
                .is_some_and(|n| {
                    !cls.lower_in(&cls.words.determiners, &self.text[n.clone()])
                        && !cls.lower_in(&cls.words.non_subjects, &self.text[n.clone()])
                        && self
                            .at(first.start, |m| {
                                matches!(
                                    m,
                                    Meaning::Signal(_)
                                        | Meaning::Ack
                                        | Meaning::NonAnswer
                                        | Meaning::Waiver
                                        | Meaning::Deferral
                                        | Meaning::SmallTalk
                                )
                            })
                            .is_none()
                });
        if !(unable
            || exception
            || missing
            || modified
            || (hit.is_some() && !negation && word.len() >= 4))
        {
            return None;
        }
        // (A problem word before a time says how the time goes, no thing's problem: "slow
        // monday over here", "rough week", "long day".)
        if words(self.text, first.end..span.end)
            .next()
            .is_some_and(|n| cls.lower_in(&cls.words.times, &self.text[n]))
        {
            return None;
        }
        // A phrase of the conversation ("no problem, go ahead") is no title.
        let from = self.hits.partition_point(|h| h.start() < span.start);
        if self.hits[from..]
            .iter()
            .take_while(|h| h.start() < span.end)
            .any(|h| {
                self.meanings(*h).iter().any(|m| match m {
                    Meaning::Signal(i) => matches!(
                        cls.signals[*i as usize].signal,
                        super::super::Signal::Approve
                            | super::super::Signal::Satisfied
                            | super::super::Signal::Cancel
                    ),
                    _ => false,
                })
            })
        {
            return None;
        }
        // At least three words, and no verb of its own after the problem ("crashes are
        // rare" is a sentence, not a title).
        let ws: SmallVec<[Range<usize>; 16]> =
            words(self.text, first.start..span.end).take(16).collect();
        // (A condition after the problem has its own verb: "Unclear error message when the
        // API key is wrong".)
        let condition = ws
            .iter()
            .position(|w| {
                CONDITIONS
                    .iter()
                    .any(|c| self.text[w.clone()].eq_ignore_ascii_case(c))
            })
            .unwrap_or(ws.len());
        // (A word in -s before a place or the end is a plural there, no verb: "Slow page loads
        // on the dashboard".)
        let plural_noun = |i: usize| {
            let t = &self.text[ws[i].clone()];
            t.len() > 3
                && cls.plural(t)
                && ws.get(i + 1).is_none_or(|n| {
                    PLACES
                        .iter()
                        .any(|p| self.text[n.clone()].eq_ignore_ascii_case(p))
                })
        };
        if words(self.text, span.clone()).nth(2).is_none()
            || (!unable
                && (1..condition.max(1)).any(|i| {
                    self.is_predicate(ws[i].clone())
                        && !plural_noun(i)
                        && !cls.lower_in(&cls.words.determiners, &self.text[ws[i - 1].clone()])
                }))
        {
            return None;
        }
        let problem = cls.clean(self.text, span.clone(), false);
        // A problem word of one word before a noun of its own qualifies it: the noun is the
        // thing ("Broken link to the migration guide", "Wrong total on the invoice page").
        let qualified = hit
            .filter(|h| !unable && h.end() == first.end)
            .and_then(|h| words(self.text, h.end()..span.end).next())
            .filter(|n| self.qualified_noun(n.clone()))
            .and_then(|n| self.thing(n.start..span.end, false));
        // (The thing is named before a condition: "... in parse_config() when the path is
        // None".)
        let before_condition = ws.get(condition).map_or(span.end, |w| w.start);
        // (What one is unable to act on is the verb's object: "Unable to unlock vault with
        // Touch ID after the update", "can't open attachments from the shared drive".)
        let object = unable
            .then(|| {
                // (After "to" and the verb; a phrasal verb's place or a quantity leaves the
                // thing to the place, "unable to log out of the app", "can't add more than 5
                // items to the cart".)
                let verb = words(self.text, lacking.unwrap_or(first.end)..before_condition)
                    .find(|w| !self.text[w.clone()].eq_ignore_ascii_case("to"))?;
                let object = self.object_after(verb.end, before_condition)?;
                let o = &self.text[object.clone()];
                if cls.lower_in(&cls.words.quantities, o)
                    || ["more", "less", "fewer", "any", "than"]
                        .iter()
                        .any(|q| o.eq_ignore_ascii_case(q))
                {
                    return None;
                }
                let t = self.thing(object.start..before_condition, false)?;
                // (Where it is put is the thing: "Can't paste images into the comment box";
                // where it is, no: "unable to rename playlists on the web player".)
                if words(self.text, t.end..before_condition)
                    .next()
                    .is_some_and(|p| {
                        ["into", "onto", "to"]
                            .iter()
                            .any(|x| self.text[p.clone()].eq_ignore_ascii_case(x))
                    })
                {
                    return None;
                }
                Some(cls.clean(self.text, t, true)).filter(|t| !t.is_empty())
            })
            .flatten();
        // (A condition right after the problem that opens with a verb's -ing form names the
        // thing by that verb's object: "Crash when importing GEDCOM files with Cyrillic
        // names", "Panic when registering a route that ends in a wildcard".)
        let done_to = (condition == 1)
            .then(|| {
                let verb = ws.get(2)?;
                let v = &self.text[verb.clone()];
                if v.len() <= 5 || !v.to_ascii_lowercase().ends_with("ing") {
                    return None;
                }
                let object = self.object_after(verb.end, span.end)?;
                let t = self.thing(object.start..span.end, false)?;
                Some(cls.clean(self.text, t, true)).filter(|t| !t.is_empty())
            })
            .flatten();
        let target = qualified
            .or(object)
            .or(done_to)
            .or_else(|| self.definite_thing(first.end..before_condition))
            .or_else(|| self.definite_thing(first.end..span.end));
        Some(report(
            task,
            target,
            problem.clone(),
            problem,
            first,
            Found::ProblemReport,
        ))
    }

    /// The first word of a verb's object after `at` (the verb's end), past a particle of the
    /// verb ("can't turn off notifications"): none when it is a pronoun, a word of no subject
    /// or a place.
    fn object_after(&self, at: usize, end: usize) -> Option<Range<usize>> {
        let cls = self.cls;
        let mut after = words(self.text, at..end);
        let object = after.next()?;
        let object = if PARTICLES
            .iter()
            .any(|p| self.text[object.clone()].eq_ignore_ascii_case(p))
        {
            after.next()?
        } else {
            object
        };
        let o = &self.text[object.clone()];
        (!cls.is_pronoun(o)
            && !cls.lower_in(&cls.words.non_subjects, o)
            && !PLACES.iter().any(|p| o.eq_ignore_ascii_case(p)))
        .then_some(object)
    }
}
