//! A message with its hits, read by the classifier: the pass over the message that finds
//! every phrase once, and `Classifier::read`, which turns the hits into a `Reading` (signals,
//! goals by lead or by evidence, asked slots).

use std::cmp::Reverse;
use std::ops::Range;

use smallvec::SmallVec;

use super::classify::{BREAK, COVERS, Classifier, NEGATION};
use super::explain::{DropRule, PhraseNote};
use super::lexicon::{Position, Role, Signal};
use super::reading::{Hit, Meaning, Reading};
use super::text::*;

impl Classifier {
    /// Reads a message written by `role`, as the first message of a goal (no goal active).
    /// `text` should be normalised (see [`normalize`]).
    pub fn read(&self, text: &str, role: Role) -> Reading {
        self.read_explained(text, role, false, None)
    }

    /// [`Classifier::read`], in a session whose goal is `active` or not, noting in `notes`
    /// (when given) every phrase found, whether it counted and, if not, why; spans are of
    /// `text`. With a goal active only a goal lead states a goal ("Reading real messages":
    /// evidence without a lead is about the current goal), so the reader looks no further,
    /// and a short reply is read as a possible correction.
    pub fn read_explained(
        &self,
        text: &str,
        role: Role,
        active: bool,
        notes: Option<&mut Vec<PhraseNote>>,
    ) -> Reading {
        match notes {
            Some(notes) => self.read_noting::<true>(text, role, active, notes),
            None => self.read_noting::<false>(text, role, active, &mut Vec::new()),
        }
    }

    /// The reading, with notes when `NOTE`: compiled twice, so a reading without notes has no
    /// trace of them.
    fn read_noting<const NOTE: bool>(
        &self,
        text: &str,
        role: Role,
        active: bool,
        notes: &mut Vec<PhraseNote>,
    ) -> Reading {
        let mut note = |class: &str, role: Role, hit: Hit, dropped_by: Option<DropRule>| {
            if NOTE {
                notes.push(PhraseNote {
                    class: class.to_string(),
                    role,
                    text: text[hit.start()..hit.end()].to_string(),
                    start: hit.start(),
                    end: hit.end(),
                    dropped_by,
                });
            }
        };
        let mut view = View::new(self, text);
        view.active = active;
        let mut reading = Reading::default();
        // The spec's "Real phrasing" (user messages): what stands before the last contrast
        // marker, anything beside a deferral, and what a question does not ask for, neither
        // approves nor satisfies.
        let user = role == Role::User;
        let mut last_contrast = None;
        let mut last_contrast_end = 0;
        let mut deferred = false;
        if user {
            for hit in view.hits.iter().filter(|h| !h.shadowed) {
                let meanings = view.meanings(*hit);
                if meanings.contains(&Meaning::Contrast) {
                    last_contrast = Some(hit.start());
                    last_contrast_end = hit.end();
                    note("contrast", role, *hit, None);
                }
                if meanings.contains(&Meaning::Deferral) {
                    let negated = view.negated(*hit);
                    deferred |= !negated;
                    note(
                        "deferral",
                        role,
                        *hit,
                        negated.then_some(DropRule::Negation),
                    );
                }
            }
            reading.question = text.trim_end().ends_with('?');
        }
        let mut dropped_satisfied = false;
        // (A switch or cancel marker opening a sentence announces a goal of its own: the
        // message is read as if no goal were active, so a report or a request without a lead
        // after it is a goal too, "different thing: the /health endpoint returns 200 even when
        // redis is down".)
        let mut announced = false;
        for hit in view.hits.iter().filter(|h| !h.shadowed) {
            for &meaning in view.meanings(*hit) {
                match meaning {
                    Meaning::Signal(i) => {
                        let info = self.signals[i as usize];
                        let class = info.signal.as_str();
                        let mut drop = |rule| note(class, info.role, *hit, Some(rule));
                        if info.role != role {
                            drop(DropRule::Role);
                            continue;
                        }
                        let counts = match info.position {
                            Position::Anywhere => !view.negated(*hit),
                            Position::Lead => view.leads_message(*hit),
                        };
                        if !counts {
                            drop(match info.position {
                                Position::Anywhere => DropRule::Negation,
                                Position::Lead => DropRule::Position,
                            });
                            continue;
                        }
                        if user && matches!(info.signal, Signal::Approve | Signal::Satisfied) {
                            if view.qualifies(*hit) {
                                drop(DropRule::Degree);
                                continue;
                            }
                            if deferred {
                                drop(DropRule::Deferral);
                                continue;
                            }
                            if last_contrast.is_some_and(|at| hit.start() < at) {
                                dropped_satisfied |=
                                    matches!(info.signal, Signal::Satisfied | Signal::Approve);
                                drop(DropRule::Contrast);
                                continue;
                            }
                            if let Some(asks_to_act) = view.in_question(*hit)
                                && (info.signal == Signal::Satisfied || !asks_to_act)
                            {
                                drop(DropRule::Question);
                                continue;
                            }
                        }
                        note(class, role, *hit, None);
                        announced |= active && user && view.announces(*hit, info.signal);
                        reading.signals.insert(info.signal);
                    }
                    Meaning::Asks(slot) if role == Role::Assistant => {
                        reading.asks |= 1 << slot;
                        if view.in_question(*hit).is_some() {
                            reading.asks_in_question |= 1 << slot;
                        }
                        if NOTE {
                            let class = format!("asks:{}", self.slots[slot as usize].name);
                            note(&class, role, *hit, None);
                        }
                    }
                    Meaning::NonAnswer if role == Role::User => {
                        reading.non_answer = true;
                        note("non_answer", role, *hit, None);
                    }
                    // A problem word (not a mere negation), or a modal ("it should skip ..."):
                    // in `reviewing`, what the user wants otherwise.
                    Meaning::Problem | Meaning::Modal
                        if role == Role::User
                            && !view.meanings(*hit).contains(&Meaning::Negation)
                            && !view.negated(*hit) =>
                    {
                        reading.problem = true;
                    }
                    Meaning::Waiver if role == Role::User && !view.negated(*hit) => {
                        reading.waiver = true;
                        reading.waiver_at.get_or_insert(hit.start()..hit.end());
                        note("waiver", role, *hit, None);
                    }
                    _ => {}
                }
            }
        }
        reading.complaint =
            dropped_satisfied && !deferred && !reading.signals.has(Signal::Satisfied);
        reading.change_from = reading.complaint.then_some(last_contrast_end);
        reading.problem &= !deferred && !reading.signals.has(Signal::Satisfied);
        if role == Role::User {
            reading.announced = announced;
            view.read_goals(&mut reading, active && !announced);
            if active {
                reading.correction = view.correction();
            }
        }
        reading
    }

