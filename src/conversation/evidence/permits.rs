//! Rule 2 asked as a permission: "let me" or "let us", then a verb of the language file's
//! `permitted` that is no lead, then its object ("let me pick a different default reminder for all-day events",
//! "let us reorder the columns"): a feature request, a task whose change is the verb with its
//! object and whose target is the object's thing.

use super::imperative::task_by_verb;
use super::*;

impl View<'_> {
    /// The request `sentence` asks as a permission, if it opens with one.
    pub(super) fn permits(&self, sentence: Range<usize>) -> Option<GoalLead> {
        let cls = self.cls;
        // (Most sentences hold no "let" among their first bytes: looked for before any word.)
        let head = &self.text.as_bytes()[sentence.start..sentence.end.min(sentence.start + 40)];
        if !head
            .windows(3)
            .any(|w| w.eq_ignore_ascii_case(b"let") || w.eq_ignore_ascii_case(b"lem"))
        {
            return None;
        }
        let start = self.skip(sentence.start, |m| {
            matches!(m, Meaning::Filler | Meaning::Ack)
        });
        let mut ws = words(self.text, start..sentence.end);
        let is = |w: &Range<usize>, list: &[&str]| {
            list.iter()
                .any(|x| self.text[w.clone()].eq_ignore_ascii_case(x))
        };
        let opener = ws.next()?;
        let mut verb = if is(&opener, &["lemme"]) {
            ws.next()?
        } else if is(&opener, &["let"]) {
            let whom = ws.next()?;
            if !is(&whom, &["me", "us"]) {
                return None;
            }
            ws.next()?
        } else {
            return None;
        };
        if is(&verb, &["just", "also", "finally"]) {
            verb = ws.next()?;
        }
        // (A lead reads itself: "let me add milk to the list"; a verb of the user's own doing
        // is no feature, "let me check the logs", "let me read it first", and is not among
        // the permitted verbs.)
        if !cls.lower_in(&cls.words.permitted, &self.text[verb.clone()])
            || self
                .at(verb.start, |m| matches!(m, Meaning::Lead(_)))
                .is_some()
        {
            return None;
        }
        let object = ws.next()?;
        let task = cls.goal_index(GoalType::TaskExecution)?;
        let target = self.thing(object.start..sentence.end, false);
        let change = cls.clean(self.text, verb.start..sentence.end, false);
        Some(task_by_verb(
            task,
            target,
            change,
            verb.clone(),
            opener.start..self.text[..verb.start].trim_end().len(),
            Found::Request,
        ))
    }
}
