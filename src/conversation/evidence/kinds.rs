//! Rule 10 for a kind named first with no article, then what it is for ("python func to
//! check if a string is a valid IPv6 address", "Java class for a thread-safe LRU cache"): a
//! request for that kind, read among the noun-phrase requests (`nominal.rs`).

use super::*;

impl View<'_> {
    /// A phrase opening with a kind's words and nothing else before a connector or a colon
    /// (`first` its first word, `ws` its words, `span` the phrase): the artifact of that kind.
    pub(super) fn kind_first(
        &self,
        first: &Range<usize>,
        ws: &[Range<usize>],
        span: Range<usize>,
    ) -> Option<GoalLead> {
        let cls = self.cls;
        if !cls.lower_in(&cls.words.determiners, &self.text[(*first).clone()])
            && let Some(sixth) = ws.get(5.min(ws.len() - 1))
        {
            let artifact = cls.goal_index(GoalType::ArtifactCreation)?;
            let kind_slot = *cls.goals[artifact].slots.first()?;
            let head = first.start..sixth.end.max(first.end);
            let whole = noun_phrase(&self.text[head], &cls.noun_phrase_ends).trim_end();
            // (A polite word may end it: "GitHub Actions workflow pls: run pytest ...".)
            let np = cls
                .trailing
                .iter()
                .find(|w| ends_with_word(whole, w))
                .map_or(whole, |w| whole[..whole.len() - w.len()].trim_end());
            // (What follows opens with a connector or a colon, not a comma: "Android app, min
            // sdk 26" is context; nor with a thing of the user's or a condition after it: "iOS
            // widget for the habit tracker", "webhook for when a subscription is cancelled"
            // ask for a feature of something that exists.)
            // (A kind ended by a polite word asks for it, with nothing after or a dash or a
            // colon and its parts: "excel formula pls - last non empty value in row 5",
            // "tailwind pricing table pls".)
            let polite = words(self.text, first.end..span.end)
                .take(6)
                .find(|w| {
                    let t = &self.text[w.clone()];
                    cls.trailing.iter().any(|x| t.eq_ignore_ascii_case(x))
                        && self.text[w.end..span.end]
                            .trim_start()
                            .chars()
                            .next()
                            .is_none_or(|c| matches!(c, ':' | '-' | '\u{2014}' | '\u{2013}'))
                })
                .filter(|w| w.start - first.start <= whole.len() + 1)
                // (A kind of two words at least: "timer pls - 10 minutes" asks a voice
                // assistant to set one.)
                .filter(|w| count_words(&self.text[first.start..w.start]) >= 2);
            let (whole, np) = match &polite {
                Some(w) => {
                    let np = self.text[first.start..w.start].trim_end();
                    (&self.text[first.start..w.end], np)
                }
                None => (whole, np),
            };
            let rest = &self.text[first.start + whole.len()..span.end];
            let mut after = rest.split_whitespace();
            let connector = polite.is_some()
                || rest.trim_start().starts_with(':')
                || after
                    .next()
                    .is_some_and(|c| cls.lower_in(&cls.words.ends, c))
                    && after.next().is_some_and(|n| {
                        ![
                            "the", "my", "our", "your", "their", "this", "when", "whenever", "if",
                        ]
                        .iter()
                        .any(|d| n.eq_ignore_ascii_case(d))
                    });
            // (The kind may follow the name of the tool it is for, one or two words that are
            // no verb, number, determiner or problem: "eslint config for a react repo", "awk
            // one liner to sum a column".)
            let named_tool = |before: &str| {
                let n = before.split_whitespace().count();
                (1..=2).contains(&n)
                    && words(self.text, first.start..first.start + before.len()).all(|w| {
                        let t = &self.text[w.clone()];
                        !t.starts_with(|c: char| c.is_ascii_digit())
                            && !cls.lower_in(&cls.words.determiners, t)
                            && !cls.lower_in(&cls.words.auxiliaries, t)
                            && !cls.lower_in(&cls.words.non_subjects, t)
                            && !cls.lower_in(&cls.words.verbs, t)
                            && !self.is_predicate(w.clone())
                            && self
                                .at(w.start, |m| matches!(m, Meaning::Problem))
                                .is_none()
                    })
            };
            if !np.is_empty()
                && connector
                && !self.text[span.clone()].trim_end().ends_with('?')
                && cls.extract(np, kind_slot).is_some_and(|r| {
                    r.end == np.len() && (r.start == 0 || named_tool(&np[..r.start]))
                })
                && !self.tells_of(first.start + whole.len(), span.end)
                // (Nor a sentence that reports after its colon: the kind is the report's
                // place, "shopping list widget: checked items come back after sync". A list
                // after it is the kind's parts: "sql query: top 5 customers ..., join ...".)
                && !(rest.trim_start().starts_with(':')
                    && !rest.contains(',')
                    && self
                        .evidence(
                            span.end - rest.trim_start().len() + 1..span.end,
                            Strength::Suffix,
                        )
                        .is_some_and(|g| g.rule != Found::Request))
            {
                let object = cls.clean(self.text, first.start..span.end, true);
                let at = first.start..first.start;
                return Some(GoalLead {
                    goal: artifact,
                    description: object.clone(),
                    lead: at.clone(),
                    wrapper: 0..0,
                    rule: Found::Nominal,
                    details: self.details(artifact, ChangeMode::None, at, object),
                });
            }
        }
        None
    }

    /// Whether the phrase after a kind (from `at`), to its first comma or dash, tells
    /// something of the thing: a verb or a problem after "for" ("Safari login page for
    /// partners keeps looping", "Welcome email for churned users went out yesterday"). After
    /// "to", "that" or "which" the verb is what the thing must do.
    fn tells_of(&self, at: usize, end: usize) -> bool {
        let rest = &self.text[at..end];
        let trimmed = rest.trim_start();
        if !trimmed
            .get(..4)
            .is_some_and(|w| w.eq_ignore_ascii_case("for "))
        {
            return false;
        }
        let stop = rest
            .find([',', ';', ':', '.', '—', '–'])
            .map_or(end, |p| at + p);
        !self.predicates(at..stop, Strength::Predicate).is_empty()
            || !self.predicates(at..stop, Strength::Problem).is_empty()
    }
}
