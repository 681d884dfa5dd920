//! Rule 14's bound: a question's follow-up in its own sentence is part of it, no second goal.
//! After a question that compares ("What's the difference between String and &str, and when
//! should a function take one vs the other?"), a question that picks among what it compares
//! (`choices`: "one", "other", "each", "which" ...) asks the same; and a question that is the
//! last of a list of aspects ("compare duckdb and polars - speed, memory use, and how painful
//! moving off pandas would be") is one of them.

use super::*;

impl View<'_> {
    /// Whether the question `next`, starting a further statement at `f` after the question or
    /// exploration `first` in the same sentence, is part of `first`.
    pub(super) fn follows_up(&self, first: &GoalLead, next: &GoalLead, f: &Further) -> bool {
        let cls = self.cls;
        let asks = |g: &GoalLead| {
            matches!(
                cls.goals[g.goal].goal_type,
                GoalType::QuestionAnswer | GoalType::Exploration
            )
        };
        if !asks(first)
            || cls.goals[next.goal].goal_type != GoalType::QuestionAnswer
            || cls.words.choices.is_empty()
        {
            return false;
        }
        let any_of = |span: Range<usize>, set: &Words| {
            words(self.text, span)
                .take(32)
                .any(|w| cls.lower_in(set, &self.text[w]))
        };
        // (The things compared: "between", "vs", "compare" ... in the first question.)
        let compares = any_of(first.lead.start..f.cut, &cls.words.compared)
            || any_of(first.description.clone(), &cls.words.compared);
        if compares
            && any_of(
                f.next..next.description.end.max(next.lead.end),
                &cls.words.choices,
            )
        {
            return true;
        }
        // (Two commas or more before it, the last right before "and", after a dash or a colon
        // that opens the list: a list's last item. "which laptop is lighter, the air or the
        // xps, and where can i buy it" asks apart.)
        let between = &self.text[first.lead.end..f.next];
        let opened = between.find([':', '-', '\u{2013}', '\u{2014}']);
        opened.is_some_and(|o| between[o..].bytes().filter(|b| *b == b',').count() >= 2)
            && between
                .trim_end()
                .strip_suffix("and")
                .is_some_and(|b| b.trim_end().ends_with(','))
    }
}
