//! A clause that says its thing works ("timestamps look fine to me", rule 1) or when it is
//! ("parents evening is next week"): it rules a cause out or sets the scene, and reports
//! nothing.

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
                // (After a verb of how things went: "the speech went great".)
                let fine = |w: &Range<usize>| {
                    g.lead.start <= w.start
                        && cls.lower_in(&cls.words.fine_states, &self.text[w.clone()])
                };
                ws.next().is_some_and(|w| {
                    fine(&w) || self.is_predicate(w.clone()) && ws.next().is_some_and(|n| fine(&n))
                }) && ws.all(|w| {
                    cls.lower_in(&cls.words.times, &self.text[w.clone()])
                        || [
                            "to", "for", "me", "us", "so", "far", "now", "though", "tbh", "btw",
                            "again", "today", "overall", "too", "lol",
                        ]
                        .iter()
                        .any(|x| self.text[w.clone()].eq_ignore_ascii_case(x))
                })
            })
    }

    /// Whether a clause's report by a verb says when its thing is: after the auxiliaries ("is",
    /// "was") its problem opens with a word of `times` ("the recital is tomorrow"), or with
    /// "next", "this", "on" or "at" before one or a number ("parents evening is next week",
    /// "the party is on saturday", "my flight is at 6"). A time told that way sets the scene;
    /// a verb of doing before the time still reports ("the backup runs at 3am").
    pub(super) fn says_when(&self, g: &GoalLead) -> bool {
        let cls = self.cls;
        g.details
            .iter()
            .find(|d| d.slot == 1)
            .and_then(|d| d.spans.first())
            .is_some_and(|s| {
                let mut ws = words(self.text, s.clone());
                // (Only a form of "be" states when: "runs at 3am" is what a job does.)
                if !ws.next().is_some_and(|w| {
                    ["is", "are", "was", "were", "'s"]
                        .iter()
                        .any(|b| self.text[w.clone()].eq_ignore_ascii_case(b))
                }) {
                    return false;
                }
                let time = |w: &Range<usize>| cls.lower_in(&cls.words.times, &self.text[w.clone()]);
                match ws.next() {
                    Some(w) if time(&w) => true,
                    Some(w)
                        if ["next", "this", "on", "at"]
                            .iter()
                            .any(|x| self.text[w.clone()].eq_ignore_ascii_case(x)) =>
                    {
                        ws.next().is_some_and(|n| {
                            time(&n) || self.text[n].starts_with(|c: char| c.is_ascii_digit())
                        })
                    }
                    _ => false,
                }
            })
    }
}
