//! A context of the user's before a colon, then a request opened by a lead ("got this in a
//! phone screen last week and totally blanked: design a data structure that ..."): the request
//! after the colon.

use super::*;

impl View<'_> {
    /// The request a lead opens after a colon in `span`, when the words before the colon are
    /// the user's context (more than six, no introducer, not a line saying what something
    /// says).
    pub(super) fn colon_context(&self, span: Range<usize>) -> Option<GoalLead> {
        let c = memchr::memchr(b':', self.text[span.clone()].as_bytes())?;
        let colon = span.start + c;
        // (A label naming a thing is no context: "airflow DAG for sales: add ..."; nor
        // is a line introducing what something says, "the popup keeps saying this:
        // remove items to continue".)
        let first = self.hits.partition_point(|h| h.start() < span.start);
        if self.text.as_bytes().get(colon + 1) != Some(&b' ')
            || count_words(&self.text[span.start..colon]) <= 6
            || self.hits[first..]
                .iter()
                .take_while(|h| h.start() < colon)
                .any(|h| self.meanings(*h).contains(&Meaning::Introducer))
            || words(self.text, span.start..colon).last().is_some_and(|w| {
                ["this", "is", "says", "said", "reads", "message"]
                    .iter()
                    .any(|x| self.text[w.clone()].eq_ignore_ascii_case(x))
            })
        {
            return None;
        }
        let after = skip_soft(self.text, colon + 1);
        (after < span.end)
            .then(|| self.statement(after..span.end, false))
            .flatten()
            .filter(|g| g.rule == Found::Lead)
    }
}
