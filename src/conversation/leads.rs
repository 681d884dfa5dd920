//! A goal stated by a lead (rules 4, 5 and 14): the lead at a sentence's start, after intents,
//! and the goal its object states.

use std::cmp::Reverse;
use std::ops::Range;

use smallvec::SmallVec;

use super::lexicon::{ChangeMode, DescriptionMode};
use super::reading::{Detail, Found, GoalLead, Hit, LeadInfo, Meaning};
use super::text::*;
use super::view::{VERB_PREFIXES, View};

impl View<'_> {
    /// The goal a lead at `start` (after fillers) of `sentence` states, if any: leads may
    /// follow intents ("could you", "I want to"); the longest lead wins, then the first
    /// declared. A lead followed by a predicate is a noun ("Deploy keeps timing out", rule 4).
    pub(super) fn lead_at(&self, start: usize, sentence: Range<usize>) -> Option<GoalLead> {
        self.lead_referring(start, sentence, false)
    }

    /// [`View::lead_at`]; with `refers`, a pronoun object stands for a thing named before it
    /// in the sentence ("those warnings, can we get rid of them"), and the lead counts.
    pub(super) fn lead_referring(
        &self,
        start: usize,
        sentence: Range<usize>,
        refers: bool,
    ) -> Option<GoalLead> {
        // A negated instruction leads after its negation: "don't add a comment on every line".
        // (A negation that is a lead itself leads: "stop the music".)
        let negation = self.negated_instruction(start, sentence.end);
        // (A clause after a comma that asks for something else is the request, the negated
        // one only what not to do: "don't add the footer, add a sidebar", "don't rewrite the
        // whole thing, just fix the typo".)
        if let Some(n) = &negation
            && let Some(comma) = self.text[n.end..sentence.end].find(", ")
        {
            // (White space and a line's end after the comma may run past the sentence: the
            // clause after it stops there, "Never mind I'll create it now , \n".)
            let mut at = skip_soft(self.text, n.end + comma + 1).min(sentence.end);
            for _ in 0..2 {
                let w = &self.text[at..sentence.end];
                let len = w.find(|c: char| !c.is_alphabetic()).unwrap_or(w.len());
                if ["just", "but", "instead", "only", "rather", "please", "pls"]
                    .iter()
                    .any(|x| w[..len].eq_ignore_ascii_case(x))
                {
                    at = skip_soft(self.text, at + len).min(sentence.end);
                }
            }
            // (Not the user's own doing: "please don't merge yet, i still need to fix the
            // tests".)
            let own = self.text[at..sentence.end]
                .split_whitespace()
                .next()
                .is_some_and(|w| {
                    ["i", "we", "i'll", "i'm", "we'll", "we're", "im", "ill"]
                        .iter()
                        .any(|p| w.eq_ignore_ascii_case(p))
                });
            if at < sentence.end
                && !own
                && self.negated_instruction(at, sentence.end).is_none()
                && let Some(g) = self.lead_after(at, at, at..sentence.end, refers)
            {
                return Some(g);
            }
        }
        // (A lead after the negation that is no standing instruction asks for nothing, whatever
        // the negation's own words would lead: "do not merge until QA signs off".)
        if let Some(n) = negation
            && let Some(g) =
                self.lead_after(start, skip_soft(self.text, n.end), sentence.clone(), refers)
        {
            return self.standing_instruction(n, g);
        }
        let end = sentence.end;
        self.lead_after(start, start, sentence, refers)
            .map(|g| self.asked_more(&g, end).unwrap_or(g))
    }

    /// [`View::lead_referring`] with the first lead looked for at `at`, after intents.
    fn lead_after(
        &self,
        start: usize,
        mut at: usize,
        sentence: Range<usize>,
        refers: bool,
    ) -> Option<GoalLead> {
        let cls = self.cls;
        let mut anchors: SmallVec<[usize; 4]> = SmallVec::new();
        while anchors.len() < 8 {
            anchors.push(at);
            // (A verb's prefix before its hyphen leads with the verb: "re-enable the cron job".)
            // (A hyphen within a few letters is looked for first.)
            let rest = self.text.as_bytes().get(at..).unwrap_or_default();
            if let Some(h) = rest.iter().take(7).position(|&b| b == b'-')
                && rest.get(h + 1).is_some_and(u8::is_ascii_alphabetic)
                && VERB_PREFIXES
                    .iter()
                    .any(|p| p.len() == h && rest[..h].eq_ignore_ascii_case(p.as_bytes()))
            {
                anchors.push(at + h + 1);
            }
            match self.at(at, |m| matches!(m, Meaning::Intent | Meaning::Filler)) {
                Some(h) => at = skip_soft(self.text, h.end()),
                None => break,
            }
        }
        let mut candidates: SmallVec<[(Hit, u16); 8]> = SmallVec::new();
        for &anchor in &anchors {
            for h in self.starting_at(anchor) {
                if h.end() > sentence.end {
                    continue;
                }
                // (A lead inside a deferral is the user's own doing: "let me check on my
                // phone".)
                let deferred = || {
                    let first = self.hits.partition_point(|d| d.start() < start);
                    self.hits[first..]
                        .iter()
                        .take_while(|d| d.start() <= h.start())
                        .any(|d| {
                            d.end() >= h.end() && self.meanings(*d).contains(&Meaning::Deferral)
                        })
                };
                // (A lead that is a correction phrase too, "make that", corrects while a goal
                // is active: "actually make that 6:30"; with none it leads, "can you make
                // that query faster".)
                let correcting = self.active && self.meanings(*h).contains(&Meaning::Correction);
                for m in self.meanings(*h) {
                    if let Meaning::Lead(id) = m
                        && !correcting
                        && !deferred()
                    {
                        candidates.push((*h, *id));
                    }
                }
            }
        }
        candidates.sort_unstable_by_key(|(h, id)| (Reverse(h.end), *id));
        let verb_at = *anchors.last().unwrap_or(&start);
        if !candidates.iter().any(|(h, _)| h.start() == verb_at)
            && let Some(g) = self.asked_action(&anchors, verb_at, start, sentence.end, refers)
        {
            return Some(g);
        }
        candidates.into_iter().find_map(|(h, id)| {
            let info = cls.leads[id as usize];
            if info.mode == DescriptionMode::Object && self.noun_use(h) || self.quoted_name(h) {
                return None;
            }
            self.goal_from(start, h, info, sentence.end, refers)
        })
    }

    /// The goal a lead states, if its object qualifies; `start` is where its sentence starts
    /// after fillers. The object ends where a further goal starts (rule 14).
    pub(super) fn goal_from(
        &self,
        start: usize,
        lead: Hit,
        info: LeadInfo,
        end: usize,
        refers: bool,
    ) -> Option<GoalLead> {
        let cls = self.cls;
        // "let" alone leads only before whom it lets, a plural ("let dispatchers reassign a
        // delivery", "let tenants report a repair"), which the lead then covers; "let me
        // know", "let it run" ask nothing.
        let lead = if info.change == ChangeMode::Phrase
            && self.text[lead.start()..lead.end()].eq_ignore_ascii_case("let")
        {
            let rest = &self.text[lead.end()..end];
            let trimmed = rest.trim_start();
            let word_len = |t: &str| {
                t.find(|c: char| !(c.is_alphanumeric() || c == '-'))
                    .unwrap_or(t.len())
            };
            let mut len = word_len(trimmed);
            // (A role may be named by a word before the plural: "let org owners export the
            // member list", "let store managers edit prices".)
            if !cls.plural(&trimmed[..len])
                && trimmed[len..].starts_with(' ')
                && !cls.is_pronoun(&trimmed[..len])
                && !cls.lower_in(&cls.words.determiners, &trimmed[..len])
                && !cls.lower_in(&cls.words.non_subjects, &trimmed[..len])
            {
                let second = &trimmed[len + 1..];
                let n = word_len(second);
                if n > 0 && cls.plural(&second[..n]) {
                    len += 1 + n;
                }
            }
            let role = &trimmed[..len];
            let head = role.rsplit(' ').next().unwrap_or(role);
            // (Whom it lets does something with an object: "let others know", "let kids be
            // kids" ask nothing of the product.)
            let mut after = trimmed[len..].split_whitespace();
            let verb = after.next().unwrap_or("");
            if len == 0
                || !role
                    .bytes()
                    .all(|b| b.is_ascii_alphabetic() || b == b'-' || b == b' ')
                || !cls.plural(head)
                || cls.lower_in(&cls.words.non_subjects, head)
                || after.next().is_none()
                || ["be", "know", "decide", "others"]
                    .iter()
                    .any(|v| verb.eq_ignore_ascii_case(v) || role.eq_ignore_ascii_case(v))
            {
                return None;
            }
            Hit {
                end: (lead.end() + (rest.len() - trimmed.len()) + len) as u32,
                ..lead
            }
        } else {
            lead
        };
        let end = self
            .further(
                lead.end(),
                end,
                info.goal as usize,
                info.mode == DescriptionMode::Sentence,
            )
            .map_or(end, |f| f.cut);
        // A wish that closes the sentence is no part of the object ("support for importing
        // bookmarks from Firefox would be nice").
        // (Where the words end is found once, and only when a wish is there: the work stays
        // linear.)
        let first = self.hits.partition_point(|h| h.start() < lead.end());
        let mut words_end = None;
        let end = self.hits[first..]
            .iter()
            .take_while(|h| h.start() < end)
            .filter(|h| {
                h.start() > lead.end()
                    && h.end() <= end
                    && self.meanings(**h).contains(&Meaning::Wish)
                    && h.end()
                        >= *words_end
                            .get_or_insert_with(|| cls.clean(self.text, lead.end()..end, false).end)
            })
            .map(|h| h.start())
            .next()
            .unwrap_or(end);
        let object = cls.clean(self.text, lead.end()..end, true);
        // (Rule 5: a lead that holds "it" or "them" ("make it", "get it to") refers to the
        // active goal's work; with none active it is the user's own thing, not yet named.)
        if self.active
            && self.text[lead.start()..lead.end()]
                .split_whitespace()
                .any(|w| w.eq_ignore_ascii_case("it") || w.eq_ignore_ascii_case("them"))
        {
            return None;
        }
        // Rule 9: with no goal active, "it" or "them" after a sentence of context is the
        // thing that sentence introduced ("I have a python script that parses logs. Make it
        // faster", "our staging db is on postgres 13. can you upgrade it to 16").
        let holds_pronoun = |r: Range<usize>| {
            self.text[r]
                .split(|c: char| !c.is_alphanumeric())
                .find(|w| !w.is_empty())
                .is_some_and(|w| w.eq_ignore_ascii_case("it") || w.eq_ignore_ascii_case("them"))
        };
        // (Looked for only where it is needed: most leads hold no pronoun.)
        let referent = || {
            (!self.active
                && cls.goals[info.goal as usize].goal_type
                    == crate::conversation::GoalType::TaskExecution
                && (holds_pronoun(object.clone())
                    || self.text[lead.start()..lead.end()]
                        .split_whitespace()
                        .any(|w| w.eq_ignore_ascii_case("it") || w.eq_ignore_ascii_case("them"))))
            .then(|| self.introduced_thing(start))
            .flatten()
        };
        // (Nor with a topic before it in the sentence that the pronoun refers to: "our helm
        // chart hardcodes the image tag, can you make it a value".)
        if info.min_words > 0
            && (count_words(&self.text[object.clone()]) as u32) < info.min_words
            && !refers
            && referent().is_none()
        {
            return None;
        }
        if object.is_empty() {
            return self.lead_alone(start, lead, info);
        }
        // (Rule 6 needs a subject after the auxiliary: "will do that later", "could be
        // worse" leave it out and ask nothing; a question mark still asks.)
        if info.min_words > 0
            && !self.text[lead.start()..lead.end()].contains(' ')
            && self.in_question(lead).is_none()
            && self.text[object.clone()]
                .split(|c: char| !(c.is_alphanumeric() || c == '\''))
                .find(|w| !w.is_empty())
                .is_some_and(|w| cls.lower_in(&cls.words.elided_subjects, w))
        {
            return None;
        }
        // (A kind after "it as" is what is made: "Build it as a React function component
        // called Countdown" asks for the component, its requirements told before.)
        let object = match cls.goals[info.goal as usize].goal_type {
            crate::conversation::GoalType::ArtifactCreation => {
                let t = &self.text[object.clone()];
                ["it as a ", "it as an ", "this as a ", "this as an "]
                    .iter()
                    .find(|p| t.get(..p.len()).is_some_and(|h| h.eq_ignore_ascii_case(p)))
                    .map_or(object.clone(), |p| object.start + p.len() - 2..object.end)
            }
            _ => object.clone(),
        };
        let object_text = &self.text[object.clone()];
        // Rule 5: "it", "them" or "that" refers to the active goal's work ("make it blue"); with none
        // active it is the user's own thing, not yet named ("make it load faster": a task
        // whose target is still open).
        // (A lead before a conjunction is an item of a list: "subcommands for init, deploy and
        // logs".)
        let first_word = object_text.split_whitespace().next().unwrap_or("");
        if first_word.eq_ignore_ascii_case("and") || first_word.eq_ignore_ascii_case("or") {
            // (Unless a second lead follows it, the two verbs sharing the object after it:
            // "review and merge my PR", "fix and document the retry logic". The verb next to
            // the object reads it; the lead covers both.)
            let next = skip_soft(self.text, object.start + first_word.len());
            let (second, second_info) = self
                .lead_hit(next, end)
                .filter(|(h, _)| h.start() == next && h.end() < end)?;
            // (Two verbs only: a third "and" is a list, and the reading stays linear.)
            // (Soft characters and a line's end after the verb may run past the sentence:
            // "review and merge \n".)
            let after = &self.text[skip_soft(self.text, second.end()).min(end)..end];
            if after
                .split_whitespace()
                .next()
                .is_some_and(|w| w.eq_ignore_ascii_case("and") || w.eq_ignore_ascii_case("or"))
            {
                return None;
            }
            let joined = Hit {
                start: lead.start,
                ..second
            };
            // (A first verb that makes a thing keeps its goal: "write and send an email to
            // the landlord" asks for the email.)
            let info = if cls.goals[info.goal as usize].goal_type
                == crate::conversation::GoalType::ArtifactCreation
            {
                info
            } else {
                second_info
            };
            return self.goal_from(start, joined, info, end, refers);
        }
        let pronoun = cls.starts_with_any(&cls.pronouns, object_text);
        let open = !self.active
            && cls.goals[info.goal as usize].goal_type
                == crate::conversation::GoalType::TaskExecution
            && count_words(object_text) >= 2
            && self.text[object.clone()]
                .split(|c: char| !c.is_alphanumeric())
                .next()
                .is_some_and(|w| {
                    ["it", "them", "that"]
                        .iter()
                        .any(|p| w.eq_ignore_ascii_case(p))
                });
        if info.mode == DescriptionMode::Object && pronoun && !open && !refers {
            // (With a goal active, a task on "it" or "them" asks for a change of that goal's
            // work, no new goal and no question: "can u move it below" in review.)
            if self.active
                && cls.goals[info.goal as usize].goal_type
                    == crate::conversation::GoalType::TaskExecution
            {
                return Some(GoalLead {
                    goal: info.goal as usize,
                    description: object.clone(),
                    lead: lead.start()..lead.end(),
                    wrapper: 0..0,
                    rule: Found::Request,
                    details: SmallVec::from_iter([Detail {
                        slot: 1,
                        prefix: "",
                        spans: SmallVec::from_iter(std::iter::once(lead.start()..object.end)),
                    }]),
                });
            }
            return None;
        }
        if let Some(slot) = info.object_must_match {
            let np = noun_phrase(object_text, &cls.noun_phrase_ends);
            // (Or "something" with what it is for, as the goal's next slot reads it: "I need
            // something to collect rsvps for a party".)
            let purposed = object_text
                .get(..10)
                .is_some_and(|t| t.eq_ignore_ascii_case("something "))
                && cls.goals[info.goal as usize]
                    .slots
                    .get(1)
                    .is_some_and(|r| cls.extract(object_text, *r).is_some());
            // (The kind is the phrase's head: "I want slow query logging to include the bound
            // values" asks for logging that does something, no query; a word of manner or time
            // may follow the head, "I need a python script quickly".)
            if !purposed {
                let kind = cls.extract(np, slot as usize)?;
                // (Up to another kind joined to it: "a newsletter popup or a banner".)
                let tail = np[kind.end..].split([',', ';']).next().unwrap_or("");
                let mut after = tail
                    .split_whitespace()
                    .take_while(|w| !["or", "and", "&"].iter().any(|x| w.eq_ignore_ascii_case(x)));
                // (A kind's plural is the kind: "app icons".)
                let plural_kind = |w: &str| {
                    w.len() > 3
                        && w.ends_with('s')
                        && w.is_char_boundary(w.len() - 1)
                        && cls
                            .extract(&w[..w.len() - 1], slot as usize)
                            .is_some_and(|r| r.start == 0 && r.end == w.len() - 1)
                };
                // (So is the name it is given in code: "a function count_leaves(tree)".)
                if after.next().is_some_and(|w| {
                    !(w.ends_with("ly")
                        || plural_kind(w)
                        || crate::conversation::evidence::identifier(w)
                        || ["asap", "please", "pls", "plz", "now", "today", "tonight"]
                            .iter()
                            .any(|x| w.eq_ignore_ascii_case(x)))
                }) || after.next().is_some()
                {
                    return None;
                }
            }
        }
        let description = match info.mode {
            DescriptionMode::Object => object.clone(),
            DescriptionMode::Sentence => cls.clean(self.text, lead.start()..end, false),
        };
        let wrapper = cls.clean(self.text, start..lead.start(), false);
        // Rule 4: "make" before a name and a plain verb changes the named thing, it creates
        // nothing ("Make Jest ignore test files in the dist folder").
        // (Looking over ideas is exploring them: "let's look at some weekend getaway ideas
        // within two hours of here".)
        let (goal, change) = match self.made_to_do(lead, info, object.clone()) {
            Some(task) => (task, ChangeMode::Result),
            None => match self.ideas_looked_at(info, lead.end()..object.end) {
                Some(exploration) => (exploration, info.change),
                None => (info.goal as usize, info.change),
            },
        };
        let info = LeadInfo {
            goal: goal as u16,
            change,
            ..info
        };
        let mut details = self.details(
            info.goal as usize,
            info.change,
            lead.start()..lead.end(),
            object.clone(),
        );
        // (A lead that is its own change after an ability asked for is the feature with its
        // object: "i want to be able to mute a thread without leaving it"; not after "not"
        // or "unable".)
        if info.change == ChangeMode::Lead
            && self.text[start..lead.start()]
                .trim_end()
                .to_ascii_lowercase()
                .strip_suffix("be able to")
                .is_some_and(|w| {
                    let w = w.trim_end();
                    !w.ends_with("not") && !w.ends_with("n't")
                })
            && let Some(d) = details.iter_mut().find(|d| d.slot == 1)
        {
            let phrase = lead.start()..object.end;
            d.spans.clear();
            d.spans.push(phrase);
        }
        // (The pronoun names nothing yet: the target stays open, unless a sentence of context
        // introduced it.)
        if pronoun {
            details.retain(|d| {
                !(d.spans.len() == 1
                    && cls.starts_with_any(&cls.pronouns, &self.text[d.spans[0].clone()]))
            });
        }
        if !details.iter().any(|d| d.slot == 0)
            && let Some(t) = referent()
        {
            details.insert(
                0,
                Detail {
                    slot: 0,
                    prefix: "",
                    spans: SmallVec::from_iter([t]),
                },
            );
        }
        Some(GoalLead {
            goal: info.goal as usize,
            description,
            lead: lead.start()..lead.end(),
            wrapper,
            rule: Found::Lead,
            details,
        })
    }

    /// Rule 4: an artifact's "make" before a name of one or two words (no determiner, no
    /// kind) and a plain verb of the vocabulary ("Make Jest ignore test files", "make git
    /// forget a tracked file"): the task goal, whose details read the thing and its result.
    /// Where, among an object's first words, a state it is made to take stands (one of
    /// `made_results`, a word in -able or -ible, "the default"), after one to three words (a
    /// comparative not after a verb of `verbs`: "make the page load faster" makes it do
    /// something), and
    /// before no noun ("a printable chart" is a thing made): last, or before a comma, a word
    /// of `noun_phrase_ends`, `means` or `feature_scopes` or a polite word ("optional for
    /// guests", "clickable in the gallery", "configurable through an env var").
    pub(super) fn made_state(&self, words: &[Range<usize>]) -> Option<usize> {
        let cls = self.cls;
        let state = |w: &Range<usize>| {
            let w = &self.text[w.clone()];
            let long = w.len() >= 7 && w.bytes().all(|b| b.is_ascii_alphabetic());
            cls.lower_in(&cls.words.made_results, w)
                || long && {
                    let end = &w[w.len() - 4..];
                    end.eq_ignore_ascii_case("able") || end.eq_ignore_ascii_case("ible")
                }
        };
        let ends = |i: usize| {
            words.get(i + 1).is_none_or(|n| {
                self.text[words[i].end..n.start].contains(',')
                    || cls.lower_in(&cls.words.ends, &self.text[n.clone()])
                    || cls.lower_in(&cls.words.means, &self.text[n.clone()])
                    || cls.lower_in(&cls.words.feature_scopes, &self.text[n.clone()])
                    || ["please", "pls", "now", "again", "too"]
                        .iter()
                        .any(|x| self.text[n.clone()].eq_ignore_ascii_case(x))
            })
        };
        // (A comparative after a verb is how the verb goes: "make the page load faster".)
        let verb_before = |i: usize| {
            let w = &self.text[words[i].clone()];
            w.len() > 2
                && w[w.len() - 2..].eq_ignore_ascii_case("er")
                && words[..i]
                    .iter()
                    .any(|v| cls.lower_in(&cls.words.verbs, &self.text[v.clone()]))
        };
        (1..=3).take_while(|&i| i < words.len()).find(|&i| {
            state(&words[i]) && ends(i) && !verb_before(i)
                || self.text[words[i].clone()].eq_ignore_ascii_case("the")
                    && words
                        .get(i + 1)
                        .is_some_and(|d| self.text[d.clone()].eq_ignore_ascii_case("default"))
        })
    }

    /// The exploration a task lead asks for when its object's head is ideas or suggestions
    /// not yet there ("look at some gift ideas for my dad", "go through a few logo
    /// suggestions"; "review the suggestions in the PR" is work on them).
    fn ideas_looked_at(&self, info: LeadInfo, after_lead: Range<usize>) -> Option<usize> {
        let cls = self.cls;
        if cls.goals[info.goal as usize].goal_type != crate::conversation::GoalType::TaskExecution {
            return None;
        }
        const IDEAS: [&str; 4] = ["ideas", "suggestions", "inspiration", "possibilities"];
        // (The words looked for first, by their first bytes: most objects name no ideas.)
        if !crate::conversation::evidence::words(self.text, after_lead.clone())
            .take(12)
            .any(|w| {
                matches!(self.text.as_bytes()[w.start] | 0x20, b'i' | b's' | b'p')
                    && IDEAS
                        .iter()
                        .any(|x| self.text[w.clone()].eq_ignore_ascii_case(x))
            })
        {
            return None;
        }
        let np = noun_phrase(self.text[after_lead].trim_start(), &cls.noun_phrase_ends);
        // (Not ideas already there: "review the suggestions in the PR".)
        let first = np.split_whitespace().next()?;
        if [
            "the", "my", "our", "your", "their", "this", "these", "those", "his", "her",
        ]
        .iter()
        .any(|d| first.eq_ignore_ascii_case(d))
        {
            return None;
        }
        let head = np.split_whitespace().next_back()?;
        IDEAS
            .iter()
            .any(|x| head.eq_ignore_ascii_case(x))
            .then(|| cls.goal_index(crate::conversation::GoalType::Exploration))
            .flatten()
    }

    fn made_to_do(&self, lead: Hit, info: LeadInfo, object: Range<usize>) -> Option<usize> {
        let cls = self.cls;
        let artifact = cls.goal_index(crate::conversation::GoalType::ArtifactCreation)?;
        let lead_word = self.text[lead.start()..lead.end()]
            .split_whitespace()
            .last()?;
        if info.goal as usize != artifact || !lead_word.eq_ignore_ascii_case("make") {
            return None;
        }
        let ws: SmallVec<[&str; 4]> = self.text[object.clone()]
            .split_whitespace()
            .take(4)
            .collect();
        let kind = *cls.goals[artifact].slots.first()?;
        let name = |t: &&str| {
            t.chars()
                .all(|c| c.is_alphanumeric() || matches!(c, '-' | '.' | '_'))
                && !cls.lower_in(&cls.words.determiners, t)
                && !cls.lower_in(&cls.words.non_subjects, t)
                && !cls.is_pronoun(t)
                && cls.extract(t, kind).is_none()
        };
        // (So does "make" before an identifier of code and what it becomes: "make
        // fetchInvoices async", "make parse_row generic".)
        // (Or a name in backticks: "Make `timeouts` configurable on the client".)
        let quoted = |w: &str| w.len() > 2 && w.starts_with('`') && w.ends_with('`');
        if ws.len() >= 2 && (crate::conversation::evidence::identifier(ws[0]) || quoted(ws[0])) {
            return cls.goal_index(crate::conversation::GoalType::TaskExecution);
        }
        // (So does "make" before a name and a state it takes: "Make autoplay optional", "make
        // dark mode the default", "make thumbnails clickable".)
        let object_words: SmallVec<[Range<usize>; 5]> =
            crate::conversation::evidence::words(self.text, object)
                .take(5)
                .collect();
        // (No article before the name: "make a printable chart" makes one.)
        let bare = self.text[lead.end()..object_words.first()?.start]
            .split_whitespace()
            .all(|w| !cls.lower_in(&cls.words.determiners, w));
        if bare
            && self.made_state(&object_words).is_some_and(|i| {
                // (A kind's words too: "make the sidebar collapsible" changes the sidebar.)
                object_words[..i].iter().all(|w| {
                    let t = &self.text[w.clone()];
                    t.chars()
                        .all(|c| c.is_alphanumeric() || matches!(c, '-' | '.' | '_' | '`'))
                        && !cls.lower_in(&cls.words.determiners, t)
                        && !cls.lower_in(&cls.words.non_subjects, t)
                        && !cls.is_pronoun(t)
                })
            })
        {
            return cls.goal_index(crate::conversation::GoalType::TaskExecution);
        }
        let verb = (1..=2).find(|&i| {
            ws.get(i).is_some_and(|v| cls.lower_in(&cls.words.verbs, v)) && ws[..i].iter().all(name)
        })?;
        (ws.len() > verb + 1)
            .then(|| cls.goal_index(crate::conversation::GoalType::TaskExecution))
            .flatten()
    }
}
