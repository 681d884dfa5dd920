//! Where a problem's words end (rule 1): at a new clause after a conjunction and a subject, at
//! a second report after "and", at a concession.

use super::*;

impl View<'_> {
    /// The end of the problem told from `from` (after its subject) to `end`: "... on every
    /// mount and it's firing two events" ends before "and it's"; "takes forever and sometimes
    /// just hangs" before "and sometimes"; "expired and certbot didnt renew it" before "and
    /// certbot"; "shows even after I change the name" keeps "even after" after two words;
    /// "returns 200 even when redis is down" keeps its condition.
    pub(super) fn problem_end(&self, from: usize, end: usize) -> usize {
        let cls = self.cls;
        let tail: SmallVec<[Range<usize>; 16]> = words(self.text, from..end).collect();
        tail.windows(2)
            .enumerate()
            .find(|(i, p)| {
                let (c, n) = (&self.text[p[0].clone()], &self.text[p[1].clone()]);
                let joins = ["and", "so", "because", "which", "while", "even", "though"]
                    .iter()
                    .any(|j| c.eq_ignore_ascii_case(j));
                let second = c.eq_ignore_ascii_case("and")
                    && *i > 0
                    && ([
                        "sometimes",
                        "then",
                        "also",
                        "occasionally",
                        "randomly",
                        "often",
                    ]
                    .iter()
                    .any(|a| n.eq_ignore_ascii_case(a))
                        || tail.get(i + 2).is_some_and(|v| {
                            self.at(v.start, |m| matches!(m, Meaning::Problem))
                                .is_some()
                                && !cls.lower_in(&cls.words.determiners, n)
                        }));
                // ("even after i change the name": a concession; "even when" and "even if" are
                // conditions, kept.)
                // (After two words at least: "shows even after updating" keeps it.)
                let concession = *i >= 2
                    && c.eq_ignore_ascii_case("even")
                    && ["after", "though", "tho", "before"]
                        .iter()
                        .any(|a| n.eq_ignore_ascii_case(a));
                // ("even when" and "even if" open the problem's condition: "returns 200 even
                // when redis is down".)
                let condition = c.eq_ignore_ascii_case("even")
                    && ["when", "if", "whenever"]
                        .iter()
                        .any(|a| n.eq_ignore_ascii_case(a));
                joins
                    && !condition
                    && (cls.lower_in(&cls.words.non_subjects, n)
                        || cls.lower_in(&cls.words.determiners, n))
                    || second
                    || concession
            })
            .map_or(end, |(_, p)| p[0].start)
    }
}
