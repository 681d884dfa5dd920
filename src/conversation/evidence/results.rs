//! Rule 10 for a lead, an existing thing and its result ("make the table headers sticky", "we
//! need the export endpoint to stream the csv"): where the thing ends and its result starts.

use super::*;

impl View<'_> {
    /// The thing and its result in `object` (up to `comma`) after a result lead (`lead`), into
    /// `out`: the target, then the desired change.
    pub(in crate::conversation) fn result_details(
        &self,
        lead: &Range<usize>,
        object: Range<usize>,
        comma: usize,
        out: &mut SmallVec<[Detail; 2]>,
    ) {
        let cls = self.cls;
        // "make the table headers sticky", "we need the export endpoint to
        // stream the csv", "make this faster": the thing up to its result. A
        // demonstrative that ends the lead ("make this") is the thing.
        let lead_words: SmallVec<[Range<usize>; 4]> = words(self.text, lead.clone()).collect();
        let from = lead_words
            .last()
            .filter(|w| {
                ["this", "these", "that", "those"]
                    .iter()
                    .any(|d| self.text[(*w).clone()].eq_ignore_ascii_case(d))
            })
            .map_or(object.start, |w| w.start);
        let words: SmallVec<[Range<usize>; 12]> = words(self.text, from..comma).collect();
        // "make fetchInvoices async", "make parse_row generic over the reader type": an
        // identifier of code is the thing, whatever follows it the result.
        if words.len() >= 2 && identifier(&self.text[words[0].clone()]) {
            out.push(detail(0, words[0].clone()));
            out.push(detail(
                1,
                cls.clean(self.text, words[1].start..comma, false),
            ));
            return;
        }
        // "make autoplay optional", "make dark mode the default": a name and the state it
        // is made to take.
        if lead_words
            .first()
            .is_some_and(|w| self.text[w.clone()].eq_ignore_ascii_case("make"))
            && let Some(i) = self.made_state(&words)
        {
            // (A name in backticks keeps its closing one.)
            let mut end = words[i - 1].end;
            end += usize::from(self.text[end..].starts_with('`'));
            let thing = cls.clean(self.text, from..end, true);
            let state = cls.clean(self.text, words[i].start..comma, false);
            if !thing.is_empty() && !state.is_empty() {
                out.push(detail(0, thing));
                out.push(detail(1, state));
                return;
            }
        }
        // "it'd be great if we could export the chat history as pdf": a person
        // and a modal before the verb; the verb's phrase is the change, its
        // thing the target.
        if words.len() >= 4
            && ["we", "i", "you", "they", "users", "people", "customers"]
                .iter()
                .any(|p| self.text[words[0].clone()].eq_ignore_ascii_case(p))
            && ["could", "can", "would", "will", "might"]
                .iter()
                .any(|m| self.text[words[1].clone()].eq_ignore_ascii_case(m))
        {
            let verb = words[2].clone();
            if let Some(t) = self.definite_thing(verb.end..comma) {
                out.push(detail(0, t));
            }
            out.push(detail(1, cls.clean(self.text, verb.start..comma, false)));
            return;
        }
        // "can we have the invoice number in the email subject line", "i'd like the company
        // logo in the footer": after a lead that asks to have a thing (not "make"), a thing
        // with no verb, then "in", "on" or "at" and another thing named with a determiner,
        // places the first in the second: the first is the change, the second the target.
        // ("the logo on the left": a position is where, no thing: the first thing is the
        // target, where it goes the change.)
        let makes = lead_words.first().is_some_and(|w| {
            let w = self.text[w.clone()].to_ascii_lowercase();
            w == "make" || w == "making"
        });
        if !makes
            && let Some(p) = words.iter().position(|w| {
                ["in", "on", "at"]
                    .iter()
                    .any(|x| self.text[w.clone()].eq_ignore_ascii_case(x))
            })
            && p >= 1
            && words.len() <= p + 6
            && words
                .get(p + 1)
                .is_some_and(|d| cls.lower_in(&cls.words.determiners, &self.text[d.clone()]))
            && words.get(p + 2).is_some()
            && !words[..p].iter().any(|w| {
                let t = &self.text[w.clone()];
                let l = t.to_ascii_lowercase();
                // (Also in -s or -ed: "if the cli printed a summary at the end".)
                let stem = |cut: usize| l.get(..l.len().saturating_sub(cut)).unwrap_or("");
                let inflected = (l.ends_with("ed")
                    && (cls.lower_in(&cls.words.verbs, stem(2))
                        || cls.lower_in(&cls.words.verbs, stem(1))))
                    || (l.ends_with('s') && cls.lower_in(&cls.words.verbs, stem(1)));
                inflected
                    || cls.lower_in(&cls.words.verbs, t)
                    || cls.lower_in(&cls.words.auxiliaries, t)
                    || self.is_predicate(w.clone())
                    || t.eq_ignore_ascii_case("to")
                    || self
                        .at(w.start, |m| matches!(m, Meaning::Problem | Meaning::Modal))
                        .is_some()
            })
        {
            let first = cls.clean(self.text, from..words[p - 1].end, true);
            let position = POSITIONS
                .iter()
                .any(|x| self.text[words[p + 2].clone()].eq_ignore_ascii_case(x));
            let (target, change) = if position {
                (
                    Some(first),
                    cls.clean(self.text, words[p].start..comma, false),
                )
            } else {
                (self.thing(words[p + 1].start..comma, true), first)
            };
            if let Some(t) = target
                && !t.is_empty()
                && !change.is_empty()
            {
                out.push(detail(0, t));
                out.push(detail(1, change));
                return;
            }
        }
        // "i want the thermostat at 68 not 72", "i'd like the volume at like 40%": a thing
        // "at" a number is the thing and its value (a word of vagueness may stand between).
        if let Some(p) = words
            .iter()
            .position(|w| self.text[w.clone()].eq_ignore_ascii_case("at"))
            && p >= 1
            && let Some(v) = words[p + 1..]
                .iter()
                .take(2)
                .find(|w| {
                    !["like", "about", "around", "roughly", "maybe"]
                        .iter()
                        .any(|x| self.text[(*w).clone()].eq_ignore_ascii_case(x))
                })
                .filter(|v| self.text[(*v).clone()].starts_with(|c: char| c.is_ascii_digit()))
        {
            let thing = cls.clean(self.text, from..words[p - 1].end, true);
            let value = cls.clean(self.text, v.start..comma, false);
            if !thing.is_empty() && !value.is_empty() {
                out.push(detail(0, thing));
                out.push(detail(1, value));
                return;
            }
        }
        // "the default sort to be newest first": "to be" ends the thing, whatever
        // verbs the thing's words could be; so does "to" before a plain verb ("i need the
        // ledger export to include the cost centre").
        let to_be = words.windows(2).position(|p| {
            self.text[p[0].clone()].eq_ignore_ascii_case("to")
                && self.text[p[1].clone()].eq_ignore_ascii_case("be")
        });
        let to_verb = self.to_plain_verb(&words);
        // (The last word is a result the signals name: "bigger", "shorter".)
        let result_last = words.len() >= 3
            && words.last().is_some_and(|w| {
                self.at(w.start, |m| {
                    matches!(m, Meaning::Signal(s)
                        if cls.signals[s as usize].signal
                            == super::super::Signal::ChangeRequest)
                })
                .is_some_and(|h| h.end() == w.end)
            });
        let split = to_be.or(to_verb).filter(|&i| i >= 1).or_else(|| {
            words.iter().enumerate().skip(1).find_map(|(i, w)| {
                let word = &self.text[w.clone()];
                // A verb after a preposition is a noun ("sticky on scroll").
                let after_place = PLACES
                    .iter()
                    .chain(["every", "each"].iter())
                    .any(|p| self.text[words[i - 1].clone()].eq_ignore_ascii_case(p));
                if after_place {
                    return None;
                }
                // A word before a place, when the last word is a result the
                // pattern files ask for ("make the font size in the settings
                // screen bigger"), is the thing's noun: the place is part of
                // the thing.
                let place_next = words.get(i + 1).is_some_and(|n| {
                    PLACES
                        .iter()
                        .any(|p| self.text[n.clone()].eq_ignore_ascii_case(p))
                });
                if place_next && result_last {
                    return None;
                }
                // A verb has something after it: two words or more, or a
                // determiner, a particle, a place or a number ("the button go
                // away"); before a lone last word it is a noun ("the nightly
                // import idempotent").
                let complement = words.len() >= i + 3
                    || words.get(i + 1).is_some_and(|n| {
                        let n = &self.text[n.clone()];
                        cls.lower_in(&cls.words.determiners, n)
                        || PARTICLES.iter().any(|p| n.eq_ignore_ascii_case(p))
                        || PLACES.iter().any(|p| n.eq_ignore_ascii_case(p))
                        || n.starts_with(|c: char| c.is_ascii_digit())
                        // ("load faster", "scroll smoothly")
                        || (n.len() > 4
                            && (n.ends_with("er") || n.ends_with("ly")))
                    });
                // (So is a verb's word before a plain verb with its object:
                // "make the shift export include overtime hours".)
                if words.len() >= i + 3
                    && cls.lower_in(&cls.words.verbs, &self.text[words[i + 1].clone()])
                    && cls.lower_in(&cls.words.verbs, word)
                {
                    return None;
                }
                // (A word before a modal is the thing's: "the csv import
                // could skip duplicate rows".)
                let before_modal = words.get(i + 1).is_some_and(|n| {
                    ["can", "could", "would", "will", "might", "should"]
                        .iter()
                        .any(|m| self.text[n.clone()].eq_ignore_ascii_case(m))
                });
                let verb = complement
                    && !before_modal
                    && (self
                        .at(w.start, |m| {
                            matches!(m, Meaning::Lead(_) | Meaning::Problem | Meaning::Modal)
                        })
                        .is_some()
                        || self.is_predicate(w.clone())
                        || cls.lower_in(&cls.words.verbs, word));
                // A number starts a value ("make the cache TTL 1h"); a past tense
                // after a noun phrase is its verb ("if the search box remembered
                // my last query").
                // ("if the search highlighted the matching words": one noun
                // and an object after it.)
                let object_next = words
                    .get(i + 1)
                    .is_some_and(|n| cls.lower_in(&cls.words.determiners, &self.text[n.clone()]));
                // (A known verb in -s or -ed with a word after it: "if the map
                // showed traffic", "so the table remembers the sort order".)
                let lower = word.to_ascii_lowercase();
                let inflected = words.len() > i + 1
                    && [("ed", 2), ("ed", 1), ("es", 2), ("s", 1)]
                        .iter()
                        .any(|(end, cut)| {
                            lower.ends_with(end)
                                && lower.len() > cut + 2
                                && cls.lower_in(&cls.words.verbs, &lower[..lower.len() - cut])
                        });
                let value = word.starts_with(|c: char| c.is_ascii_digit())
                    || inflected
                    || ((i >= 2 || object_next) && word.len() >= 5 && word.ends_with("ed"));
                // ("make these buttons the same height": a comparison
                // is the result.)
                let same = word.eq_ignore_ascii_case("the")
                    && words
                        .get(i + 1)
                        .is_some_and(|n| self.text[n.clone()].eq_ignore_ascii_case("same"));
                (["to", "so", "be", "can", "could", "would", "will", "might"]
                    .iter()
                    .any(|m| word.eq_ignore_ascii_case(m))
                    || verb
                    || value
                    || same)
                    .then_some(i)
            })
        });
        // An adjective by its form ("-able", "-ible") after the thing, at the end
        // or before a preposition, is the result: "make the retry count
        // configurable per queue", "the table sortable by date" ("the variable
        // names shorter" keeps its noun).
        let able = {
            (1..words.len()).find(|&i| {
                let w = self.text[words[i].clone()].to_ascii_lowercase();
                w.len() > 6
                    && (w.ends_with("able") || w.ends_with("ible"))
                    && words.get(i + 1).is_none_or(|n| {
                        let n = &self.text[n.clone()];
                        PLACES
                            .iter()
                            .chain(["by", "per", "with"].iter())
                            .any(|p| n.eq_ignore_ascii_case(p))
                            // (Or an adverb: "configurable globally".)
                            || n.len() > 4 && n.to_ascii_lowercase().ends_with("ly")
                    })
            })
        };
        // (Whichever comes first: "configurable globally instead of passing it ...".)
        // (A verb's word with only plain words between it and the adjective is a
        // noun of the thing: "make the job log retention configurable".)
        let split = match (split, able) {
            (Some(s), Some(a))
                if s < a
                    && words[s..a].iter().all(|w| {
                        let t = &self.text[w.clone()];
                        t.bytes().all(|b| b.is_ascii_alphabetic())
                            && !cls.lower_in(&cls.words.determiners, t)
                            && !cls.lower_in(&cls.words.auxiliaries, t)
                            && !cls.lower_in(&cls.words.ends, t)
                            && !["to", "so", "be"].iter().any(|x| t.eq_ignore_ascii_case(x))
                    }) =>
            {
                Some(a)
            }
            (Some(s), Some(a)) => Some(s.min(a)),
            (s, a) => s.or(a),
        };
        // Without a verb, the result is the word before a preposition that
        // follows the thing ("the header sticky on mobile"), else the last
        // word ("the text on my phone bigger"), with a degree word before it
        // ("these tests less brittle").
        // (After a place, a last result word is still the result: "the font
        // size in the settings screen bigger".)
        let split = split.or_else(|| {
            let stop = words
                .iter()
                .enumerate()
                .skip(2)
                .find(|(_, w)| {
                    !result_last && cls.lower_in(&cls.words.ends, &self.text[(*w).clone()])
                })
                .map_or(words.len(), |(i, _)| i);
            // ("the dark theme on": a last "on" or "off" is the state asked for.)
            if stop + 1 == words.len()
                && ["on", "off"]
                    .iter()
                    .any(|s| self.text[words[stop].clone()].eq_ignore_ascii_case(s))
            {
                return Some(stop);
            }
            // (Degree words, up to three: "a bit smaller".)
            (stop >= 2).then(|| {
                let mut last = stop - 1;
                for _ in 0..3 {
                    let degree = last >= 2
                        && [
                            "more", "less", "too", "very", "much", "way", "super", "really", "a",
                            "bit", "little", "lot",
                        ]
                        .iter()
                        .any(|d| self.text[words[last - 1].clone()].eq_ignore_ascii_case(d));
                    if !degree {
                        break;
                    }
                    last -= 1;
                }
                last
            })
        });
        let object = from..object.end;
        if let Some(i) = split {
            let target = cls.clean(self.text, object.start..words[i].start, true);
            let from = if to_be == Some(i) {
                words[i + 1].end
            } else if matches!(
                self.text[words[i].clone()].to_ascii_lowercase().as_str(),
                "to" | "so" | "can" | "could" | "would" | "will" | "might"
            ) {
                words[i].end
            } else {
                words[i].start
            };
            let result = cls.clean(self.text, from..comma.max(from), false);
            if !target.is_empty() {
                out.push(detail(0, target));
            }
            if !result.is_empty() {
                out.push(detail(1, result));
            }
        }
    }
}

/// Whether `word` is an identifier of code: snake_case, a call, or camelCase opened by a
/// lowercase letter ("fetchInvoices", "parse_row", "init()").
pub(in crate::conversation) fn identifier(word: &str) -> bool {
    let t = word.trim_end_matches([',', '.', ';']);
    t.len() > 3
        && t.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '(' | ')'))
        && (t.contains('_')
            || t.ends_with("()")
            || t.starts_with(|c: char| c.is_ascii_lowercase())
                && t.as_bytes()
                    .windows(2)
                    .enumerate()
                    .any(|(i, p)| i >= 2 && p[0].is_ascii_uppercase() && p[1].is_ascii_lowercase()))
}
