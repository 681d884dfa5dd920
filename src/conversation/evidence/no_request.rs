//! What a phrase with no verb opens with when it asks for nothing (rule 2's noun-phrase
//! requests, `nominal.rs`): a word saying a thing works, a place alone, a farewell, a
//! condition or a time.

use super::*;

impl View<'_> {
    /// Whether the phrase `span` (past its wishes' opening words) opens the way no request
    /// does: "fixed on the nightly build", "on my Pixel 7", "logging off for the weekend",
    /// "After updating WooCommerce to 8.9 the shipping rates show $0.00".
    pub(super) fn opens_no_request(&self, span: Range<usize>) -> bool {
        let cls = self.cls;
        let start = span.start;
        // A word saying a thing works: "fixed on the nightly build" tells, asks nothing.
        if words(self.text, span.clone())
            .next()
            .is_some_and(|w| cls.lower_in(&cls.words.fine_states, &self.text[w]))
        {
            return true;
        }
        // A place alone, after an agreement: "+1, seeing the same on my Pixel 7".
        if words(self.text, span.clone()).next().is_some_and(|w| {
            ["on", "in", "at"]
                .iter()
                .any(|p| self.text[w.clone()].eq_ignore_ascii_case(p))
        }) && count_words(&self.text[span.clone()]) <= 4
        {
            return true;
        }
        // A farewell: "logging off for the weekend" is the user leaving.
        if self
            .at(start, |m| {
                matches!(m, Meaning::Signal(i)
                    if cls.signals[i as usize].signal == crate::conversation::Signal::Farewell)
            })
            .is_some()
        {
            return true;
        }
        // A condition or a time: "After updating WooCommerce to 8.9 the shipping rates show
        // $0.00" tells when.
        if let Some(w) = words(self.text, span.clone()).next()
            && CONDITIONS
                .iter()
                .any(|c| self.text[w.clone()].eq_ignore_ascii_case(c))
        {
            return true;
        }
        false
    }
}
