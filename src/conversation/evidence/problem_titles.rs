//! Rule 1 for titles that open with their problem ("Crash when opening the settings screen",
//! "Can't log in after ...").

use super::*;

impl View<'_> {
    /// Rule 1 for a title that opens with its problem and has no subject: a problem noun
    /// ("Crash when opening the settings screen", "Memory leak in the websocket loop", "slow
    /// queries on the reports page") or an inability ("Can't log in after ...", "Unable to
    /// upload files larger than 10MB"). The thing it names with a determiner or after "in"
    /// or "on" is the target; the title is the problem. A negation alone ("not sure",
    /// "no idea") opens none.
    pub(in crate::conversation) fn problem_title(&self, span: Range<usize>) -> Option<GoalLead> {
        let cls = self.cls;
        let task = cls.goal_index(GoalType::TaskExecution)?;
        if cls.goals[task].slots.len() < 2 || self.text[span.clone()].trim_end().ends_with('?') {
            return None;
        }
        let first = words(self.text, span.clone()).next()?;
        let word = self.text[first.clone()].to_ascii_lowercase();
        let unable =
            ["can't", "cant", "cannot", "unable", "couldn't", "couldnt"].contains(&word.as_str());
        let negation = [
            "not", "never", "no", "don't", "dont", "doesn't", "doesnt", "won't", "wont", "isn't",
            "isnt", "aren't", "didn't", "didnt", "wasn't", "wasnt", "weren't", "hasn't", "haven't",
        ]
        .contains(&word.as_str());
        let hit = self.at(first.start, |m| m == Meaning::Problem);
        if !(unable || (hit.is_some() && !negation && word.len() >= 4)) {
            return None;
        }
        // A phrase of the conversation ("no problem, go ahead") is no title.
        let from = self.hits.partition_point(|h| h.start() < span.start);
        if self.hits[from..]
            .iter()
            .take_while(|h| h.start() < span.end)
            .any(|h| {
                self.meanings(*h).iter().any(|m| match m {
                    Meaning::Signal(i) => matches!(
                        cls.signals[*i as usize].signal,
                        super::super::Signal::Approve
                            | super::super::Signal::Satisfied
                            | super::super::Signal::Cancel
                    ),
                    _ => false,
                })
            })
        {
            return None;
        }
        // At least three words, and no verb of its own after the problem ("crashes are
        // rare" is a sentence, not a title).
        let ws: SmallVec<[Range<usize>; 16]> = words(self.text, span.clone()).take(16).collect();
        if ws.len() < 3 || (!unable && ws[1..].iter().any(|w| self.is_predicate(w.clone()))) {
            return None;
        }
        let problem = cls.clean(self.text, span.clone(), false);
        let target = self.definite_thing(first.end..span.end);
        Some(report(
            task,
            target,
            problem.clone(),
            problem,
            first,
            Found::ProblemReport,
        ))
    }
}
