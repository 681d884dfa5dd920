//! A setting written as a label and its value, with no verb ("log level: debug", rule 3).

use super::*;

impl View<'_> {
    /// A label and a short value with no verb ("log level: debug"): a setting, target the
    /// label, desired change the value.
    pub(in crate::conversation) fn labelled_value(
        &self,
        label: Range<usize>,
        value: Range<usize>,
    ) -> Option<GoalLead> {
        let cls = self.cls;
        let target = cls.clean(self.text, label, true);
        let change = cls.clean(self.text, value, true);
        let verb = |w: &Range<usize>| {
            self.is_predicate(w.clone())
                || cls.lower_in(&cls.words.auxiliaries, &self.text[w.clone()])
                || self
                    .at(w.start, |m| {
                        matches!(m, Meaning::Lead(_) | Meaning::Problem)
                    })
                    .is_some()
        };
        let task = cls.goal_index(GoalType::TaskExecution)?;
        // (A value that is a sentence is none: "iOS: keyboard covers the message input".)
        if target.is_empty()
            || change.is_empty()
            || count_words(&self.text[change.clone()]) > 5
            || words(self.text, change.clone()).any(|w| verb(&w))
            || words(self.text, change.clone())
                .collect::<SmallVec<[Range<usize>; 8]>>()
                .windows(2)
                .any(|p| {
                    // A verb in -s before its object: "covers the message input".
                    let w = self.text[p[0].clone()].to_ascii_lowercase();
                    w.len() >= 4
                        && w.ends_with('s')
                        && !w.ends_with("ss")
                        && cls.lower_in(&cls.words.determiners, &self.text[p[1].clone()])
                })
            || cls.goals[task].slots.len() < 2
        {
            return None;
        }
        Some(GoalLead {
            goal: task,
            description: target.clone(),
            lead: target.start..target.start,
            wrapper: 0..0,
            rule: Found::Nominal,
            details: SmallVec::from_iter([detail(0, target), detail(1, change)]),
        })
    }
}
