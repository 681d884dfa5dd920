//! A clause that says its thing works ("timestamps look fine to me", rule 1): it rules a
//! cause out and reports nothing.

use super::*;

impl View<'_> {
    /// Whether a clause's report by a verb (not by a problem word) says its thing works: its
    /// problem, after the auxiliaries, opens with a word of `fine_states` ("timestamps look fine to me", "the env vars seem
    /// ok"), ending the clause or followed only by whom it seems so to ("to me", "so far"):
    /// "the totals are correct only on page one" and "green on my machine and red in github
    /// actions" report. Such a clause rules a cause out; it reports nothing.
    pub(super) fn says_fine(&self, g: &GoalLead) -> bool {
        let cls = self.cls;
        g.details
            .iter()
            .find(|d| d.slot == 1)
            .and_then(|d| d.spans.first())
            .is_some_and(|s| {
                let mut ws = words(self.text, s.clone())
                    .skip_while(|w| cls.lower_in(&cls.words.auxiliaries, &self.text[w.clone()]));
                ws.next().is_some_and(|w| {
                    g.lead.start <= w.start && cls.lower_in(&cls.words.fine_states, &self.text[w])
                }) && ws.all(|w| {
                    ["to", "for", "me", "us", "so", "far", "now", "though", "tbh"]
                        .iter()
                        .any(|x| self.text[w.clone()].eq_ignore_ascii_case(x))
                })
            })
    }
}
