//! Rule 1 for how long a thing takes: "it takes about 30 seconds to load the dashboard",
//! "Takes forever to open a large project".

use super::*;

/// Words that say a wait is long, between "takes" and "to".
const LONG: [&str; 12] = [
    "forever", "ages", "long", "while", "seconds", "minutes", "hours", "sec", "secs", "mins",
    "min", "eternity",
];

impl View<'_> {
    /// Rule 1: a sentence that opens with "it takes" (or "takes", "it took", "it's taking"), a
    /// long wait (a word of `LONG`: "about 30 seconds", "forever"; "2 clicks" is none) and "to"
    /// with a verb reports a slowness: the
    /// problem is the sentence from "takes", the target the thing after the verb.
    pub(in crate::conversation) fn takes_long(&self, span: Range<usize>) -> Option<GoalLead> {
        let cls = self.cls;
        let task = cls.goal_index(GoalType::TaskExecution)?;
        if cls.goals[task].slots.len() < 2 || self.text[span.end..].starts_with('?') {
            return None;
        }
        let ws: SmallVec<[Range<usize>; 12]> = words(self.text, span.clone()).take(12).collect();
        let is = |w: &Range<usize>, list: &[&str]| self.word_in(w, list);
        // "takes" first, after "it", "it's" or "it is".
        let at = ws
            .iter()
            .take(3)
            .position(|w| is(w, &["takes", "took", "taking"]))?;
        if !(at == 0
            || is(&ws[0], &["it", "it's", "its"]) && (at == 1 || at == 2 && is(&ws[1], &["is"])))
        {
            return None;
        }
        let to = at + 1 + ws[at + 1..].iter().take(6).position(|w| is(w, &["to"]))?;
        let long = ws[at + 1..to].iter().any(|w| is(w, &LONG));
        let verb = ws.get(to + 1)?;
        if !long {
            return None;
        }
        let target = words(self.text, verb.end..span.end)
            .next()
            .and_then(|n| self.thing(n.start..span.end, true));
        let problem = cls.clean(self.text, ws[at].start..span.end, false);
        Some(report(
            task,
            target,
            problem.clone(),
            problem,
            ws[at].clone(),
            Found::ProblemReport,
        ))
    }
}
