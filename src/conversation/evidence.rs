//! Reading real messages: the rules of the specification's section of that name, each one
//! mechanism over the hits of a message (the [`View`] of `classify`), named in the explain
//! output by [`Found`]. The vocabulary is the pattern files'; the mechanisms are here:
//!
//! - [`View::read_goals`]: the first sentence that states a goal decides (rule 9), then the
//!   further goals of the message (rule 14) and a pasted error (rule 1);
//! - [`View::statement`]: one sentence: small talk and questions about the assistant (rule 7),
//!   a goal lead, a title (rule 8), then evidence without a lead verb;
//! - [`View::evidence`]: a subject and a problem predicate (rule 1) or a modal (rule 2);
//! - [`View::details`]: the slot values a request states by its structure (rules 2, 10);
//! - [`View::noun_use`]: a lead word used as a noun (rule 4);
//! - [`View::further`]: where a further goal starts, after a sequencer or "or" (rule 14);
//! - [`Classifier::correction`]: a reply correcting a slot (rule 12).
//!
//! Work per message stays linear: each mechanism walks the hits or the words of one sentence
//! once (the further goals at most `MAX_QUEUED_GOALS` times).

use std::collections::HashSet;
use std::hash::{BuildHasherDefault, Hasher};

/// A set of words with a fixed, cheap hasher (FNV-1a): lookups of short words cost the same
/// in every process and little in any.
pub(super) type Words = HashSet<String, BuildHasherDefault<Fnv>>;

/// FNV-1a, for the word sets' short keys (not for keys a peer chooses to collide: the sets
/// are the pattern files' words, and a lookup's key is one word).
#[derive(Debug)]
pub(super) struct Fnv(u64);

impl Default for Fnv {
    fn default() -> Fnv {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
}

impl Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 = (self.0 ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3);
        }
    }
}

/// Where `needle` first stands in `hay` (a plain byte scan: no searcher to build for the few
/// bytes it looks at).
fn find_bytes(hay: &str, needle: &str) -> Option<usize> {
    let (h, n) = (hay.as_bytes(), needle.as_bytes());
    if n.is_empty() || h.len() < n.len() {
        return None;
    }
    (0..=h.len() - n.len()).find(|&i| h[i] == n[0] && &h[i..i + n.len()] == n)
}
use std::ops::Range;

use smallvec::SmallVec;

use super::classify::{
    Classifier, Detail, Found, GoalLead, Hit, LeadInfo, Meaning, Reading, View, count_words,
    is_clause_byte, noun_phrase, sentences, skip_soft,
};
use super::lexicon::{ChangeMode, DescriptionMode, Language};
use super::state::{GoalType, MAX_QUEUED_GOALS};

/// The most words a subject may have (a longer run before a predicate is no subject).
const MAX_SUBJECT_WORDS: usize = 6;
/// The longest reply read as a correction, in bytes.
const MAX_CORRECTION: usize = 120;
/// Prepositions before a thing: "in the editor", "for the dashboard".
const PLACES: [&str; 9] = [
    "in", "on", "to", "from", "for", "into", "across", "at", "of",
];
/// The most bytes before a predicate a subject may start at.
const MAX_SUBJECT_BYTES: usize = 160;
/// The most bytes of a pasted error line kept as a description.
const MAX_ERROR_LINE: usize = 160;

/// The language file's lists the reader looks words up in, one word each.
#[derive(Clone, Debug, Default)]
pub(super) struct WordSets {
    auxiliaries: Words,
    determiners: Words,
    non_subjects: Words,
    task_titles: Words,
    /// The object's connectors after an artifact's kind that start its requirements.
    pub(super) ends: Words,
    /// Plain verbs, where a thing ends and its result starts.
    pub(super) verbs: Words,
    /// Verbs describing behaviour (`predicates`).
    pub(super) predicates: Words,
}

impl WordSets {
    pub(super) fn new(lang: &Language) -> WordSets {
        let words = |lists: &[&Vec<String>]| {
            lists
                .iter()
                .flat_map(|l| l.iter())
                .map(|p| super::classify::normalize_phrase(p))
                .filter(|p| !p.contains(' '))
                .collect()
        };
        WordSets {
            auxiliaries: words(&[&lang.auxiliaries]),
            determiners: words(&[&lang.determiners]),
            non_subjects: words(&[&lang.non_subjects]),
            task_titles: lang
                .task_titles
                .iter()
                .map(|t| super::classify::normalize_phrase(t))
                .collect(),
            ends: words(&[&lang.noun_phrase_ends]),
            verbs: words(&[&lang.verbs]),
            predicates: words(&[&lang.predicates]),
        }
    }
}

/// How much a sentence must show to be read as a problem report without a lead verb.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Strength {
    /// A problem predicate or a modal of the pattern files.
    Problem,
    /// Or a verb of the `predicates` list ("the date picker shows yesterday's date").
    Predicate,
    /// Or any word ending in -s or -ed after a subject ("the dropdown closes ...").
    Suffix,
}

/// Where a further goal starts after a goal's object (rule 14).
#[derive(Clone, Copy, Debug)]
pub(super) struct Further {
    /// Where the first goal's object ends.
    pub(super) cut: usize,
    /// Where the further statement starts.
    pub(super) next: usize,
    /// Joined by "or": the user has not chosen.
    pub(super) alternative: bool,
}

/// A word of the text: a run of characters that are not white space or hard punctuation.
fn words(text: &str, span: Range<usize>) -> impl Iterator<Item = Range<usize>> + '_ {
    // An empty or inverted span (a skip past a sentence's end) has no words.
    let span = span.start.min(span.end)..span.end;
    let base = span.start;
    let slice = &text[span];
    let mut at = 0;
    std::iter::from_fn(move || {
        let rest = &slice[at..];
        let skip = rest.len()
            - rest
                .trim_start_matches(|c: char| c.is_whitespace() || is_hard(c))
                .len();
        at += skip;
        if at >= slice.len() {
            return None;
        }
        let rest = &slice[at..];
        let len = rest
            .find(|c: char| c.is_whitespace() || is_hard(c))
            .unwrap_or(rest.len());
        let word = at..at + len;
        at += len;
        // A full stop ends a word ("sticky."), not a name ("Node.js").
        let w = &slice[word.clone()];
        let trimmed = w.trim_end_matches('.');
        (!trimmed.is_empty())
            .then(|| base + word.start..base + word.start + trimmed.len())
            .or(Some(base + word.start..base + word.start))
    })
    .filter(|r| !r.is_empty())
}

/// A word such as `TypeError` or `IllegalStateException` before a colon: where it is.
fn camel_error(text: &str) -> Option<Range<usize>> {
    ["Error:", "Exception:"]
        .iter()
        .filter_map(|m| {
            text.match_indices(m).find(|(i, _)| {
                text[..*i]
                    .rsplit(|c: char| !c.is_ascii_alphanumeric())
                    .next()
                    .is_some_and(|w| w.starts_with(|c: char| c.is_ascii_uppercase()))
            })
        })
        .map(|(i, m)| {
            // After the last character that is no ASCII letter or digit (its whole width: it
            // may be a character of several bytes).
            let start = text[..i]
                .char_indices()
                .rev()
                .find(|(_, c)| !c.is_ascii_alphanumeric())
                .map_or(0, |(p, c)| p + c.len_utf8());
            start..i + m.len()
        })
        .min_by_key(|r| r.start)
}

fn is_hard(c: char) -> bool {
    matches!(
        c,
        ',' | ';' | ':' | '!' | '?' | '(' | ')' | '"' | '[' | ']' | '{' | '}' | '`' | '*'
    )
}

impl Classifier {
    /// The goal index of a type (every type is defined: the loader checks it).
    fn goal_index(&self, t: GoalType) -> Option<usize> {
        self.goals.iter().position(|g| g.goal_type == t)
    }

    /// Whether `set` (of lowercase words) holds `word`, in any case. A short ASCII word is
    /// lowercased on the stack: this runs for many words of every message.
    pub(super) fn lower_in(&self, set: &Words, word: &str) -> bool {
        let mut buf = [0u8; 24];
        if word.len() <= buf.len() && word.is_ascii() {
            let lower = &mut buf[..word.len()];
            lower.copy_from_slice(word.as_bytes());
            lower.make_ascii_lowercase();
            // ASCII stays UTF-8.
            std::str::from_utf8(lower).is_ok_and(|w| set.contains(w))
        } else {
            set.contains(&word.to_lowercase())
        }
    }
}

