//! Rule 10 for an artifact: its kind in the request's object, and what follows the kind as
//! its requirements.

use super::*;

impl View<'_> {
    /// An artifact's kind (the vocabulary's kind of slot `kind_slot` in the object's noun
    /// phrase, or the noun phrase when it names a thing) and what follows it as a purpose
    /// (`that`, `which`, `to`, `so`) or a description (`for`, `with`).
    pub(super) fn artifact_details(
        &self,
        kind_slot: usize,
        object: Range<usize>,
    ) -> SmallVec<[Detail; 2]> {
        let cls = self.cls;
        let mut out = SmallVec::new();
        let text = &self.text[object.clone()];
        let np = noun_phrase(text, &cls.noun_phrase_ends);
        // (A call's arguments are neither the kind nor its parts: "a function
        // nextShipDate(orderedAt, cutoffHour, holidays) that returns ...", "debounce(fn,
        // wait) in plain JavaScript": what follows the thing starts after the bracket.)
        let call = np
            .rfind('(')
            .filter(|&o| {
                o > 0 && np.as_bytes()[o - 1].is_ascii_alphanumeric() && !np[o..].contains(')')
            })
            .and_then(|o| text[o..].find(')').map(|c| (o, object.start + o + c + 1)));
        let np = call.map_or(np, |(o, _)| &np[..o]);
        let np_span = object.start..object.start + np.len();
        // The vocabulary's kind, else the noun phrase when it names a thing (not
        // "something", "stuff").
        let kind = match cls.extract(np, kind_slot) {
            // The whole noun phrase when it is short and ends with the kind ("status
            // page", "Grafana dashboard"), else the kind.
            Some(r) if r.end == np.trim_end().len() && count_words(np) <= 4 => {
                cls.clean(self.text, np_span.clone(), true)
            }
            // (A longer one keeps its last three words: "a 4 week beginner running
            // plan" is a "beginner running plan".)
            Some(r) if r.end == np.trim_end().len() && count_words(&np[..r.start]) <= 8 => {
                let ws: SmallVec<[Range<usize>; 8]> = words(self.text, np_span.clone()).collect();
                let from = ws[ws.len().saturating_sub(3)].start;
                cls.clean(self.text, from..np_span.end, true)
            }
            // (A kind before a noun or two of its own names what the thing is for:
            // "a reminder sms flow", "a dashboard widget".)
            Some(r)
                if count_words(np) <= 4
                    && (1..=2).contains(&count_words(&np[r.end..]))
                    && words(self.text, object.start + r.end..np_span.end).all(|w| {
                        let t = &self.text[w.clone()];
                        let l = t.to_ascii_lowercase();
                        t.bytes().all(|b| b.is_ascii_alphabetic())
                            && !l.ends_with("ing")
                            && !l.ends_with("ed")
                            && !l.ends_with("ly")
                            && !cls.lower_in(&cls.words.times, &l)
                            && !WHEN.contains(&l.as_str())
                            && l != "now"
                            && !cls.lower_in(&cls.words.determiners, t)
                            && !cls.lower_in(&cls.words.non_subjects, t)
                            && !cls.lower_in(&cls.words.auxiliaries, t)
                            && !cls.lower_in(&cls.words.verbs, t)
                            && !self.is_predicate(w.clone())
                    }) =>
            {
                cls.clean(self.text, np_span.clone(), true)
            }
            Some(r) => object.start + r.start..object.start + r.end,
            None => {
                let span = cls.clean(self.text, np_span.clone(), true);
                let vague = words(self.text, span.clone())
                    .next()
                    .is_none_or(|w| cls.lower_in(&cls.words.non_subjects, &self.text[w]));
                if vague { span.start..span.start } else { span }
            }
        };
        // (A kind inside a longer noun phrase is followed by what describes it: "a
        // message announcing the new rotation".)
        let scan_from = if let Some((_, close)) = call {
            close
        } else if kind.end > np_span.start && kind.end < np_span.end {
            kind.end
        } else {
            np_span.end
        };
        if !kind.is_empty() && count_words(&self.text[kind.clone()]) <= 5 {
            out.push(detail(0, kind));
        }
        // (A comma right after the kind opens its parts: "a landing page, hero plus a
        // pricing table".)
        let parts_after_comma = self.text[scan_from..object.end]
            .strip_prefix(',')
            .filter(|after| count_words(after) >= 2)
            .map(|_| scan_from + 1);
        // What follows the kind: skip technologies ("in Python") to a connector.
        let mut keep = None;
        // (Up to a colon: what follows it is the parts, whatever words they hold, "a
        // star rating component: 5 stars, half stars, and a read-only mode".)
        let colon = self.text[scan_from..object.end]
            .find(": ")
            .map_or(object.end, |c| scan_from + c);
        for w in words(self.text, scan_from..colon) {
            let word = &self.text[w.clone()];
            let is = |c: &str| word.eq_ignore_ascii_case(c);
            // "a newsletter announcing our spring sale": a participle describes it.
            if word.len() > 5 && word.to_ascii_lowercase().ends_with("ing") {
                keep = Some(w.start);
                break;
            }
            if [
                "that", "which", "who", "to", "so", "where", "that's", "thats",
            ]
            .iter()
            .any(|c| is(c))
            {
                // (Before a noun phrase "to" names whom or where the thing goes,
                // no purpose: it stays, "an email to my landlord saying ...", "a
                // reply to our supplier".)
                let whom = is("to")
                    && words(self.text, w.end..colon).next().is_some_and(|n| {
                        let n = &self.text[n];
                        cls.lower_in(&cls.words.determiners, n)
                            && !n.eq_ignore_ascii_case("that")
                            && !n.eq_ignore_ascii_case("this")
                    });
                let from = if whom {
                    w.start
                } else if is("so") {
                    let rest = &self.text[w.end..object.end];
                    let t = rest.trim_start();
                    w.end
                        + (rest.len() - t.len())
                        + if t.len() >= 4 && t.as_bytes()[..4].eq_ignore_ascii_case(b"that") {
                            4
                        } else {
                            0
                        }
                } else {
                    w.end
                };
                keep = Some(from);
                break;
            }
            if DESCRIBERS.iter().any(|c| is(c)) {
                keep = Some(w.start);
                break;
            }
        }
        // ("an onboarding flow: welcome screen, profile step and a short tour": its
        // parts after a colon.)
        // (Or after a dash that follows a polite word: "excel formula pls - last non
        // empty value in row 5"; "a logo - not sure what style yet" gives none.)
        let keep = keep.or_else(|| {
            let rest = &self.text[scan_from..object.end];
            if let Some(c) = rest.find(": ") {
                return Some(scan_from + c + 2);
            }
            // (A dash between spaces, found by its character.)
            let (c, dash) = rest
                .match_indices(['-', '\u{2014}', '\u{2013}'])
                .find(|(c, d)| rest[..*c].ends_with(' ') && rest[c + d.len()..].starts_with(' '))?;
            let before = rest[..c].trim_end();
            cls.trailing
                .iter()
                .any(|t| ends_with_word(before, t))
                .then_some(scan_from + c + dash.len() + 1)
        });
        let keep = parts_after_comma.or(keep);
        if let Some(from) = keep {
            // (What a clause before a colon says is the requirement, what follows
            // the colon its details: "a web app that lets a group split a bill:
            // everyone enters their items, ..."; after a means the colon opens it:
            // "a script in bash, using only coreutils: compress files older than 7
            // days".)
            // (After a describer a short list after the colon is part of it: "prettier
            // config for a monorepo: 100 char lines, trailing commas"; so is what a clause
            // points at or leads up to, `View::points_at_colon`.)
            let (from, end) = match self.text[from..object.end].find(": ") {
                Some(c) if from < colon => {
                    let opener = words(self.text, from..object.end).next();
                    let is_in = |list: &[&str]| {
                        opener.clone().is_some_and(|w| {
                            list.iter()
                                .any(|x| self.text[w.clone()].eq_ignore_ascii_case(x))
                        })
                    };
                    if opener
                        .clone()
                        .is_some_and(|w| cls.lower_in(&cls.words.means, &self.text[w]))
                    {
                        (from + c + 2, object.end)
                    } else if count_words(&self.text[from..from + c]) >= 3
                        && (!is_in(&DESCRIBERS)
                            || count_words(&self.text[from + c..object.end]) > 8)
                        && !self.points_at_colon(from..from + c)
                    {
                        (from, from + c)
                    } else {
                        (from, object.end)
                    }
                }
                _ => (from, object.end),
            };
            let req = cls.clean(self.text, from..end, false);
            if !req.is_empty() {
                out.push(detail(1, req));
            }
        }
        out
    }

    /// Whether a clause before a colon points at what follows it or leads up to it, so that
    /// the colon's list is what the clause says: a pointer among its last three words ("does
    /// the following:", "like this:", "with this structure:") or a verb in -s ending it
    /// ("that says:", "takes a list and returns:"; "with TTL support:" ends with a noun).
    fn points_at_colon(&self, clause: Range<usize>) -> bool {
        let cls = self.cls;
        let ws: SmallVec<[Range<usize>; 8]> = words(self.text, clause).collect();
        let pointer = ws.iter().rev().take(3).any(|w| {
            ["this", "these", "following", "below", "like", "as", "thus"]
                .iter()
                .any(|x| self.text[w.clone()].eq_ignore_ascii_case(x))
        });
        pointer
            || ws.last().is_some_and(|w| {
                let t = self.text[w.clone()].to_ascii_lowercase();
                t.len() > 3
                    && t.ends_with('s')
                    && (cls.lower_in(&cls.words.verbs, &t[..t.len() - 1])
                        || ["says", "reads", "returns", "prints", "outputs", "shows"]
                            .contains(&t.as_str()))
            })
    }
}
