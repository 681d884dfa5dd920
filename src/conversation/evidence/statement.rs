//! One sentence's goal: past small talk and questions about the assistant (rule 7, in
//! `small_talk.rs`), a goal lead, a title (rule 8), comparisons and question titles (rule 6),
//! then evidence without a lead.

use super::*;

impl View<'_> {
    /// Whether `span` tells what the user's thing uses or has: an owner's word, a few words of
    /// the thing, then "uses", "has" or "have" ("our team uses github actions", "my mom has
    /// an old ipad").
    pub(super) fn setup(&self, span: Range<usize>) -> bool {
        let is = |w: &Range<usize>, list: &[&str]| {
            list.iter()
                .any(|x| self.text[w.clone()].eq_ignore_ascii_case(x))
        };
        let mut ws = words(self.text, span).take(6);
        ws.next().is_some_and(|w| is(&w, &["our", "my", "their"]))
            && ws.skip(1).any(|w| is(&w, &["uses", "use", "has", "have"]))
    }

    /// One sentence's goal, if it states one.
    pub(in crate::conversation) fn statement(
        &self,
        sentence: Range<usize>,
        leads_only: bool,
    ) -> Option<GoalLead> {
        let cls = self.cls;
        // Before a lead: fillers, acknowledgements, and cancel or switch markers ("Forget that,
        // build a calculator").
        let start = self.skip(sentence.start, |m| match m {
            Meaning::Filler | Meaning::Ack => true,
            Meaning::Signal(i) => matches!(
                cls.signals[i as usize].signal,
                super::super::Signal::Cancel | super::super::Signal::Switch
            ),
            _ => false,
        });
        if start >= sentence.end {
            return None;
        }
        // (A "but" after the markers skipped joins them to the request: "unrelated, but can you
        // explain how DNS works?".)
        // ("Great, but please change the header color" asks the work in hand: only after a
        // marker.)
        let marked = || {
            let from = self.hits.partition_point(|h| h.start() < sentence.start);
            self.hits[from..]
                .iter()
                .take_while(|h| h.start() < start)
                .any(|h| {
                    self.meanings(*h).iter().any(|m| match m {
                        Meaning::Signal(i) => matches!(
                            cls.signals[*i as usize].signal,
                            super::super::Signal::Cancel | super::super::Signal::Switch
                        ),
                        _ => false,
                    })
                })
        };
        let start = match words(self.text, start..sentence.end).next() {
            Some(w)
                if start > sentence.start
                    && self.text[w.clone()].eq_ignore_ascii_case("but")
                    && marked() =>
            {
                skip_soft(self.text, w.end).min(sentence.end)
            }
            _ => start,
        };
        // (A short preface before "but" and a lead is a courtesy: "random question, but how
        // do i center a div", "sorry to bug you but can you fix the footer".)
        let start = self.after_preface(start..sentence.end).unwrap_or(start);
        // (A user story's role says who asks: "As a shopper I'd like the cart to remember its
        // items".)
        // (Its benefit, "so that ...", says why: the request ends before it.)
        let (start, sentence) = match self.story(start..sentence.end) {
            Some(r) => (r.start, sentence.start..r.end),
            None => (start, sentence),
        };
        if self.small_talk_at(start..sentence.end) {
            return None;
        }
        if self.about_assistant(start..sentence.end) {
            return None;
        }
        // (A choice asked with a question mark is a question: "tabs or spaces?"; cheap tests
        // first, most sentences asking nothing and holding no " or ".)
        if self.text[sentence.end..].starts_with('?')
            && self.text[start..sentence.end].contains(" or ")
            && let Some(g) = self.choice(start..sentence.end)
        {
            return Some(g);
        }
        if self.context_labelled(start..sentence.end) {
            return None;
        }
        // A cancel marker that leads no goal is a verb of its own ("cancel my 3pm meeting").
        let plain = self.skip(sentence.start, |m| {
            matches!(m, Meaning::Filler | Meaning::Ack)
        });
        // A label with a scope ("fix(auth): ...", "feat(cli): ...") is a title, whatever its
        // first word.
        // (So is a label of several words that names a task as a whole, whatever its first
        // word: "Describe the bug: when I click export nothing happens".)
        let scoped = {
            let t = &self.text[start..sentence.end];
            // (A label is short: its colon is looked for in the first 40 bytes, no task title
            // being longer.)
            t.as_bytes()[..t.len().min(40)]
                .iter()
                .position(|&b| b == b':')
                .is_some_and(|c| {
                    let label = &t[..c];
                    label.ends_with(')') && label.contains('(') && !label.contains(' ')
                        || label.trim().contains(' ')
                            && self
                                .cls
                                .words
                                .task_titles
                                .contains(&label.trim().to_ascii_lowercase())
                })
        };
        // (A cancel marker that negates the instruction after it leads it: "stop adding a
        // comment on every line".)
        let negating = plain < start && self.negated_instruction(plain, sentence.end).is_some();
        let lead = (!scoped)
            .then(|| {
                negating
                    .then(|| self.lead_at(plain, sentence.clone()))
                    .flatten()
                    .or_else(|| self.lead_at(start, sentence.clone()))
                    .or_else(|| {
                        (plain < start)
                            .then(|| self.lead_at(plain, sentence.clone()))
                            .flatten()
                    })
                    .or_else(|| self.lead_after_condition(start, sentence.clone()))
                    .or_else(|| self.lead_after_address(start, sentence.clone()))
            })
            .flatten();
        // A lead word that is a label ("refactor: extract the retry logic into a helper",
        // "fix: handle empty arrays"): the request after its colon, when it has a lead, is
        // the goal.
        let lead = lead.map(|g| {
            if self.text[g.lead.end..].starts_with(':')
                && words(self.text, g.lead.clone()).nth(1).is_none()
            {
                let rest = self.skip(g.lead.end + 1, |m| {
                    matches!(m, Meaning::Filler | Meaning::Ack)
                });
                if rest < sentence.end
                    && let Some(after) = self.lead_at(rest, rest..sentence.end)
                {
                    return after;
                }
            }
            g
        });
        // (An action held back states nothing, not even a report: "do not merge until QA signs
        // off", "don't reply to them yet".)
        if lead.is_none()
            && let Some(n) = self.negated_instruction(start, sentence.end)
            && self
                .lead_hit(skip_soft(self.text, n.end), sentence.end)
                .is_some()
        {
            return None;
        }
        // (An attempt that meets a problem reports it: "trying to X but it Y".)
        if let Some(r) = self.attempt_report(start..sentence.end) {
            return Some(r);
        }
        if let Some(mut g) = lead {
            // ("convert 30 celsius to fahrenheit": a computation asks for its answer.)
            if let Some(q) = self.computation(&g, sentence.end) {
                return Some(q);
            }
            // Rule 6: a question about "this" or "it" after a clause of its own ("Flutter
            // ListView rebuilds every item on scroll, how do I stop this?") asks how to fix
            // what the clause reports: the report, read at any strength, wins.
            if let Some(r) = self.question_after_report(&g, start, sentence.end) {
                return Some(r);
            }
            // Rule 10: an indefinite thing asked for "in" a language asks for code in it
            // ("reverse a linked list in place in c++").
            if let Some(c) = self.as_code(&g, None) {
                return Some(c);
            }
            // A title opened by a verb in -ing with no wrapper names a topic to explain
            // ("Converting a string to a date in Swift", "Parsing JSON in Go"); "would you
            // mind converting ..." asks for the work.
            // (A gerund that is the subject of a verb or a wish is no title: "sorting by price
            // would be useful".)
            // (A problem that is its object is what it asks how to handle: "Fixing flaky tests
            // in CI".)
            // (Looked at last: most leads are no -ing form.)
            let said = || {
                let first_hit = self.hits.partition_point(|h| h.start() < g.lead.end);
                let object = self.gerund_object(g.lead.end, sentence.end);
                self.hits[first_hit..]
                    .iter()
                    .take_while(|h| h.start() < sentence.end)
                    .any(|h| {
                        self.meanings(*h).iter().any(|m| match m {
                            Meaning::Wish | Meaning::Modal => true,
                            Meaning::Problem => {
                                !(object.start <= h.start() && h.end() <= object.end)
                            }
                            _ => false,
                        })
                    })
                    // (A verb inside a condition is the condition's: "Checking if a string
                    // contains only digits".)
                    || words(self.text, g.lead.end..sentence.end)
                        .take_while(|w| {
                            let t = &self.text[w.clone()];
                            !CONDITIONS.iter().any(|c| t.eq_ignore_ascii_case(c))
                                && !t.eq_ignore_ascii_case("whether")
                        })
                        .any(|w| self.is_predicate(w))
            };
            // (An -ing form has a stem of three letters at least: "Bring back the old compact
            // view" asks for the work. One before "to" and its purpose is a noun: "Setting to
            // skip the intro video".)
            if g.wrapper.is_empty()
                && !self.text[g.lead.clone()]
                    .to_ascii_lowercase()
                    .ends_with(" to")
                && words(self.text, g.lead.clone()).next().is_some_and(|w| {
                    w.len() >= 6 && self.text[w].to_ascii_lowercase().ends_with("ing")
                })
                && !self.text[sentence.clone()].trim_end().ends_with('?')
                && let Some(q) = cls.goal_index(GoalType::QuestionAnswer)
                && matches!(
                    cls.goals[g.goal].goal_type,
                    GoalType::TaskExecution | GoalType::ArtifactCreation
                )
                && !said()
            {
                g.goal = q;
                g.description = cls.clean(self.text, g.lead.start..sentence.end, false);
                g.details = SmallVec::new();
                return Some(g);
            }
            if let Some(e) = self.lead_as_noun(&g, start..sentence.end) {
                return Some(e);
            }
            // (A question's lead is no verb of its own: "what's wrong with ...".)
            let object_lead = g.description.start > g.lead.start;
            if !object_lead && let Some(e) = self.unasked_condition(&g, start..sentence.end) {
                return Some(e);
            }
            // (So does a task lead after a wish: "It would be great to review only the words
            // I got wrong".)
            if !g.wrapper.is_empty() && {
                let first = self.hits.partition_point(|h| h.start() < g.wrapper.start);
                self.hits[first..]
                    .iter()
                    .take_while(|h| h.start() < g.wrapper.end)
                    .any(|h| self.meanings(*h).contains(&Meaning::Wish))
            } {
                self.feature_change(&mut g);
            }
            // Rule 6: "can the notebook kernel auto-restart after an OOM?" asks a thing of the
            // user's to do something: a request (a task), not a question about it.
            if !object_lead && let Some(r) = self.request_question(&g, sentence.end) {
                return Some(r);
            }
            // "Is incremental build planned?": a feature asked about as a plan.
            if !object_lead && let Some(r) = self.planned_question(&g, sentence.end) {
                return Some(r);
            }
            return Some(g);
        }
        if let Some((after, task_title)) = self.title(start..sentence.end) {
            // Where the label ends: before the separator's character (a colon, a bracket, or a
            // dash of several bytes: "Bug — the page crashes on save").
            let label_end = {
                let mut e = after.saturating_sub(1).max(start);
                while !self.text.is_char_boundary(e) {
                    e -= 1;
                }
                e
            };
            let rest = self.skip(after, |m| matches!(m, Meaning::Filler | Meaning::Ack));
            if rest >= sentence.end {
                return None;
            }
            // ("User story: as a DBA I want ...": the story under its label.)
            let (rest, sentence) = match self.story(rest..sentence.end) {
                Some(r) => (r.start, sentence.start..r.end),
                None => (rest, sentence),
            };
            // ("Exercise 4.2 — Using only the standard library, write a command-line tool":
            // a phrase of manner after the label, then the request.)
            if let Some(mut g) = self
                .lead_at(rest, rest..sentence.end)
                .or_else(|| self.lead_after_manner(rest, sentence.end))
            {
                // ("rust: parse a duration string ...": code asked for in the label's
                // language; "Homework (java): ..." names it in its scope.)
                let language = {
                    let l = cls.clean(self.text, start..label_end, true);
                    let t = &self.text[l.clone()];
                    match (t.find('('), t.find(')')) {
                        (Some(o), Some(c)) if o < c => l.start + o + 1..l.start + c,
                        _ => l,
                    }
                };
                if let Some(c) = self.as_code(&g, Some(language)) {
                    return Some(c);
                }
                // ("CI: lint job fails on windows runners": the lead word is the subject's.)
                if let Some(e) = self.lead_as_noun(&g, rest..sentence.end) {
                    return Some(e);
                }
                // ("Describe the bug: when I click export nothing happens".)
                if let Some(mut e) = self.unasked_condition(&g, rest..sentence.end) {
                    e.rule = Found::Title;
                    return Some(e);
                }
                g.rule = Found::Title;
                // (After a label naming a feature, a lead that is its own change asks for the
                // feature with its object: "Feature: snooze a task until a chosen date".)
                let feature_label = self.text[start..label_end]
                    .split(|c: char| !c.is_alphanumeric())
                    .any(|w| cls.lower_in(&cls.words.feature_titles, w));
                if feature_label
                    && let Some(d) = g.details.iter_mut().find(|d| d.slot == 1)
                    && d.spans.len() == 1
                    && d.spans[0].start == g.lead.start
                    && g.description.end > g.lead.end
                {
                    // (To the end of its clause: what follows a comma is the user's reason.)
                    let end = self.text[g.lead.end..g.description.end]
                        .find([',', ';'])
                        .map_or(g.description.end, |c| g.lead.end + c);
                    d.spans[0] = g.lead.start..end;
                }
                // (A task lead no extractor reads after such a label asks for the feature
                // its verb and object say.)
                if feature_label {
                    self.feature_change(&mut g);
                }
                // A label naming a thing is the task's target when the request names none
                // ("dashboard: add a date range picker").
                let label = cls.clean(self.text, start..label_end, true);
                // (A task's label may hold the scope it is about: "feat(cli): add a --dry-run
                // flag".)
                let scope = task_title
                    .then(|| {
                        let raw = start..label_end;
                        let l = &self.text[raw.clone()];
                        let open = l.find('(')?;
                        let close = l[open..].find(')')? + open;
                        Some(raw.start + open + 1..raw.start + close)
                    })
                    .flatten()
                    .filter(|r| !r.is_empty());
                // (A label that counts what follows names no thing: "Two things: rename the
                // inbox tab ...", "A few requests:".)
                // ("404 page:" and "3D viewer:" name things: a number counts before a plural.)
                let label_words: SmallVec<[Range<usize>; 4]> =
                    words(self.text, label.clone()).take(3).collect();
                let counts = label_words.iter().take(2).enumerate().any(|(i, w)| {
                    let t = &self.text[w.clone()];
                    cls.lower_in(&cls.words.quantities, t)
                        || t.bytes().all(|b| b.is_ascii_digit())
                            && label_words
                                .get(i + 1)
                                .is_some_and(|n| cls.plural(&self.text[n.clone()]))
                });
                if (!task_title || scope.is_some())
                    && !counts
                    && !label.is_empty()
                    && cls.goals[g.goal].goal_type == GoalType::TaskExecution
                    && !g.details.iter().any(|d| d.slot == 0)
                    && !self.text[label.clone()].starts_with('[')
                {
                    g.details.insert(0, detail(0, scope.unwrap_or(label)));
                }
                return Some(g);
            }
            if leads_only {
                return None;
            }
            // After a label, a noun-phrase request ("Nice to have: deep links into the product
            // screen") and a setting's value ("prettier: single quotes and no semicolons") are
            // read before a verb guessed from its ending.
            // (A title after the label opens with its problem: "[v2.1.0] Cannot build on
            // Alpine Linux".)
            if let Some(g) = self.problem_title(rest..sentence.end) {
                return Some(g);
            }
            if let Some(g) = self.nominal(rest..sentence.end) {
                return Some(g);
            }
            // "dashboard refresh interval: 5 min", "log level: debug pls": a setting and its
            // value.
            if !task_title
                && let Some(g) = self.labelled_value(start..label_end, rest..sentence.end)
            {
                return Some(g);
            }
            // (A label that is a kind of artifact, over what it must have with no verb, asks
            // for that kind: "prettier config: single quotes, no semicolons"; over a verb it
            // names the part a report is about, "cli backend: the save button is misaligned".)
            let label_words: SmallVec<[Range<usize>; 6]> =
                words(self.text, start..sentence.end).take(6).collect();
            // (A bare kind is the part a title is about: "UI: toast messages stack".)
            if let Some(first) = label_words.first()
                && label_words.get(1).is_some_and(|w| w.end <= label_end)
                && self
                    .predicates(rest..sentence.end, Strength::Predicate)
                    .is_empty()
                && words(self.text, rest..sentence.end)
                    .take(12)
                    .enumerate()
                    .all(|(i, w)| {
                        let t = &self.text[w];
                        !(cls.lower_in(&cls.words.auxiliaries, t)
                            || i == 0 && cls.lower_in(&cls.words.determiners, t))
                    })
                && let Some(g) = self.kind_first(first, &label_words, start..sentence.end)
            {
                return Some(g);
            }
            // (A label that names a feature asks for what follows: no verb is guessed from an
            // -s ending, "Feature: bulk edit tags on multiple notes"; a modal or a problem word
            // still reads as alone, "Feature request: the latex exporter should emit booktabs
            // rules".)
            let feature = self.text[start..label_end]
                .split(|c: char| !c.is_alphanumeric())
                .any(|w| cls.lower_in(&cls.words.feature_titles, w));
            let strength = if feature {
                Strength::Problem
            } else {
                Strength::Suffix
            };
            // (The request ends at its clause: "[suggestion] let us rebind the dodge key,
            // spacebar is killing my thumb" asks to rebind the key.)
            let clause_end = self.text[rest..sentence.end]
                .find([',', ';'])
                .map_or(sentence.end, |c| rest + c);
            // (A plain verb of the vocabulary opening it is the request, as without the
            // label, and after a feature's label before any problem word: "[Feature] Retry
            // failed webhook deliveries with exponential backoff". A thing the label names is
            // the target: "Missing feature in the chat app: undo a sent message".)
            let imperative = || {
                let mut g = self.imperative(rest..clause_end)?;
                g.rule = Found::Title;
                if let Some(t) = self.definite_thing(start..label_end) {
                    g.details.retain(|d| d.slot != 0);
                    g.details.insert(0, detail(0, t));
                }
                Some(g)
            };
            if feature && let Some(g) = imperative() {
                return Some(g);
            }
            if let Some(g) = self.evidence(rest..sentence.end, strength) {
                return Some(g);
            }
            let object = cls.clean(self.text, rest..clause_end, true);
            let task = cls.goal_index(GoalType::TaskExecution)?;
            if task_title && let Some(g) = imperative() {
                return Some(g);
            }
            if task_title && !object.is_empty() && cls.goals[task].slots.len() >= 2 {
                // The thing it names, with a determiner or after a place ("retry failed jobs
                // from the admin panel").
                let mut details = SmallVec::new();
                if let Some(t) = self
                    .definite_thing(object.clone())
                    .or_else(|| self.bare_place_thing(object.clone()))
                {
                    details.push(detail(0, t));
                }
                details.push(detail(1, object.clone()));
                return Some(GoalLead {
                    goal: task,
                    description: object,
                    lead: start..after,
                    wrapper: 0..0,
                    rule: Found::Title,
                    details,
                });
            }
            return None;
        }
        if leads_only {
            return None;
        }
        if start == sentence.start
            && let Some(g) = self.how_to_title(start..sentence.end)
        {
            return Some(g);
        }
        if let Some(g) = self.lead_after_manner(start, sentence.end) {
            return Some(g);
        }
        if let Some(g) = self.request_after_context(start, sentence.end) {
            return self
                .question_after_report(&g, start, sentence.end)
                .or(Some(g));
        }
        self.evidence(start..sentence.end, Strength::Problem)
            .or_else(|| {
                // (A kind named first with what it is for keeps a lead after its "but" among
                // its requirements: "Bash script to delete log files older than 14 days but
                // keep the newest 5". Looked at only when a "but" stands in the sentence.)
                self.text[start..sentence.end]
                    .split_whitespace()
                    .any(|w| w.eq_ignore_ascii_case("but"))
                    .then(|| {
                        let ws: SmallVec<[Range<usize>; 16]> =
                            words(self.text, start..sentence.end).take(16).collect();
                        self.kind_first(ws.first()?, &ws, start..sentence.end)
                    })
                    .flatten()
            })
            .or_else(|| self.lead_after_topic(start, sentence.end))
    }

    /// A condition that is not asked ("when I open the settings the app freezes", "if you
    /// scroll down the header disappears") reports the problem of its main clause: `g` is the
    /// question a condition's word leads, `span` its sentence after fillers.
    fn unasked_condition(&self, g: &GoalLead, span: Range<usize>) -> Option<GoalLead> {
        let lead_word = self.text[g.lead.clone()].trim().to_ascii_lowercase();
        if !["when", "whenever", "if"].contains(&lead_word.as_str())
            || self.text[span.clone()].trim_end().ends_with('?')
            || self.text[span.end..].starts_with('?')
            || self.cls.goals[g.goal].goal_type != GoalType::QuestionAnswer
            // (A main clause that asks is a question: "if the build fails what should I do".)
            || words(self.text, g.lead.end..span.end).any(|w| {
                ["what", "how", "why", "which", "where", "who", "should", "can", "could"]
                    .iter()
                    .any(|q| self.text[w.clone()].eq_ignore_ascii_case(q))
            })
        {
            return None;
        }
        self.evidence(span.clone(), Strength::Predicate)
            .or_else(|| self.nothing_after_condition(g.lead.end..span.end))
    }

    /// A condition's main clause that says nothing happens ("when i paste an image into a
    /// comment nothing happens"): the problem from "nothing", the thing the condition names
    /// the target.
    fn nothing_after_condition(&self, span: Range<usize>) -> Option<GoalLead> {
        let task = self.cls.goal_index(GoalType::TaskExecution)?;
        let ws: SmallVec<[Range<usize>; 16]> = words(self.text, span.clone()).take(16).collect();
        let at = ws.windows(2).position(|p| {
            self.text[p[0].clone()].eq_ignore_ascii_case("nothing")
                && ["happens", "happened", "works", "loads", "shows", "changes"]
                    .iter()
                    .any(|v| self.text[p[1].clone()].eq_ignore_ascii_case(v))
        })?;
        if at == 0 {
            return None;
        }
        let problem = self.cls.clean(self.text, ws[at].start..span.end, false);
        // (The last thing the condition names with a determiner: "into a comment".)
        let target = ws[..at]
            .iter()
            .rev()
            .filter(|w| {
                self.cls
                    .lower_in(&self.cls.words.determiners, &self.text[(*w).clone()])
            })
            .find_map(|w| self.thing(w.start..ws[at].start, true))
            .map(|t| self.cls.clean(self.text, t, true))
            .filter(|t| !t.is_empty());
        Some(report(
            task,
            target,
            problem,
            self.cls.clean(self.text, span, false),
            ws[at].clone(),
            Found::ProblemReport,
        ))
    }

    /// Rule 6: a question lead after a clause of the same sentence, whose object is "this",
    /// "it" or "that" ("..., how do I stop this?"), asks about what the clause reports: the
    /// clause's report (any strength), if it holds one.
    fn question_after_report(&self, g: &GoalLead, start: usize, end: usize) -> Option<GoalLead> {
        if self.cls.goals[g.goal].goal_type != GoalType::QuestionAnswer
            || g.lead.start <= start
            || !self.text[start..g.lead.start]
                .trim_end()
                .ends_with([',', ';', '-'])
        {
            return None;
        }
        let pointed = words(self.text, g.lead.end..end).take(6).any(|w| {
            ["this", "it", "that"]
                .iter()
                .any(|p| self.text[w.clone()].eq_ignore_ascii_case(p))
        });
        if !pointed {
            return None;
        }
        self.evidence(start..g.lead.start, Strength::Suffix)
    }
}