impl View<'_> {
    /// A reply correcting a slot (rule 12): "no, I meant Vue", "not React, Svelte", "Vue, not
    /// React", "sorry, the mobile version". The new value and, when named, the value it
    /// replaces, as byte ranges of the text; at most a few words.
    pub(super) fn correction(&self) -> Option<(Range<usize>, Option<Range<usize>>)> {
        let (view, text, cls) = (self, self.text, self.cls);
        // A correction is a few words with a marker ("no", "I meant", "not"): any other reply
        // is none, and costs nothing here.
        if text.len() > MAX_CORRECTION
            || !self
                .hits
                .iter()
                .any(|h| self.meanings(*h).contains(&Meaning::Correction))
        {
            return None;
        }
        let mut at = 0;
        let mut marked = false;
        loop {
            at = skip_soft(text, at);
            match view.at(at, |m| matches!(m, Meaning::Filler | Meaning::Correction)) {
                Some(h) => {
                    marked |= view.meanings(h).contains(&Meaning::Correction);
                    // "not X, Y": the negated value runs to the comma.
                    if text[h.start()..h.end()].eq_ignore_ascii_case("not") {
                        let rest = &text[h.end()..];
                        let comma = rest.find(',')?;
                        let old = cls.clean(text, h.end()..h.end() + comma, true);
                        let new = cls.clean(text, h.end() + comma + 1..text.len(), true);
                        return self.short(text, new, Some(old));
                    }
                    at = h.end();
                }
                None => break,
            }
        }
        // "Vue, not React", "Vue not React" (not "it is not working").
        let lower = text.to_ascii_lowercase();
        if let Some(p) = lower[at..].find(" not ").map(|p| p + at) {
            let new = cls.clean(text, at..p, true);
            let before = words(text, at..p).last().map(|w| text[w].to_string());
            if before.is_some_and(|w| cls.lower_in(&cls.words.auxiliaries, &w)) {
                return None;
            }
            let old = cls.clean(text, p + 5..text.len(), true);
            return self.short(text, new, Some(old));
        }
        if !marked {
            return None;
        }
        let new = cls.clean(text, at..text.len(), true);
        self.short(text, new, None)
    }

    fn short(
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

impl View<'_> {
    /// The goals of a user message, into `reading`: the first sentence that states one decides
    /// (rule 9); a pasted error is a problem report (rule 1); further goals are queued (rule
    /// 14).
    ///
    /// With a goal `active`, only goal leads count (evidence without a lead is about the
    /// current goal): the reader stops there.
    pub(super) fn read_goals(&self, reading: &mut Reading, active: bool) {
        let mut first: Option<(GoalLead, Range<usize>)> = None;
        // Error lines only where an error's mark stands (most messages have none).
        let marked = !active
            && (self
                .hits
                .iter()
                .any(|h| self.meanings(*h).contains(&Meaning::ErrorMarker))
                || find_bytes(self.text, "Error:").is_some()
                || find_bytes(self.text, "Exception:").is_some());
        let errors = if marked {
            self.error_lines()
        } else {
            SmallVec::new()
        };
        let own = |s: &Range<usize>| !errors.iter().any(|e| e.start <= s.start && s.end <= e.end);
        for s in sentences(self.text).filter(own) {
            if let Some(g) = self.statement(s.clone(), active) {
                first = Some((g, s));
                break;
            }
        }
        if active {
            if let Some((goal, sentence)) = first {
                self.further_goals(&goal, sentence, reading);
                if reading.alternatives {
                    reading.more.truncate(MAX_QUEUED_GOALS - 1);
                    reading.more.insert(0, goal);
                } else {
                    reading.goal = Some(goal);
                }
            }
            return;
        }
        // Without a lead or a problem word anywhere, a request that is a noun phrase, then a
        // sentence describing what a thing does.
        if first.is_none() {
            first = sentences(self.text).filter(own).find_map(|s| {
                let start = self.skip(s.start, |m| matches!(m, Meaning::Filler | Meaning::Ack));
                (start < s.end)
                    .then(|| self.nominal(start..s.end))
                    .flatten()
                    .map(|g| (g, s))
            });
        }
        if first.is_none() {
            for strength in [Strength::Predicate, Strength::Suffix] {
                first = sentences(self.text).filter(own).find_map(|s| {
                    let start = self.skip(s.start, |m| matches!(m, Meaning::Filler | Meaning::Ack));
                    (start < s.end && !self.about_assistant(start..s.end))
                        .then(|| self.evidence_of(start..s.end, strength))
                        .flatten()
                        .map(|g| (g, s))
                });
                if first.is_some() {
                    break;
                }
            }
        }
        // A pasted error wins over a question opened by a question word ("why does this
        // happen?" and a stack trace ask for a fix).
        let asks = |g: &GoalLead| {
            self.cls.goals[g.goal].goal_type == GoalType::QuestionAnswer
                && g.description.start <= g.lead.start
        };
        if first.as_ref().is_none_or(|(g, _)| asks(g))
            && let Some(g) = self.pasted_error(&errors)
        {
            let all = 0..self.text.len();
            first = Some((g, all));
        }
        // A report that introduces a pasted error ("dies with:", "cargo build gives me"): the
        // error is the problem.
        let introduces = |span: &Range<usize>| {
            let last = words(self.text, span.clone()).last();
            self.text[span.end..].trim_start().starts_with(':')
                || last.is_some_and(|w| {
                    [
                        "with", "me", "gives", "throws", "shows", "says", "this", "getting",
                    ]
                    .iter()
                    .any(|i| self.text[w.clone()].eq_ignore_ascii_case(i))
                })
        };
        if let Some((g, _)) = &mut first
            && g.rule == Found::ProblemReport
            && let Some(block) = errors.first()
            && let Some(d) = g.details.iter_mut().find(|d| d.slot == 1)
            && d.spans.last().is_some_and(introduces)
            && let Some((line, _)) = self.error_line(block.clone())
        {
            d.spans = SmallVec::from_iter([line]);
        }
        let Some((goal, sentence)) = first else {
            return;
        };
        if goal.by_lead() {
            self.further_goals(&goal, sentence, reading);
        }
        if reading.alternatives {
            reading.more.truncate(MAX_QUEUED_GOALS - 1);
            reading.more.insert(0, goal);
        } else {
            reading.goal = Some(goal);
        }
    }

    /// Goals after the first in its sentence (after a sequencer or "or") and in later
    /// sentences that open with a sequencer.
    fn further_goals(&self, first: &GoalLead, sentence: Range<usize>, reading: &mut Reading) {
        let goal = first.goal;
        let mut from = first.lead.end;
        while reading.more.len() < MAX_QUEUED_GOALS {
            let Some(f) = self.further(from, sentence.end, goal) else {
                break;
            };
            let next = self.lead_at(f.next, f.next..sentence.end).or_else(|| {
                // "a login form or a signup wizard": the same lead, another object.
                f.alternative.then(|| {
                    let end = self
                        .further(f.next, sentence.end, goal)
                        .map_or(sentence.end, |g| g.cut);
                    let object = self.cls.clean(self.text, f.next..end, true);
                    GoalLead {
                        goal,
                        description: object.clone(),
                        lead: first.lead.clone(),
                        wrapper: 0..0,
                        rule: Found::Lead,
                        details: self.details(goal, ChangeMode::None, first.lead.clone(), object),
                    }
                })
            });
            let Some(next) = next else {
                break;
            };
            reading.alternatives |= f.alternative;
            // Past the further statement's first character (its whole width).
            let step = self.text[f.next..].chars().next().map_or(1, char::len_utf8);
            from = next.lead.end.max(f.next + step);
            reading.more.push(next);
        }
        if reading.alternatives {
            return;
        }
        for s in sentences(self.text).filter(|s| s.start > sentence.start) {
            if reading.more.len() >= MAX_QUEUED_GOALS {
                break;
            }
            let opener = skip_soft(self.text, s.start);
            if self.at(opener, |m| m == Meaning::Sequencer).is_none() {
                continue;
            }
            let start = self.skip(opener, |m| {
                matches!(m, Meaning::Filler | Meaning::Sequencer)
            });
            if let Some((lead, info)) = self.lead_hit(start, s.end)
                && self.starts_new(goal, lead, info, true)
                && let Some(g) = self.lead_at(start, s.clone())
            {
                reading.more.push(g);
            }
        }
    }

    /// Whether a lead after the first goal starts a goal of its own: its object names a thing
    /// (it opens with a determiner), and it is not a feature of an artifact ("build a todo app
    /// and add a dark mode" adds to the app).
    fn starts_new(&self, first: usize, lead: Hit, info: LeadInfo, sequencer: bool) -> bool {
        let names_thing = words(self.text, lead.end()..self.text.len())
            .next()
            .is_some_and(|w| {
                self.cls
                    .lower_in(&self.cls.words.determiners, &self.text[w])
            });
        let first_type = self.cls.goals[first].goal_type;
        let other_type = self.cls.goals[info.goal as usize].goal_type != first_type;
        let feature = first_type == GoalType::ArtifactCreation && info.change == ChangeMode::Object;
        // After a conjunction only a thing of its own starts a goal ("add and delete
        // features" is one list).
        (names_thing || (sequencer && other_type)) && !feature
    }

    /// The longest lead at `start`, or after intents there, ending by `end` (no object read).
    fn lead_hit(&self, start: usize, end: usize) -> Option<(Hit, LeadInfo)> {
        let mut at = start;
        let mut best: Option<(Hit, LeadInfo)> = None;
        for _ in 0..8 {
            for h in self.starting_at(at) {
                if h.end() > end {
                    continue;
                }
                for m in self.meanings(*h) {
                    if let Meaning::Lead(id) = m
                        && best.is_none_or(|(b, _)| h.end() > b.end())
                    {
                        best = Some((*h, self.cls.leads[*id as usize]));
                    }
                }
            }
            match self.at(at, |m| matches!(m, Meaning::Intent | Meaning::Filler)) {
                Some(h) => at = skip_soft(self.text, h.end()),
                None => break,
            }
        }
        best
    }

    /// Where a further goal starts in `from..end` (rule 14): a sequencer followed by a lead
    /// that starts a goal of its own, or "or" followed by a lead or, for an artifact, by
    /// another object ("a login form or a signup wizard").
    pub(super) fn further(&self, from: usize, end: usize, goal: usize) -> Option<Further> {
        let first = self.hits.partition_point(|h| h.start() < from);
        let mut best: Option<Further> = None;
        for h in &self.hits[first..] {
            if h.start() >= end {
                break;
            }
            let meanings = self.meanings(*h);
            let sequencer = meanings.contains(&Meaning::Sequencer);
            if !sequencer && !meanings.contains(&Meaning::Conjunction) {
                continue;
            }
            let next = skip_soft(self.text, h.end());
            if let Some((lead, info)) = self.lead_hit(next, end)
                && self.starts_new(goal, lead, info, sequencer)
            {
                best = Some(Further {
                    cut: h.start(),
                    next,
                    alternative: false,
                });
                break;
            }
        }
        let lower = &self.text[from..end];
        let mut search = 0;
        while let Some(p) = find_bytes(&lower[search..], " or ") {
            let at = from + search + p;
            search += p + 4;
            if best.is_some_and(|b| b.cut < at) {
                break;
            }
            let next = self.skip(at + 4, |m| m == Meaning::Filler);
            let lead = self
                .lead_hit(next, end)
                .is_some_and(|(_, info)| info.mode == DescriptionMode::Object);
            let thing = self.cls.goals[goal].goal_type == GoalType::ArtifactCreation
                && words(self.text, next..end).next().is_some_and(|w| {
                    let w = &self.text[w];
                    w.eq_ignore_ascii_case("a") || w.eq_ignore_ascii_case("an")
                });
            if lead || thing {
                return Some(Further {
                    cut: at,
                    next,
                    alternative: true,
                });
            }
        }
        best
    }

    /// One sentence's goal, if it states one.
    pub(super) fn statement(&self, sentence: Range<usize>, leads_only: bool) -> Option<GoalLead> {
        let cls = self.cls;
        // Before a lead: fillers, acknowledgements, and cancel or switch markers ("Forget that,
        // build a calculator").
        let start = self.skip(sentence.start, |m| match m {
            Meaning::Filler | Meaning::Ack => true,
            Meaning::Signal(i) => matches!(
                cls.signals[i as usize].signal,
                super::Signal::Cancel | super::Signal::Switch
            ),
            _ => false,
        });
        if start >= sentence.end {
            return None;
        }
        if let Some(h) = self.at(start, |m| m == Meaning::SmallTalk) {
            let tail = &self.text[h.end().min(sentence.end)..sentence.end];
            if count_words(tail) <= cls.small_talk_tail_words as usize {
                return None;
            }
        }
        if self.about_assistant(start..sentence.end) {
            return None;
        }
        if let Some(g) = self.lead_at(start, sentence.clone()) {
            // Rule 4: a lead word that is the subject of a predicate is a noun ("Deploy to
            // staging keeps failing"); a lead before a determiner is a verb ("fix the ...").
            let next = words(self.text, g.lead.end..sentence.end).next();
            let verb = next.is_none_or(|w| {
                cls.lower_in(&cls.words.determiners, &self.text[w.clone()])
                    || cls.is_pronoun(&self.text[w])
            });
            // (A question's lead is no verb of its own: "what's wrong with ...".)
            let object_lead = g.description.start > g.lead.start;
            if !verb
                && object_lead
                && let Some(e) = self.evidence(start..sentence.end, Strength::Predicate)
                && e.details
                    .first()
                    .is_some_and(|d| d.spans.first().is_some_and(|s| s.start <= g.lead.start))
            {
                return Some(e);
            }
            // Rule 6: "can the notebook kernel auto-restart after an OOM?" asks a thing of the
            // user's to do something: a request (a task), not a question about it.
            if !object_lead && let Some(r) = self.request_question(&g, sentence.end) {
                return Some(r);
            }
            return Some(g);
        }
        if let Some((after, task_title)) = self.title(start..sentence.end) {
            let rest = self.skip(after, |m| matches!(m, Meaning::Filler | Meaning::Ack));
            if rest >= sentence.end {
                return None;
            }
            if let Some(mut g) = self.lead_at(rest, rest..sentence.end) {
                g.rule = Found::Title;
                return Some(g);
            }
            if leads_only {
                return None;
            }
            if let Some(g) = self.evidence(rest..sentence.end, Strength::Suffix) {
                return Some(g);
            }
            if let Some(g) = self.nominal(rest..sentence.end) {
                return Some(g);
            }
            // "dashboard refresh interval: 5 min", "log level: debug pls": a setting and its
            // value.
            if !task_title
                && let Some(g) = self.labelled_value(start..after - 1, rest..sentence.end)
            {
                return Some(g);
            }
            let object = cls.clean(self.text, rest..sentence.end, true);
            let task = cls.goal_index(GoalType::TaskExecution)?;
            if task_title && !object.is_empty() && cls.goals[task].slots.len() >= 2 {
                return Some(GoalLead {
                    goal: task,
                    description: object.clone(),
                    lead: start..after,
                    wrapper: 0..0,
                    rule: Found::Title,
                    details: SmallVec::from_iter([Detail {
                        slot: 1,
                        prefix: "",
                        spans: SmallVec::from_iter([object]),
                    }]),
                });
            }
            return None;
        }
        if leads_only {
            return None;
        }
        self.evidence(start..sentence.end, Strength::Problem)
    }

    /// A label and a short value with no verb ("log level: debug"): a setting, target the
    /// label, desired change the value.
    fn labelled_value(&self, label: Range<usize>, value: Range<usize>) -> Option<GoalLead> {
        let cls = self.cls;
        let target = cls.clean(self.text, label, true);
        let change = cls.clean(self.text, value, true);
        let verb = |w: &Range<usize>| {
            self.is_predicate(w.clone())
                || cls.lower_in(&cls.words.auxiliaries, &self.text[w.clone()])
                || self
                    .at(w.start, |m| {
                        matches!(m, Meaning::Lead(_) | Meaning::Problem)
                    })
                    .is_some()
        };
        let task = cls.goal_index(GoalType::TaskExecution)?;
        if target.is_empty()
            || change.is_empty()
            || count_words(&self.text[change.clone()]) > 5
            || words(self.text, change.clone()).any(|w| verb(&w))
            || cls.goals[task].slots.len() < 2
        {
            return None;
        }
        let detail = |slot: usize, span: Range<usize>| Detail {
            slot,
            prefix: "",
            spans: SmallVec::from_iter([span]),
        };
        Some(GoalLead {
            goal: task,
            description: target.clone(),
            lead: target.start..target.start,
            wrapper: 0..0,
            rule: Found::Nominal,
            details: SmallVec::from_iter([detail(0, target), detail(1, change)]),
        })
    }

    /// A question opened by "can", "could", "would" or "will" whose subject is a thing of
    /// the user's (a definite determiner) followed by a verb: a request of that thing ("could
    /// the CI pipeline cache node_modules between runs?"). Its target is the thing, its change
    /// what follows.
    fn request_question(&self, question: &GoalLead, end: usize) -> Option<GoalLead> {
        let cls = self.cls;
        let lead = &self.text[question.lead.clone()];
        if !["can", "could", "would", "will"]
            .iter()
            .any(|w| lead.eq_ignore_ascii_case(w))
        {
            return None;
        }
        let first = words(self.text, question.lead.end..end).next()?;
        if !["the", "my", "our", "your", "this", "these"]
            .iter()
            .any(|d| self.text[first.clone()].eq_ignore_ascii_case(d))
        {
            return None;
        }
        let thing = self.thing(first.start..end, true)?;
        let verb = words(self.text, thing.end..end).next()?;
        let v = &self.text[verb.clone()];
        // "can the API be ..." asks about it.
        if ["be", "is", "are", "i", "you", "we"]
            .iter()
            .any(|w| v.eq_ignore_ascii_case(w))
        {
            return None;
        }
        let change = cls.clean(self.text, verb.start..end, false);
        let task = cls.goal_index(GoalType::TaskExecution)?;
        // "will my alarm still go off if ...?" asks what happens.
        let conditional = words(self.text, change.clone()).any(|w| {
            ["if", "when", "whether", "unless"]
                .iter()
                .any(|c| self.text[w.clone()].eq_ignore_ascii_case(c))
        });
        if change.is_empty() || conditional || cls.goals[task].slots.len() < 2 {
            return None;
        }
        let detail = |slot: usize, span: Range<usize>| Detail {
            slot,
            prefix: "",
            spans: SmallVec::from_iter([span]),
        };
        Some(GoalLead {
            goal: task,
            description: cls.clean(self.text, first.start..end, true),
            lead: question.lead.clone(),
            wrapper: 0..0,
            rule: Found::Request,
            details: SmallVec::from_iter([detail(0, thing), detail(1, change)]),
        })
    }

    /// Rule 7: a question addressing the assistant about its own person ("do you ever get
    /// tired", "who trained you"), with no request in it.
    fn about_assistant(&self, span: Range<usize>) -> bool {
        // Most sentences address no one: a cheap look for "you" first.
        let first = self.hits.partition_point(|h| h.start() < span.start);
        if !self.hits[first..]
            .iter()
            .take_while(|h| h.start() < span.end)
            .any(|h| self.meanings(*h).contains(&Meaning::Addressee))
        {
            return false;
        }
        let mut addressed = false;
        let mut persona = false;
        // A lead inside a phrase of the assistant's person ("remember me") is that phrase.
        let mut persona_end = 0;
        let first = self.hits.partition_point(|h| h.start() < span.start);
        for h in &self.hits[first..] {
            if h.start() >= span.end {
                break;
            }
            for m in self.meanings(*h) {
                match m {
                    Meaning::Addressee => addressed = true,
                    Meaning::Persona => {
                        persona = true;
                        persona_end = persona_end.max(h.end());
                    }
                    Meaning::Lead(id) if h.end() > persona_end => {
                        let goal = self.cls.leads[*id as usize].goal as usize;
                        if self.cls.goals[goal].goal_type != GoalType::QuestionAnswer {
                            return false;
                        }
                    }
                    _ => {}
                }
            }
        }
        let opener = self.skip(span.start, |m| {
            matches!(m, Meaning::Filler | Meaning::Ack | Meaning::Deferral)
        });
        let question = self.text[span.clone()].trim_end().ends_with('?')
            || self
                .at(opener, |m| match m {
                    Meaning::Lead(id) => {
                        self.cls.leads[id as usize].mode == DescriptionMode::Sentence
                    }
                    _ => false,
                })
                .is_some();
        addressed && persona && question
    }

    /// Rule 8: a short label before a colon ("Bug:", "feat(ui):", "Feature request:"): where
    /// the sentence goes on, and whether the label names a task.
    fn title(&self, span: Range<usize>) -> Option<(usize, bool)> {
        let text = &self.text[span.clone()];
        // A colon, or a dash after a label that names a task ("Bug report - ...").
        let dash = [" - ", " — ", " – "]
            .iter()
            .filter_map(|d| find_bytes(text, d).map(|p| (p, d.len())))
            .min()
            .filter(|(p, _)| {
                text[..*p]
                    .split_whitespace()
                    .next()
                    .is_some_and(|w| self.cls.lower_in(&self.cls.words.task_titles, w))
            });
        if let Some((p, n)) = dash
            && count_words(&text[..p]) <= 4
            && text.find(':').is_none_or(|c| c > p)
        {
            return Some((span.start + p + n - 1, true));
        }
        let colon = text.find(':')?;
        let label = &text[..colon];
        let after = text[colon + 1..].chars().next();
        let titled = label
            .split_whitespace()
            .next()
            .is_some_and(|w| self.cls.lower_in(&self.cls.words.task_titles, w));
        if colon == 0
            || colon > 60
            || count_words(label) > if titled { 6 } else { 3 }
            || !label
                .chars()
                .all(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_' | '(' | ')' | '/'))
            || after.is_some_and(|c| !c.is_whitespace())
        {
            return None;
        }
        let kind = label.split('(').next().unwrap_or(label).trim();
        let task = titled || self.cls.lower_in(&self.cls.words.task_titles, kind);
        Some((span.start + colon + 1, task))
    }

    /// The predicates of a clause, in order, for a strength of evidence: (where, a modal).
    fn predicates(
        &self,
        span: Range<usize>,
        strength: Strength,
    ) -> SmallVec<[(Range<usize>, bool); 4]> {
        let mut out = SmallVec::new();
        match strength {
            // A word of the `predicates` list (looked up by word: they are common words, and
            // only a message with no goal elsewhere needs them), not inside a signal phrase.
            Strength::Predicate => {
                let mut next_hit = self.hits.partition_point(|h| h.start() < span.start);
                let mut signal_end = 0;
                for w in words(self.text, span.clone()) {
                    while let Some(h) = self.hits.get(next_hit).filter(|h| h.start() <= w.start) {
                        if h.start() > span.start
                            && self
                                .meanings(*h)
                                .iter()
                                .any(|m| matches!(m, Meaning::Signal(_)))
                        {
                            signal_end = signal_end.max(h.end());
                        }
                        next_hit += 1;
                    }
                    if w.start > span.start && signal_end < w.end && self.is_predicate(w.clone()) {
                        out.push((w, false));
                        if out.len() >= 4 {
                            break;
                        }
                    }
                }
            }
            Strength::Problem => {
                let want = |m: &Meaning| matches!(m, Meaning::Problem | Meaning::Modal);
                let first = self.hits.partition_point(|h| h.start() < span.start);
                for h in &self.hits[first..] {
                    if h.start() >= span.end {
                        break;
                    }
                    let meanings = self.meanings(*h);
                    // Not inside a signal phrase ("makes sense", "mission accomplished").
                    // (A modal counts inside one: "should be" is a change request's phrase too.)
                    let modal = meanings.contains(&Meaning::Modal);
                    if h.start() > span.start && (!h.shadowed || modal) && meanings.iter().any(want)
                    {
                        out.push((h.start()..h.end(), meanings.contains(&Meaning::Modal)));
                    }
                }
            }
            Strength::Suffix => {
                let mut previous: Option<Range<usize>> = None;
                let mut next_hit = self.hits.partition_point(|h| h.start() < span.start);
                let mut signal_end = 0;
                let all: SmallVec<[Range<usize>; 16]> = words(self.text, span).collect();
                for (i, w) in all.iter().cloned().enumerate() {
                    // The furthest end of the signal phrases started so far (one pass).
                    while let Some(h) = self.hits.get(next_hit).filter(|h| h.start() <= w.start) {
                        if self
                            .meanings(*h)
                            .iter()
                            .any(|m| matches!(m, Meaning::Signal(_)))
                        {
                            signal_end = signal_end.max(h.end());
                        }
                        next_hit += 1;
                    }
                    let word = self.text[w.clone()].to_ascii_lowercase();
                    let plural = word.len() >= 4
                        && word.ends_with('s')
                        && !word.ends_with("ss")
                        && !word.ends_with("us")
                        && !word.ends_with("'s");
                    let verb = plural || (word.len() >= 5 && word.ends_with("ed"));
                    let after_thing = previous.as_ref().is_some_and(|p| {
                        !self
                            .cls
                            .lower_in(&self.cls.words.determiners, &self.text[p.clone()])
                    });
                    // What follows a verb: a determiner, a preposition, an adverb, a number
                    // ("closes as soon as", "runs twice", "shows yesterday's date" aside).
                    let next = all.get(i + 1).map(|n| &self.text[n.clone()]);
                    let continues = next.is_some_and(|n| {
                        self.cls.lower_in(&self.cls.words.determiners, n)
                            || self.cls.lower_in(&self.cls.words.ends, n)
                            || self.cls.lower_in(&self.cls.words.auxiliaries, n)
                            || PLACES.iter().any(|p| n.eq_ignore_ascii_case(p))
                            || n.starts_with(|c: char| c.is_ascii_digit())
                            || n.ends_with("ly")
                    });
                    // A verb with something after it ("closes as soon as ..."), not a signal's
                    // word ("mission accomplished") or a sentence of two words ("greatness
                    // awaits").
                    let in_signal = signal_end >= w.end;
                    if verb && after_thing && continues && all.len() >= i + 3 && !in_signal {
                        out.push((w.clone(), false));
                    }
                    // A plural noun before a bare word: that word is the verb ("my bluetooth
                    // headphones disconnect every few minutes", "reminders show up late").
                    if plural
                        && !continues
                        && !in_signal
                        && all.len() >= i + 3
                        && let Some(n) = all.get(i + 1)
                    {
                        out.push((n.clone(), false));
                    }
                    if out.len() >= 4 {
                        break;
                    }
                    previous = Some(w);
                }
            }
        }
        out
    }

    /// A word of the `predicates` list.
    fn is_predicate(&self, w: Range<usize>) -> bool {
        self.cls.lower_in(&self.cls.words.predicates, &self.text[w])
    }

    /// Rules 1 and 2 without a lead verb: in each clause, a subject naming a thing and then a
    /// problem predicate ("the submit button is hidden behind the keyboard") or a modal ("the
    /// export should include archived items"). The last clause that holds one decides: a
    /// detail follows its overview.
    pub(super) fn evidence(&self, span: Range<usize>, weakest: Strength) -> Option<GoalLead> {
        [Strength::Problem, Strength::Predicate, Strength::Suffix]
            .into_iter()
            .filter(|s| *s <= weakest)
            .find_map(|s| self.evidence_of(span.clone(), s))
    }

    fn evidence_of(&self, span: Range<usize>, strength: Strength) -> Option<GoalLead> {
        let task = self.cls.goal_index(GoalType::TaskExecution)?;
        if self.cls.goals[task].slots.len() < 2 {
            return None;
        }
        let mut found = None;
        let mut start = span.start;
        let bytes = self.text.as_bytes();
        // Clause ends: clause bytes and clause breaks ("but").
        let first = self.hits.partition_point(|h| h.start() < span.start);
        let mut hits = self.hits[first..]
            .iter()
            .take_while(|h| h.start() < span.end)
            .peekable();
        let mut at = span.start;
        while at <= span.end {
            let end_here = at == span.end
                || is_clause_byte(bytes[at])
                    && (bytes[at] != b'.'
                        || at + 1 >= bytes.len()
                        || bytes[at + 1].is_ascii_whitespace());
            let break_hit = hits
                .peek()
                .filter(|h| h.start() == at)
                .is_some_and(|h| self.meanings(**h).contains(&Meaning::ClauseBreak));
            if end_here || break_hit {
                // The last problem clause decides (a detail follows its overview), but a
                // request of the thing wins over problems ("the data catalog needs column
                // lineage, table-level isn't enough").
                if let Some(g) = self.clause(task, start..at, strength) {
                    let request = |f: &Option<GoalLead>| {
                        f.as_ref()
                            .is_some_and(|f: &GoalLead| f.rule == Found::Request)
                    };
                    if !request(&found) || g.rule == Found::Request && found.is_none() {
                        found = Some(g);
                    }
                }
                start = if break_hit {
                    hits.peek().map_or(at + 1, |h| h.end())
                } else {
                    at + 1
                };
            }
            while hits.peek().is_some_and(|h| h.start() <= at) {
                hits.next();
            }
            at += 1;
            while at < span.end && !self.text.is_char_boundary(at) {
                at += 1;
            }
        }
        found
    }

    /// One clause of [`View::evidence`].
    fn clause(&self, task: usize, span: Range<usize>, strength: Strength) -> Option<GoalLead> {
        if span.is_empty() {
            return None;
        }
        let cls = self.cls;
        // Fillers, acknowledgements and intents before the subject ("make sure the page
        // loads").
        let start = self.skip(span.start, |m| {
            matches!(
                m,
                Meaning::Filler | Meaning::Ack | Meaning::Sequencer | Meaning::Intent
            )
        });
        if start >= span.end {
            return None;
        }
        for (h, modal) in self.predicates(start..span.end, strength) {
            // A subject is a few words: one that starts further back is none (and the work
            // per predicate stays bounded).
            if h.start - start > MAX_SUBJECT_BYTES {
                continue;
            }
            // A word in -ed before a plain word is an adjective ("retry failed jobs"), no
            // predicate; a predicate is followed by a preposition, a determiner, an adverb,
            // a number or nothing ("the build failed on CI").
            if self.text[h.clone()].to_ascii_lowercase().ends_with("ed")
                && let Some(n) = words(self.text, h.end..span.end).next()
            {
                let n = &self.text[n];
                let continues = cls.lower_in(&cls.words.determiners, n)
                    || cls.lower_in(&cls.words.ends, n)
                    || cls.lower_in(&cls.words.auxiliaries, n)
                    || PLACES.iter().any(|p| n.eq_ignore_ascii_case(p))
                    || n.starts_with(|c: char| c.is_ascii_digit())
                    || n.ends_with("ly");
                if !continues {
                    continue;
                }
            }
            let mut subject: SmallVec<[Range<usize>; 8]> =
                words(self.text, start..h.start).collect();
            // Auxiliaries and adverbs before the predicate are the problem's ("silently fail").
            while subject.last().is_some_and(|w| {
                let t = &self.text[w.clone()];
                cls.lower_in(&cls.words.auxiliaries, t) || (t.len() > 4 && t.ends_with("ly"))
            }) {
                subject.pop();
            }
            // An opening context ("on mobile the submit button", "when I click save the app")
            // ends at the subject's determiner; otherwise only leading determiners go
            // ("images on the product grid" stays whole).
            let is_det =
                |w: &Range<usize>| cls.lower_in(&cls.words.determiners, &self.text[w.clone()]);
            let context = subject.first().is_some_and(|w| {
                let t = &self.text[w.clone()];
                PLACES.iter().any(|p| t.eq_ignore_ascii_case(p)) || cls.lower_in(&cls.words.ends, t)
            });
            if context {
                if let Some(d) = subject.iter().rposition(is_det) {
                    subject.drain(..=d);
                }
            } else {
                // A demonstrative stays: it points at what the user shows ("this swift code").
                let lead = subject
                    .iter()
                    .take_while(|w| {
                        is_det(w)
                            && !["this", "these", "those"]
                                .iter()
                                .any(|d| self.text[(*w).clone()].eq_ignore_ascii_case(d))
                    })
                    .count();
                subject.drain(..lead);
            }
            let (Some(head), Some(last)) = (subject.first(), subject.last()) else {
                continue;
            };
            // A subject is a noun phrase: no pronoun, auxiliary or predicate in it.
            let verbal = |w: &Range<usize>| {
                let t = &self.text[w.clone()];
                cls.lower_in(&cls.words.non_subjects, t)
                    || cls.lower_in(&cls.words.auxiliaries, t)
                    || self
                        .at(w.start, |m| {
                            matches!(m, Meaning::Problem | Meaning::Modal | Meaning::Intent)
                        })
                        .is_some()
                    || self.is_predicate(w.clone())
            };
            // A demonstrative before a noun is no pronoun ("this swift code").
            let demonstrative = subject.len() > 1
                && ["this", "these", "those"]
                    .iter()
                    .any(|d| self.text[head.clone()].eq_ignore_ascii_case(d));
            let skip = usize::from(demonstrative);
            if subject.len() > MAX_SUBJECT_WORDS || subject[skip..].iter().any(verbal) {
                continue;
            }
            let target = head.start..last.end;
            // The problem keeps the words between the subject and its predicate ("is
            // hidden", "silently fails").
            // The problem ends where a new clause starts ("... on every mount and it's firing
            // two events": a conjunction and a new subject).
            let tail: SmallVec<[Range<usize>; 16]> = words(self.text, last.end..span.end).collect();
            let end = tail
                .windows(2)
                .find(|p| {
                    let (c, n) = (&self.text[p[0].clone()], &self.text[p[1].clone()]);
                    ["and", "so", "because", "which", "while", "even", "though"]
                        .iter()
                        .any(|j| c.eq_ignore_ascii_case(j))
                        && (cls.lower_in(&cls.words.non_subjects, n)
                            || cls.lower_in(&cls.words.determiners, n))
                })
                .map_or(span.end, |p| p[0].start);
            let change = cls.clean(self.text, last.end..end, false);
            if change.is_empty() {
                continue;
            }
            let (rule, prefix, change) = if modal {
                (
                    Found::Request,
                    "",
                    cls.clean(self.text, h.end..span.end, false),
                )
            } else {
                (Found::ProblemReport, "fix: ", change)
            };
            let mut details = SmallVec::new();
            details.push(Detail {
                slot: 0,
                prefix: "",
                spans: SmallVec::from_iter([target.clone()]),
            });
            if !change.is_empty() {
                details.push(Detail {
                    slot: 1,
                    prefix,
                    spans: SmallVec::from_iter([change]),
                });
            }
            return Some(GoalLead {
                goal: task,
                description: cls.clean(self.text, start..span.end, true),
                lead: h.clone(),
                wrapper: 0..0,
                rule,
                details,
            });
        }
        None
    }

    /// The lines of a pasted error or stack trace: those holding an error marker, and the
    /// frames and code lines after one (indented, or starting with "at", "File", "|", "-->"),
    /// so that the user's own sentences are read, not the error's.
    fn error_lines(&self) -> SmallVec<[Range<usize>; 4]> {
        let mut out: SmallVec<[Range<usize>; 4]> = SmallVec::new();
        let mut in_error = false;
        let mut at = 0;
        // The markers' hits, in order: one pass over them for all the lines.
        let mut markers = self
            .hits
            .iter()
            .filter(|h| self.meanings(**h).contains(&Meaning::ErrorMarker))
            .peekable();
        for line in self.text.split_inclusive('\n') {
            let span = at..at + line.trim_end_matches('\n').len();
            at += line.len();
            let t = line.trim_start();
            let mut marked = false;
            while let Some(h) = markers.peek() {
                if h.start() >= span.end {
                    break;
                }
                marked |= h.start() >= span.start && h.end() <= span.end;
                markers.next();
            }
            let marked = marked || camel_error(&self.text[span.clone()]).is_some();
            let frame = in_error
                && (line.starts_with([' ', '\t'])
                    || t.starts_with("at ")
                    || t.starts_with("File ")
                    || t.starts_with(['|', '>', '│', '^', '~', '-', '['])
                    || t.starts_with("-->")
                    || t.is_empty());
            in_error = marked || (frame && !t.is_empty());
            if marked || frame {
                match out.last_mut() {
                    Some(last) if self.text[last.end..span.start].trim().is_empty() => {
                        last.end = span.end
                    }
                    _ => out.push(span),
                }
            }
            if out.len() >= 8 {
                break;
            }
        }
        out
    }

    /// Rule 1: a pasted error (a marker of the pattern files, or a word ending in `Error` or
    /// `Exception` before a colon) is a problem report; the line holding it is the problem.
    fn pasted_error(&self, errors: &[Range<usize>]) -> Option<GoalLead> {
        let task = self.cls.goal_index(GoalType::TaskExecution)?;
        let (line, marker) = self.error_line(errors.first()?.clone())?;
        Some(GoalLead {
            goal: task,
            description: line.clone(),
            lead: marker,
            wrapper: 0..0,
            rule: Found::PastedError,
            details: SmallVec::from_iter([Detail {
                slot: 1,
                prefix: "fix: ",
                spans: SmallVec::from_iter([line]),
            }]),
        })
    }

    /// The line that states an error block's error: the last line holding a marker (the
    /// exception after a Python traceback's frames, the first line of a Java one), at most
    /// `MAX_ERROR_LINE` bytes; with its marker.
    fn error_line(&self, block: Range<usize>) -> Option<(Range<usize>, Range<usize>)> {
        let mut found = None;
        let mut at = block.start;
        for line in self.text[block.clone()].split_inclusive('\n') {
            let span = at..at + line.trim_end_matches('\n').len();
            at += line.len();
            let first = self.hits.partition_point(|h| h.start() < span.start);
            let marker = self.hits[first..]
                .iter()
                .take_while(|h| h.start() < span.end)
                .find(|h| h.end() <= span.end && self.meanings(**h).contains(&Meaning::ErrorMarker))
                .map(|h| h.start()..h.end())
                .or_else(|| {
                    camel_error(&self.text[span.clone()])
                        .map(|r| span.start + r.start..span.start + r.end)
                });
            if let Some(m) = marker {
                found = Some((span, m));
            }
        }
        let (span, marker) = found?;
        let mut end = span.end.min(span.start + MAX_ERROR_LINE);
        while !self.text.is_char_boundary(end) {
            end -= 1;
        }
        let line = self.cls.clean(self.text, span.start..end, false);
        (!line.is_empty()).then_some((line, marker))
    }

    /// The noun phrase at the start of `span` (up to a connector such as "to", "for", "so"),
    /// when it names a thing: `definite` asks that it open with a determiner or a
    /// demonstrative ("the indent width", "this JS file"); at most five words either way.
    fn thing(&self, span: Range<usize>, definite: bool) -> Option<Range<usize>> {
        let cls = self.cls;
        let mut ws = words(self.text, span.clone()).peekable();
        let first = ws.peek()?.clone();
        let opens = cls.lower_in(&cls.words.determiners, &self.text[first.clone()]);
        if definite && !opens {
            return None;
        }
        let mut end = first.end;
        for (i, w) in words(self.text, span.clone()).enumerate() {
            let word = &self.text[w.clone()];
            // A noun phrase ends at a connector, a symbol, or a verb ("the signup form showed
            // ...").
            let verb = self
                .at(w.start, |m| matches!(m, Meaning::Problem | Meaning::Modal))
                .is_some()
                || self.is_predicate(w.clone())
                || cls.lower_in(&cls.words.auxiliaries, word);
            if i > 0
                && ((cls.lower_in(&cls.words.ends, word) && !word.eq_ignore_ascii_case("of"))
                    || verb
                    || word.starts_with(|c: char| !c.is_alphanumeric() && c != '/' && c != '.'))
            {
                break;
            }
            if i > 0 && self.text[end..w.start].contains([',', ';']) {
                break;
            }
            end = w.end;
        }
        let np = cls.clean(self.text, span.start..end, true);
        let n = count_words(&self.text[np.clone()]);
        (!np.is_empty() && n <= 5).then_some(np)
    }

    /// The value after "to" or "into" in `span` ("... to 2 spaces").
    fn after_to(&self, span: Range<usize>) -> Option<Range<usize>> {
        let w = words(self.text, span.clone()).find(|w| {
            let t = &self.text[w.clone()];
            t.eq_ignore_ascii_case("to") || t.eq_ignore_ascii_case("into")
        })?;
        // The value ends at a connector ("to python so it runs ..."), or a clause's end.
        let end = words(self.text, w.end..span.end)
            .skip(1)
            .find(|n| {
                let t = &self.text[n.clone()];
                [
                    "so", "because", "since", "which", "that", "when", "while", "as",
                ]
                .iter()
                .any(|c| t.eq_ignore_ascii_case(c))
            })
            .map_or(span.end, |n| n.start);
        let v = self.cls.clean(self.text, w.end..end, true);
        (!v.is_empty()).then_some(v)
    }

    /// The thing in `span` named with a definite determiner ("the editor", "my profile
    /// page"): after a preposition ("in the editor") if there is one, else the first.
    fn definite_thing(&self, span: Range<usize>) -> Option<Range<usize>> {
        let definite = [
            "the", "my", "our", "your", "their", "this", "these", "those", "its", "every", "all",
            "each",
        ];
        let ws: SmallVec<[Range<usize>; 16]> = words(self.text, span.clone()).collect();
        let is = |w: &Range<usize>, list: &[&str]| {
            list.iter()
                .any(|d| self.text[w.clone()].eq_ignore_ascii_case(d))
        };
        let located = ws
            .windows(2)
            .find(|p| is(&p[0], &PLACES) && is(&p[1], &definite))
            .map(|p| p[1].start);
        let first = ws.iter().find(|w| is(w, &definite)).map(|w| w.start);
        if let Some(at) = located.or(first) {
            return self.thing(at..span.end, true);
        }
        // "support markdown in ticket comments": a thing after "in" or "on" without one.
        let bare = ws
            .windows(2)
            .find(|p| is(&p[0], &["in", "on"]))
            .map(|p| p[1].start)?;
        self.thing(bare..span.end, false)
    }

    /// Rule 2 for a request that is a noun phrase with no verb ("infinite scroll on the feed",
    /// "i18n for the dashboard pls"): the phrase is the change, the thing after its
    /// preposition the target. One that names a kind of artifact after "a" or "an" ("a budget
    /// spreadsheet to track rent") asks for that artifact.
    fn nominal(&self, span: Range<usize>) -> Option<GoalLead> {
        let cls = self.cls;
        // "I need", "we want" before the phrase (leads that needed a kind after them).
        let mut start = span.start;
        if let Some(h) = self.at(start, |m| match m {
            Meaning::Lead(id) => cls.leads[id as usize].object_must_match.is_some(),
            _ => false,
        }) {
            start = skip_soft(self.text, h.end());
        }
        // The words of a wish around the phrase ("... would be handy") are not its words.
        let wishes: SmallVec<[Range<usize>; 2]> = {
            let first = self.hits.partition_point(|h| h.start() < start);
            self.hits[first..]
                .iter()
                .take_while(|h| h.start() < span.end)
                .filter(|h| self.meanings(**h).contains(&Meaning::Wish))
                .map(|h| h.start()..h.end())
                .take(16)
                .collect()
        };
        // A noun phrase request is short: at most 16 words are looked at (wishes aside), and
        // the wishes' spans are walked once, in order.
        let mut ws: SmallVec<[Range<usize>; 16]> = SmallVec::new();
        let mut k = 0;
        for w in words(self.text, start..span.end) {
            while wishes.get(k).is_some_and(|x| x.end <= w.start) {
                k += 1;
            }
            if wishes
                .get(k)
                .is_some_and(|x| x.start <= w.start && w.end <= x.end)
            {
                continue;
            }
            ws.push(w);
            if ws.len() > 16 {
                return None;
            }
        }
        let first = ws.first()?.clone();
        if self.text[span.clone()].trim_end().ends_with('?') {
            return None;
        }
        let word = |w: &Range<usize>| self.text[w.clone()].to_ascii_lowercase();
        if matches!(word(&first).as_str(), "a" | "an") {
            let artifact = cls.goal_index(GoalType::ArtifactCreation)?;
            let kind_slot = *cls.goals[artifact].slots.first()?;
            let object = cls.clean(self.text, first.start..span.end, true);
            let np = noun_phrase(&self.text[object.clone()], &cls.noun_phrase_ends);
            cls.extract(np, kind_slot)?;
            return Some(GoalLead {
                goal: artifact,
                description: object.clone(),
                lead: first.clone(),
                wrapper: 0..0,
                rule: Found::Nominal,
                details: self.details(artifact, ChangeMode::None, first, object),
            });
        }
        let task = cls.goal_index(GoalType::TaskExecution)?;
        if cls.goals[task].slots.len() < 2 {
            return None;
        }
        let verb = |w: &Range<usize>| {
            self.at(w.start, |m| {
                matches!(m, Meaning::Problem | Meaning::Modal | Meaning::SmallTalk)
            })
            .is_some()
                || self.is_predicate(w.clone())
                || cls.lower_in(&cls.words.auxiliaries, &self.text[w.clone()])
                || cls.lower_in(&cls.words.non_subjects, &self.text[w.clone()])
        };
        let at = ws.iter().position(|w| {
            ["on", "for", "in", "to", "across", "into"].contains(&word(w).as_str())
        })?;
        // No verb in the phrase's clause: "images on the product grid are stretched" reports.
        let clause_end = ws
            .windows(2)
            .position(|p| self.text[p[0].end..p[1].start].contains([',', ';']))
            .map_or(ws.len(), |i| i + 1);
        let real_verb = |w: &Range<usize>| {
            self.at(w.start, |m| matches!(m, Meaning::Problem | Meaning::Modal))
                .is_some()
                || self.is_predicate(w.clone())
        };
        if at == 0
            || at > 6
            || ws[..at].iter().any(verb)
            || ws[at..clause_end.max(at)].iter().any(real_verb)
        {
            return None;
        }
        let phrase_end = wishes
            .iter()
            .map(|x| x.start)
            .find(|x| *x > start && *x < ws[at].start)
            .unwrap_or(ws[at].start);
        let phrase = cls.clean(self.text, start..phrase_end, true);
        let after = ws.get(at + 1)?.start;
        let stop = wishes
            .iter()
            .map(|x| x.start)
            .find(|x| *x > after)
            .unwrap_or(span.end);
        let (target, change) = match self.thing(after..stop, true) {
            Some(thing) => (thing, phrase),
            // "kitchen speaker volume to 4", "screen timeout -> 2 min": a setting and its value.
            None if ["to", "->", "=>", "→", "="].contains(&word(&ws[at]).as_str()) => {
                let value = cls.clean(self.text, after..span.end, true);
                (phrase, value)
            }
            None => return None,
        };
        if change.is_empty() || target.is_empty() {
            return None;
        }
        let detail = |slot: usize, span: Range<usize>| Detail {
            slot,
            prefix: "",
            spans: SmallVec::from_iter([span]),
        };
        Some(GoalLead {
            goal: task,
            description: cls.clean(self.text, start..span.end, true),
            lead: first,
            wrapper: 0..0,
            rule: Found::Nominal,
            details: SmallVec::from_iter([detail(0, target), detail(1, change)]),
        })
    }

    /// Rule 4: a lead word followed by a predicate is a noun ("Deploy keeps timing out", "Fix
    /// is not working").
    pub(super) fn noun_use(&self, lead: Hit) -> bool {
        // Rule 4 is about a lead word used as a name ("Deploy", "Update"): a lead of several
        // words ("would be nice to have ...") is no noun.
        if self.text[lead.start()..lead.end()].contains(' ') {
            return false;
        }
        let next = skip_soft(self.text, lead.end());
        if next == lead.end() && next < self.text.len() {
            return false;
        }
        let Some(word) = words(self.text, next..self.text.len()).next() else {
            return false;
        };
        let predicate = self
            .at(next, |m| matches!(m, Meaning::Problem | Meaning::Modal))
            .is_some();
        let auxiliary = self
            .cls
            .lower_in(&self.cls.words.auxiliaries, &self.text[word])
            && self.at(next, |m| m == Meaning::Filler).is_none();
        predicate || auxiliary
    }

    /// Rules 2 and 10: the slot values a request states by its structure.
    /// - an artifact: its kind (the object's noun phrase, or the vocabulary's kind within it)
    ///   and what follows it as a purpose (`that`, `which`, `to`, `so`) or a description
    ///   (`for`, `with`);
    /// - a task whose lead adds its object ("add X to Y, D"): target Y, desired change X and D;
    /// - a task whose lead states the change ("support SAML login"): the lead and its object.
    pub(super) fn details(
        &self,
        goal: usize,
        change: ChangeMode,
        lead: Range<usize>,
        object: Range<usize>,
    ) -> SmallVec<[Detail; 2]> {
        let cls = self.cls;
        let def = &cls.goals[goal];
        let mut out = SmallVec::new();
        if def.slots.len() < 2 || object.is_empty() {
            return out;
        }
        let detail = |slot: usize, span: Range<usize>| Detail {
            slot,
            prefix: "",
            spans: SmallVec::from_iter([span]),
        };
        match def.goal_type {
            GoalType::ArtifactCreation => {
                let text = &self.text[object.clone()];
                let np = noun_phrase(text, &cls.noun_phrase_ends);
                let np_span = object.start..object.start + np.len();
                // The vocabulary's kind, else the noun phrase when it names a thing (not
                // "something", "stuff").
                let kind = match cls.extract(np, def.slots[0]) {
                    // The whole noun phrase when it is short and ends with the kind ("status
                    // page", "Grafana dashboard"), else the kind.
                    Some(r) if r.end == np.trim_end().len() && count_words(np) <= 4 => {
                        cls.clean(self.text, np_span.clone(), true)
                    }
                    Some(r) => object.start + r.start..object.start + r.end,
                    None => {
                        let span = cls.clean(self.text, np_span.clone(), true);
                        let vague = words(self.text, span.clone())
                            .next()
                            .is_none_or(|w| cls.lower_in(&cls.words.non_subjects, &self.text[w]));
                        if vague { span.start..span.start } else { span }
                    }
                };
                if !kind.is_empty() && count_words(&self.text[kind.clone()]) <= 5 {
                    out.push(detail(0, kind));
                }
                // What follows the kind: skip technologies ("in Python") to a connector.
                let mut keep = None;
                for w in words(self.text, np_span.end..object.end) {
                    let word = &self.text[w.clone()];
                    let is = |c: &str| word.eq_ignore_ascii_case(c);
                    if ["that", "which", "who", "to", "so", "where"]
                        .iter()
                        .any(|c| is(c))
                    {
                        let from = if is("so") {
                            let rest = &self.text[w.end..object.end];
                            let t = rest.trim_start();
                            w.end
                                + (rest.len() - t.len())
                                + if t.len() >= 4 && t.as_bytes()[..4].eq_ignore_ascii_case(b"that")
                                {
                                    4
                                } else {
                                    0
                                }
                        } else {
                            w.end
                        };
                        keep = Some(from);
                        break;
                    }
                    if is("for") || is("with") {
                        keep = Some(w.start);
                        break;
                    }
                }
                if let Some(from) = keep {
                    let req = cls.clean(self.text, from..object.end, false);
                    if !req.is_empty() {
                        out.push(detail(1, req));
                    }
                }
            }
            GoalType::TaskExecution => {
                let text = &self.text[object.clone()];
                let comma = text
                    .find([',', ';'])
                    .map_or(object.end, |p| object.start + p);
                // The object as written, articles included: "the" marks an existing thing.
                let raw = skip_soft(self.text, lead.end).min(object.start);
                match change {
                    ChangeMode::None => {
                        // "set the indent width to 2 spaces": the thing, and its new value.
                        if let Some(np) = self.thing(raw..comma, true) {
                            out.push(detail(0, np.clone()));
                            if let Some(value) = self.after_to(np.end..comma) {
                                out.push(detail(1, value));
                            }
                        }
                    }
                    ChangeMode::Object => {
                        let lower = text.to_ascii_lowercase();
                        let to = [" to ", " into ", " on ", " in "]
                            .iter()
                            .filter_map(|c| lower.find(c).map(|p| (p, c.len())))
                            .filter(|(p, _)| object.start + p < comma)
                            .min();
                        let what = match to {
                            Some((p, n)) => {
                                if let Some(t) = self.thing(object.start + p + n..comma, false) {
                                    out.push(detail(0, t));
                                }
                                cls.clean(self.text, object.start..object.start + p, true)
                            }
                            None => self
                                .thing(object.start..comma, false)
                                .unwrap_or_else(|| cls.clean(self.text, object.start..comma, true)),
                        };
                        let more = cls.clean(self.text, comma..object.end, false);
                        let mut spans: SmallVec<[Range<usize>; 2]> = SmallVec::new();
                        if !what.is_empty() {
                            spans.push(what);
                        }
                        if !more.is_empty() && count_words(&self.text[more.clone()]) <= 8 {
                            spans.push(more);
                        }
                        if !spans.is_empty() {
                            out.push(Detail {
                                slot: 1,
                                prefix: "",
                                spans,
                            });
                        }
                    }
                    ChangeMode::Phrase => {
                        // "support keyboard shortcuts in the editor": an existing thing named
                        // with a definite determiner is the target.
                        let thing = self.definite_thing(raw..comma);
                        if let Some(t) = &thing {
                            out.push(detail(0, t.clone()));
                        }
                        // The change runs to the thing's preposition ("let admins impersonate
                        // a user from the admin panel": "let admins impersonate a user").
                        let end = thing
                            .and_then(|t| {
                                let before: SmallVec<[Range<usize>; 16]> =
                                    words(self.text, raw..t.start).collect();
                                let n = before.len();
                                (n >= 2).then(|| before[n - 2].clone())
                            })
                            .filter(|w| {
                                PLACES
                                    .iter()
                                    .any(|p| self.text[w.clone()].eq_ignore_ascii_case(p))
                            })
                            .map_or(comma, |w| w.start);
                        let phrase = cls.clean(self.text, lead.start..end, false);
                        if !phrase.is_empty() {
                            out.push(detail(1, phrase));
                        }
                    }
                    ChangeMode::Lead => {
                        if let Some(t) = self.thing(raw..comma, false) {
                            out.push(detail(0, t));
                        }
                        out.push(detail(1, lead.clone()));
                    }
                    ChangeMode::Result => {
                        // "make the table headers sticky", "we need the export endpoint to
                        // stream the csv", "make this faster": the thing up to its result. A
                        // demonstrative that ends the lead ("make this") is the thing.
                        let lead_words: SmallVec<[Range<usize>; 4]> =
                            words(self.text, lead.clone()).collect();
                        let from = lead_words
                            .last()
                            .filter(|w| {
                                ["this", "these", "that", "those"]
                                    .iter()
                                    .any(|d| self.text[(*w).clone()].eq_ignore_ascii_case(d))
                            })
                            .map_or(object.start, |w| w.start);
                        let words: SmallVec<[Range<usize>; 12]> =
                            words(self.text, from..comma).collect();
                        let split = words.iter().enumerate().skip(1).find_map(|(i, w)| {
                            let word = &self.text[w.clone()];
                            let verb = self
                                .at(w.start, |m| {
                                    matches!(
                                        m,
                                        Meaning::Lead(_) | Meaning::Problem | Meaning::Modal
                                    )
                                })
                                .is_some()
                                || self.is_predicate(w.clone())
                                || cls.lower_in(&cls.words.verbs, word);
                            (["to", "so", "be", "can", "could", "would", "will", "might"]
                                .iter()
                                .any(|m| word.eq_ignore_ascii_case(m))
                                || verb)
                                .then_some(i)
                        });
                        // Without a verb, the result is the word before a preposition that
                        // follows the thing ("the header sticky on mobile"), else the last
                        // word ("the text on my phone bigger").
                        let split = split.or_else(|| {
                            let stop = words
                                .iter()
                                .enumerate()
                                .skip(2)
                                .find(|(_, w)| {
                                    cls.lower_in(&cls.words.ends, &self.text[(*w).clone()])
                                })
                                .map_or(words.len(), |(i, _)| i);
                            (stop >= 2).then(|| stop - 1)
                        });
                        let object = from..object.end;
                        if let Some(i) = split {
                            let target = cls.clean(self.text, object.start..words[i].start, true);
                            let from = if matches!(
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
            }
            _ => {}
        }
        out
    }
}
