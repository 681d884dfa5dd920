//! The last touches on a found goal's target, once the passes of `read_goals` have chosen it: a
//! demonstrative replaced by the thing the user names as theirs (rule 5 with rule 1), the thing
//! a request to allow something is about, and the place or owner that follows a target.

use super::*;

impl View<'_> {
    /// Settles the target of `goal`, found in `sentence`.
    pub(super) fn settle_target(&self, goal: &mut GoalLead, sentence: Range<usize>) {
        // Rule 5 with rule 1: a demonstrative points at something the user then names as
        // theirs ("help me debug this? getting TypeError ... in my react component"): the
        // name is the target.
        if let Some(d) = goal.details.iter_mut().find(|d| d.slot == 0)
            && d.spans.len() == 1
            && ["this", "that", "these", "those"]
                .iter()
                .any(|w| self.text[d.spans[0].clone()].eq_ignore_ascii_case(w))
            && let Some(named) = self.possessed_thing(
                sentence.end
                    ..self.text[sentence.end..]
                        .find('\n')
                        .map_or(self.text.len(), |p| sentence.end + p),
            )
        {
            d.spans = SmallVec::from_iter([named]);
        }
        // A request to allow something that names no thing (and no label named one) is about
        // whom it lets do it or what the doing is done to ("allow guests to check out",
        // "allow exporting invoices as PDF").
        if self.cls.goals[goal.goal].goal_type == GoalType::TaskExecution
            && !goal.details.iter().any(|d| d.slot == 0)
            && self
                .at(goal.lead.start, |m| {
                    matches!(m, Meaning::Lead(id)
                        if self.cls.leads[id as usize].change == ChangeMode::Phrase)
                })
                .is_some()
            && self.definite_thing(goal.lead.end..sentence.end).is_none()
            && let Some(t) = self.allowed_thing(goal.lead.end..sentence.end)
        {
            goal.details.insert(0, detail(0, t));
        }
        // A target keeps the place or owner that follows it ("the node version in CI", "the
        // brightness on the hallway lights"), unless another value starts there.
        // (Not the thing an exchange replaces: "swap requests for httpx".)
        if self.cls.goals[goal.goal].goal_type == GoalType::TaskExecution
            && self
                .at(goal.lead.start, |m| {
                    matches!(m, Meaning::Lead(id)
                        if self.cls.leads[id as usize].change == ChangeMode::Exchange)
                })
                .is_none()
            && let Some(i) = goal.details.iter().position(|d| d.slot == 0)
            && let [t] = goal.details[i].spans.as_slice()
        {
            // (A dot inside a word ends nothing: "in deploy/cron.yaml".)
            let rest = &self.text[t.end..];
            let line_end = rest
                .char_indices()
                .find(|&(p, c)| {
                    matches!(c, '\n' | ',' | ';' | '?' | '!')
                        || c == '.' && rest[p + 1..].chars().next().is_none_or(char::is_whitespace)
                })
                .map_or(self.text.len(), |(p, _)| t.end + p);
            let end = goal
                .details
                .iter()
                .flat_map(|d| d.spans.iter())
                .filter(|s| s.start >= t.end)
                .map(|s| s.start)
                .fold(line_end.min(sentence.end.max(t.end)), usize::min);
            let wider = self.with_modifier(t.clone(), end);
            goal.details[i].spans[0] = wider;
        }
    }
}
