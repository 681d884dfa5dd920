//! Rule 9 inside a sentence: a topic or the user's situation, a comma, then a request or a
//! question that refers back to it ("those warnings in the console, can we get rid of them",
//! "Postgres or MySQL, which is better for analytics?").

use super::*;

impl View<'_> {
    /// Rule 9 inside a sentence: a topic, a comma, then a request that refers back to it
    /// ("those warnings in the console, can we get rid of them", "the reporting queries use
    /// GROUP_CONCAT, can you rewrite them"). The request's lead decides; the topic (a thing,
    /// or the subject of its clause) is the target the request's pronoun stands for. At most
    /// three commas are looked at.
    pub(super) fn lead_after_topic(&self, start: usize, end: usize) -> Option<GoalLead> {
        let cls = self.cls;
        let mut from = start;
        // The separators: commas, and contrast words ("love the app but please add a
        // widget for the home screen"), in order.
        let first_hit = self.hits.partition_point(|h| h.start() < start);
        let contrasts: SmallVec<[Range<usize>; 2]> = self.hits[first_hit..]
            .iter()
            .take_while(|h| h.start() < end)
            .filter(|h| self.meanings(**h).contains(&Meaning::Contrast))
            .map(|h| h.start()..h.end())
            .take(2)
            .collect();
        // (A task asked for after a topic that names no thing stands with its own details:
        // "the update fixed the export, can you add a pdf option".)
        let mut untargeted: Option<GoalLead> = None;
        for _ in 0..3 {
            let next_comma = self.text[from..end].find(',').map(|c| from + c);
            let next_contrast = contrasts.iter().find(|c| c.start >= from);
            let (comma, after_sep) = match (next_comma, next_contrast) {
                (Some(c), Some(k)) if k.start < c => (k.start, k.end),
                (Some(c), _) => (c, c + 1),
                (None, Some(k)) => (k.start, k.end),
                (None, None) => return untargeted,
            };
            from = after_sep;
            // (No topic, no reference: "Great, but please change the header color" is a
            // change asked of the work in hand.)
            if count_words(&self.text[start..comma]) == 0 {
                continue;
            }
            // A topic names a thing or states what it does: no intent in it, no pronoun
            // opening it ("I need add, delete and ..." is a list).
            let first = self.hits.partition_point(|h| h.start() < start);
            if self.hits[first..]
                .iter()
                .take_while(|h| h.start() < comma)
                .any(|h| {
                    self.meanings(*h)
                        .iter()
                        .any(|m| matches!(m, Meaning::Intent))
                })
                || words(self.text, start..comma).next().is_some_and(|w| {
                    let t = &self.text[w];
                    cls.lower_in(&cls.words.non_subjects, t)
                        && !["this", "these", "those", "that"]
                            .iter()
                            .any(|d| t.eq_ignore_ascii_case(d))
                })
                // (Nor is an instruction not to do something: "don't explain, just fix it".)
                || self.negated_instruction(start, comma).is_some()
            {
                return untargeted;
            }
            let after = self.skip(skip_soft(self.text, after_sep), |m| {
                matches!(m, Meaning::Filler | Meaning::Ack)
            });
            if after >= end {
                return untargeted;
            }
            let Some(mut g) = self.lead_referring(after, after..end, true) else {
                continue;
            };
            let task = cls.goal_index(GoalType::TaskExecution)?;
            if g.goal == task && !g.details.iter().any(|d| d.slot == 0) {
                let topic = self
                    .thing(start..comma, false)
                    .filter(|t| self.text[t.end..comma].trim().is_empty())
                    .or_else(|| {
                        self.thing(start..comma, false)
                            .map(|t| self.with_modifier(t, comma))
                            .filter(|t| self.text[t.end..comma].trim().is_empty())
                    })
                    .or_else(|| self.subject_of(task, start..comma, comma))
                    // (Or the thing a clause of state opens with, "the warehouse printer driver
                    // is on 2.1, upgrade it to 2.4".)
                    .or_else(|| {
                        self.thing(start..comma, false).filter(|t| {
                            words(self.text, t.end..comma).next().is_some_and(|w| {
                                cls.lower_in(&cls.words.auxiliaries, &self.text[w])
                            })
                        })
                    });
                let Some(t) = topic else {
                    // (Asked of the assistant: a bare verb after a comma may be a detail of
                    // what came before, "go func to dedupe a slice, keep order".)
                    if self.at(after, |m| m == Meaning::Intent).is_some() {
                        untargeted.get_or_insert(g);
                    }
                    continue;
                };
                set_detail(&mut g, detail(0, t));
                // (The request itself is the change when it names none: "rewrite them".)
                if !g.details.iter().any(|d| d.slot == 1) {
                    let change = cls.clean(self.text, g.lead.start..g.description.end, false);
                    set_detail(&mut g, detail(1, change));
                }
                return Some(g);
            }
            if g.goal == task {
                return Some(g);
            }
        }
        untargeted
    }

    /// Rule 9 inside a sentence: the user's situation, a comma, then a request addressed to
    /// the assistant ("my landlord wants a signed renewal by friday, can you draft a short
    /// email asking for two more weeks"): the request decides when it asks for an artifact or
    /// an answer (a task after its topic is read by [`View::lead_after_topic`]; "..., can you
    /// figure out why" explores the problem before it). At most three commas are looked at.
    pub(super) fn request_after_context(&self, start: usize, end: usize) -> Option<GoalLead> {
        let mut from = start;
        for _ in 0..3 {
            let comma = self.next_comma(from, end)?;
            from = comma + 1;
            let after = self.skip(skip_soft(self.text, from), |m| {
                matches!(m, Meaning::Filler | Meaning::Ack)
            });
            if after >= end {
                continue;
            }
            if self.at(after, |m| m == Meaning::Intent).is_none() {
                // (Or a question word after its topic, in a sentence that asks: "Postgres or
                // MySQL, which is better for analytics?", "tabs or spaces, what do you use?".)
                if let Some(g) = self.question_after_topic(start..comma, after, end) {
                    return Some(g);
                }
                continue;
            }
            // (The lead after the intent, not the intent read as a question: "..., can you
            // fix it" stays the report before it.)
            if let Some(g) = self.lead_at(after, after..end)
                && g.lead.start > after
            {
                match self.cls.goals[g.goal].goal_type {
                    GoalType::ArtifactCreation | GoalType::QuestionAnswer => return Some(g),
                    GoalType::TaskExecution => {
                        if let Some(r) = self.request_after_report(start..comma, g) {
                            return Some(r);
                        }
                    }
                    GoalType::Exploration => {}
                }
            }
        }
        None
    }

    /// Rule 9 for a task: a report, a comma, then a change of its own asked of the assistant
    /// ("the login page is slow, can you add a loading spinner", "the export times out on big
    /// accounts, could you split it into pages"): the request decides, on the report's thing
    /// when it names none. A request about the report itself leaves the report: one with no
    /// change of its own ("..., can you fix the login page", "can you look into it") or whose
    /// object points back ("can you speed it up", "can you fix them").
    fn request_after_report(&self, topic: Range<usize>, mut g: GoalLead) -> Option<GoalLead> {
        // (A pronoun anywhere in it points back: "can you add a spinner to it", "can you
        // order a new one", "can you add me to the incident channel".)
        let points_back = words(self.text, g.description.clone()).any(|w| {
            let t = &self.text[w];
            self.cls.is_pronoun(t)
                || ["one", "ones", "me", "us", "him", "her"]
                    .iter()
                    .any(|p| t.eq_ignore_ascii_case(p))
        });
        // (Asked "also", it is one more thing: the report stays, the request queues after
        // it, "the report has wrong totals, could you also add a chart".)
        let also = words(self.text, topic.end..g.lead.start)
            .any(|w| self.text[w].eq_ignore_ascii_case("also"));
        // (A value set on the thing reported is the change it asks: "the price is wrong,
        // could you change it to $19", "the font is too small, can you bump it to 16px". Its
        // "it" is the report's thing; the value stands after the pronoun.)
        let value_on_it = points_back
            && !also
            && words(self.text, g.description.clone())
                .next()
                .is_some_and(|w| {
                    ["it", "them"]
                        .iter()
                        .any(|p| self.text[w.clone()].eq_ignore_ascii_case(p))
                })
            && g.details.iter().any(|d| {
                d.slot == 1
                    && d.spans
                        .first()
                        .is_some_and(|c| c.start > g.description.start)
            });
        if value_on_it {
            let report = self.evidence(topic, Strength::Problem)?;
            let thing = report.details.iter().find(|d| d.slot == 0)?.clone();
            g.details.retain(|d| d.slot != 0);
            g.details.insert(0, thing);
            return Some(g);
        }
        if !g.details.iter().any(|d| d.slot == 1) || points_back || also {
            return None;
        }
        let report = self.evidence(topic, Strength::Problem)?;
        // (A request on the very thing reported repairs it: "our nightly backup failed, could
        // you rerun the backup".)
        let head = |r: &Range<usize>| {
            words(self.text, r.clone())
                .last()
                .map(|w| self.text[w].to_ascii_lowercase())
        };
        let reported = report
            .details
            .iter()
            .find(|d| d.slot == 0)
            .and_then(|d| d.spans.first())
            .and_then(head);
        if reported.is_some()
            && g.details
                .iter()
                .filter(|d| d.slot == 0)
                .filter_map(|d| d.spans.first())
                .any(|t| head(t) == reported)
        {
            return None;
        }
        if !g.details.iter().any(|d| d.slot == 0)
            && let Some(t) = report.details.iter().find(|d| d.slot == 0)
        {
            g.details.insert(0, t.clone());
        }
        Some(g)
    }

    /// The question that a question word at `at` opens, when the sentence ends with a question
    /// mark and the question is not small talk; the `topic` before it is part of it. A topic
    /// that reports a problem is the problem's ("the nightly job runs twice, how do I stop
    /// that?" asks for a fix).
    fn question_after_topic(&self, topic: Range<usize>, at: usize, end: usize) -> Option<GoalLead> {
        // (A sentence's span stops before its question mark.)
        if !self.text[end..].starts_with('?')
            || self.at(at, |m| m == Meaning::SmallTalk).is_some()
            || self.about_assistant(at..end)
        {
            return None;
        }
        let mut g = self.lead_at(at, at..end).filter(|g| {
            g.lead.start == at && self.cls.goals[g.goal].goal_type == GoalType::QuestionAnswer
        })?;
        if self.evidence(topic.clone(), Strength::Predicate).is_some() {
            return None;
        }
        g.description = self.cls.clean(self.text, topic.start..end, false);
        Some(g)
    }

    /// The thing the sentence before `at` introduces with a determiner ("so we have a kafka
    /// consumer in java": "kafka consumer"), or the sentence before that one when it names
    /// nothing, for a pronoun that refers back to it. Found from
    /// the sentence ends by a binary search, in at most the sentence's first `MAX_CONTEXT`
    /// bytes: a message of many such pronouns stays linear.
    pub(in crate::conversation) fn introduced_thing(&self, at: usize) -> Option<Range<usize>> {
        // (Past one sentence that names nothing: "The app keeps asking me to rate it. I already
        // did. Make it stop please".)
        let k = self.sentence_ends.partition_point(|e| (*e as usize) < at);
        // (A request after a spaced dash refers to the words before the dash: "we have a cron
        // job that pulls rates every hour - can you make it retry".)
        let mut before = self.text[..at].trim_end();
        for polite in ["please", "pls", "plz"] {
            let n = before.len().saturating_sub(polite.len());
            if before.is_char_boundary(n) && before[n..].eq_ignore_ascii_case(polite) {
                before = before[..n].trim_end();
            }
        }
        if ["-", "—", "–"].iter().any(|d| before.ends_with(d)) {
            let dash = before.len() - before.chars().next_back().map_or(1, char::len_utf8);
            let start = k
                .checked_sub(1)
                .and_then(|i| self.sentence_ends.get(i))
                .map_or(0, |e| *e as usize + 1);
            if let Some(t) = self.thing_in(start..dash) {
                return Some(t);
            }
        }
        self.thing_in_sentence(k.checked_sub(1)?)
            .or_else(|| self.thing_in_sentence(k.checked_sub(2)?))
    }

    /// The thing the sentence ending at the `k`-th sentence end introduces.
    fn thing_in_sentence(&self, k: usize) -> Option<Range<usize>> {
        let ends = &self.sentence_ends;
        let end = *ends.get(k)? as usize;
        let start = k
            .checked_sub(1)
            .and_then(|i| ends.get(i))
            .map_or(0, |e| *e as usize + 1);
        self.thing_in(start..end)
    }

    /// The thing the words of `span` introduce (their first 400 bytes).
    fn thing_in(&self, span: Range<usize>) -> Option<Range<usize>> {
        const MAX_CONTEXT: usize = 400;
        // (A dash may end the words before a sentence's end that follows it: "behavior –\n
        // can you ...", nothing between.)
        if span.start >= span.end {
            return None;
        }
        let start = span.start;
        let mut stop = span.end.min(start + MAX_CONTEXT);
        while !self.text.is_char_boundary(stop) {
            stop -= 1;
        }
        let before = start..stop;
        if self.text[before.clone()].trim().is_empty() {
            return None;
        }
        let cls = self.cls;
        // (The last of its first four things: the object it gives or has, not who did it,
        // "the client emailed me a PDF. Convert it to Word".)
        // (Not inside a clause that describes a thing: "a cron job that pulls rates from the
        // bank feed" introduces the job.)
        let mut described = false;
        words(self.text, before.clone())
            .take_while(|w| {
                let relative = ["that", "which", "who"]
                    .iter()
                    .any(|r| self.text[w.clone()].eq_ignore_ascii_case(r));
                let stop = described && relative;
                described |= [
                    "a", "an", "the", "our", "my", "this", "these", "their", "your",
                ]
                .iter()
                .any(|d| self.text[w.clone()].eq_ignore_ascii_case(d));
                !stop
            })
            .filter(|w| {
                // (A demonstrative names it too: "this query takes 30s on prod. can you speed
                // it up?".)
                [
                    "a", "an", "the", "our", "my", "this", "these", "their", "your",
                ]
                .iter()
                .any(|d| self.text[w.clone()].eq_ignore_ascii_case(d))
            })
            .take(4)
            .filter_map(|w| self.thing(w.start..before.end, true))
            .filter(|t| !cls.lower_in(&cls.words.non_subjects, &self.text[t.clone()]))
            .last()
    }

    /// Rule 9 inside a sentence: a phrase of manner, means or place, a comma, then a request
    /// ("In Python, write a function that reverses a string", "Using React, build a signup
    /// form", "For my portfolio, make a landing page"): the request decides. The phrase opens
    /// with one of `MANNERS`, holds at most six words and no lead, problem or predicate; the
    /// request's lead stands right after the comma, or after a statement of intent that ends
    /// the phrase.
    pub(super) fn lead_after_manner(&self, start: usize, end: usize) -> Option<GoalLead> {
        let first = words(self.text, start..end).next()?;
        if !MANNERS
            .iter()
            .any(|m| self.text[first.clone()].eq_ignore_ascii_case(m))
        {
            return None;
        }
        let from = self.hits.partition_point(|h| h.start() < start);
        // (Without a comma a statement of intent may end the phrase: "For this lab you'll
        // build an Android app ...", "In this exercise you will write ...".)
        let comma = match self.next_comma(start, end) {
            Some(c) if count_words(&self.text[start..c]) <= 6 => c,
            _ => {
                // (The first of the phrase's phrases, with no lead or problem before it.)
                let intent = self.hits[from..]
                    .iter()
                    .take_while(|h| h.start() < end)
                    .take(6)
                    .find(|h| {
                        self.meanings(**h).iter().any(|m| {
                            matches!(m, Meaning::Intent | Meaning::Lead(_) | Meaning::Problem)
                        })
                    })
                    .filter(|h| self.meanings(**h).contains(&Meaning::Intent))?;
                let at = intent.start();
                if count_words(&self.text[start..at]) > 5
                    || words(self.text, start..at).any(|w| self.is_predicate(w))
                {
                    return None;
                }
                return self.lead_at(at, at..end).filter(|g| g.wrapper.start == at);
            }
        };
        if self.hits[from..]
            .iter()
            .take_while(|h| h.start() < comma)
            .any(|h| {
                self.meanings(*h)
                    .iter()
                    .any(|m| matches!(m, Meaning::Lead(_) | Meaning::Problem | Meaning::Intent))
            })
            || words(self.text, start..comma).any(|w| self.is_predicate(w))
        {
            return None;
        }
        // (A list of means goes on past its commas, an item of at most three words with
        // "and" or "or" ending it: "Using only find, sort and du, produce a shell script
        // ...". Two items at most.)
        let mut comma = comma;
        for _ in 0..3 {
            let after = self.skip(skip_soft(self.text, comma + 1), |m| {
                matches!(m, Meaning::Filler | Meaning::Ack)
            });
            if after >= end {
                return None;
            }
            let next = self.next_comma(after, end);
            let item = next.is_some_and(|n| {
                let t = &self.text[after..n];
                count_words(t) <= 3
                    && t.split_whitespace()
                        .any(|w| ["and", "or", "&"].iter().any(|x| w.eq_ignore_ascii_case(x)))
            });
            if !item {
                // (A question after its topic is the topic's: `question_after_topic`.)
                return self.lead_at(after, after..end).filter(|g| {
                    g.lead.start == after
                        && self.cls.goals[g.goal].goal_type != GoalType::QuestionAnswer
                });
            }
            comma = next?;
        }
        None
    }
}
