//! What stands before a sentence's goal and states none of its own: a short courtesy before
//! "but" ("random question, but how do i center a div"), the role of a user story ("As a
//! dispatcher, I want to ..."), and the words that tell how things are now ("Currently ...").

use super::*;

/// The speaker after a user story's role ("As a shopper I'd like ...", "as an admin, we need
/// ...").
const SPEAKERS: [&str; 10] = [
    "i", "i'd", "i'm", "i'll", "id", "im", "we", "we'd", "we're", "we'll",
];

/// The most words of a user story's role ("As a player who mostly plays one-handed on the bus,
/// I'd like ...").
const ROLE_WORDS: usize = 12;

/// Who a user story's benefit is for, after "so" or "so that" ("so that I can ...", "so we
/// don't ..."): a result of the thing ("so that the newest accounts are first") is no benefit.
const BENEFICIARIES: [&str; 8] = [
    "i",
    "we",
    "they",
    "you",
    "users",
    "people",
    "customers",
    "everyone",
];

/// What opens a sentence telling how things are now, before a request in a later sentence
/// ("Currently the backup only runs on wifi. I'd like ...").
const PRESENT: [&str; 6] = [
    "currently",
    "presently",
    "right now",
    "at the moment",
    "as of now",
    "atm",
];

impl View<'_> {
    /// Whether `sentence` opens (after fillers) by telling how things are now ("Currently the
    /// photo backup only runs on wifi"): the background of a request in a later sentence.
    pub(super) fn tells_present(&self, sentence: Range<usize>) -> bool {
        let start = self.skip(sentence.start, |m| {
            matches!(m, Meaning::Filler | Meaning::Ack)
        });
        let rest = &self.text[start.min(sentence.end)..sentence.end];
        PRESENT.iter().any(|p| {
            rest.get(..p.len())
                .is_some_and(|r| r.eq_ignore_ascii_case(p))
                && rest[p.len()..].starts_with(|c: char| c.is_whitespace() || c == ',')
        })
    }

    /// Whether `sentence` opens with a verb of setup in -ing and where: "Running on a
    /// Raspberry Pi 4 with a SONOFF dongle", "Using docker on windows 11". Wherever it stands,
    /// it tells the setup, unless a lead of its own asks for something.
    pub(super) fn setup_opening(&self, sentence: Range<usize>) -> bool {
        let mut ws = words(self.text, sentence);
        let is = |w: Option<Range<usize>>, list: &[&str]| {
            w.is_some_and(|w| {
                list.iter()
                    .any(|x| self.text[w.clone()].eq_ignore_ascii_case(x))
            })
        };
        is(
            ws.next(),
            &[
                "running",
                "using",
                "hosted",
                "deployed",
                "installed",
                "tested",
                "testing",
            ],
        ) && is(
            ws.next(),
            &["on", "in", "inside", "under", "with", "via", "through"],
        )
    }

    /// Whether a sentence read as a title to explain (a verb in -ing first, "Running ...")
    /// ends with a full stop: it tells the user's setup, "Running the add-on on a Pi 4 with 2
    /// GB of RAM.", and what follows states the goal.
    pub(super) fn tells_setup(&self, g: &GoalLead, sentence: Range<usize>) -> bool {
        if g.rule != Found::Lead && self.setup_opening(sentence.clone()) {
            return true;
        }
        // (A lead's own -ing form tells the project, no setup: "Building a chrome extension
        // that blocks youtube shorts.")
        self.cls.goals[g.goal].goal_type == GoalType::QuestionAnswer
            && g.wrapper.is_empty()
            && self
                .at(g.lead.start, |m| matches!(m, Meaning::Lead(_)))
                .is_none()
            && self.text[sentence.end..].starts_with(". ")
            && self.text[g.lead.clone()].len() >= 6
            && self.text[g.lead.clone()]
                .to_ascii_lowercase()
                .ends_with("ing")
            && self.text[g.lead.start..sentence.end]
                .split_whitespace()
                .next()
                .is_some_and(|w| w.len() == g.lead.len())
    }

    /// Where the request starts after a short preface and "but" ("random question, but how do
    /// i center a div", "quick one but write me a regex for emails"): at most four words,
    /// then "but" and a goal lead.
    pub(super) fn after_preface(&self, span: Range<usize>) -> Option<usize> {
        // (Most sentences have none: "but" is looked for before any word is kept.)
        let but = words(self.text, span.clone())
            .take(5)
            .position(|w| self.text[w].eq_ignore_ascii_case("but"))?;
        let ws: SmallVec<[Range<usize>; 6]> = words(self.text, span.clone()).take(6).collect();
        // (A preface states no goal of its own: "Build a form but keep it simple" is one.)
        let first = self.hits.partition_point(|h| h.start() < span.start);
        let lead_in_preface = self.hits[first..]
            .iter()
            .take_while(|h| h.start() < ws[but].start)
            .any(|h| {
                self.meanings(*h)
                    .iter()
                    .any(|m| matches!(m, Meaning::Lead(_)))
            });
        if !(1..=4).contains(&but) || lead_in_preface {
            return None;
        }
        let next = ws.get(but + 1)?.start;
        self.lead_hit(next, span.end).map(|_| next)
    }

    /// A user story's request: from its speaker after the role to its benefit ("As a team
    /// admin, I want to set a default reviewer per repository so that new pull requests don't
    /// sit unassigned" asks for the reviewer; the "so that" clause says why).
    pub(super) fn story(&self, span: Range<usize>) -> Option<Range<usize>> {
        let start = self.after_role(span.clone())?;
        let end = self.text[start..span.end]
            .match_indices(" so ")
            .take(4)
            .find(|(p, _)| {
                let after = start + p + 4;
                let mut ws = words(self.text, after..span.end);
                let first = ws.next();
                let who = match first {
                    Some(w) if self.text[w.clone()].eq_ignore_ascii_case("that") => ws.next(),
                    other => other,
                };
                who.is_some_and(|w| {
                    BENEFICIARIES
                        .iter()
                        .any(|b| self.text[w.clone()].eq_ignore_ascii_case(b))
                })
            })
            .map_or(span.end, |(p, _)| {
                let cut = start + p;
                self.text[..cut].trim_end_matches([',', ' ']).len()
            });
        Some(start..end)
    }

    /// Where the speaker starts after a user story's role: "As a" or "As an", a role of at
    /// most four words, then "I" or "we" and more ("As a shopper I'd like the cart to
    /// remember its items", "as a team lead, I need to see who is on call"). The role says who
    /// asks; what follows is read as the request.
    pub(super) fn after_role(&self, span: Range<usize>) -> Option<usize> {
        // (Most sentences open otherwise: "as " is looked for before any word is kept.)
        // (The span may be empty or end before it starts, past a sentence's fillers.)
        if !self
            .text
            .get(span.clone())
            .and_then(|t| t.get(..3))
            .is_some_and(|t| t.eq_ignore_ascii_case("as "))
        {
            return None;
        }
        let ws: SmallVec<[Range<usize>; 16]> = words(self.text, span).take(16).collect();
        let is = |i: usize, list: &[&str]| {
            ws.get(i).is_some_and(|w| {
                list.iter()
                    .any(|x| self.text[w.clone()].eq_ignore_ascii_case(x))
            })
        };
        if !is(0, &["as"]) || !is(1, &["a", "an"]) {
            return None;
        }
        let speaker = (3..ws.len().min(ROLE_WORDS + 3)).find(|&i| is(i, &SPEAKERS))?;
        // (The role holds no punctuation; a comma may end it: "As a result, the invoices I
        // export ..." names no role. A role of more than four words says who with a clause
        // and ends with its comma: "As a player who mostly plays one-handed, I'd like ...".)
        let role = &self.text[ws[1].end..ws[speaker].start];
        let (role, comma) = match role.trim_end().strip_suffix(',') {
            Some(r) => (r, true),
            None => (role, false),
        };
        (speaker + 1 < ws.len()
            && (speaker <= 6 || comma)
            && !role.contains([',', '.', ';', ':', '!', '?']))
        .then(|| ws[speaker].start)
    }
}
