//! Reported speech (rule 1): what a person is said to have said is about the thing it names
//! ("Priya says the csv export cuts off at 10k rows" reports the export).

use super::*;

impl View<'_> {
    /// Where the words a person is said to have said start, when `span` opens with that
    /// person and a verb of `reporting_verbs` ("Priya says the csv export cuts off", "my
    /// manager said that ...", "QA noticed the modal ...", "support told me ..."): one to
    /// three words whose last is a word of `people`, a pronoun of a person or a capitalized
    /// name, the verb, then "me" or "us" and "that" if they follow; at least three words must
    /// be left. (A thing's output is no speech: "the log says permission denied".)
    pub(super) fn reported_speech(&self, span: Range<usize>) -> Option<usize> {
        let cls = self.cls;
        // (Most clauses have none: the first four words are looked at before any is kept, and
        // only words ending as those verbs do, in "s" or "d", are looked up.)
        let v = words(self.text, span.clone()).take(4).position(|w| {
            let t = &self.text[w];
            t.ends_with(['s', 'd', 'S', 'D']) && cls.lower_in(&cls.words.reporting_verbs, t)
        })?;
        let ws: SmallVec<[Range<usize>; 8]> = words(self.text, span.clone()).take(8).collect();
        let sayer = ws.get(v.checked_sub(1)?)?;
        let said = &self.text[sayer.clone()];
        let person = cls.lower_in(&cls.words.people, said)
            || ["he", "she", "they", "someone", "somebody"]
                .iter()
                .any(|p| said.eq_ignore_ascii_case(p))
            || v == 1
                && said.starts_with(|c: char| c.is_ascii_uppercase())
                && said.chars().all(|c| c.is_alphabetic())
                && self.at(sayer.start, |_| true).is_none();
        if !person || self.text[span.start..ws[v].start].contains([',', ';', ':']) {
            return None;
        }
        let mut k = v + 1;
        for skip in [["me", "us"].as_slice(), ["that"].as_slice()] {
            if ws.get(k).is_some_and(|w| {
                skip.iter()
                    .any(|s| self.text[w.clone()].eq_ignore_ascii_case(s))
            }) {
                k += 1;
            }
        }
        (ws.len() >= k + 3).then(|| ws[k].start)
    }
}
