//! Rule 10 for a programming exercise's statement ("Given a binary tree, return its level order
//! traversal", "You are given a list of tickets ... . Return the airports in order"): a request
//! for code that does what the clause opened by a verb of `exercise_verbs` says.

use super::*;

/// The sentences a statement's clause is looked for in: the opener's and the two after it.
const EXERCISE_SENTENCES: usize = 3;
/// The most words an opener holds ("you have been given").
const OPENER_WORDS: usize = 4;

impl View<'_> {
    /// The exercise stated by the user's sentences `owns`, if the first opens with one of
    /// `exercise_openers` and a clause after it opens with one of `exercise_verbs`.
    /// (A story may come first: "A ferry takes cars across the river. ... Given W and the
    /// list of car weights, compute the minimum number of trips": a plain opener, not a
    /// label's, may open either of the two sentences after the first.)
    pub(super) fn exercise(&self, owns: &[Range<usize>]) -> Option<(GoalLead, Range<usize>)> {
        self.exercise_from(owns, true)
            .or_else(|| {
                (1..EXERCISE_SENTENCES)
                    .take_while(|&k| k < owns.len())
                    .find_map(|k| self.exercise_from(&owns[k..], false))
            })
            .or_else(|| self.input_output(owns))
            .or_else(|| self.algorithm(owns))
            .or_else(|| self.story_ask(owns))
    }

    /// A story told of others, then a sentence opened by one of `exercise_verbs` asking for
    /// what is worked out from it ("Mia bakes cookies in trays of 12 ... Return how many trays she
    /// has to put in the oven", "A drone starts at (0, 0) ... Compute where the drone ends
    /// up"): code that works it out. Not after the user's own story ("My export job died
    /// last night. Find the cause").
    fn story_ask(&self, owns: &[Range<usize>]) -> Option<(GoalLead, Range<usize>)> {
        let cls = self.cls;
        let first = owns.first()?.clone();
        if owns.len() < 2 {
            return None;
        }
        let (at, s) = owns[1..].iter().take(EXERCISE_SENTENCES).find_map(|s| {
            let start = self.skip(s.start, |m| matches!(m, Meaning::Filler | Meaning::Ack));
            let mut ws = words(self.text, start..s.end);
            let verb = ws.next()?;
            // (What is asked is worked out: a question word's clause, or a measure or an
            // extreme within its first words, "the busiest moment", "the number of trips";
            // not "Find the cause".)
            let worked_out = ws.take(3).enumerate().any(|(i, w)| {
                let t = self.text[w].to_ascii_lowercase();
                i == 0
                    && ["how", "where", "which", "what", "whether", "when", "who"]
                        .contains(&t.as_str())
                    || t.len() > 4 && t.ends_with("est") && !t.ends_with("uest")
                    || [
                        "most", "least", "minimum", "maximum", "number", "total", "count", "sum",
                        "average",
                    ]
                    .contains(&t.as_str())
            });
            (worked_out && cls.lower_in(&cls.words.exercise_verbs, &self.text[verb]))
                .then_some((start, s.clone()))
        })?;
        // (The story: the sentences before the ask, told of others, with no request in them:
        // "Create an endpoint that ... . Return 409 if ..." is the endpoint's.)
        if owns
            .iter()
            .take_while(|o| o.start < s.start)
            .any(|o| self.lead_hit(o.start, o.end).is_some())
        {
            return None;
        }
        let own = words(self.text, first.start..s.start).any(|w| {
            ["i", "i'm", "im", "my", "we", "we're", "our", "me", "us"]
                .iter()
                .any(|x| self.text[w.clone()].eq_ignore_ascii_case(x))
        });
        // (A fault told in the story asks for a diagnosis: "The server logs show a spike at
        // 3am. Determine what is causing it.")
        let from = self.hits.partition_point(|h| h.start() < first.start);
        let problem = self.hits[from..]
            .iter()
            .take_while(|h| h.start() < s.start)
            .any(|h| self.meanings(*h).contains(&Meaning::Problem));
        // (And the story gives the input as code takes it, one of `exercise_inputs` or
        // [`STORY_INPUTS`]: "a list of cookie counts", "a command string"; a word problem of the world, "Jane runs 40km a
        // week. Calculate how many calories ...", asks no code.)
        let ws: SmallVec<[Range<usize>; 64]> =
            words(self.text, first.start..s.end).take(64).collect();
        let input = ws.iter().enumerate().any(|(i, w)| {
            cls.lower_in(&cls.words.exercise_inputs, &self.text[w.clone()])
                || STORY_INPUTS
                    .iter()
                    .any(|x| self.text[w.clone()].eq_ignore_ascii_case(x))
                || i > 0
                    && cls.lower_in(
                        &cls.words.exercise_inputs,
                        &self.text[ws[i - 1].start..w.end],
                    )
        });
        if own || problem || !input {
            return None;
        }
        let artifact = cls.goal_index(GoalType::ArtifactCreation)?;
        cls.goals[artifact].slots.get(1)?;
        let wants = cls.clean(self.text, at..s.end, false);
        let g = exercise_goal(artifact, first.start, wants);
        Some((g, first))
    }

    /// An algorithm's exercise told as an imperative: the message's first sentence (at most 25
    /// words) opens with a verb whose indefinite object ends with one of `exercise_inputs`
    /// ("Reverse a singly linked list in place", "Merge two sorted lists into one", "Check
    /// whether a string is a palindrome"): code that does it, the sentence its requirement.
    /// Not a lead of another goal's ("explain how a hash map works"), nor with a thing of the
    /// user's ("sort my list of contacts", "reverse this string").
    fn algorithm(&self, owns: &[Range<usize>]) -> Option<(GoalLead, Range<usize>)> {
        let cls = self.cls;
        if cls.words.exercise_inputs.is_empty() {
            return None;
        }
        let first = owns.first()?.clone();
        let start = self.skip(first.start, |m| matches!(m, Meaning::Filler | Meaning::Ack));
        // (The verb's plain form, tested before any word is gathered: letters only, no word
        // in -s or -ing ("Sorting an array of objects by date" asks how), no determiner,
        // pronoun, auxiliary or question word, no name in code ("getUserById keeps returning
        // null").)
        let w0 = words(self.text, start..first.end).next()?;
        let verb = &self.text[w0.clone()];
        let ends_in = |w: &str, end: &str| {
            w.len() >= end.len() && w[w.len() - end.len()..].eq_ignore_ascii_case(end)
        };
        if !verb.bytes().all(|b| b.is_ascii_alphabetic())
            || ends_in(verb, "s")
            || ends_in(verb, "ing")
            || identifier(verb)
            || cls.lower_in(&cls.words.determiners, verb)
            || cls.lower_in(&cls.words.non_subjects, verb)
            || cls.lower_in(&cls.words.auxiliaries, verb)
        {
            return None;
        }
        let ws: SmallVec<[Range<usize>; 26]> =
            words(self.text, start..first.end).take(26).collect();
        // (At most 25 words, with no verb after the first.)
        if ws.len() < 3
            || ws.len() > 25
            || self.is_predicate(ws[1].clone())
            || cls.lower_in(&cls.words.auxiliaries, &self.text[ws[1].clone()])
        {
            return None;
        }
        let artifact = cls.goal_index(GoalType::ArtifactCreation)?;
        cls.goals[artifact].slots.get(1)?;
        let task = cls.goal_index(GoalType::TaskExecution);
        // (A lead of an artifact keeps its own reading, one of a question or an exploration
        // its goal.)
        if self
            .at(ws[0].start, |m| match m {
                Meaning::Lead(id) => Some(cls.leads[id as usize].goal as usize) != task,
                _ => false,
            })
            .is_some()
        {
            return None;
        }
        // (Nor code asked for in a language, which names its kind: "merge two sorted arrays
        // in go".)
        let owned = ws.iter().enumerate().any(|(i, w)| {
            [
                "my", "our", "your", "this", "these", "those", "their", "his", "her",
            ]
            .iter()
            .any(|d| self.text[w.clone()].eq_ignore_ascii_case(d))
                || i > 0
                    && self.text[ws[i - 1].clone()].eq_ignore_ascii_case("in")
                    && cls.lower_in(&cls.words.code_languages, &self.text[w.clone()])
        });
        if owned {
            return None;
        }
        let is = |w: &Range<usize>, set: &[&str]| {
            let t = &self.text[w.clone()];
            set.iter().any(|s| t.eq_ignore_ascii_case(s))
        };
        let ends = |w: &Range<usize>| {
            is(w, &PLACES)
                || is(
                    w,
                    &[
                        "and", "or", "that", "which", "so", "using", "with", "by", "where",
                        "whether", "is", "are", "without", "in", "such",
                    ],
                )
        };
        let input = ws.iter().enumerate().skip(1).any(|(k, w)| {
            if !is(w, &["a", "an", "two", "three", "one", "n", "k"]) {
                return false;
            }
            let np: SmallVec<[Range<usize>; 5]> = ws[k + 1..]
                .iter()
                .take_while(|n| !ends(n))
                .take(5)
                .cloned()
                .collect();
            let n = np.len();
            (1..=4).contains(&n)
                && (cls.lower_in(&cls.words.exercise_inputs, &self.text[np[n - 1].clone()])
                    || n >= 2
                        && cls.lower_in(
                            &cls.words.exercise_inputs,
                            &self.text[np[n - 2].start..np[n - 1].end],
                        ))
        });
        if !input {
            return None;
        }
        let wants = cls.clean(self.text, ws[0].start..first.end, false);
        let g = exercise_goal(artifact, ws[0].start, wants);
        Some((g, first))
    }

    /// An exercise stated as its input and its output, each a line opened by its label
    /// ("Input: a log file, one entry per line ...", "Output: the minute with the most ERROR
    /// lines"): code that gives the output. The first 40 lines are looked at.
    fn input_output(&self, owns: &[Range<usize>]) -> Option<(GoalLead, Range<usize>)> {
        let cls = self.cls;
        // (Most messages hold no line label: a colon after "put" is looked for first.)
        if !self.text.contains("put:") && !self.text.contains("PUT:") {
            return None;
        }
        let mut input = false;
        let mut output = None;
        let mut at = 0;
        for line in self.text.split_inclusive('\n').take(40) {
            let t = line.trim_start();
            let lead = at + (line.len() - t.len());
            at += line.len();
            let label = |l: &str| t.get(..l.len()).is_some_and(|p| p.eq_ignore_ascii_case(l));
            if label("input:") {
                input = true;
            } else if label("output:") && output.is_none() {
                let from = lead + "output:".len();
                output = Some(cls.clean(self.text, from..lead + t.trim_end().len(), false));
            }
        }
        let wants = output.filter(|o| input && !o.is_empty())?;
        let artifact = cls.goal_index(GoalType::ArtifactCreation)?;
        cls.goals[artifact].slots.get(1)?;
        let first = owns.first()?.clone();
        let g = exercise_goal(artifact, first.start, wants);
        Some((g, first))
    }

    /// [`View::exercise`] opened by the first of `owns`; `labels` allows a label's opener.
    fn exercise_from(
        &self,
        owns: &[Range<usize>],
        labels: bool,
    ) -> Option<(GoalLead, Range<usize>)> {
        let cls = self.cls;
        let openers = &cls.words.exercise_openers;
        if openers.is_empty() {
            return None;
        }
        let first = owns.first()?.clone();
        let start = self.skip(first.start, |m| matches!(m, Meaning::Filler | Meaning::Ack));
        // (Most messages open otherwise: the first word is compared with the openers' first
        // words before any word is gathered or lowercased.)
        // (Its first letter first, a bit of a mask.)
        let letter = self.text.as_bytes().get(start)?.to_ascii_lowercase();
        if !letter.is_ascii_lowercase() || cls.exercise_firsts & (1 << (letter - b'a')) == 0 {
            return None;
        }
        let first_word = &self.text[words(self.text, start..first.end).next()?];
        let n = first_word.len();
        if !openers.iter().any(|o| {
            o.get(..n)
                .is_some_and(|w| w.eq_ignore_ascii_case(first_word))
                && matches!(o.as_bytes().get(n), None | Some(b' '))
        }) {
            return None;
        }
        let ws: SmallVec<[Range<usize>; OPENER_WORDS + 1]> = words(self.text, start..first.end)
            .take(OPENER_WORDS + 1)
            .collect();
        // The longest opener of the first words; what follows it is no thing of the user's
        // ("given the outage yesterday, find out why" states no exercise).
        let mut phrase = String::new();
        let mut opener = None;
        for (i, w) in ws.iter().take(OPENER_WORDS).enumerate() {
            if i > 0 {
                phrase.push(' ');
            }
            phrase.push_str(&self.text[w.clone()].to_lowercase());
            if openers.contains(phrase.as_str()) {
                opener = Some(i);
            }
        }
        let opener = opener?;
        // (A label opener stands before its colon, "Exercise 3:", "Problem:"; "Challenge
        // accepted!" or "Puzzle night at our place" open nothing.)
        let label = !phrase_starts_given(&self.text[ws[0].clone()]);
        if label && !labels {
            return None;
        }
        let numbered = label
            && self.text[ws[opener].end..first.end]
                .trim_start()
                .starts_with(|c: char| c.is_ascii_digit());
        if label {
            let after = &self.text[ws[opener].end..first.end];
            let rest =
                after.trim_start_matches(|c: char| c.is_ascii_digit() || c == ' ' || c == '.');
            // (A topic in brackets may follow: "Assignment 2 (bash)", "Exercise 4 (loops):".)
            let rest = match rest.strip_prefix('(').and_then(|r| r.split_once(')')) {
                Some((_, r)) => r.trim_start(),
                None => rest,
            };
            // (A numbered label may stand before a dash and a title, or alone on its line,
            // the statement below it: "Problem 7 - Letter staircase", "Exercise 4".)
            let titled = numbered
                && (rest.is_empty() || ["- ", "— ", "– "].iter().any(|d| rest.starts_with(d)));
            if !rest.starts_with(':') && !titled {
                return None;
            }
        }
        let next = ws.get(opener + 1)?;
        if [
            "my", "our", "your", "their", "this", "that", "these", "those",
        ]
        .iter()
        .any(|d| self.text[next.clone()].eq_ignore_ascii_case(d))
        {
            return None;
        }
        // ("Given the ..." states an exercise's input unless it points at what the user shows
        // or has: "Given the logs above, find the cause", "Given the spreadsheet I shared".)
        if self.text[next.clone()].eq_ignore_ascii_case("the") {
            for w in words(self.text, next.end..first.end).take(12) {
                if [
                    "above",
                    "below",
                    "attached",
                    "following",
                    "shared",
                    "i",
                    "i've",
                    "my",
                    "our",
                    "we",
                    "previous",
                    "earlier",
                ]
                .iter()
                .any(|x| self.text[w.clone()].eq_ignore_ascii_case(x))
                {
                    return None;
                }
                if self.text[w.end..].starts_with(',') {
                    break;
                }
            }
        }
        let artifact = cls.goal_index(GoalType::ArtifactCreation)?;
        cls.goals[artifact].slots.get(1)?;
        // A clause opened by an exercise's verb: a sentence's start after the opener's, or
        // after a comma, with its object after it ("find out", "find why" ask no code).
        let opens_clause = |at: usize, end: usize| {
            let mut after = words(self.text, at..end);
            after
                .next()
                .is_some_and(|v| cls.lower_in(&cls.words.exercise_verbs, &self.text[v]))
                && after.next().is_some_and(|o| {
                    ![
                        "out",
                        "why",
                        "where",
                        "what",
                        "me",
                        "us",
                        "someone",
                        "somewhere",
                    ]
                    .iter()
                    .any(|x| self.text[o.clone()].eq_ignore_ascii_case(x))
                })
        };
        for (i, s) in owns.iter().take(EXERCISE_SENTENCES).enumerate() {
            let mut starts: SmallVec<[usize; 4]> = SmallVec::new();
            if i > 0 {
                starts.push(self.skip(s.start, |m| matches!(m, Meaning::Filler | Meaning::Ack)));
            } else if label && let Some(c) = self.text[s.clone()].find(": ") {
                // ("Exercise 3: Print the first n primes": the clause right after the label.)
                starts.push(s.start + c + 2);
            }
            starts.extend(
                self.text[s.clone()]
                    .match_indices(", ")
                    .take(8)
                    .map(|(p, _)| s.start + p + 2),
            );
            // (A problem told in the clause's sentence is a report under a label: "Problem:
            // find in page doesn't highlight matches".)
            let reported = |at: usize| {
                let from = self.hits.partition_point(|h| h.start() < at);
                self.hits[from..]
                    .iter()
                    .take_while(|h| h.start() < s.end)
                    .any(|h| self.meanings(*h).contains(&Meaning::Problem))
            };
            // (A request for code after the opener's comma states the work itself: "Given
            // tables orders(...) and customers(...), write a query that returns ...".)
            if i == 0
                && !label
                && let Some(g) = starts.iter().find_map(|&at| {
                    self.lead_at(at, at..s.end)
                        .filter(|g| g.goal == artifact && g.lead.start == at)
                })
            {
                return Some((g, first));
            }
            if let Some(&at) = starts.iter().find(|&&at| opens_clause(at, s.end))
                && !(label && reported(at))
            {
                let wants = cls.clean(self.text, at..s.end, false);
                let g = exercise_goal(artifact, start, wants);
                return Some((g, first));
            }
        }
        // (With no such clause, a statement under a label of its own kind asks for code all
        // the same: "Kata: Run-length decoding" over "Decode strings such as ...",
        // "Exercise 3 - Temperature table" over "Use a for loop to print ...". Not an
        // unnumbered "Problem:", which a report may open.)
        if label
            && (numbered
                || !["problem", "puzzle", "challenge"]
                    .iter()
                    .any(|x| self.text[ws[0].clone()].eq_ignore_ascii_case(x)))
        {
            // (The statement follows the label's colon or dash when it is more than a title's
            // few words, else it is the next sentence.)
            let label_line = &self.text[first.clone()];
            let separated = label_line
                .find(": ")
                .map(|p| (p, 2))
                .or_else(|| find_first_of(label_line, &[" - ", " — ", " – "]))
                .map(|(p, n)| first.start + p + n)
                .filter(|c| count_words(&self.text[*c..first.end]) >= 5);
            let body = match separated {
                Some(c) => c..first.end,
                None => owns.get(1)?.clone(),
            };
            let body_start = self.skip(body.start, |m| matches!(m, Meaning::Filler | Meaning::Ack));
            // (Not the user's own trouble or a question told under the label: "Exercise 2:
            // the test for empty lists fails", "Exercise 5 (sorting): explain why ...", "Lab 2:
            // my ping times out".)
            let own = words(self.text, body_start..body.end)
                .next()
                .is_some_and(|w| {
                    [
                        "i", "i'm", "im", "my", "we", "our", "we're", "is", "are", "can", "how",
                        "why",
                    ]
                    .iter()
                    .any(|x| self.text[w.clone()].eq_ignore_ascii_case(x))
                });
            if own {
                return None;
            }
            match self.statement(body_start..body.end, false) {
                Some(g) if g.goal == artifact => return Some((g, body)),
                Some(g)
                    if matches!(g.rule, Found::ProblemReport | Found::PastedError)
                        || cls.goals[g.goal].goal_type != GoalType::TaskExecution
                            && ["explain", "describe", "why", "how", "what", "compare"]
                                .iter()
                                .any(|x| self.text[g.lead.clone()].eq_ignore_ascii_case(x)) =>
                {
                    return None;
                }
                _ => {}
            }
            let wants = cls.clean(self.text, body_start..body.end, false);
            let g = exercise_goal(artifact, start, wants);
            return Some((g, first));
        }
        None
    }
}

/// Whether an opener's first word is the plain "given" or "you" of a statement ("given",
/// "you are given"), not a label's ("exercise", "problem").
fn phrase_starts_given(word: &str) -> bool {
    ["given", "you", "you're", "youre", "you've"]
        .iter()
        .any(|w| word.eq_ignore_ascii_case(w))
}

/// An exercise's request: code (the goal `artifact`) whose requirements, and description, are
/// `wants`, read from `at`.
fn exercise_goal(artifact: usize, at: usize, wants: Range<usize>) -> GoalLead {
    GoalLead {
        goal: artifact,
        description: wants.clone(),
        lead: at..at,
        wrapper: 0..0,
        rule: Found::Exercise,
        details: SmallVec::from_iter([detail(1, wants)]),
    }
}
