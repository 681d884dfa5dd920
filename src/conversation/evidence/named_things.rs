//! Rule 1 around a pasted error: the component the user names in their own words beside it
//! ("spark job on the cluster:", "it's a vite app", "when I open the profile page").

use super::*;

impl View<'_> {
    /// Rule 1: the component the user names around a pasted error, in the first line of their
    /// own words that names one. A line that opens with a thing names it ("spark job on the
    /// cluster:", "report service, after ~2h uptime"); one that opens otherwise names the
    /// thing it calls by a definite determiner ("when I open the profile page", "getting this
    /// all over my cleaning notebook").
    pub(in crate::conversation) fn named_thing(
        &self,
        errors: &[Range<usize>],
    ) -> Option<Range<usize>> {
        let cls = self.cls;
        let own = |s: &Range<usize>| !errors.iter().any(|e| e.start <= s.start && s.end <= e.end);
        // "it's a vite app", "this is a django project": the kind of thing it happens in.
        let kind = sentences(self.text).filter(own).take(8).find_map(|s| {
            let t = self.text[s.clone()].to_ascii_lowercase();
            let skip = [
                "it's a ",
                "it is a ",
                "its a ",
                "this is a ",
                "it's an ",
                "this is an ",
            ]
            .iter()
            .find(|p| t.starts_with(**p))?
            .len();
            self.thing(s.start + skip..s.end, false)
        });
        if kind.is_some() {
            return kind;
        }
        sentences(self.text).filter(own).take(8).find_map(|s| {
            // (A plea for a look names nothing: "any idea why??" under a trace; nor does a
            // compiler's numbered source line, "40 |     let slot = inventory.first_free();".)
            let line = self.text[s.clone()].trim_start();
            let digits = line.bytes().take_while(u8::is_ascii_digit).count();
            if self.pleads(s.clone()) || digits > 0 && line[digits..].trim_start().starts_with('|')
            {
                return None;
            }
            let start = self.skip(s.start, |m| matches!(m, Meaning::Filler | Meaning::Ack));
            let span = start..s.end;
            // A command or a name the user quotes in backticks is what they ran or what failed
            // ("fresh clone, `npm test` gives"): a short one, on one line.
            if let Some(quoted) = pastes::backticked(self.text, span.clone()) {
                return Some(quoted);
            }
            let first = words(self.text, span.clone()).next()?;
            let word = &self.text[first.clone()];
            let lower = word.to_ascii_lowercase();
            // An adverb opens no thing ("only on the nightly job").
            let adverb = lower.ends_with("ly")
                || ["just", "also", "even", "still", "again"].contains(&lower.as_str());
            let opens_with_thing = word.chars().next().is_some_and(char::is_alphanumeric)
                && !lower.ends_with("ing")
                && !adverb
                && !cls.lower_in(&cls.words.non_subjects, word)
                && !cls.lower_in(&cls.words.auxiliaries, word)
                && !cls.lower_in(&cls.words.ends, word)
                && !cls.lower_in(&cls.words.verbs, word)
                && !self.is_predicate(first.clone())
                && !PLACES.iter().any(|p| word.eq_ignore_ascii_case(p))
                // (A lead word may name a thing: "report service", "deploy job".)
                && self
                    .at(first.start, |m| !matches!(m, Meaning::Lead(_)))
                    .is_none();
            if opens_with_thing {
                let t = self
                    .thing(span.clone(), false)
                    .filter(|t| !self.text[t.clone()].contains(['/', '\\', '=']))?;
                // A thing that is the problem ("hydration error on the blog page") leaves the
                // place it happens to be the target.
                let problem = words(self.text, t.clone()).any(|w| {
                    self.at(w.start, |m| {
                        matches!(m, Meaning::Problem | Meaning::ErrorMarker)
                    })
                    .is_some()
                        || ["error", "errors", "warning", "failure"]
                            .iter()
                            .any(|e| self.text[w.clone()].eq_ignore_ascii_case(e))
                });
                if problem {
                    self.definite_named(span).or(Some(t))
                } else {
                    Some(t)
                }
            } else {
                // (In the first clause: what follows a comma is a remark, "getting this in
                // cell 14 of the retention notebook, the column is definitely in the csv".)
                let span = match self.text[span.clone()].find(", ") {
                    Some(c) if c > 0 => span.start..span.start + c,
                    _ => span,
                };
                // (A route named is the thing: "getting this on every request to /orders".)
                pastes::route(self.text, span.clone())
                    .or_else(|| self.definite_named(span))
                    .or_else(|| self.last_object(s))
            }
        })
    }
}
