//! Rule 6's requests as questions: "can you" before a verb that is no goal lead asks for that
//! action when the sentence marks it as the user's ("can you refund one of them please").

use super::imperative::task_by_verb;
use super::*;
use crate::conversation::lexicon::{ChangeMode, DescriptionMode};
use crate::conversation::reading::LeadInfo;

impl View<'_> {
    /// Rule 6: an action question ("can you", "could you") before a verb that is no lead asks
    /// for that action, a task whose change is the verb with its object ("can you refund one
    /// of them please", "could you whatsapp jake that the keys are under the mat"), when the
    /// sentence marks the action as the user's: "please", a word of the user's or of a thing
    /// at hand ("me", "my", "it", "this") within the verb's first words, or a message relayed
    /// with "that" or "saying". A verb of `ability_verbs` asks what can be done instead ("can
    /// you see my screen"), and so does the question with no such mark ("can you freeze
    /// cooked rice").
    pub(in crate::conversation) fn asked_action(
        &self,
        anchors: &[usize],
        verb_at: usize,
        start: usize,
        end: usize,
        refers: bool,
    ) -> Option<GoalLead> {
        let cls = self.cls;
        // (Only after an intent, which an action question is.)
        if anchors.len() < 2
            || !anchors
                .iter()
                .any(|&a| self.at(a, |m| m == Meaning::ActionQuestion).is_some())
        {
            return None;
        }
        let mut ws = words(self.text, verb_at..end);
        let verb = ws.next().filter(|v| v.start == verb_at)?;
        let word = &self.text[verb.clone()];
        let plain = word.len() >= 2
            && word.bytes().all(|b| b.is_ascii_lowercase())
            && !word.ends_with("ly")
            && !cls.lower_in(&cls.words.ability_verbs, word)
            && !cls.lower_in(&cls.words.non_subjects, word)
            && !cls.lower_in(&cls.words.determiners, word)
            && !cls.lower_in(&cls.words.auxiliaries, word)
            && !cls.is_pronoun(word)
            && self.at(verb.start, |m| m != Meaning::Filler).is_none();
        if !plain {
            return None;
        }
        let object: SmallVec<[Range<usize>; 4]> = ws.by_ref().take(4).collect();
        let is = |w: &Range<usize>, list: &[&str]| {
            list.iter()
                .any(|x| self.text[w.clone()].eq_ignore_ascii_case(x))
        };
        // (Before a preposition: a thing of the user's after one is where a general action
        // happens, "can you cook rice in my instant pot".)
        let own = object
            .iter()
            .take_while(|w| {
                !is(
                    w,
                    &[
                        "in", "on", "at", "into", "with", "without", "by", "of", "under", "inside",
                    ],
                )
            })
            .any(|w| {
                is(
                    w,
                    &[
                        "me", "my", "our", "us", "it", "them", "this", "these", "those", "that",
                        "saying",
                    ],
                )
            });
        let please = words(self.text, verb_at..end)
            .take(24)
            .any(|w| is(&w, &["please", "pls", "plz"]));
        if object.is_empty() || !(own || please) {
            return None;
        }
        let info = LeadInfo {
            goal: cls.goal_index(GoalType::TaskExecution)? as u16,
            mode: DescriptionMode::Object,
            object_must_match: None,
            change: ChangeMode::Action,
            min_words: 0,
        };
        let lead = Hit {
            start: verb.start as u32,
            end: verb.end as u32,
            phrase: cls.no_phrase(),
            shadowed: false,
        };
        self.goal_from(start, lead, info, end, refers)
    }

    /// Rule 2 asked as a question: an auxiliary, "it" or a thing named with "the", a verb
    /// that is no verb of ability, and a word asking for more ("too", "also", "as well")
    /// asks the product to do more, a feature request: "could it show tomorrow's weather too",
    /// "can the export also include archived rows". The thing (or, for "it", the thing the
    /// sentence before named) is the target, the verb with its object the change.
    pub(in crate::conversation) fn asked_more(&self, g: &GoalLead, end: usize) -> Option<GoalLead> {
        let cls = self.cls;
        if cls.goals[g.goal].goal_type != GoalType::QuestionAnswer {
            return None;
        }
        let ws: SmallVec<[Range<usize>; 16]> =
            words(self.text, g.lead.start..end).take(16).collect();
        let is = |w: &Range<usize>, list: &[&str]| {
            list.iter()
                .any(|x| self.text[w.clone()].eq_ignore_ascii_case(x))
        };
        let more = ws.iter().any(|w| is(w, &["too", "also"]))
            || ws
                .windows(2)
                .any(|p| is(&p[0], &["as"]) && is(&p[1], &["well"]));
        if !more
            || ws.len() < 4
            || !is(&ws[0], &["could", "can", "would", "will"])
            || !is(&ws[1], &["it", "the"])
        {
            return None;
        }
        let (target, verb) = if is(&ws[1], &["it"]) {
            (self.introduced_thing(g.lead.start), 2)
        } else {
            let thing = self.thing(ws[1].start..end, true)?;
            let v = ws.iter().position(|w| w.start >= thing.end)?;
            (Some(thing), v)
        };
        // (Past an "also" before the verb: "can the export also include ...".)
        let verb = verb + usize::from(ws.get(verb).is_some_and(|w| is(w, &["also"])));
        let v = ws.get(verb)?;
        // (Where the thing's phrase ran to the end, no verb is left: it asks.)
        if is(v, &["as", "too", "also", "well"])
            || !self.text[v.clone()].bytes().all(|b| b.is_ascii_lowercase())
            || cls.lower_in(&cls.words.ability_verbs, &self.text[v.clone()])
            || cls.lower_in(&cls.words.auxiliaries, &self.text[v.clone()])
        {
            return None;
        }
        let task = cls.goal_index(GoalType::TaskExecution)?;
        let change = cls.clean(self.text, v.start..end, false);
        Some(task_by_verb(
            task,
            target,
            change,
            g.lead.clone(),
            g.wrapper.clone(),
            Found::Request,
        ))
    }
}
