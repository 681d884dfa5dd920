//! Rule 14, two goals in one message: where a further goal starts after a goal's object (a
//! sequencer or a conjunction and a lead, or "or"), and the further goals read there.

use super::*;

/// Verbs of mood before another verb ("should then show"): a sequencer after one is an adverb.
pub(super) const MODAL_VERBS: [&str; 9] = [
    "should", "would", "will", "can", "could", "must", "may", "might", "shall",
];

/// How many reports after a sequencer or "plus" one search for a further goal reads (each
/// reads the rest of the sentence; a message of many sequencers stays linear).
const MAX_REPORT_TRIES: usize = 2;

impl View<'_> {
    /// Whether a lead after the first goal starts a goal of its own: its object names a thing
    /// (it opens with a determiner), and it is not a feature of an artifact ("build a todo app
    /// and add a dark mode" adds to the app).
    pub(in crate::conversation) fn starts_new(
        &self,
        first: usize,
        lead: Hit,
        info: LeadInfo,
        sequencer: bool,
    ) -> bool {
        // (A lead that ends with its determiner names one too: "then make the logo bigger".)
        let is_det = |w: Range<usize>| {
            self.cls
                .lower_in(&self.cls.words.determiners, &self.text[w])
        };
        let names_thing = words(self.text, lead.end()..self.text.len())
            .next()
            .is_some_and(is_det)
            || words(self.text, lead.start()..lead.end())
                .last()
                .is_some_and(is_det);
        let first_type = self.cls.goals[first].goal_type;
        // (After a task, a pronoun names its thing: "fix the login redirect and deploy it";
        // so does a free relative, what the first work leaves: "bump react to 19 and fix
        // whatever breaks".)
        let names_thing = names_thing
            || first_type == GoalType::TaskExecution
                && words(self.text, lead.end()..self.text.len())
                    .next()
                    .is_some_and(|w| {
                        ["it", "them", "that", "whatever", "anything"]
                            .iter()
                            .any(|p| self.text[w.clone()].eq_ignore_ascii_case(p))
                    });
        // (A lead that adds its object to a thing names that thing: "and add oat milk to the
        // shopping list"; a few words are looked at.)
        let added_to_thing = info.change == ChangeMode::Object && {
            let ws: SmallVec<[Range<usize>; 8]> = words(self.text, lead.end()..self.text.len())
                .take(8)
                .collect();
            ws.windows(2).any(|p| {
                ["to", "into", "onto", "on", "in"]
                    .iter()
                    .any(|x| self.text[p[0].clone()].eq_ignore_ascii_case(x))
                    && is_det(p[1].clone())
            })
        };
        // (A question's lead before a question word asks a question of its own: "and tell me
        // how to schedule it", "and explain why the build broke".)
        let asks = || {
            let question =
                |goal: u16| self.cls.goals[goal as usize].goal_type == GoalType::QuestionAnswer;
            question(info.goal)
                && words(self.text, lead.end()..self.text.len())
                    .next()
                    .and_then(|w| {
                        self.at(w.start, |m| {
                            matches!(m, Meaning::Lead(id)
                                if question(self.cls.leads[id as usize].goal)
                                    && self.cls.leads[id as usize].mode == DescriptionMode::Sentence)
                        })
                    })
                    .is_some()
        };
        // (A lead whose change is its content states all it needs: "turn on the porch light
        // and remind me to grab the mail".)
        let content = info.change == ChangeMode::Content;
        let names_thing = names_thing || added_to_thing || content || asks();
        // (After an artifact, "add" names one of its features, unless a sequencer leads it to
        // a thing of its own: "..., then add a status badge to the readme".)
        let feature = first_type == GoalType::ArtifactCreation
            && info.change == ChangeMode::Object
            && !(sequencer && added_to_thing);
        // After a conjunction only a thing of its own starts a goal ("add and delete
        // features" is one list); after a sequencer any lead does ("order more beans and then
        // remind me to clean the grinder").
        (names_thing || sequencer) && !feature
    }

    /// Where an artifact's object from `from` goes on with its purpose, an infinitive or a
    /// relative clause ("a workflow to run pytest ...", "a script that renames ..."), so a
    /// verb after "and" past that point is the purpose's second verb: "to" before a verb, or
    /// "that" or "which" before a verb in -s. Sixteen words are looked at, once per search.
    fn purpose_at(&self, goal: usize, from: usize, end: usize) -> Option<usize> {
        if self.cls.goals[goal].goal_type != GoalType::ArtifactCreation {
            return None;
        }
        let ws: SmallVec<[Range<usize>; 16]> = words(self.text, from..end).take(16).collect();
        ws.windows(2)
            .find(|p| {
                let t = &self.text[p[0].clone()];
                let n = &self.text[p[1].clone()];
                let verb = self.cls.lower_in(&self.cls.words.verbs, n)
                    || self
                        .at(p[1].start, |m| matches!(m, Meaning::Lead(_)))
                        .is_some();
                t.eq_ignore_ascii_case("to") && verb
                    || ["that", "which"].iter().any(|r| t.eq_ignore_ascii_case(r))
                        && (verb || self.cls.plural(n))
            })
            .map(|p| p[1].end)
    }

    /// Whether a sequencer stands at `at`, set apart from the clause before it by a comma or
    /// by "and" ("..., then run the smoke tests", "and also open a PR"); "also" inside a
    /// clause ("could the search also match ...") is none.
    fn set_apart(&self, at: usize) -> bool {
        self.at(at, |m| m == Meaning::Sequencer).is_some()
            && (self.text[..at].trim_end().ends_with([',', ';'])
                || self.text[at..]
                    .get(..4)
                    .is_some_and(|w| w.eq_ignore_ascii_case("and ")))
    }

    /// A further artifact whose object opens with a pronoun makes the first goal's work
    /// different, no new artifact: a task whose change is what follows the pronoun ("translate
    /// this to Spanish and then make it shorter").
    fn made_different(&self, next: GoalLead) -> GoalLead {
        let cls = self.cls;
        let mut ws = words(self.text, next.description.clone());
        let (Some(task), Some(pronoun), Some(rest)) = (
            cls.goal_index(GoalType::TaskExecution),
            ws.next(),
            ws.next(),
        ) else {
            return next;
        };
        if cls.goals[next.goal].goal_type != GoalType::ArtifactCreation
            || cls.goals[task].slots.len() < 2
            || !self.word_in(&pronoun, &["it", "them"])
        {
            return next;
        }
        let change = rest.start..next.description.end;
        GoalLead {
            goal: task,
            description: next.description,
            details: SmallVec::from_iter([detail(1, change)]),
            ..next
        }
    }

    /// The longest lead at `start`, or after intents there, ending by `end` (no object read).
    pub(in crate::conversation) fn lead_hit(
        &self,
        start: usize,
        end: usize,
    ) -> Option<(Hit, LeadInfo)> {
        let mut at = start;
        let mut best: Option<(Hit, LeadInfo)> = None;
        for _ in 0..8 {
            for h in self.starting_at(at) {
                if h.end() > end {
                    continue;
                }
                for m in self.meanings(*h) {
                    if let Meaning::Lead(id) = m
                        && best.is_none_or(|(b, _)| h.end() > b.end())
                    {
                        best = Some((*h, self.cls.leads[*id as usize]));
                    }
                }
            }
            match self.at(at, |m| matches!(m, Meaning::Intent | Meaning::Filler)) {
                Some(h) => at = skip_soft(self.text, h.end()),
                None => break,
            }
        }
        best
    }

    /// Where a further goal starts in `from..end` (rule 14): a sequencer followed by a lead
    /// that starts a goal of its own, or "or" followed by a lead or, for an artifact, by
    /// another object ("a login form or a signup wizard"). A question asked as a sentence
    /// (`question`) holds its own alternatives: "or" splits nothing in it ("does hot reload
    /// keep the state or reset it"), while an imperative one does ("explain how actors work or
    /// just show me ...").
    pub(in crate::conversation) fn further(
        &self,
        from: usize,
        end: usize,
        goal: usize,
        question: bool,
    ) -> Option<Further> {
        let first = self.hits.partition_point(|h| h.start() < from);
        let mut best: Option<Further> = None;
        // Bounds that keep a message of many conjunctions linear: where the last problem word
        // of the range starts (looked up once), and how many reports are read (each reads the
        // rest of the sentence).
        let mut last_problem: Option<Option<usize>> = None;
        let mut reports_left = MAX_REPORT_TRIES;
        // Where the sixth word after the goal's object starts (found once): "and" before it
        // follows a plain object of five words at most.
        let mut sixth_word: Option<usize> = None;
        // Where the first goal's object goes on with its purpose (found once).
        let purpose_at = std::cell::OnceCell::new();
        for h in &self.hits[first..] {
            if h.start() >= end {
                break;
            }
            let meanings = self.meanings(*h);
            let conjunction = meanings.contains(&Meaning::Conjunction);
            if !conjunction && !meanings.contains(&Meaning::Sequencer) {
                continue;
            }
            // "plus" standing apart (the "N+1 problem" holds none) joins two requests the way
            // a sequencer does: "a contact form with a honeypot field, plus show me how to
            // test it".
            let apart = self.text[..h.start()].ends_with(char::is_whitespace)
                && self.text[h.end()..].starts_with(char::is_whitespace);
            let plus = apart && self.text[h.start()..h.end()].eq_ignore_ascii_case("plus");
            let sequencer = meanings.contains(&Meaning::Sequencer) || plus;
            // (A sequencer after a determiner is an adjective of the noun after it: "show the
            // next stop on the lock screen"; after a modal verb, an adverb of the verb after
            // it: "prices should then show in that currency".)
            if !conjunction
                && self.text[..h.start()]
                    .trim_end()
                    .rsplit(|c: char| !c.is_alphanumeric() && c != '\'')
                    .next()
                    .is_some_and(|w| {
                        [
                            "the", "a", "an", "my", "our", "your", "their", "his", "her", "its",
                        ]
                        .iter()
                        .any(|d| w.eq_ignore_ascii_case(d))
                            || MODAL_VERBS.iter().any(|m| w.eq_ignore_ascii_case(m))
                            // (After a preposition, one of a time: "a meal plan for next week
                            // - 5 dinners", "by next friday".)
                            || ["for", "by", "until", "till", "from", "before", "after", "of"]
                                .iter()
                                .any(|p| w.eq_ignore_ascii_case(p))
                    })
            {
                continue;
            }
            let next = skip_soft(self.text, h.end());
            // (Past a list item's number: "..., and 2) could you add a snooze option".)
            let next = {
                let rest = &self.text.as_bytes()[next..];
                let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
                if (1..=2).contains(&digits)
                    && matches!(rest.get(digits), Some(b')' | b'.'))
                    && rest.get(digits + 1) == Some(&b' ')
                {
                    skip_soft(self.text, next + digits + 1)
                } else {
                    next
                }
            };
            // (A comma before "and" sets what follows apart as a sequencer does, for a lead:
            // "draft a reply to the landlord, and remind me to pay rent on the 1st"; a list's
            // last part after one stays a part.)
            let comma_and = conjunction
                && self.text[h.start()..h.end()].eq_ignore_ascii_case("and")
                && self.text[..h.start()].trim_end().ends_with(',');
            // (Two verbs of one object share it: "clients could buy and book a whole pack",
            // "download and install the update": a bare "and" right after the goal's lead, or
            // after a modal and its verb.)
            let shared_object = conjunction && !comma_and && !sequencer && {
                let mut back = self.text[from.min(h.start())..h.start()]
                    .split_whitespace()
                    .rev();
                match (back.next(), back.next()) {
                    (None, _) => true,
                    (Some(_), None) => false,
                    (Some(_), Some(w0)) => MODAL_VERBS.iter().any(|m| w0.eq_ignore_ascii_case(m)),
                }
            };
            if shared_object {
                continue;
            }
            // A lead that starts a goal of its own.
            // (Not a verb joined to an artifact's purpose by a bare "and": "a workflow to run
            // pytest on every PR and cache the pip deps" is one workflow.)
            // (A repair is no purpose: "a script to resize images and fix the header on the
            // blog" is two goals.)
            let lead = || {
                self.lead_hit(next, end).is_some_and(|(lead, info)| {
                    let repair = words(self.text, lead.start()..lead.end())
                        .last()
                        .is_some_and(|w| self.cls.lower_in(&self.cls.words.repairs, &self.text[w]));
                    // (Nor is a question to the assistant: "... and tell me how to schedule
                    // it".)
                    let asked = matches!(
                        self.cls.goals[info.goal as usize].goal_type,
                        GoalType::QuestionAnswer | GoalType::Exploration
                    );
                    // (Nor a work on the artifact itself: "... and deploy it to staging".)
                    let on_it = words(self.text, lead.end()..end).next().is_some_and(|w| {
                        ["it", "them"]
                            .iter()
                            .any(|p| self.text[w.clone()].eq_ignore_ascii_case(p))
                    });
                    let purpose = conjunction
                        && !sequencer
                        && !comma_and
                        && !repair
                        && !asked
                        && !on_it
                        && (*purpose_at.get_or_init(|| self.purpose_at(goal, from, end)))
                            .is_some_and(|p| p <= h.start());
                    !purpose && self.starts_new(goal, lead, info, sequencer || comma_and)
                })
            };
            // "fix the typo in the footer, plus the logo looks blurry on retina screens": after
            // a sequencer or "plus" standing apart ("N+1 problem" holds none), a problem
            // reported of another thing is a task of its own. (Only where a problem word
            // follows: the reading of a clause is not cheap.)
            let mut report = || {
                if !apart || !sequencer || reports_left == 0 {
                    return false;
                }
                let last = *last_problem.get_or_insert_with(|| {
                    let stop = self.hits.partition_point(|x| x.start() < end);
                    self.hits[first..stop]
                        .iter()
                        .rev()
                        .find(|x| self.meanings(**x).contains(&Meaning::Problem))
                        .map(|x| x.start())
                });
                if last.is_none_or(|p| p < next) {
                    return false;
                }
                reports_left -= 1;
                self.evidence(next..end, Strength::Problem)
                    .is_some_and(|g| g.details.iter().any(|d| d.slot == 0))
            };
            // "I need a landing page and a blog template": after an artifact's plain object,
            // "and" and another kind is a second artifact of the same lead. (Not inside a
            // description: "a page with a header and a footer" names parts.)
            // (After a sequencer any object may come before it: "write a cover letter for
            // this job and after that a short thank you email".)
            // (What follows a sequencer is read in a window of sixteen words: a message of
            // many sequencers stays linear.)
            // (What follows may start past the sentence's end.)
            let window = || {
                if next < end {
                    nth_word_start(self.text, next..end, 16)
                } else {
                    end
                }
            };
            // (After a comma, a bare part and "plus" list parts: "a landing page, hero plus a
            // pricing table".)
            let listed = || {
                // (A part has three words at most: the comma is looked for in the 96 bytes
                // before "plus", so a message of many stays linear.)
                plus && !meanings.contains(&Meaning::Sequencer) && {
                    let mut lo = h.start().saturating_sub(96).max(from);
                    while !self.text.is_char_boundary(lo) {
                        lo += 1;
                    }
                    self.text[lo..h.start()].rfind(',').is_some_and(|c| {
                        let part = lo + c + 1..h.start();
                        (1..=3).contains(&words(self.text, part.clone()).take(4).count())
                            && !words(self.text, part).take(4).any(|w| {
                                self.cls
                                    .lower_in(&self.cls.words.determiners, &self.text[w])
                            })
                    })
                }
            };
            let mut another = || {
                let few = (!sequencer).then(|| {
                    *sixth_word.get_or_insert_with(|| nth_word_start(self.text, from..end, 5))
                });
                !listed() && self.another_kind(from, h.start(), next, window(), goal, few)
            };
            // (After a sequencer set apart, a plain verb of the vocabulary opens one too:
            // "deploy the api to staging, then run the smoke tests".)
            let plain_verb = || {
                next < end && self.set_apart(h.start()) && self.imperative(next..window()).is_some()
            };
            let shared_lead = if lead() || report() || plain_verb() {
                false
            } else if another() {
                true
            } else {
                continue;
            };
            best = Some(Further {
                cut: h.start(),
                next,
                alternative: false,
                shared_lead,
            });
            break;
        }
        let lower = &self.text[from..end];
        let mut search = 0;
        while let Some(p) = find_bytes(&lower[search..], " or ") {
            let at = from + search + p;
            search += p + 4;
            if best.is_some_and(|b| b.cut < at) {
                break;
            }
            // (A fallback is no second choice: "add a collapse button or at least let us
            // resize it" asks for the button, and ends its object.)
            let after_or = &self.text[at + 4..end];
            if ["at least ", "at the very least ", "failing that", "if not,"]
                .iter()
                .any(|f| {
                    after_or
                        .get(..f.len())
                        .is_some_and(|a| a.eq_ignore_ascii_case(f))
                })
            {
                return Some(Further {
                    cut: at,
                    next: end,
                    alternative: false,
                    shared_lead: false,
                });
            }
            let next = self.skip(at + 4, |m| m == Meaning::Filler);
            let lead_hit = self.lead_hit(next, end);
            // (A question holds its own alternatives unless what follows "or" asks the
            // assistant to act: "what does this regex match, or can you just rewrite it",
            // "... or make me a cheat sheet".)
            if question
                && self.at(next, |m| m == Meaning::ActionQuestion).is_none()
                && !lead_hit
                    .as_ref()
                    .is_some_and(|(h, _)| ends_with_word(&self.text[h.start()..h.end()], "me"))
            {
                continue;
            }
            let lead = self.at(next, |m| m == Meaning::ActionQuestion).is_some()
                || lead_hit.is_some_and(|(_, info)| info.mode == DescriptionMode::Object);
            // (Not inside a clause that tells what the thing does: "a tic tac toe game where
            // ... the game announces the winner or a draw" offers no second thing; a comma
            // ends such a clause, "a script that does the same, or a makefile target?".)
            let thing = self.cls.goals[goal].goal_type == GoalType::ArtifactCreation
                && words(self.text, next..end).next().is_some_and(|w| {
                    let w = &self.text[w];
                    w.eq_ignore_ascii_case("a") || w.eq_ignore_ascii_case("an")
                })
                && !words(
                    self.text,
                    self.text[from..at]
                        .rfind(',')
                        .map_or(from, |c| from + c + 1)..at,
                )
                .any(|w| {
                    ["where", "that", "which", "when", "whenever", "until", "if"]
                        .iter()
                        .any(|x| self.text[w.clone()].eq_ignore_ascii_case(x))
                });
            if lead || thing {
                return Some(Further {
                    cut: at,
                    next,
                    alternative: true,
                    shared_lead: true,
                });
            }
        }
        best
    }

    /// Whether `next..end`, after "and", names another kind of artifact than the plain object
    /// in `from..and` (an article, then what the goal's first slot reads as a kind).
    /// `few` is where the sixth word after `from` starts: the object before "and" is plain
    /// only when "and" comes before it; `None` after a sequencer, where any object is plain
    /// ("and after that a short thank you email").
    fn another_kind(
        &self,
        from: usize,
        and: usize,
        next: usize,
        end: usize,
        goal: usize,
        few: Option<usize>,
    ) -> bool {
        let cls = self.cls;
        let def = &cls.goals[goal];
        if def.goal_type != GoalType::ArtifactCreation
            || !(few.is_none() || self.text[and..next].trim().eq_ignore_ascii_case("and"))
        {
            return false;
        }
        let Some(&kind_slot) = def.slots.first() else {
            return false;
        };
        // ("and also a tagline": another thing, even after a description.)
        let also = words(self.text, next..end)
            .next()
            .filter(|w| self.text[w.clone()].eq_ignore_ascii_case("also"));
        let next = also.as_ref().map_or(next, |w| w.end);
        // (So does "as well" or "too" after it: "a poster for the open house this sat and a
        // short blurb for the listing as well".)
        let as_well = || {
            let ws: SmallVec<[Range<usize>; 16]> = words(self.text, next..end).collect();
            ws.iter()
                .any(|w| self.text[w.clone()].eq_ignore_ascii_case("too"))
                || ws.windows(2).any(|p| {
                    self.text[p[0].clone()].eq_ignore_ascii_case("as")
                        && self.text[p[1].clone()].eq_ignore_ascii_case("well")
                })
        };
        let plain = also.is_some() || few.is_none() || {
            let before = &self.text[from..and];
            few.is_some_and(|few| and <= few)
                && !before.contains([',', ';', ':'])
                && !words(self.text, from..and).any(|w| {
                    [
                        "with",
                        "that",
                        "which",
                        "for",
                        "including",
                        "where",
                        "to",
                        "of",
                    ]
                    .iter()
                    .any(|x| self.text[w.clone()].eq_ignore_ascii_case(x))
                })
        };
        let article = words(self.text, next..end).next().is_some_and(|w| {
            let w = &self.text[w];
            w.eq_ignore_ascii_case("a") || w.eq_ignore_ascii_case("an")
        });
        // (Looked at last: most objects are plain or hold no article after "and". Not after
        // the first thing's parts: "a landing page with a signup form and a pricing table as
        // well" is one page.)
        let parts = || {
            words(self.text, from..and).any(|w| {
                [
                    "with",
                    "including",
                    "that",
                    "which",
                    "where",
                    "shows",
                    "showing",
                ]
                .iter()
                .any(|x| self.text[w.clone()].eq_ignore_ascii_case(x))
            })
        };
        article
            && (plain || as_well() && !parts())
            && cls
                .extract(
                    noun_phrase(&self.text[next..end], &cls.noun_phrase_ends),
                    kind_slot,
                )
                .is_some()
    }

    /// Whether a lead after a reported problem asks for that problem's own fix (a repair:
    /// "this regex doesn't match emails with a plus, can you fix it"), no goal of its own.
    fn repairs_report(&self, first: &GoalLead, lead: Range<usize>) -> bool {
        first.rule == Found::ProblemReport
            && words(self.text, lead)
                .last()
                .is_some_and(|w| self.cls.lower_in(&self.cls.words.repairs, &self.text[w]))
    }

    /// Goals after the first in its sentence (after a sequencer or "or") and in later
    /// sentences that open with a sequencer.
    pub(in crate::conversation) fn further_goals(
        &self,
        first: &GoalLead,
        sentence: Range<usize>,
        reading: &mut Reading,
    ) {
        let goal = first.goal;
        // (A question asked as a sentence describes itself from its lead on.)
        let question = first.description.start <= first.lead.start
            && self.cls.goals[goal].goal_type == GoalType::QuestionAnswer;
        let mut from = first.lead.end;
        while reading.more.len() < MAX_QUEUED_GOALS {
            let Some(f) = self.further(from, sentence.end, goal, question) else {
                break;
            };
            // (A pronoun in it stands for the first goal's thing: "fix the login redirect and
            // deploy it to staging".)
            let next = self
                .lead_referring(f.next, f.next..sentence.end, true)
                .or_else(|| {
                    // "a login form or a signup wizard": the same lead, another object.
                    f.shared_lead.then(|| {
                        let end = self
                            .further(f.next, sentence.end, goal, false)
                            .map_or(sentence.end, |g| g.cut);
                        let object = self.cls.clean(self.text, f.next..end, true);
                        GoalLead {
                            goal,
                            description: object.clone(),
                            lead: first.lead.clone(),
                            wrapper: 0..0,
                            rule: Found::Lead,
                            details: self.details(
                                goal,
                                ChangeMode::None,
                                first.lead.clone(),
                                object,
                            ),
                        }
                    })
                });
            let next = next
                .or_else(|| self.evidence(f.next..sentence.end, Strength::Problem))
                .or_else(|| {
                    self.set_apart(f.cut)
                        .then(|| self.imperative(f.next..sentence.end))
                        .flatten()
                });
            let Some(next) = next else {
                break;
            };
            let next = self.made_different(next);
            // Past the further statement's first character (its whole width).
            let step = self.text[f.next..].chars().next().map_or(1, char::len_utf8);
            from = next.lead.end.max(f.next + step);
            // (After a report, a repair asks for the report's own fix: "this regex doesn't
            // match emails with a plus, can you fix it".)
            if self.repairs_report(first, next.lead.clone()) || self.follows_up(first, &next, &f) {
                continue;
            }
            reading.alternatives |= f.alternative;
            reading.more.push(next);
        }
        if reading.alternatives {
            return;
        }
        for s in sentences(self.text).filter(|s| s.start > sentence.start) {
            if reading.more.len() >= MAX_QUEUED_GOALS {
                break;
            }
            let opener = skip_soft(self.text, s.start);
            // (A conjunction before a request addressed to the assistant opens one too: "what's
            // a webhook? and could you set one up for our stripe payments".)
            let asked = self
                .at(opener, |m| m == Meaning::Conjunction)
                .is_some_and(|h| {
                    self.at(skip_soft(self.text, h.end()), |m| m == Meaning::Intent)
                        .is_some()
                });
            if !asked && self.at(opener, |m| m == Meaning::Sequencer).is_none() {
                continue;
            }
            let start = self.skip(opener, |m| {
                matches!(
                    m,
                    Meaning::Filler | Meaning::Sequencer | Meaning::Conjunction
                )
            });
            if let Some((lead, info)) = self.lead_hit(start, s.end)
                && !self.repairs_report(first, lead.start()..lead.end())
                && self.starts_new(goal, lead, info, true)
                && let Some(g) = self.lead_at(start, s.clone())
            {
                reading.more.push(g);
            }
        }
    }
}

/// Where the word after the `n`th of `span` starts (words as [`count_words`] counts them), else
/// the span's end.
fn nth_word_start(text: &str, span: Range<usize>, n: usize) -> usize {
    let mut count = 0;
    let mut in_word = false;
    for (i, c) in text[span.clone()].char_indices() {
        let word = is_word_char(c) || c == '\'';
        if word && !in_word {
            if count == n {
                return span.start + i;
            }
            count += 1;
        }
        in_word = word;
    }
    span.end
}
