//! Rule 2's feature requests, the details of a lead that adds its object ("add X to Y, D"):
//! target Y, desired change X and D; a feature and what it is for; a thing put on a state or
//! up to a value.

use super::*;

impl View<'_> {
    /// The details of a request whose lead adds its object: `raw` is where the object starts
    /// as written (articles included), `comma` where its first clause ends.
    pub(super) fn added(
        &self,
        lead: Range<usize>,
        object: Range<usize>,
        raw: usize,
        comma: usize,
    ) -> SmallVec<[Detail; 2]> {
        let cls = self.cls;
        let text = &self.text[object.clone()];
        let mut out = SmallVec::new();
        // "add an option to hide archived projects", "can we get a way to
        // export the chart": a feature and what it is for.
        let ws: SmallVec<[Range<usize>; 8]> = if text.contains(" to ") {
            words(self.text, object.clone()).take(8).collect()
        } else {
            SmallVec::new()
        };
        if let Some((target, change)) = self.purpose(&ws, object.start, object.end) {
            if let Some(t) = target {
                out.push(detail(0, t));
            }
            out.push(detail(1, change));
            return out;
        }
        // "put the heating up to twenty two": a thing and the way it goes, as
        // "turn" reads it.
        if self.text[lead.clone()].eq_ignore_ascii_case("put")
            && let Some((thing, particle)) = self.particle(raw..comma)
            && words(self.text, particle.clone()).next().is_some_and(|p| {
                ["up", "down", "back"]
                    .iter()
                    .any(|x| self.text[p.clone()].eq_ignore_ascii_case(x))
            })
        {
            out.push(detail(0, thing));
            out.push(detail(
                1,
                cls.clean(self.text, particle.start..comma, false),
            ));
            return out;
        }
        // "put my phone on silent", "put the thermostat on eco mode": a thing
        // named with a determiner put on a state, a word or two without one
        // (or a mode), is the thing and its new state.
        if self.text[lead.clone()].eq_ignore_ascii_case("put")
            && let Some(on) = words(self.text, raw..comma)
                .take(8)
                .find(|w| self.text[w.clone()].eq_ignore_ascii_case("on"))
            && let Some(first) = words(self.text, raw..on.start).next()
            && cls.lower_in(&cls.words.determiners, &self.text[first])
        {
            let state: SmallVec<[Range<usize>; 4]> =
                words(self.text, on.end..comma).take(4).collect();
            let bare = state
                .first()
                .is_some_and(|w| !cls.lower_in(&cls.words.determiners, &self.text[w.clone()]));
            // (The state ends where a condition starts: "while we're away".)
            let n = state
                .iter()
                .position(|w| {
                    CONDITIONS
                        .iter()
                        .any(|c| self.text[w.clone()].eq_ignore_ascii_case(c))
                })
                .unwrap_or(state.len());
            let mode = n > 0 && self.text[state[n - 1].clone()].eq_ignore_ascii_case("mode");
            if bare && ((1..=2).contains(&n) || mode) {
                let thing = cls.clean(self.text, object.start..on.start, true);
                if !thing.is_empty() {
                    out.push(detail(0, thing));
                    out.push(detail(1, state[0].start..state[n - 1].end));
                    return out;
                }
            }
        }
        let lower = text.to_ascii_lowercase();
        // (Never inside a quoted label: "add an 'export to CSV' button".)
        let quoted = quoted_spans(text);
        // (" for " only before a thing named with a determiner: "a compact view
        // for the inbox", not "support for SSO".)
        // (" at " only before a step named bare: "apple pay at checkout",
        // not "at the top" or "at 30%".)
        let to = [" to ", " into ", " on ", " in ", " for ", " at "]
            .iter()
            .filter_map(|c| {
                lower
                    .match_indices(c)
                    .map(|(p, _)| p)
                    .find(|p| !quoted.iter().any(|q| q.contains(p)))
                    .map(|p| (p, c.len()))
            })
            .filter(|(p, _)| object.start + p < comma)
            .filter(|(p, n)| {
                lower[*p..*p + *n].trim() != "at"
                    || words(self.text, object.start + p + n..comma)
                        .next()
                        .is_some_and(|w| {
                            let t = &self.text[w];
                            !cls.lower_in(&cls.words.determiners, t)
                                && !t.starts_with(|c: char| c.is_ascii_digit())
                        })
            })
            .filter(|(p, n)| {
                lower[*p..*p + *n].trim() != "for"
                    || self.thing(object.start + p + n..comma, true).is_some()
            })
            // (A time after "on", "at" or "in" says when, no place: "put dentist on the 14th
            // at 2 in my calendar".)
            .filter(|(p, n)| {
                !matches!(lower[*p..*p + *n].trim(), "on" | "at" | "in")
                    || !self.opens_with_time(object.start + p + n..comma)
            })
            // "add an endpoint to list archived projects": "to" and a verb
            // state a purpose, not a place.
            .filter(|(p, n)| {
                lower[*p..*p + *n].trim() != "to"
                    || words(self.text, object.start + p + n..comma)
                        .next()
                        .is_none_or(|w| {
                            let t = &self.text[w.clone()];
                            !(cls.lower_in(&cls.words.verbs, t)
                                || self
                                    .at(w.start, |m| matches!(m, Meaning::Lead(_)))
                                    .is_some())
                        })
            })
            .min();
        let what = match to {
            Some((p, n)) => {
                if let Some(t) = self.thing(object.start + p + n..comma, false) {
                    out.push(detail(0, t));
                }
                cls.clean(self.text, object.start..object.start + p, true)
            }
            None => {
                // "put the living room lights at 30%": a thing and its value (not a time:
                // "add a dentist appointment on thursday at 3").
                let timed = [" on ", " at ", " in "].iter().any(|c| {
                    lower.match_indices(c).any(|(p, _)| {
                        object.start + p < comma
                            && self.opens_with_time(object.start + p + c.len()..comma)
                    })
                });
                if !timed
                    && let Some(np) = self.thing(raw..comma, true)
                    && let Some(value) = self.after_to(np.end..comma)
                {
                    out.push(detail(0, np));
                    out.push(detail(1, value));
                    return out;
                }
                cls.clean(self.text, object.start..comma, true)
            }
        };
        let more = cls.clean(self.text, comma..object.end, false);
        let mut spans: SmallVec<[Range<usize>; 2]> = SmallVec::new();
        if !what.is_empty() {
            spans.push(what);
        }
        // (A clause with a subject of its own after the comma is the user's
        // reason, no detail: "add export to excel in reports page, my boss
        // want xlsx".)
        // (A person: "i", "we", "they", or an owner and a word of `people`,
        // "my boss"; "it should default to ..." and "my account page" are
        // details.)
        let mut first_two = words(self.text, more.clone());
        let (a, b) = (first_two.next(), first_two.next());
        let reason = a.as_ref().is_some_and(|w| {
            let t = &self.text[w.clone()];
            // (Or a state said of it: "it's noise", "that's too much".)
            [
                "i", "we", "they", "he", "she", "i'm", "we're", "it's", "its", "that's", "thats",
            ]
            .iter()
            .any(|p| t.eq_ignore_ascii_case(p))
                || ["my", "our", "their", "his", "her"]
                    .iter()
                    .any(|p| t.eq_ignore_ascii_case(p))
                    && b.as_ref()
                        .is_some_and(|n| cls.lower_in(&cls.words.people, &self.text[n.clone()]))
        });
        if !more.is_empty() && !reason && count_words(&self.text[more.clone()]) <= 8 {
            spans.push(more);
        }
        if !spans.is_empty() {
            out.push(Detail {
                slot: 1,
                prefix: "",
                spans,
            });
        }
        out
    }

    /// Whether the words of `span` open with a time, past a "the": a word of `times` ("friday",
    /// "tomorrow"), an ordinal before no noun ("14th", "the 3rd at 1") or a clock time ("5:30",
    /// "10am"); a bare number may be a value ("at 20").
    fn opens_with_time(&self, span: Range<usize>) -> bool {
        let cls = self.cls;
        let mut ws = words(self.text, span.clone());
        let Some(mut w) = ws.next() else {
            return false;
        };
        if self.text[w.clone()].eq_ignore_ascii_case("the")
            && let Some(n) = ws.next()
        {
            w = n;
        }
        let t = &self.text[w.clone()];
        let digits = t.bytes().take_while(u8::is_ascii_digit).count();
        let rest = t[digits..].to_ascii_lowercase();
        // (An ordinal before a noun counts a place: "on the 2nd page", "the 14th row".)
        let ordinal = ["st", "nd", "rd", "th"].contains(&rest.as_str())
            && words(self.text, w.end..span.end).next().is_none_or(|n| {
                let n = &self.text[n];
                n.eq_ignore_ascii_case("of") || cls.lower_in(&cls.words.ends, n)
            });
        cls.lower_in(&cls.words.times, t)
            || digits > 0
                && (ordinal || ["am", "pm"].contains(&rest.as_str()) || rest.starts_with(':'))
    }
}
