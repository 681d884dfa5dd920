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
        // (A verb's form before a noun is its adjective: "Fixed header when scrolling".)
        let mut ws = words(self.text, span.clone());
        if ws.next().is_some_and(|w| {
            let t = self.text[w].to_ascii_lowercase();
            cls.lower_in(&cls.words.fine_states, &t)
                && (!(t.ends_with("ed") || t.ends_with("ing"))
                    || ws.next().is_none_or(|n| {
                        let n = &self.text[n];
                        PLACES.iter().any(|p| n.eq_ignore_ascii_case(p))
                            || cls.lower_in(&cls.words.times, n)
                            || [
                                "now", "already", "again", "upstream", "thanks", "by", "with",
                            ]
                            .iter()
                            .any(|x| n.eq_ignore_ascii_case(x))
                    }))
        }) {
            return true;
        }
        // A verb of how a thing behaves, in its -s or -ed form with the subject left out,
        // before a word of `fine_states`: "Works fine in Chrome", "runs ok on linux", "loaded
        // perfectly yesterday" tell that the thing named before is fine. (A condition or an
        // exception after it reports: "works fine until I open settings".)
        let mut ws = words(self.text, span.clone());
        if let (Some(v), Some(f)) = (ws.next(), ws.next()) {
            let v = self.text[v].to_ascii_lowercase();
            let plain = |b: Option<&str>| b.is_some_and(|b| cls.lower_in(&cls.words.verbs, b));
            // (Alone in its sentence: "Works fine in Chrome, breaks in Safari" reports.)
            let rest = &self.text[span.clone()];
            if (plain(v.strip_suffix('s'))
                || plain(v.strip_suffix("ed"))
                || plain(v.strip_suffix('d')))
                && cls.lower_in(&cls.words.fine_states, &self.text[f])
                && !rest.contains([',', ';', '—', '–'])
                && !rest.contains(" - ")
                && !ws.any(|w| {
                    let w = &self.text[w];
                    CONDITIONS.iter().any(|c| w.eq_ignore_ascii_case(c))
                        || [
                            "but", "except", "only", "unless", "whereas", "yet", "while", "so",
                            "though", "then", "now", "and",
                        ]
                        .iter()
                        .any(|c| w.eq_ignore_ascii_case(c))
                })
            {
                return true;
            }
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
        // A feeling with its degree: "super annoying on my commute", "really frustrating tbh".
        let mut ws = words(self.text, span.clone());
        if let (Some(d), Some(a)) = (ws.next(), ws.next())
            && (DEGREES
                .iter()
                .any(|x| self.text[d.clone()].eq_ignore_ascii_case(x))
                || self.text[d].eq_ignore_ascii_case("really"))
            && self.text[a].to_ascii_lowercase().ends_with("ing")
            // (Not one with an object: "Really missing a way to bulk rename files".)
            && ws.next().is_none_or(|n| {
                !cls.lower_in(&cls.words.determiners, &self.text[n.clone()])
                    && !cls.is_pronoun(&self.text[n])
            })
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
