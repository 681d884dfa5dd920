//! Rule 6's requests as questions: "can you" before a verb that is no goal lead asks for that
//! action when the sentence marks it as the user's ("can you refund one of them please").

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
        if !anchors
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
        let own = object.iter().any(|w| {
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
            phrase: u32::MAX,
            shadowed: false,
        };
        self.goal_from(start, lead, info, end, refers)
    }
}