    /// The reply as the value of a slot that was asked for: the message without fillers,
    /// leading articles and trailing punctuation.
    pub fn answer_span(&self, text: &str) -> Range<usize> {
        let view = View::new(self, text);
        let start = view.skip(0, |m| matches!(m, Meaning::Filler | Meaning::Ack));
        self.clean(text, start..text.len(), true)
    }
}

/// A message with its hits, for the sentence logic. Built in O(n log n) of the message's
/// length whatever its content (no hit is compared with every other): long messages are normal
/// (assistants paste code), and a message built to be slow must not stall the server.
/// Prefixes a hyphen joins to a verb, which stays a verb: "re-enable", "double-check".
pub(super) const VERB_PREFIXES: [&str; 8] =
    ["re", "un", "pre", "de", "co", "double", "over", "mis"];

pub(super) struct View<'a> {
    pub(super) cls: &'a Classifier,
    pub(super) text: &'a str,
    /// By start, longest first.
    pub(super) hits: SmallVec<[Hit; 16]>,
    /// Negation hits' ends, ascending.
    negations: SmallVec<[u32; 8]>,
    /// Positions of the bytes that end a clause, ascending.
    clause_bytes: SmallVec<[u32; 16]>,
    /// Clause-break hits ("but") by start, with the smallest end of this and every later one.
    breaks: SmallVec<[(u32, u32); 8]>,
    /// Where the message starts after its fillers.
    pub(super) after_fillers: usize,
    /// The bytes that end a sentence (see [`sentences`]), ascending.
    pub(super) sentence_ends: SmallVec<[u32; 8]>,
    /// A goal is active: "it" and "them" refer to its work (rule 5).
    pub(super) active: bool,
}

