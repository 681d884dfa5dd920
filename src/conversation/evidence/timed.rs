//! Rule 3 without a verb: a thing "for" a number or a time is a setting and its value, as a
//! voice request says it ("alarm for five fifteen", "timer for 10 minutes").

use super::imperative::task_by_verb;
use super::*;

impl View<'_> {
    /// Rule 3: one to three words naming a thing (no determiner first, no verb, no pronoun),
    /// "for", and a number or a time (digits, or a word of `spoken_numbers`) to the end: the
    /// thing is the target, the number or time the change.
    pub(in crate::conversation) fn timed_setting(&self, span: Range<usize>) -> Option<GoalLead> {
        let cls = self.cls;
        let task = cls.goal_index(GoalType::TaskExecution)?;
        // ("for" among the first four words is looked for before anything is collected.)
        let at = words(self.text, span.clone())
            .take(4)
            .position(|w| self.word_in(&w, &["for"]))?;
        let ws: SmallVec<[Range<usize>; 8]> = words(self.text, span.clone()).take(8).collect();
        let number = ws.get(at + 1).is_some_and(|n| {
            let n = &self.text[n.clone()];
            n.starts_with(|c: char| c.is_ascii_digit()) || cls.lower_in(&cls.words.numbers, n)
        });
        let plain = |w: &Range<usize>| {
            let t = &self.text[w.clone()];
            t.bytes().all(|b| b.is_ascii_alphabetic())
                && !cls.lower_in(&cls.words.determiners, t)
                && !cls.lower_in(&cls.words.non_subjects, t)
                && !cls.lower_in(&cls.words.auxiliaries, t)
                && !cls.lower_in(&cls.words.verbs, t)
                && !self.is_predicate(w.clone())
        };
        if at == 0 || !number || !ws[..at].iter().all(plain) || ws.len() > at + 5 {
            return None;
        }
        let target = cls.clean(self.text, ws[0].start..ws[at - 1].end, true);
        let value = cls.clean(self.text, ws[at + 1].start..span.end, false);
        (!target.is_empty() && !value.is_empty()).then(|| {
            let mut g = task_by_verb(
                task,
                Some(target.clone()),
                value,
                target,
                0..0,
                Found::Nominal,
            );
            g.description = cls.clean(self.text, span, false);
            g
        })
    }
}
