//! Rule 12, corrections: a short reply that replaces a value ("no, I meant Vue").

use super::*;

impl View<'_> {
    /// Past a pronoun and its copula that frame a value: "it's the print button", "no, that
    /// is the footer".
    fn after_copula(&self, at: usize, limit: usize) -> usize {
        let (text, cls) = (self.text, self.cls);
        let mut ws = words(text, at.min(limit)..limit);
        if let Some(w) = ws.next() {
            let t = text[w.clone()].to_ascii_lowercase();
            if t.strip_suffix("'s").is_some_and(|p| cls.is_pronoun(p)) {
                return w.end;
            } else if cls.is_pronoun(&t)
                && let Some(v) = ws.next()
                && ["is", "was"]
                    .iter()
                    .any(|c| text[v.clone()].eq_ignore_ascii_case(c))
            {
                return v.end;
            }
        }
        at
    }

    /// A reply correcting a slot (rule 12): "no, I meant Vue", "not React, Svelte", "Vue, not
    /// React", "sorry, the mobile version". The new value and, when named, the value it
    /// replaces, as byte ranges of the text; at most a few words.
    pub(in crate::conversation) fn correction(
        &self,
    ) -> Option<(Range<usize>, Option<Range<usize>>)> {
        let (view, text, cls) = (self, self.text, self.cls);
        // The correction is the first sentence; what follows tells why ("sorry I meant Dash,
        // not Streamlit. we already have Dash running").
        let limit = self
            .sentence_ends
            .iter()
            .map(|e| *e as usize)
            .find(|e| text[*e..].starts_with(['.', '!', '?']) && text[..*e].trim().len() > 1)
            .unwrap_or(text.len());
        // A correction is a few words with a marker ("no", "I meant", "not"): any other reply
        // is none, and costs nothing here.
        if limit > MAX_CORRECTION
            || !self
                .hits
                .iter()
                .take_while(|h| h.start() < limit)
                .any(|h| self.meanings(*h).contains(&Meaning::Correction))
        {
            return None;
        }
        let mut at = 0;
        let mut marked = false;
        // (After the negated value, the new one may be framed too: "not react native, it's
        // SwiftUI".)
        loop {
            at = skip_soft(text, at);
            // ("wait" and "hold on" pause before the value: "no wait, a bar chart".)
            match view.at(at, |m| {
                matches!(m, Meaning::Filler | Meaning::Correction | Meaning::Deferral)
            }) {
                Some(h) => {
                    marked |= view.meanings(h).contains(&Meaning::Correction);
                    // "not X, Y": the negated value runs to the comma.
                    // (Or to a dash: "not React — Svelte".)
                    if text[h.start()..h.end()].eq_ignore_ascii_case("not") {
                        let rest = &text[h.end()..limit];
                        let dash = find_first_of(rest, &[" — ", " – ", " - "]);
                        let (comma, width) = match (rest.find(','), dash) {
                            (Some(c), Some((d, _))) if c < d => (c, 1),
                            (_, Some(d)) => d,
                            (Some(c), None) => (c, 1),
                            // ("no not prod!! I meant staging": the value in the next
                            // sentence, after its marker.)
                            (None, None) => {
                                // (Or after a marker run on: "no not nineteen i said twenty
                                // one".)
                                let first = self.hits.partition_point(|x| x.start() < h.end());
                                if let Some(m) = self.hits[first..]
                                    .iter()
                                    .take_while(|x| x.start() < limit)
                                    .find(|x| {
                                        x.start() > skip_soft(text, h.end())
                                            && self.meanings(**x).contains(&Meaning::Correction)
                                            && !text[x.start()..x.end()].eq_ignore_ascii_case("not")
                                    })
                                {
                                    let old = cls.clean(text, h.end()..m.start(), true);
                                    let new = cls.clean(text, m.end()..limit, true);
                                    return self.short(text, new, Some(old));
                                }
                                let old = cls.clean(text, h.end()..limit, true);
                                return self
                                    .meant_next(limit)
                                    .and_then(|new| self.short(text, new, Some(old)));
                            }
                        };
                        let old = cls.clean(text, h.end()..h.end() + comma, true);
                        let new = cls.clean(
                            text,
                            self.after_copula(h.end() + comma + width, limit)..limit,
                            true,
                        );
                        return self.short(text, new, Some(old));
                    }
                    at = h.end();
                }
                None => break,
            }
        }
        // (A dash after the value ends it: "I meant the billing service — payments is fine".)
        let limit = find_first_of(&text[at.min(limit)..limit], &[" — ", " – ", " - "])
            .map_or(limit, |(p, _)| at + p);
        // (So does a comma before a clause of its own, which tells why: "no I meant a python
        // script, bash on the windows box is pain"; a list stays, "red, green and blue".)
        let limit = text[at.min(limit)..limit]
            .find(',')
            .map(|c| at.min(limit) + c)
            .filter(|&c| {
                // (Or a comma before an apology alone: "I meant vue, sorry".)
                let tail = text[..limit].trim_end_matches(['.', '!', ' ']).len();
                let apology = view.skip(c + 1, |m| {
                    matches!(m, Meaning::Filler | Meaning::Ack | Meaning::Correction)
                }) >= tail;
                apology
                    || words(text, c..limit).take(8).any(|w| {
                        let t = &text[w];
                        cls.lower_in(&cls.words.auxiliaries, t)
                            || [
                                "can", "can't", "cant", "could", "will", "won't", "would",
                                "should", "must", "do", "does", "don't", "doesn't",
                            ]
                            .iter()
                            .any(|m| t.eq_ignore_ascii_case(m))
                    })
            })
            .unwrap_or(limit);
        at = self.after_copula(at, limit);
        // "Vue, not React", "Vue not React" (not "it is not working").
        let lower = text.to_ascii_lowercase();
        if let Some(p) = lower[at.min(limit)..limit].find(" not ").map(|p| p + at) {
            // (A marker after the value is no part of it: "the tooltip, I mean, not the
            // popover".)
            let end = match text[at..p]
                .trim_end_matches([' ', ','])
                .rfind(',')
                .map(|c| at + c)
            {
                Some(c)
                    if view
                        .at(skip_soft(text, c + 1), |m| m == Meaning::Correction)
                        .is_some_and(|h| {
                            h.end() <= p && text[h.end()..p].trim_matches([' ', ',']).is_empty()
                        }) =>
                {
                    c
                }
                _ => p,
            };
            let new = cls.clean(text, at..end, true);
            let before = words(text, at..end).last().map(|w| text[w].to_string());
            if before.is_some_and(|w| cls.lower_in(&cls.words.auxiliaries, &w)) {
                return None;
            }
            let old = cls.clean(text, p + 5..limit, true);
            return self.short(text, new, Some(old));
        }
        if !marked {
            return None;
        }
        // A lead may restate the value ("no wait, make it a bar chart", "sorry, change it to
        // 8pm", "actually use postgres"): the value follows it and its "it" or "to".
        if let Some(h) = view.at(at, |m| matches!(m, Meaning::Lead(_))) {
            at = h.end();
            for w in words(text, at..limit).take(2) {
                if ["it", "that", "them", "to"]
                    .iter()
                    .any(|p| text[w.clone()].eq_ignore_ascii_case(p))
                {
                    at = w.end;
                } else {
                    break;
                }
            }
        }
        let new = cls.clean(text, at.min(limit)..limit, true);
        self.short(text, new, None)
    }

    /// The value a sentence after `end` gives, when it opens with a correction's marker ("I
    /// meant staging"), to its own end.
    fn meant_next(&self, end: usize) -> Option<Range<usize>> {
        let text = self.text;
        let from =
            end + text[end..].len() - text[end..].trim_start_matches(['.', '!', '?', ' ']).len();
        let h = self.at(from, |m| m == Meaning::Correction)?;
        let stop = text[h.end()..]
            .find(['.', '!', '?', '\n'])
            .map_or(text.len(), |p| h.end() + p);
        let new = self.cls.clean(text, h.end()..stop, true);
        (!new.is_empty()).then_some(new)
    }

    pub(in crate::conversation) fn short(
        &self,
        text: &str,
        new: Range<usize>,
        old: Option<Range<usize>>,
    ) -> Option<(Range<usize>, Option<Range<usize>>)> {
        let n = count_words(&text[new.clone()]);
        let subject = words(text, new.clone())
            .next()
            .is_some_and(|w| self.cls.lower_in(&self.cls.words.non_subjects, &text[w]));
        (!subject
            && !text[new.clone()].contains(['?', '!'])
            && (1..=5).contains(&n)
            && old
                .as_ref()
                .is_none_or(|o| count_words(&text[o.clone()]) <= 5))
        .then_some((new, old))
    }
}
