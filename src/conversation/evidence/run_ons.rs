//! Run-on sentences, as speech is written down: no punctuation between what the user tells
//! and what they ask ("it's freezing in here bump the heat up to seventy two", "we've got eight
//! people coming saturday how big a turkey should i get"). When no sentence states a goal, a
//! goal lead inside one opens a sentence of its own, unless the words before it make it the
//! user's own doing ("i just set the alarm") or a part of a phrase ("the fix", "to set").

use super::*;

/// How many goal leads inside a sentence are tried (the work per sentence stays bounded).
const MAX_TRIED: usize = 8;

/// Words of a subject: a lead after one is the subject's doing, no request ("we already
/// turned off the lights", "i just set the alarm").
const SUBJECTS: [&str; 16] = [
    "i", "we", "you", "u", "they", "he", "she", "it", "i'll", "we'll", "i've", "we've", "i'd",
    "we'd", "who", "which",
];

/// A word without the punctuation around it.
fn bare(w: &str) -> &str {
    w.trim_matches(|c: char| !c.is_alphanumeric() && c != '\'')
}

/// Whether two words address the assistant with a request: "can you", "could u".
pub(super) fn addresses(modal: &str, you: &str) -> bool {
    ["can", "could", "would", "will"]
        .iter()
        .any(|x| modal.eq_ignore_ascii_case(x))
        && ["you", "u"].iter().any(|x| you.eq_ignore_ascii_case(x))
}

/// Words that open a question.
const QUESTION_WORDS: [&str; 7] = ["how", "what", "why", "where", "when", "which", "who"];

/// Words that open a question by inversion.
const INVERTING: [&str; 15] = [
    "is", "are", "am", "was", "were", "do", "does", "did", "can", "could", "would", "will",
    "should", "have", "has",
];

