//! Rule 9 with rule 1: the first sentence that states a goal decides, and a report told by its
//! verb alone states one. A later sentence that only pleads for a look at it ("the dates come
//! out in the wrong format. Please can you check?") or adds another request to it ("... Also,
//! can you write a script to export them?") leaves the report first; the added request is
//! queued (`further_goals`), the plea is the report's own ask.

use super::*;

impl View<'_> {
    /// Whether `sentence` only pleads for attention to what was told before it: past its
    /// fillers and the words that address the assistant ("please can you"), and its trailing
    /// words, it is one of `pleas` ("check", "take a look", "look into it", "any idea why").
    pub(super) fn pleads(&self, sentence: Range<usize>) -> bool {
        let pleas = &self.cls.words.pleas;
        if pleas.is_empty() {
            return false;
        }
        let start = self.skip(sentence.start, |m| {
            matches!(m, Meaning::Filler | Meaning::Ack | Meaning::Intent)
        });
        if start >= sentence.end {
            return false;
        }
        let span = self.cls.clean(self.text, start..sentence.end, true);
        let mut said = String::new();
        for (i, w) in words(self.text, span).enumerate() {
            if i == 6 {
                return false;
            }
            if i > 0 {
                said.push(' ');
            }
            said.push_str(&self.text[w]);
        }
        self.cls.lower_in(pleas, &said)
    }

    /// The report an earlier sentence of `owns` tells by its verb alone, when the goal found
    /// in sentence `s` is a plea or is added by a sequencer ("also", "then", "separately").
    pub(super) fn report_before(
        &self,
        owns: &[Range<usize>],
        s: &Range<usize>,
    ) -> Option<(GoalLead, Range<usize>)> {
        let added = self
            .at(skip_soft(self.text, s.start), |m| m == Meaning::Sequencer)
            .is_some();
        if !added && !self.pleads(s.clone()) {
            return None;
        }
        // (Only a sentence holding a problem's word, looked for once: "our office is in
        // berlin. then could you book a room" tells where, "the invoice is attached. can you
        // check?" what was sent.)
        let reports: SmallVec<[&Range<usize>; 4]> = owns
            .iter()
            .take_while(|o| o.start < s.start)
            .filter(|o| {
                let first = self.hits.partition_point(|h| h.start() < o.start);
                self.hits[first..]
                    .iter()
                    .take_while(|h| h.start() < o.end)
                    .any(|h| self.meanings(*h).contains(&Meaning::Problem))
            })
            .collect();
        [Strength::Predicate, Strength::Suffix]
            .into_iter()
            .find_map(|strength| {
                reports.iter().find_map(|o| {
                    self.told((*o).clone(), strength, false)
                        .filter(|g| g.rule == Found::ProblemReport)
                        .map(|g| (g, (*o).clone()))
                })
            })
    }
}
