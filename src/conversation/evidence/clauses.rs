//! The clauses of a message read for problem reports and requests of the thing itself (rules
//! 1 and 2 without a lead verb): where a clause ends (clause bytes, breaks, contrasts, the
//! user's own doing before "and"), which clause decides, and what a clause after a contrast or
//! a narrative shares with the one before it. Each clause is read by
//! [`View::clause_within`] (problems.rs).

use super::*;

impl View<'_> {
    /// A name the assistant is called by, after a greeting and before a lead: "hey nova send a
    /// message to priya ...", "ok google set a timer for ten minutes". The name is one word of
    /// no meaning of the vocabulary; the lead after it states the goal.
    pub(super) fn lead_after_address(
        &self,
        start: usize,
        sentence: Range<usize>,
    ) -> Option<GoalLead> {
        // (The greeting stands right before the name, no comma between: "Hello, after the
        // update ..." greets and goes on.)
        let greeted = words(self.text, sentence.start..start)
            .last()
            .is_some_and(|w| {
                ["hey", "hi", "ok", "okay", "yo", "hello"]
                    .iter()
                    .any(|g| self.text[w.clone()].eq_ignore_ascii_case(g))
                    && self.text[w.end..start].trim().is_empty()
            });
        if !greeted {
            return None;
        }
        let name = words(self.text, start..sentence.end).next()?;
        let t = &self.text[name.clone()];
        let cls = self.cls;
        if name.start != start
            || !t.bytes().all(|b| b.is_ascii_alphabetic())
            || cls.lower_in(&cls.words.determiners, t)
            || cls.lower_in(&cls.words.non_subjects, t)
            || cls.is_pronoun(t)
            || PLACES
                .iter()
                .chain(CONDITIONS.iter())
                .any(|p| t.eq_ignore_ascii_case(p))
            || self.at(name.start, |_| true).is_some()
        {
            return None;
        }
        let next = skip_soft(self.text, name.end);
        (next < sentence.end)
            .then(|| self.lead_at(next, next..sentence.end))
            .flatten()
    }

    /// Rule 9 for a condition: a sentence that opens with one ("when a game finishes", "if
    /// the upload fails"), a comma, then a lead: the lead states the goal, the condition says
    /// when ("When a game finishes, save the PGN automatically to a folder I pick"). The
    /// condition is looked at up to its comma, within its first twelve words.
    pub(super) fn lead_after_condition(
        &self,
        start: usize,
        sentence: Range<usize>,
    ) -> Option<GoalLead> {
        // (Its word is compared in place: most sentences open with none.)
        let opening = self.text.as_bytes().get(start..sentence.end)?;
        let c = ["when", "whenever", "if", "once", "after", "before", "while"]
            .iter()
            .find(|c| {
                opening.len() > c.len()
                    && opening[..c.len()].eq_ignore_ascii_case(c.as_bytes())
                    && !opening[c.len()].is_ascii_alphanumeric()
            })?;
        let first = start + c.len();
        let condition = words(self.text, first..sentence.end).take(12).last()?;
        let comma = self.next_comma(first, condition.end)?;
        let after = self.skip(skip_soft(self.text, comma + 1), |m| {
            matches!(m, Meaning::Filler | Meaning::Ack)
        });
        if after >= sentence.end {
            return None;
        }
        // (Read as a sentence of its own, so a lead word that is a noun there stays one:
        // "when I hit save, create button greys out" reports.)
        // (A task: what is to be done when the condition holds; a kind's lead there is more
        // often a noun of a report.)
        self.statement(after..sentence.end, true).filter(|g| {
            matches!(g.rule, Found::Lead | Found::Request)
                && self.cls.goals[g.goal].goal_type == GoalType::TaskExecution
        })
    }

    /// Rules 1 and 2 without a lead verb: in each clause, a subject naming a thing and then a
    /// problem predicate ("the submit button is hidden behind the keyboard") or a modal ("the
    /// export should include archived items"). The last clause that holds one decides: a
    /// detail follows its overview. A subordinate clause ("until ...", "because ...", "but
    /// not ...") decides only when no main clause holds one at any strength.
    pub(in crate::conversation) fn evidence(
        &self,
        span: Range<usize>,
        weakest: Strength,
    ) -> Option<GoalLead> {
        let strengths = [Strength::Problem, Strength::Predicate, Strength::Suffix]
            .into_iter()
            .filter(|s| *s <= weakest);
        let mut subordinate = false;
        strengths
            .clone()
            .find_map(|s| self.clauses(span.clone(), s, false, &mut subordinate))
            .or_else(|| {
                subordinate
                    .then(|| {
                        strengths
                            .into_iter()
                            .find_map(|s| self.clauses(span.clone(), s, true, &mut false))
                    })
                    .flatten()
            })
    }

    /// [`View::evidence`] at one strength.
    pub(in crate::conversation) fn evidence_of(
        &self,
        span: Range<usize>,
        strength: Strength,
    ) -> Option<GoalLead> {
        let mut subordinate = false;
        self.clauses(span.clone(), strength, false, &mut subordinate)
            .or_else(|| {
                subordinate
                    .then(|| self.clauses(span, strength, true, &mut false))
                    .flatten()
            })
    }

    /// The clauses of [`View::evidence`] at one strength: the subordinate ones too with
    /// `all`; `subordinate` tells whether one was left out.
    fn clauses(
        &self,
        span: Range<usize>,
        strength: Strength,
        all: bool,
        subordinate: &mut bool,
    ) -> Option<GoalLead> {
        let task = self.cls.goal_index(GoalType::TaskExecution)?;
        if self.cls.goals[task].slots.len() < 2 {
            return None;
        }
        let mut found = None;
        let mut start = span.start;
        let bytes = self.text.as_bytes();
        // Clause ends: clause bytes and clause breaks ("but").
        let first = self.hits.partition_point(|h| h.start() < span.start);
        let mut hits = self.hits[first..]
            .iter()
            .take_while(|h| h.start() < span.end)
            .peekable();
        let mut at = span.start;
        // Rule 1 for a contrast: a clause after "but" with no subject of its own shares the
        // subject of the clause before it ("the build passes locally but fails on CI").
        let mut shared: Option<Range<usize>> = None;
        // Whether the clause under way is subordinate to the one before it, and where a
        // subordinate part inside it starts.
        let mut under = false;
        // Whether the clause starting at the first position opens with the user's own doing.
        let mut opener: Option<(usize, bool)> = None;
        let mut sub_at: Option<usize> = None;
        while at <= span.end {
            let end_here = at == span.end
                || is_clause_byte(bytes[at])
                    && (bytes[at] != b'.'
                        || at + 1 >= bytes.len()
                        || bytes[at + 1].is_ascii_whitespace())
                    && (bytes[at] != b',' || !thousands_comma(bytes, at))
                || spaced_dash(bytes, at);
            // (Every hit that starts here: "even when" beside "when".)
            let starts_here = hits.peek().is_some_and(|h| h.start() == at);
            let subordinator_here = starts_here
                && hits
                    .clone()
                    .take_while(|h| h.start() == at)
                    .any(|h| self.meanings(*h).contains(&Meaning::Subordinate));
            // (In the pass that reads subordinate clauses, a subordinator ends a clause too:
            // no subject runs across it, "the tests pass until the database container
            // restarts".)
            let break_hit = hits
                .peek()
                .filter(|h| h.start() == at)
                .is_some_and(|h| self.meanings(**h).contains(&Meaning::ClauseBreak))
                || all && subordinator_here;
            // (A subordinator inside the clause: its predicates wait for the second pass,
            // its words stay the problem's, "keeps climbing until it gets OOM killed".)
            // (Not one that opens the clause, an intensifier aside: "ever since yesterday my
            // phone drains battery" is an opening context.)
            if !all
                && sub_at.is_none()
                && subordinator_here
                && words(self.text, start..at).any(|w| {
                    !self
                        .cls
                        .lower_in(&self.cls.words.opener_modifiers, &self.text[w.clone()])
                })
            {
                sub_at = Some(at);
            }
            // (The user's own doing before "and" is a clause of its own: "I open the app and
            // it crashes", "I click save and nothing happens". Whether the clause opens with
            // one is found once per clause, at its first "and": a clause of many stays linear.)
            let narrative = !end_here
                && !break_hit
                && self.and_at(at)
                && match opener {
                    Some((s, first_person)) if s == start => first_person,
                    _ => {
                        let first_person = self.opens_first_person(start..at);
                        opener = Some((start, first_person));
                        first_person
                    }
                };
            if end_here || break_hit || narrative {
                // The last problem clause decides (a detail follows its overview), but a
                // request of the thing wins over problems ("the data catalog needs column
                // lineage, table-level isn't enough").
                let within = sub_at.take().unwrap_or(at);
                if !all && (under || within < at) {
                    *subordinate = true;
                }
                if under && !all {
                    shared = None;
                } else if let Some(g) =
                    self.clause_within(task, start..at, within, strength, shared.take())
                    && if strength == Strength::Problem {
                        // (A problem word after "back" says it is over: "db-2 back down to 64%".)
                        // (Nor after "no" or "never": "no issues so far".)
                        // (Nor is "down to" a number: "kitchen speaker down to 4".)
                        !self.says_recovered(&g)
                            && !self.says_no_problem(&g)
                            && !self.says_direction(&g)
                    } else {
                        !self.says_fine(&g) && !self.says_when(&g)
                    }
                {
                    let request = |f: &Option<GoalLead>| {
                        f.as_ref()
                            .is_some_and(|f: &GoalLead| f.rule == Found::Request)
                    };
                    // (Nor does a problem of people after a thing's: "the date picker doesn't
                    // close on tab, keyboard users just get stuck there".)
                    let people_after_thing = self.reports_people(&g)
                        && found.as_ref().is_some_and(|f| !self.reports_people(f));
                    if (!request(&found) || g.rule == Found::Request && found.is_none())
                        && !people_after_thing
                    {
                        found = Some(g);
                    }
                }
                if break_hit
                    && let Some(h) = hits.peek()
                    && self.meanings(**h).contains(&Meaning::Contrast)
                {
                    // (What follows is looked at for a few words only: a message of many
                    // contrasts stays linear.)
                    let mut end = span.end.min(at + 64);
                    while !self.text.is_char_boundary(end) {
                        end -= 1;
                    }
                    shared = self.subject_of(task, start..at, end);
                }
                // (After the user's own doing, "it" is the thing they did it to: "I open the
                // app and it crashes" is about the app.)
                // (With none named, the result is reported on its own: "I click save and
                // nothing happens". A clause with no subject of its own after the user's doing
                // is the user's doing too: "we run a service that pulls events and writes them
                // into postgres" shares nothing.)
                if narrative {
                    shared = self.narrative_subject(at + 3, span.end).map(|referent| {
                        if referent {
                            self.narrative_referent(start..at).unwrap_or(at..at)
                        } else {
                            at..at
                        }
                    });
                }
                start = if break_hit {
                    hits.peek().map_or(at + 1, |h| h.end())
                } else if narrative {
                    at + 3
                } else {
                    at + 1
                };
                // (A clause after a contrast that opens with "not" or "never" qualifies the
                // problem before it: "fails in prod but not locally".)
                under = break_hit
                    && (subordinator_here
                        || hits.peek().is_some_and(|h| {
                            let m = self.meanings(**h);
                            m.contains(&Meaning::Contrast)
                                && words(self.text, h.end()..span.end).next().is_some_and(|w| {
                                    ["not", "never"]
                                        .iter()
                                        .any(|n| self.text[w.clone()].eq_ignore_ascii_case(n))
                                })
                        }));
            }
            while hits.peek().is_some_and(|h| h.start() <= at) {
                hits.next();
            }
            at += 1;
            while at < span.end && !self.text.is_char_boundary(at) {
                at += 1;
            }
        }
        found
    }

    /// Whether an "and" standing alone starts at `at`.
    fn and_at(&self, at: usize) -> bool {
        let bytes = self.text.as_bytes();
        bytes
            .get(at..at + 4)
            .is_some_and(|b| b[..3].eq_ignore_ascii_case(b"and") && b[3].is_ascii_whitespace())
            && bytes
                .get(at.wrapping_sub(1))
                .is_some_and(u8::is_ascii_whitespace)
    }

    /// Whether `clause` (up to its first "and") opens with the user's own doing: a first
    /// person and a word or more ("I click save", "we restart the pod"). What follows the
    /// "and" is the result, a clause of its own. (Not after a condition: "when we deploy and
    /// the cache is cold the homepage times out" holds both in the condition.)
    fn opens_first_person(&self, clause: Range<usize>) -> bool {
        let mut ws = words(self.text, clause);
        ws.next().is_some_and(|w| {
            ["i", "we", "i'm", "we're", "i've", "we've"]
                .iter()
                .any(|x| self.text[w.clone()].eq_ignore_ascii_case(x))
        }) && ws.next().is_some()
    }

    /// What opens the result after the user's own doing (after "then", "now" or "suddenly"):
    /// `Some(true)` for "it" or "they", the thing the user did it to; `Some(false)` for
    /// "nothing" or "everything", a result with no thing; `None` otherwise (a subject of its
    /// own, or none: the user's doing goes on).
    fn narrative_subject(&self, from: usize, end: usize) -> Option<bool> {
        let w = words(self.text, from..end).find(|w| {
            !["then", "now", "suddenly", "just"]
                .iter()
                .any(|x| self.text[w.clone()].eq_ignore_ascii_case(x))
        })?;
        let t = &self.text[w];
        if ["it", "they"].iter().any(|x| t.eq_ignore_ascii_case(x)) {
            Some(true)
        } else if ["nothing", "everything"]
            .iter()
            .any(|x| t.eq_ignore_ascii_case(x))
        {
            Some(false)
        } else {
            None
        }
    }

    /// The thing the user's own doing in `clause` was done to: the first noun phrase with a
    /// determiner ("I open the app", "we restart the worker pod").
    fn narrative_referent(&self, clause: Range<usize>) -> Option<Range<usize>> {
        let cls = self.cls;
        let d = words(self.text, clause.clone())
            .take(MAX_SUBJECT_WORDS)
            .find(|w| cls.lower_in(&cls.words.determiners, &self.text[w.clone()]))?;
        self.thing(d.start..clause.end, true)
    }

    /// Whether `g` is a problem report whose target ends in a noun naming people ("keyboard
    /// users", "patients"): it tells what a thing's problem does to them, or why a request is
    /// made.
    /// Whether a report relays what someone wants ("product wants DAU/WAU stickiness for the
    /// last 90 days", "the client needs the logo bigger"): its change opens with a verb of
    /// wanting. A request in a later sentence is what the user asks; alone it is the report.
    pub(super) fn relays_wish(&self, g: &GoalLead) -> bool {
        g.rule == Found::ProblemReport
            && g.details
                .iter()
                .find(|d| d.slot == 1)
                .and_then(|d| d.spans.first())
                .and_then(|c| words(self.text, c.clone()).next())
                .is_some_and(|w| {
                    [
                        "wants",
                        "want",
                        "needs",
                        "need",
                        "asked",
                        "requested",
                        "expects",
                    ]
                    .iter()
                    .any(|x| self.text[w.clone()].eq_ignore_ascii_case(x))
                })
    }

    pub(super) fn reports_people(&self, g: &GoalLead) -> bool {
        g.rule == Found::ProblemReport
            && g.details
                .iter()
                .find(|d| d.slot == 0)
                .and_then(|d| d.spans.first())
                .and_then(|t| words(self.text, t.clone()).last())
                .is_some_and(|w| self.cls.lower_in(&self.cls.words.people, &self.text[w]))
    }
}

/// Whether a hyphen with a space on each side is at `at` ("off by one - the last row shows
/// up again"): it ends a clause as a comma does. A hyphen inside a word does not.
fn spaced_dash(bytes: &[u8], at: usize) -> bool {
    bytes[at] == b'-' && at > 0 && bytes[at - 1] == b' ' && bytes.get(at + 1) == Some(&b' ')
}