impl View<'_> {
    /// What the run-on reading gives beside `first`, the goal the passes before found: the
    /// first run-on request when they found none; after a report read by its verb alone (no
    /// problem word in its sentence), a request run on after that verb, which wins ("the kids
    /// have a spelling test friday make a list of the hard words").
    pub(super) fn run_on_over(
        &self,
        first: Option<&(GoalLead, Range<usize>)>,
        owns: &[Range<usize>],
    ) -> Option<(GoalLead, Range<usize>)> {
        match first {
            None => self.run_on(owns, false),
            Some((g, s)) if g.rule == Found::ProblemReport && owns.contains(s) => {
                // (A report by a problem word yields only to a request addressed to the
                // assistant: "the baby just went down can you turn the doorbell off".)
                let by_verb = !self
                    .predicates(s.clone(), Strength::Problem)
                    .iter()
                    .any(|(_, modal)| !modal);
                // (A clause of its own lies between: "lets two ppl book the same slot" is
                // what the verb lets happen.)
                // (A wrapper addressing the assistant needs none: "the meeting is tomorrow can
                // you draft an agenda".)
                self.run_on(std::slice::from_ref(s), true).filter(|(_, r)| {
                    let mut next = self.text[r.clone()].split_whitespace();
                    let addressed = addresses(next.next().unwrap_or(""), next.next().unwrap_or(""));
                    r.start >= g.lead.end
                        && (addressed
                            || by_verb && count_words(&self.text[g.lead.end..r.start]) >= 3)
                })
            }
            Some(_) => None,
        }
    }

    /// The first goal a lead inside one of `owns` states, read from that lead to the
    /// sentence's end; `strict`, only a lead before a determiner ("make a list", "bump the
    /// heat") or a question word.
    pub(super) fn run_on(
        &self,
        owns: &[Range<usize>],
        strict: bool,
    ) -> Option<(GoalLead, Range<usize>)> {
        let cls = self.cls;
        owns.iter().find_map(|s| {
            let first = self.hits.partition_point(|h| h.start() < s.start);
            // (A sentence of thanks, wishes or small talk runs on no request: "thanks for
            // everything today check out my blog sometime". An acknowledgement opening it is
            // a filler: "ok so we've got people over saturday remind me to ...".)
            let opened = self.skip(s.start, |m| matches!(m, Meaning::Filler | Meaning::Ack));
            if self.hits[first..]
                .iter()
                .take_while(|h| h.start() < s.end)
                .filter(|h| {
                    h.start() >= opened
                        || self.meanings(**h).iter().any(|m| match m {
                            Meaning::SmallTalk => true,
                            Meaning::Signal(i) => {
                                cls.signals[*i as usize].signal != super::super::Signal::Approve
                            }
                            _ => false,
                        })
                })
                .any(|h| {
                    // (A word of degree is none: "its absolutely freezing put the heat up".)
                    !self.qualifies(*h)
                        && self.meanings(*h).iter().any(|m| {
                            matches!(m, Meaning::Signal(_) | Meaning::SmallTalk | Meaning::Ack)
                        })
                })
            {
                return None;
            }
            self.hits[first..]
                .iter()
                .enumerate()
                .take_while(|(_, h)| h.start() < s.end)
                .filter(|(_, h)| h.start() > s.start && h.end() <= s.end)
                .filter(|(_, h)| {
                    self.meanings(**h)
                        .iter()
                        .any(|m| matches!(m, Meaning::Lead(_)))
                })
                .take(MAX_TRIED)
                .find_map(|(k, h)| {
                    let at = h.start();
                    // The two words before the lead: a clause of its own, with no subject
                    // and ending in no word that binds the lead to it.
                    let before = &self.text[s.start..at];
                    let mut back = before
                        .rsplit(|c: char| c.is_whitespace())
                        .filter(|w| !w.is_empty());
                    let (last, second) = (back.next()?, back.next()?);
                    let (last, second) = (bare(last), bare(second));
                    // (A question word after "matter" or "regardless of" asks nothing: "locks
                    // itself no matter what the timeout is set to".)
                    if last.eq_ignore_ascii_case("matter")
                        || last.eq_ignore_ascii_case("of")
                            && second.eq_ignore_ascii_case("regardless")
                    {
                        return None;
                    }
                    // (A lead that inverts a question, "is", "are", "can", asks nothing
                    // inside a sentence: "hope yours is going better"; nor does one with a
                    // subject after it: "exactly what I needed".)
                    let lead = &self.text[at..h.end()];
                    let lead_first = lead.split_whitespace().next().unwrap_or(lead);
                    let question = QUESTION_WORDS
                        .iter()
                        .any(|x| lead_first.eq_ignore_ascii_case(x));
                    // (A capitalized lead inside a sentence is a name's word: "pick this month
                    // Find the Light"; and a lead whose object a "be" follows tells, "deploy
                    // the release notes are ready".)
                    if lead_first.starts_with(|c: char| c.is_uppercase())
                        || !question
                            && self.text[h.end()..s.end]
                                .split_whitespace()
                                .take(8)
                                .any(|w| {
                                    ["is", "are", "was", "were"]
                                        .iter()
                                        .any(|x| bare(w).eq_ignore_ascii_case(x))
                                })
                    {
                        return None;
                    }
                    let after = self.text[h.end()..s.end]
                        .split_whitespace()
                        .next()
                        .map(bare)
                        .unwrap_or("");
                    // (A lead with nothing after it, or a preposition, is a noun: "after
                    // face unlock", "alt text on product images".)
                    // ("can you draft an agenda" asks the assistant: a request.)
                    let addressed = addresses(lead_first, after);
                    if !addressed
                        && (INVERTING.iter().any(|x| lead_first.eq_ignore_ascii_case(x))
                            || SUBJECTS.iter().any(|x| after.eq_ignore_ascii_case(x)))
                        || after.is_empty()
                        || cls.lower_in(&cls.words.ends, after)
                        || strict
                            && !addressed
                            && !cls.lower_in(&cls.words.determiners, after)
                            && !["me", "us"].iter().any(|x| after.eq_ignore_ascii_case(x))
                            && !QUESTION_WORDS
                                .iter()
                                .any(|x| lead_first.eq_ignore_ascii_case(x))
                    {
                        return None;
                    }
                    // (A question word asks only with an inverted verb before any subject:
                    // "how big of a turkey should i get"; "no matter which colour i pick"
                    // asks nothing.)
                    if QUESTION_WORDS
                        .iter()
                        .any(|x| lead_first.eq_ignore_ascii_case(x))
                        && !self.text[h.end()..s.end]
                            .split_whitespace()
                            .take(5)
                            .map(bare)
                            .take_while(|w| !SUBJECTS.iter().any(|x| w.eq_ignore_ascii_case(x)))
                            .any(|w| INVERTING.iter().any(|x| w.eq_ignore_ascii_case(x)))
                    {
                        return None;
                    }
                    // (Nor after a negation: "please don't cancel the order".)
                    let last_end = s.start + before.trim_end().len();
                    let negated = self.hits[..first + k]
                        .iter()
                        .rev()
                        .take_while(|x| x.start() + 16 >= last_end)
                        .any(|x| {
                            x.end() == last_end && self.meanings(*x).contains(&Meaning::Negation)
                        });
                    if negated || last.is_empty()
                        || before.trim_end().ends_with([',', ':', '-'])
                        || [last, second]
                            .iter()
                            .any(|w| SUBJECTS.iter().any(|x| w.eq_ignore_ascii_case(x)))
                        || cls.lower_in(&cls.words.determiners, last)
                        || cls.lower_in(&cls.words.determiners, second)
                        // (A plural or a person before it is its subject: "any time folks
                        // create a thread".)
                        || cls.plural(&last.to_ascii_lowercase())
                        || cls.lower_in(&cls.words.people, last)
                        || INVERTING.iter().any(|x| last.eq_ignore_ascii_case(x))
                        // (Nor after a verb, whose object it starts: "the job loads duplicate
                        // rows", "keeps asking for the pin".)
                        || cls.lower_in(&cls.words.predicates, last)
                        || cls.lower_in(&cls.words.verbs, last)
                        || last.len() > 4
                            && (last.ends_with("ing") || last.ends_with("ed"))
                            // (A state after "be" or a degree ends its clause: "its absolutely
                            // freezing put the heating up", "im so tired set an alarm".)
                            && ![
                                "is", "its", "it's", "im", "i'm", "are", "was", "were", "so",
                                "really", "too", "very", "absolutely", "totally",
                            ]
                            .iter()
                            .any(|x| second.eq_ignore_ascii_case(x))
                        || cls.lower_in(&cls.words.auxiliaries, last)
                        || cls.lower_in(&cls.words.ends, last)
                        || cls.lower_in(&cls.words.non_subjects, last)
                            && !["here", "there", "now", "lol"]
                                .iter()
                                .any(|x| last.eq_ignore_ascii_case(x))
                    {
                        return None;
                    }
                    self.statement(at..s.end, false).map(|g| (g, at..s.end))
                })
        })
    }

    /// Where a clause telling a state runs on inside `span`, after two words at least: "it's"
    /// or "i'm" (with or without the apostrophe) and a word of degree ("turn the volume down
    /// to four its way too loud", "set the fan to high im really warm").
    pub(super) fn run_on_state(&self, span: Range<usize>) -> Option<usize> {
        // (One walk, no words kept: an opener is looked for by its first byte, "i" or "t".)
        let opener = |w: &Range<usize>| {
            matches!(self.text.as_bytes()[w.start] | 0x20, b'i' | b't')
                && ["its", "it's", "im", "i'm", "thats", "that's"]
                    .iter()
                    .any(|x| self.text[w.clone()].eq_ignore_ascii_case(x))
        };
        let mut before: Option<Range<usize>> = None;
        for (i, w) in words(self.text, span).take(16).enumerate() {
            if let Some(p) = before.take()
                && DEGREES
                    .iter()
                    .chain(["really", "getting", "not", "already"].iter())
                    .any(|x| self.text[w.clone()].eq_ignore_ascii_case(x))
            {
                return Some(p.start);
            }
            if i >= 2 && opener(&w) {
                before = Some(w);
            }
        }
        None
    }
}
