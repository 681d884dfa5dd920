//! Rule 1 for an attempt that meets a problem: "Trying to keep a foreground service alive on
//! Android 14 but it gets killed after 10 minutes", "I tried to publish the package but the
//! upload fails with a 403". The problem after "but" is the report; what the attempt acts on is
//! the thing when the problem's subject is "it".

use super::*;

/// The words that may stand before the attempt: the user and a tense.
const ATTEMPTERS: [&str; 12] = [
    "i'm", "im", "i", "am", "we're", "we", "are", "was", "were", "been", "i've", "ive",
];

/// The most bytes between the attempt's verb and its "but".
const MAX_ATTEMPT_BYTES: usize = 160;

impl View<'_> {
    /// The report an attempt opening `span` meets after its "but", if any.
    pub(super) fn attempt_report(&self, span: Range<usize>) -> Option<GoalLead> {
        // (Most sentences open otherwise: the first letter is tested before any word.)
        let first = self.text.as_bytes().get(span.start)?.to_ascii_lowercase();
        if !matches!(first, b'i' | b't' | b'w' | b'b' | b'a') {
            return None;
        }
        // (Nor is a word gathered before the attempt's is seen to open one of the first four:
        // "tr" or "att".)
        let bytes = &self.text.as_bytes()[span.start..span.end.min(span.start + 32)];
        let opens = |at: usize| {
            let w = &bytes[at..];
            w.len() > 3
                && (w[..2].eq_ignore_ascii_case(b"tr") || w[..3].eq_ignore_ascii_case(b"att"))
        };
        let mut at = 0;
        let mut seen = false;
        for _ in 0..4 {
            if opens(at) {
                seen = true;
                break;
            }
            match bytes[at..].iter().position(|b| *b == b' ') {
                Some(p) => at += p + 1,
                None => break,
            }
        }
        if !seen {
            return None;
        }
        let mut ws = words(self.text, span.clone());
        let mut w = ws.next()?;
        for _ in 0..3 {
            if !ATTEMPTERS
                .iter()
                .any(|a| self.text[w.clone()].eq_ignore_ascii_case(a))
            {
                break;
            }
            w = ws.next()?;
        }
        let attempt = &self.text[w.clone()];
        if !["trying", "tried", "attempting", "attempted"]
            .iter()
            .any(|a| attempt.eq_ignore_ascii_case(a))
            || !ws
                .next()
                .is_some_and(|t| self.text[t].eq_ignore_ascii_case("to"))
        {
            return None;
        }
        let verb = ws.next()?;
        let end = (verb.end + MAX_ATTEMPT_BYTES).min(span.end);
        let but = ws
            .take_while(|b| b.start < end)
            .find(|b| self.text[b.clone()].eq_ignore_ascii_case("but"))?;
        let rest = skip_soft(self.text, but.end);
        // (A plural "they" is what was met, not the thing tried: "tried to buy the headphones
        // but they were out of stock".)
        if rest >= span.end
            || self.text[rest..]
                .split_whitespace()
                .next()
                .is_some_and(|w| w.eq_ignore_ascii_case("they"))
        {
            return None;
        }
        let task = self.cls.goal_index(GoalType::TaskExecution)?;
        // What the attempt acts on: the verb's object, past a particle or a preposition and
        // a determiner, up to a word that ends a noun phrase ("keep a foreground service
        // alive on Android 14", "connect to postgres from docker").
        let cls = self.cls;
        let ends = |t: &str| {
            PLACES.iter().any(|p| t.eq_ignore_ascii_case(p))
                || cls.lower_in(&cls.words.ends, t)
                || [
                    "inside", "outside", "alive", "working", "between", "with", "without", "via",
                    "using", "from", "when", "while", "so",
                ]
                .iter()
                .any(|x| t.eq_ignore_ascii_case(x))
                || t.len() > 4 && t.to_ascii_lowercase().ends_with("ly")
        };
        let mut object: Option<Range<usize>> = None;
        for o in words(self.text, verb.end..but.start).take(8) {
            let t = &self.text[o.clone()];
            match &mut object {
                None if PARTICLES.iter().any(|p| t.eq_ignore_ascii_case(p))
                    || PLACES.iter().any(|p| t.eq_ignore_ascii_case(p))
                    || cls.lower_in(&cls.words.determiners, t) => {}
                None => object = Some(o),
                Some(_) if ends(t) => break,
                Some(obj) => obj.end = o.end,
            }
        }
        let thing = object.filter(|o| !cls.is_pronoun(&self.text[o.clone()]));
        // (The problem's "it" is that thing: "... but it gets killed".)
        let g = [Strength::Problem, Strength::Predicate, Strength::Suffix]
            .into_iter()
            .find_map(|s| self.clause_within(task, rest..span.end, span.end, s, thing.clone()))
            .filter(|g| g.rule == Found::ProblemReport)?;
        Some(g)
    }
}
