//! Rule 9 for a question: the user's context, a comma, then a question of the user's own ("I
//! only have one egg, can I use applesauce for the other one", "the list has 40k rows, how do
//! i dedupe it fast"): the question after the comma is the goal.

use super::*;

/// Openers of a question of the user's own: a modal or a question word, then its subject.
const ASKS: [&str; 16] = [
    "can i",
    "could i",
    "should i",
    "do i",
    "how do i",
    "how can i",
    "how should i",
    "is it",
    "is there",
    "what's the",
    "whats the",
    "what is the",
    "why does",
    "why is",
    "any way to",
    "what should i",
];

impl View<'_> {
    /// The question after a comma in `span`, when the words before it state no goal and the
    /// clause after it opens with a question of the user's own. Looked at up to the sentence's
    /// fourth comma.
    pub(super) fn question_after_comma(&self, span: Range<usize>) -> Option<GoalLead> {
        let mut from = span.start;
        for _ in 0..4 {
            let c = memchr::memchr(b',', &self.text.as_bytes()[from..span.end])?;
            let comma = from + c;
            from = comma + 1;
            // (Context first: at least three words of it.)
            if count_words(&self.text[span.start..comma]) < 3 {
                continue;
            }
            let after = skip_soft(self.text, comma + 1);
            let rest = &self.text[after.min(span.end)..span.end];
            let opens = ASKS.iter().any(|a| {
                rest.get(..a.len())
                    .is_some_and(|r| r.eq_ignore_ascii_case(a))
                    && rest[a.len()..].starts_with(' ')
            });
            // (A problem before it makes the question ask for its fix, a task: "the nightly
            // job sometimes runs twice, how do I stop that?".)
            if !opens || self.reports_before(span.start..comma) {
                continue;
            }
            return self
                .statement(after..span.end, false)
                .filter(|g| self.cls.goals[g.goal].goal_type == GoalType::QuestionAnswer);
        }
        None
    }

    /// Whether `span` holds a problem's word or reads as a problem report by its verb.
    fn reports_before(&self, span: Range<usize>) -> bool {
        let first = self.hits.partition_point(|h| h.start() < span.start);
        self.hits[first..]
            .iter()
            .take_while(|h| h.start() < span.end)
            .any(|h| self.meanings(*h).contains(&Meaning::Problem))
            || self
                .evidence(span, Strength::Predicate)
                .is_some_and(|g| g.rule == Found::ProblemReport)
    }
}