impl<'a> View<'a> {
    pub(super) fn new(cls: &'a Classifier, text: &'a str) -> View<'a> {
        let mut hits: SmallVec<[Hit; 16]> = SmallVec::new();
        for m in cls.matcher.find_overlapping_iter(text) {
            let (first, last) = cls.word_edges[m.pattern().as_usize()];
            // (A hyphen between letters joins words: "fine-tuning" holds no "fine".)
            let bytes = text.as_bytes();
            // (Not after a verb's prefix: "re-enable", "double-check", "pre-fill".)
            let joined_before = || {
                m.start() >= 2
                    && bytes[m.start() - 1] == b'-'
                    && bytes[m.start() - 2].is_ascii_alphanumeric()
                    && !text[..m.start() - 1]
                        .rsplit(|c: char| !c.is_ascii_alphanumeric())
                        .next()
                        .is_some_and(|p| VERB_PREFIXES.iter().any(|x| p.eq_ignore_ascii_case(x)))
            };
            // (A dot between letters joins a name: "Next.js" holds no "next", "package.json"
            // no "json".)
            let joined_after = || {
                matches!(bytes.get(m.end()), Some(b'-' | b'.'))
                    && bytes.get(m.end() + 1).is_some_and(u8::is_ascii_alphabetic)
            };
            // (A word right before an opening parenthesis is a function's or a method's name:
            // "methods append(msg), last(n) and clear()" asks for no clearing. Not a label's
            // scope, "fix(auth): ...", nor a plural's mark, "file(s)".)
            // (Its arguments hold no space but after a comma: "fix(the typo)", "crashes(see
            // log)" are prose. A problem word keeps its meaning: "slow(ish)".)
            let called = || {
                bytes.get(m.end()) == Some(&b'(')
                    && text[m.end() + 1..]
                        .bytes()
                        .take(40)
                        .position(|b| b == b')')
                        .is_some_and(|c| {
                            let inside = &text[m.end() + 1..m.end() + 1 + c];
                            !matches!(inside, "s" | "es")
                                && !matches!(bytes.get(m.end() + 2 + c), Some(b':' | b'!'))
                                && !inside.split(',').any(|a| a.trim_start().contains(' '))
                        })
                    && !cls
                        .meanings_of(m.pattern().as_usize())
                        .contains(&Meaning::Problem)
            };
            let dotted_before = || {
                m.start() >= 2
                    && bytes[m.start() - 1] == b'.'
                    && bytes[m.start() - 2].is_ascii_alphabetic()
            };
            if (first && (!boundary_before(text, m.start()) || joined_before() || dotted_before()))
                || (last && (!boundary_after(text, m.end()) || joined_after() || called()))
            {
                continue;
            }
            hits.push(Hit {
                start: m.start() as u32,
                end: m.end() as u32,
                phrase: m.pattern().as_u32(),
                shadowed: false,
            });
        }
        // By start, longest first: the first hit found at a position is its longest.
        hits.sort_unstable_by_key(|h| (h.start, Reverse(h.end)));
        // Clause bytes and sentence ends in one pass: every sentence end is a clause byte, so
        // only those are looked at twice.
        let mut clause_bytes: SmallVec<[u32; 16]> = SmallVec::new();
        let mut ends: SmallVec<[u32; 8]> = SmallVec::new();
        let bytes = text.as_bytes();
        for (i, b) in bytes.iter().enumerate() {
            if is_clause_byte(*b) {
                clause_bytes.push(i as u32);
                let end = *b != b'.' || i + 1 == bytes.len() || bytes[i + 1].is_ascii_whitespace();
                if end && *b != b',' {
                    ends.push(i as u32);
                }
            }
        }
        // (A comma between a number's thousands ends no clause: looked at among the clause
        // bytes, few, not in the walk over every byte.)
        if clause_bytes
            .iter()
            .any(|p| bytes[*p as usize] == b',' && thousands_comma(bytes, *p as usize))
        {
            clause_bytes
                .retain(|p| bytes[*p as usize] != b',' || !thousands_comma(bytes, *p as usize));
        }
        let mut view = View {
            cls,
            text,
            hits,
            negations: SmallVec::new(),
            clause_bytes,
            breaks: SmallVec::new(),
            after_fillers: 0,
            sentence_ends: ends,
            active: true,
        };
        // A hit inside a longer one that is a signal, an intent or a non-answer is read as part
        // of it. In start order (longest first at a start), every hit that could cover this one
        // came before it: it is covered when the furthest end of those reaches its end.
        let mut cover: Option<u32> = None;
        for i in 0..view.hits.len() {
            let h = view.hits[i];
            view.hits[i].shadowed = cover.is_some_and(|end| end >= h.end);
            let flags = cls.phrase_flags[h.phrase as usize];
            if flags & COVERS != 0 {
                cover = Some(cover.map_or(h.end, |end| end.max(h.end)));
            }
            if flags & NEGATION != 0 {
                view.negations.push(h.end);
            }
            if flags & BREAK != 0 {
                view.breaks.push((h.start, h.end));
            }
        }
        view.negations.sort_unstable();
        // The smallest end among the breaks from each one on.
        for i in (0..view.breaks.len().saturating_sub(1)).rev() {
            view.breaks[i].1 = view.breaks[i].1.min(view.breaks[i + 1].1);
        }
        view.after_fillers = view.skip(0, |m| m == Meaning::Filler);
        view
    }

    pub(super) fn meanings(&self, hit: Hit) -> &'a [Meaning] {
        self.cls.meanings_of(hit.phrase as usize)
    }

    /// Whether nothing but white space and a sentence's mark follows `at` in its sentence.
    pub(super) fn ends_sentence(&self, at: usize) -> bool {
        let k = self.sentence_ends.partition_point(|e| (*e as usize) < at);
        let end = self
            .sentence_ends
            .get(k)
            .map_or(self.text.len(), |e| *e as usize);
        self.text[at..end].trim().is_empty()
    }

    /// The hits that start at `at`, longest first.
    pub(super) fn starting_at(&self, at: usize) -> &[Hit] {
        let first = self.hits.partition_point(|h| h.start() < at);
        let end = first + self.hits[first..].partition_point(|h| h.start() == at);
        &self.hits[first..end]
    }

    /// The longest hit starting at `at` with a meaning that `want` accepts.
    pub(super) fn at(&self, at: usize, want: impl Fn(Meaning) -> bool) -> Option<Hit> {
        self.starting_at(at)
            .iter()
            .find(|h| self.meanings(**h).iter().any(|m| want(*m)))
            .copied()
    }

    /// `at` moved past white space and soft punctuation, then past every phrase that `want`
    /// accepts, repeatedly.
    pub(super) fn skip(&self, mut at: usize, want: impl Fn(Meaning) -> bool) -> usize {
        loop {
            at = skip_soft(self.text, at);
            // (A chat channel's mention of the assistant, a bot's handle, is an address, as a
            // filler is: "@databot can you ...", "hey @opsbot silence ...".)
            if self.text.as_bytes().get(at) == Some(&b'@')
                && want(Meaning::Filler)
                && let Some(name) = self.text[at..].strip_prefix('@')
                && name.starts_with(|c: char| c.is_alphanumeric())
                // (A bot's handle: "@sarah can you review my PR" asks a colleague.)
                && {
                    let handle = &name[..name
                        .find(|c: char| !(c.is_alphanumeric() || matches!(c, '-' | '_' | '.')))
                        .unwrap_or(name.len())]
                        .to_ascii_lowercase();
                    ["bot", "assistant", "ai", "gpt", "helper", "copilot", "agent"]
                        .iter()
                        .any(|b| handle.contains(b))
                }
            {
                at = self.text.len() - name.len()
                    + name
                        .find(|c: char| !(c.is_alphanumeric() || matches!(c, '-' | '_' | '.')))
                        .unwrap_or(name.len());
                // (A dot that ends the name ends its sentence: "@bot.")
                if self.text[..at].ends_with('.') {
                    at -= 1;
                }
                continue;
            }
            // The longest wanted hit there, unless a longer goal lead starts there too (the
            // hits before it, longest first): "look at the deploy script" is no filler and its
            // object.
            let hits = self.starting_at(at);
            let Some(i) = hits
                .iter()
                .position(|h| self.meanings(*h).iter().any(|m| want(*m)))
            else {
                return at;
            };
            if hits[..i].iter().any(|h| {
                self.meanings(*h)
                    .iter()
                    .any(|m| matches!(m, Meaning::Lead(_)))
            }) {
                return at;
            }
            at = hits[i].end();
        }
    }

    /// The first comma in `from..end`, found among the clause bytes (no scan of the text).
    pub(super) fn next_comma(&self, from: usize, end: usize) -> Option<usize> {
        let first = self.clause_bytes.partition_point(|p| (*p as usize) < from);
        self.clause_bytes[first..]
            .iter()
            .map(|p| *p as usize)
            .take_while(|p| *p < end)
            .find(|p| self.text.as_bytes()[*p] == b',')
    }

    /// A signal phrase is negated when a negation stands before it in its clause. Only the
    /// last negation that ends before it need be looked at: an earlier one's clause holds that
    /// one's.
    pub(super) fn negated(&self, hit: Hit) -> bool {
        let before = self.negations.partition_point(|end| *end <= hit.start);
        let Some(&from) = before.checked_sub(1).and_then(|i| self.negations.get(i)) else {
            return false;
        };
        // A clause byte in `from..hit.start`, or a break hit within it, ends the clause.
        let next_byte = self.clause_bytes.partition_point(|p| *p < from);
        if self
            .clause_bytes
            .get(next_byte)
            .is_some_and(|p| *p < hit.start)
        {
            return false;
        }
        let next_break = self.breaks.partition_point(|(start, _)| *start < from);
        self.breaks
            .get(next_break)
            .is_none_or(|(_, min_end)| *min_end > hit.start)
    }

    /// Whether the message leads with this hit (after fillers) and the hit ends its clause.
    fn leads_message(&self, hit: Hit) -> bool {
        // (An acknowledgement after it leaves it alone too: "nvm figured it out", "never mind
        // got it".)
        let filler = |m| m == Meaning::Filler || m == Meaning::Ack;
        if self.after_fillers != hit.start() {
            return false;
        }
        let mut at = hit.end();
        loop {
            at += self.text[at..].len() - self.text[at..].trim_start().len();
            match self.at(at, filler) {
                Some(h) => at = h.end(),
                None => break,
            }
        }
        at == self.text.len()
            || is_clause_byte(self.text.as_bytes()[at])
            || self.at(at, |m| m == Meaning::ClauseBreak).is_some()
    }

    /// Whether a `signal` hit announces a goal of its own: a cancel phrase ("scratch that"),
    /// or a switch marker that is also a filler ("different thing", "unrelated", "new question"), opening
    /// its sentence. ("Actually" and "instead" only qualify what follows: "actually make it
    /// veggie" changes the work in hand.)
    fn announces(&self, hit: Hit, signal: Signal) -> bool {
        let cls = self.cls;
        // (With nothing after it there is nothing of its own to read: "bye", "never mind".)
        if !matches!(signal, Signal::Switch | Signal::Cancel)
            || !self.text[hit.end()..]
                .bytes()
                .any(|b| b.is_ascii_alphanumeric() || b >= 0x80)
        {
            return false;
        }
        let meanings = self.meanings(hit);
        let cancels = |m: &Meaning| matches!(m, Meaning::Signal(i) if cls.signals[*i as usize].signal == Signal::Cancel);
        (signal == Signal::Cancel
            || signal == Signal::Switch
                && (meanings.iter().any(cancels)
                    || meanings.contains(&Meaning::Filler)
                        && !cls.lower_in(
                            &cls.words.intensifier_words,
                            &self.text[hit.start()..hit.end()],
                        )))
            && self.opens_sentence(hit)
    }

    /// Whether a hit opens its sentence: only fillers, acknowledgements and one word of
    /// `intensifiers` stand before it ("Actually, ...", "ok. different thing: ...", "cool.
    /// totally unrelated but ...").
    pub(super) fn opens_sentence(&self, hit: Hit) -> bool {
        let ends = &self.sentence_ends;
        let i = ends.partition_point(|e| (*e as usize) < hit.start());
        let start = i.checked_sub(1).map_or(0, |p| ends[p] as usize + 1);
        let at = self.skip(start, |m| matches!(m, Meaning::Filler | Meaning::Ack));
        // (Itself a filler, or inside one, "totally unrelated": skipped with the opening.)
        if at >= hit.start() {
            return at == hit.start() || hit.end() <= at;
        }
        let before = self.text[at..hit.start()].trim_end();
        !before
            .bytes()
            .any(|b| b.is_ascii_whitespace() || is_clause_byte(b))
            && self.cls.lower_in(&self.cls.words.intensifier_words, before)
    }

    /// Whether a hit is a word of `intensifiers` inside its sentence, before the word it
    /// qualifies: "it's absolutely freezing" approves nothing; "absolutely, go ahead" and "yes
    /// absolutely" do.
    pub(super) fn qualifies(&self, hit: Hit) -> bool {
        let cls = self.cls;
        // (The word's place first, then the word: most approvals end their clause.)
        let after = &self.text[hit.end()..];
        let next = after.trim_start();
        if after.len() == next.len() || !next.starts_with(char::is_alphabetic) {
            return false;
        }
        let inside = self.text[..hit.start()]
            .trim_end()
            .chars()
            .next_back()
            .is_some_and(|c| c.is_alphanumeric() || c == '\'');
        inside
            && cls.lower_in(
                &cls.words.intensifier_words,
                &self.text[hit.start()..hit.end()],
            )
    }

    /// For a hit in a sentence that ends with `?`: whether that question asks the assistant to
    /// act (it opens, after fillers, with an action question such as "can you"). `None` for a
    /// hit in any other sentence.
    pub(super) fn in_question(&self, hit: Hit) -> Option<bool> {
        let ends = &self.sentence_ends;
        let i = ends.partition_point(|e| (*e as usize) < hit.end());
        let end = *ends.get(i)? as usize;
        if self.text.as_bytes()[end] != b'?' {
            return None;
        }
        let start = i.checked_sub(1).map_or(0, |p| ends[p] as usize + 1);
        let opener = self.skip(start, |m| m == Meaning::Filler);
        Some(self.at(opener, |m| m == Meaning::ActionQuestion).is_some())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The built-in rules, loaded once for the tests that read many messages.
    fn builtin() -> &'static super::super::Engine {
        static ENGINE: std::sync::OnceLock<super::super::Engine> = std::sync::OnceLock::new();
        ENGINE.get_or_init(crate::patterns::builtin)
    }

    /// The readings as they were first written, comparing every hit with every other (cubic
    /// in the worst case): the reference the linear ones must equal.
    impl View<'_> {
        fn shadowed_by_comparison(&self, h: Hit) -> bool {
            self.hits.iter().any(|o| {
                o.start <= h.start
                    && o.end >= h.end
                    && o.end - o.start > h.end - h.start
                    && self.meanings(*o).iter().any(|m| {
                        matches!(m, Meaning::Signal(_) | Meaning::Intent | Meaning::NonAnswer)
                    })
            })
        }

        fn negated_by_comparison(&self, hit: Hit) -> bool {
            let clause_ends_between = |from: usize, to: usize| {
                self.text.as_bytes()[from..to]
                    .iter()
                    .any(|b| is_clause_byte(*b))
                    || self.hits.iter().any(|h| {
                        h.start() >= from
                            && h.end() <= to
                            && self.meanings(*h).contains(&Meaning::ClauseBreak)
                    })
            };
            self.hits
                .iter()
                .take_while(|n| n.start < hit.start)
                .any(|n| {
                    n.end <= hit.start
                        && self.meanings(*n).contains(&Meaning::Negation)
                        && !clause_ends_between(n.end(), hit.start())
                })
        }
    }

    const PIECES: &[&str] = &[
        "no",
        "not",
        "never",
        "don't",
        "but",
        "however",
        "ok",
        "okay",
        "sure",
        "make sure",
        "not sure",
        "yes",
        "go ahead",
        "sounds good",
        "perfect",
        "thanks",
        "stop",
        "never mind",
        "change",
        "fix",
        "build",
        "a",
        "page",
        ",",
        ".",
        "!",
        "?",
        ";",
        "\n",
        "and",
        "it",
        "works",
        "that works",
        "doesn't",
        "great",
        "but not",
        "looks good",
    ];

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig { cases: 2000, ..Default::default() })]

        /// Shadowing and negation, as read in one pass, equal the pairwise comparisons.
        #[test]
        fn one_pass_readings_equal_the_pairwise_ones(
            words in proptest::collection::vec(proptest::sample::select(PIECES), 0..40),
        ) {
            let text = words.join(" ");
            let view = View::new(builtin().classifier(), &text);
            for h in &view.hits {
                proptest::prop_assert_eq!(h.shadowed, view.shadowed_by_comparison(*h), "{:?} in {:?}", h, text);
                proptest::prop_assert_eq!(view.negated(*h), view.negated_by_comparison(*h), "{:?} in {:?}", h, text);
            }
        }
    }
}
