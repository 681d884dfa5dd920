//! What a phrase names: what happens now after "instead of", a problem named as a noun, a
//! thing a request may target.

use super::*;

impl View<'_> {
    /// Where "instead of" and a verb in -ing start in `span` ("instead of building it"), else
    /// its end.
    pub(super) fn instead_of_doing(&self, span: Range<usize>) -> usize {
        // ("instead of" is a phrase of the signals: its hits are looked at, not the bytes.)
        let first = self.hits.partition_point(|h| h.start() < span.start);
        self.hits[first..]
            .iter()
            .take_while(|h| h.start() < span.end)
            .filter(|h| {
                h.end() <= span.end
                    && self.text[h.start()..h.end()].eq_ignore_ascii_case("instead of")
            })
            .find(|h| {
                // (A verb in -ing with its object, or a verb of the vocabulary: "instead of
                // building it in memory", "instead of crashing"; "instead of padding on the
                // cards" or "instead of string" contrasts values.)
                let cls = self.cls;
                let mut ws = words(self.text, h.end()..span.end);
                ws.next().is_some_and(|w| {
                    let w = self.text[w].to_ascii_lowercase();
                    let object = ws.next().is_some_and(|n| {
                        let n = &self.text[n];
                        cls.lower_in(&cls.words.determiners, n)
                            || ["it", "them", "everything", "anything", "me", "us"]
                                .iter()
                                .any(|p| n.eq_ignore_ascii_case(p))
                    });
                    w.len() > 5
                        && w.ends_with("ing")
                        && (object || {
                            let stem = &w[..w.len() - 3];
                            cls.lower_in(&cls.words.verbs, stem)
                                || cls.lower_in(&cls.words.verbs, &format!("{stem}e"))
                        })
                })
            })
            .map_or(span.end, |h| {
                span.start + self.text[span.start..h.start()].trim_end().len()
            })
    }

    /// Whether a noun phrase names a problem rather than a thing: a problem word or an error's
    /// marker of the pattern files ("the typo", "the memory leak", "that flicker") or an HTTP
    /// status ("the 404", "a 502").
    pub(in crate::conversation) fn names_problem(&self, np: Range<usize>) -> bool {
        // (Its head: "the flaky payment test" is a test. A problem's phrase of several words
        // ends there: "the race condition", "the off by one".)
        let ws: SmallVec<[Range<usize>; 8]> = words(self.text, np).collect();
        ws.last().is_some_and(|w| {
            let t = &self.text[w.clone()];
            (t.len() == 3
                && (t.starts_with('4') || t.starts_with('5'))
                && t.bytes().all(|b| b.is_ascii_digit()))
                || ws.iter().rev().take(4).any(|from| {
                    self.starting_at(from.start).iter().any(|h| {
                        h.end() == w.end
                            && self
                                .meanings(*h)
                                .iter()
                                .any(|m| matches!(m, Meaning::Problem | Meaning::ErrorMarker))
                    })
                })
        })
    }
}

impl View<'_> {
    /// `np` run on to the end of a problem's phrase that starts in it and ends before `end`
    /// ("off" in "the off by one in my helper" is "off by one").
    pub(in crate::conversation) fn problem_run_on(
        &self,
        np: Range<usize>,
        end: usize,
    ) -> Range<usize> {
        let far = words(self.text, np.clone())
            .flat_map(|w| self.starting_at(w.start).iter())
            .filter(|h| {
                h.end() > np.end && h.end() <= end && self.meanings(**h).contains(&Meaning::Problem)
            })
            .map(|h| h.end())
            .max();
        far.map_or(np.clone(), |e| np.start..e)
    }

    /// What a request to allow something is about when it names no thing with a determiner
    /// or a place: whom it lets do it ("allow guests to check out": "guests") or the object
    /// of the doing ("allow exporting invoices as PDF": "invoices").
    pub(in crate::conversation) fn allowed_thing(
        &self,
        span: Range<usize>,
    ) -> Option<Range<usize>> {
        let ws: SmallVec<[Range<usize>; 4]> = words(self.text, span.clone()).take(4).collect();
        let is = |i: usize, w: &str| {
            ws.get(i)
                .is_some_and(|x| self.text[x.clone()].eq_ignore_ascii_case(w))
        };
        let first = ws.first()?;
        let lower = self.text[first.clone()].to_ascii_lowercase();
        // (Only after "allow", "enable" or "permit": "let people react to ..." names whom in
        // its lead, "support for importing ..." a feature.)
        let lead_word = self.text[..span.start]
            .split_whitespace()
            .next_back()
            .unwrap_or("");
        if !["allow", "enable", "permit"]
            .iter()
            .any(|l| lead_word.eq_ignore_ascii_case(l))
        {
            return None;
        }
        if lower.len() > 5 && lower.ends_with("ing") {
            return self.thing(ws.get(1)?.start..span.end, false);
        }
        if self.cls.lower_in(&self.cls.words.non_subjects, &lower) {
            return None;
        }
        if is(1, "to") {
            return Some(first.clone());
        }
        is(2, "to").then(|| first.start..ws[1].end)
    }

    /// Whether the word `n` right after a problem word is a noun that word qualifies ("broken
    /// link", "crash reporter"): letters and hyphens only, and no preposition, condition, time,
    /// determiner, pronoun, auxiliary, predicate, problem word or modal.
    pub(in crate::conversation) fn qualified_noun(&self, n: Range<usize>) -> bool {
        let cls = self.cls;
        let t = &self.text[n.clone()];
        t.bytes().all(|b| b.is_ascii_alphabetic() || b == b'-')
            && !PLACES.iter().any(|p| t.eq_ignore_ascii_case(p))
            && !WHEN.iter().any(|p| t.eq_ignore_ascii_case(p))
            && !CONDITIONS
                .iter()
                .chain(["with", "and", "or", "during", "by", "at"].iter())
                .any(|p| t.eq_ignore_ascii_case(p))
            && !cls.lower_in(&cls.words.determiners, t)
            && !cls.lower_in(&cls.words.non_subjects, t)
            && !cls.lower_in(&cls.words.auxiliaries, t)
            && !self.is_predicate(n.clone())
            && self
                .at(n.start, |m| matches!(m, Meaning::Problem | Meaning::Modal))
                .is_none()
    }

    /// The first thing in `span` (the rest of the goal's line) that the user calls theirs
    /// ("in my react component"), in a line of prose (not pasted code or output).
    pub(super) fn possessed_thing(&self, span: Range<usize>) -> Option<Range<usize>> {
        let ws: SmallVec<[Range<usize>; 32]> = words(self.text, span.clone()).take(32).collect();
        let at = ws.iter().position(|w| {
            ["my", "our", "your"]
                .iter()
                .any(|p| self.text[w.clone()].eq_ignore_ascii_case(p))
        })?;
        let line_start = self.text[..ws[at].start].rfind('\n').map_or(0, |p| p + 1);
        let line_end = self.text[ws[at].start..]
            .find('\n')
            .map_or(self.text.len(), |p| ws[at].start + p);
        if !self.is_prose(line_start..line_end) {
            return None;
        }
        self.thing(ws[at].start..span.end, true)
    }
}
