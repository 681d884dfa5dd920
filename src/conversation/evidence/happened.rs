//! Rule 1 for a title whose copula is left out: what happened to its thing ("Recurring invoices
//! created twice on the 1st").

use super::*;

impl View<'_> {
    /// Whether a phrase tells what happened to its thing, its copula left out as a title
    /// leaves it: a noun phrase of one to four words, then a verb in -ed and how it happened
    /// ("twice", "again", "with ...", "by ...") or nothing ("Recurring invoices created twice
    /// on the 1st", "Job killed with exit code 137", "Orders duplicated"). No request.
    pub(super) fn tells_happened(&self, ws: &[Range<usize>]) -> bool {
        let cls = self.cls;
        // (The verb in -ed is looked for by its bytes first: most phrases hold none.)
        let Some(i) = ws.iter().take(5).skip(1).position(|w| {
            let t = self.text[w.clone()].as_bytes();
            t.len() >= 5
                && t[t.len() - 2..].eq_ignore_ascii_case(b"ed")
                && t.iter().all(u8::is_ascii_alphabetic)
        }) else {
            return false;
        };
        let i = i + 1;
        let how = ws.get(i + 1).is_none_or(|n| {
            let n = &self.text[n.clone()];
            PARTICLES
                .iter()
                .chain(WHEN.iter())
                .chain(["with", "without", "by", "during", "mid"].iter())
                .any(|x| n.eq_ignore_ascii_case(x))
        });
        how && !cls.lower_in(&cls.words.fine_states, &self.text[ws[i].clone()])
            && ws[..i].iter().all(|w| {
                let t = &self.text[w.clone()];
                t.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
                    && !cls.lower_in(&cls.words.determiners, t)
                    && !cls.lower_in(&cls.words.non_subjects, t)
                    && !cls.lower_in(&cls.words.auxiliaries, t)
                    && !PLACES.iter().any(|p| t.eq_ignore_ascii_case(p))
                    // (A problem named before it is what the verb describes: "login bug
                    // introduced yesterday".)
                    && self.at(w.start, |m| matches!(m, Meaning::Problem)).is_none()
            })
    }
}
