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
                let is = |w: &Range<usize>, list: &[&str]| {
                    list.iter()
                        .any(|x| self.text[w.clone()].eq_ignore_ascii_case(x))
                };
                let rest: SmallVec<[Range<usize>; 6]> = ws.by_ref().skip(1).take(6).collect();
                words(self.text, s.clone())
                    .find(|w| !cls.lower_in(&cls.words.auxiliaries, &self.text[w.clone()]))
                    .is_some_and(|w| {
                        g.lead.start <= w.start
                            && cls.lower_in(&cls.words.fine_states, &self.text[w])
                    })
                    && (rest.iter().all(|w| {
                        is(w, &["to", "for", "me", "us", "so", "far", "now", "though", "tbh"])
                    })
                    // (Or where and since when, in a few words: "fixed in 1.4.2", "resolved
                    // on staging".)
                    || rest.len() <= 4
                        && rest.first().is_some_and(|w| is(w, &["in", "on", "since", "as", "with"])))
            })
    }
}
