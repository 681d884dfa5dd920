//! Reading real messages: the rules of the specification's section of that name, each one
//! mechanism over the hits of a message (the [`View`] of `classify`), named in the explain
//! output by [`Found`]. The vocabulary is the pattern files'; the mechanisms are here:
//!
//! - this module: [`View::read_goals`] (the first sentence that states a goal decides, rule 9;
//!   then the further goals, rule 14, and a pasted error, rule 1);
//! - [`statement`]: one sentence (small talk and questions about the assistant, rule 7; a goal
//!   lead; a title, rule 8; question titles, rule 6; then evidence without a lead verb);
//! - [`clauses`]: the clauses read for problem reports and which one decides (rules 1 and 2);
//!   [`problem_ends`]: where a problem's words end.
//! - [`problems`]: a subject and a problem predicate or a modal (rules 1 and 2), titles that
//!   open with their problem;
//! - [`errors`]: pasted errors and errors told in the user's words (rule 1);
//! - [`requests`]: what a request states by its structure (rules 2, 3, 4, 6 and 10);
//!   [`details`]: the details a request states in its own sentence (rule 10); [`objects`]:
//!   what its object holds besides its thing (what it is to be in, the verb's own object, a
//!   clause that reports a problem, a result after "so");
//! - [`nominal`]: requests with no verb, settings by a label or side by side (rules 2 and 3);
//!   [`wished`]: a phrase that a wish closes (rule 2); [`purpose`]: a feature named with its
//!   purpose (rule 2); [`durations`]: how long a thing takes
//!   (rule 1);
//! - [`imperative`]: a plain verb of the vocabulary no lead group holds (rule 2);
//! - [`things`]: what a phrase names (a problem, a thing a request may target, what happens
//!   now after "instead of");
//! - [`further`]: where a further goal starts, after a sequencer or "or" (rule 14);
//! - [`correction`]: a short reply correcting a slot (rule 12);
//! - [`context`]: context under a label, with the numbered steps after it (rule 9).
//!
//! Work per message stays linear: each mechanism walks the hits or the words of one sentence
//! once (the further goals at most `MAX_QUEUED_GOALS` times), and a noun-phrase request looks
//! at 16 words at most.

use std::ops::Range;

use smallvec::SmallVec;

use super::classify::Classifier;
use super::lexicon::{ChangeMode, DescriptionMode};
use super::reading::{Detail, Found, GoalLead, Hit, LeadInfo, Meaning, Reading};
use super::state::{GoalType, MAX_QUEUED_GOALS};
use super::text::{
    bullet, code_blocks, count_words, ends_with_word, is_clause_byte, is_word_char, noun_phrase,
    quoted_spans, sentences, skip_soft, thousands_comma,
};
use super::view::View;
use super::words::Words;
use error_shapes::{camel_error, shouts_error};
use search::{find_bytes, find_first_of};

use limits::*;

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
    /// Another object of the first goal's lead ("a login form or a signup wizard", "a landing
    /// page and a blog template").
    pub(super) shared_lead: bool,
}

/// A lone gerund after "for" (`prep`) is a purpose, no thing: "for debugging", "for testing".
fn purpose_gerund(prep: &str, word: &str) -> bool {
    prep.eq_ignore_ascii_case("for")
        && word.len() > 5
        && !word.contains(' ')
        && word.to_ascii_lowercase().ends_with("ing")
}

/// A word in -s that reads as a plural by its letters: four at least, not in -ss, -us or -'s
/// ("charts", "pictures"; not "class", "status", "user's"). [`Classifier::plural`] also knows
/// the names in -s.
fn plural_form(word: &str) -> bool {
    let p = word.as_bytes();
    p.len() >= 4
        && p[p.len() - 1].eq_ignore_ascii_case(&b's')
        && !matches!(p[p.len() - 2].to_ascii_lowercase(), b's' | b'u' | b'\'')
}

/// A plural whose ending is a noun's, never a verb's in -s ("reactions", "permissions",
/// "integrations", "activities"), lowercase.
fn noun_ending(word: &str) -> bool {
    ["ations", "ctions", "ssions", "ities"]
        .iter()
        .any(|e| word.ends_with(e))
}

/// The message's first goal into `reading`: its goal, or the first of its alternatives.
fn take(goal: GoalLead, reading: &mut Reading) {
    if reading.alternatives {
        reading.more.truncate(MAX_QUEUED_GOALS - 1);
        reading.more.insert(0, goal);
    } else {
        reading.goal = Some(goal);
    }
}

/// The first quoted run of `span` (between ' or " or backticks, three characters or more).
fn quoted(text: &str, span: Range<usize>) -> Option<Range<usize>> {
    let s = &text[span.clone()];
    for q in ['\'', '"', '`'] {
        let mut from = 0;
        while let Some(open) = s[from..].find(q).map(|p| from + p) {
            // An apostrophe inside a word ("don't") opens nothing.
            let before = s[..open].chars().next_back();
            if q == '\'' && before.is_some_and(char::is_alphanumeric) {
                from = open + 1;
                continue;
            }
            let close = s[open + 1..].find(q).map(|p| open + 1 + p)?;
            if close - open > 3 {
                return Some(span.start + open + 1..span.start + close);
            }
            from = close + 1;
        }
    }
    None
}

/// A problem report: its target if one was found, and the problem as `fix: ...`.
fn report(
    goal: usize,
    target: Option<Range<usize>>,
    problem: Range<usize>,
    description: Range<usize>,
    lead: Range<usize>,
    rule: Found,
) -> GoalLead {
    let mut details = SmallVec::new();
    if let Some(t) = target {
        details.push(detail(0, t));
    }
    details.push(Detail {
        slot: 1,
        prefix: "fix: ",
        spans: SmallVec::from_iter([problem]),
    });
    GoalLead {
        goal,
        description,
        lead,
        wrapper: 0..0,
        rule,
        details,
    }
}

/// `d` as the goal's value of its slot, in place of the one read before.
fn set_detail(goal: &mut GoalLead, d: Detail) {
    match goal.details.iter_mut().find(|x| x.slot == d.slot) {
        Some(x) => *x = d,
        None => goal.details.push(d),
    }
}

/// Whether two spans share a byte.
fn overlaps(a: &Range<usize>, b: &Range<usize>) -> bool {
    a.start < b.end && b.start < a.end
}

/// A slot value of one span, no prefix.
fn detail(slot: usize, span: Range<usize>) -> Detail {
    Detail {
        slot,
        prefix: "",
        spans: SmallVec::from_iter([span]),
    }
}

mod added;
mod artifact_details;
mod asked;
mod attempts;
mod clauses;
mod code;
mod colon_context;
mod comma_questions;
mod computations;
mod context;
mod correction;
mod counted_lists;
mod details;
mod durations;
mod error_message;
mod error_shapes;
mod errors;
mod exercises;
mod fine;
mod follow_ups;
mod further;
mod happened;
mod imperative;
mod inline_errors;
mod kinds;
mod labelled;
mod lead_nouns;
mod limits;
mod lists;
mod lookups;
mod moves;
mod named_things;
mod no_request;
mod nominal;
mod objects;
mod openers;
mod pastes;
mod permits;
mod pleas;
mod predicates;
mod problem_ends;
mod problem_titles;
mod problems;
mod purpose;
mod question_titles;
mod reasons;
mod requests;
mod results;
mod run_ons;
mod search;
mod setting_phrases;
mod small_talk;
mod speech;
pub(in crate::conversation) use results::identifier;
mod sentences;
mod settle;
mod statement;
mod subject_verbs;
mod things;
mod timed;
mod title_lines;
mod titles;
mod told;
mod topics;
mod wished;
mod words;
pub(in crate::conversation) use words::words;

impl View<'_> {
    /// Whether the word at `w` is one of `list`, in any case.
    pub(super) fn word_in(&self, w: &Range<usize>, list: &[&str]) -> bool {
        list.iter()
            .any(|x| self.text[w.clone()].eq_ignore_ascii_case(x))
    }

    /// The goals of a user message, into `reading`: the first sentence that states one decides
    /// (rule 9); a pasted error is a problem report (rule 1); further goals are queued (rule
    /// 14).
    ///
    /// With a goal `active`, only goal leads count (evidence without a lead is about the
    /// current goal): the reader stops there.
    pub(in crate::conversation) fn read_goals(&self, reading: &mut Reading, active: bool) {
        let mut first: Option<(GoalLead, Range<usize>)> = None;
        // Error lines only where an error's mark stands (most messages have none).
        let marked = !active
            && (self
                .hits
                .iter()
                .any(|h| self.meanings(*h).contains(&Meaning::ErrorMarker))
                || shouts_error(self.text)
                || (memchr::memchr(b':', self.text.as_bytes()).is_some()
                    && error_shapes::coded_level(self.text).is_some()));
        let errors = if marked || (!active && memchr::memchr(b'\n', self.text.as_bytes()).is_some())
        {
            self.error_lines()
        } else {
            SmallVec::new()
        };
        // A line after a paste that only says where it happens ("on the checkout screen when
        // the keyboard opens") is the paste's place, not a statement of its own.
        let place = self.place_after(&errors);
        // (Nor is pasted code the user's sentences: "s = 0" in a function is no request; nor
        // are the numbered steps under a context label.)
        let code = code_blocks(self.text);
        let steps = self.context_steps();
        let own = |s: &Range<usize>| {
            !errors.iter().any(|e| e.start <= s.start && s.end <= e.end)
                && !code.iter().any(|c| c.start <= s.start && s.end <= c.end)
                && !steps.iter().any(|c| c.start <= s.start && s.end <= c.end)
                && place
                    .as_ref()
                    .is_none_or(|(l, _)| !(l.start <= s.start && s.end <= l.end))
        };
        // (The user's own sentences, found once for every pass below.)
        // (After the first, a sentence that only names the setup, "android 14, pixel 7", is
        // the report's environment.)
        let owns: SmallVec<[Range<usize>; 8]> = sentences(self.text)
            .filter(own)
            .enumerate()
            .filter(|(i, s)| *i == 0 || !self.environment_line(s.clone()))
            .map(|(_, s)| s)
            .collect();
        // (A request after a spaced dash is a sentence of its own; most messages hold no dash,
        // looked for once.)
        let owns = if memchr::memchr2(b'-', 0xE2, self.text.as_bytes()).is_some() {
            owns.into_iter().flat_map(|s| self.dash_split(s)).collect()
        } else {
            owns
        };
        // (A problem of people is why a request in a later sentence is made: "we run a small
        // clinic and patients keep missing appointments. could you build a reminder flow?"
        // states the flow, "... the app should send sms reminders" the app's request. Alone
        // it is the report.)
        let mut why: Option<(GoalLead, Range<usize>)> = None;
        // (A programming exercise's statement asks for code, whatever its sentences hold.)
        if !active {
            first = self.exercise(&owns);
        }
        let unread = if first.is_some() { 0 } else { owns.len() };
        // (A title line above a body states the post: what the body tells after it is more
        // of the same, "CSV import silently skips rows with quoted commas" then a paragraph.)
        // (Not above a paste: "npm run build" over its output names the command.)
        // (An error's word inside the body pastes nothing: "... until the pod gets
        // OOMKilled" under "Memory leak in websocket handler (v1.14.2)".)
        let title_line = (!active && errors.is_empty() && code.is_empty())
            .then(|| self.title_line(&owns))
            .flatten();
        // (A request the body states with a lead wins over the title's reading: "Our wedding
        // is in June" over "Can you write a short speech for my brother?" is context.)
        let mut titled: Option<(GoalLead, Range<usize>)> = None;
        let mut told: Option<(GoalLead, Range<usize>)> = None;
        // (The items of a counted list after the first, queued at the end: "Two issues with
        // 1.4: the sidebar collapses ..., and the dark theme toggle doesn't persist".)
        let mut listed: SmallVec<[GoalLead; 3]> = SmallVec::new();
        for s in owns.iter().take(unread).cloned() {
            if !active && let Some((g, rest)) = self.counted_goals(s.clone()) {
                listed = rest;
                first = Some((g, s));
                break;
            }
            // (A title comparing two things asks which, whatever evidence its words after
            // "for" hold: "jsonb vs json for storing payloads we almost never query". Looked
            // for only where a "v" stands among its first 48 bytes.)
            let versus = !active && {
                let head = &self.text.as_bytes()[s.start..s.end.min(s.start + 48)];
                // (Not inside brackets, an example's: "Search ignores accents (café vs
                // cafe)".)
                memchr::memchr(b'v', head).is_some_and(|v| {
                    v > 0
                        && head[v - 1] == b' '
                        && memchr::memchr(b'(', &head[..v]).is_none()
                        && (head[v..].starts_with(b"vs ")
                            || head[v..].starts_with(b"vs. ")
                            || head[v..].starts_with(b"versus "))
                })
            };
            // (A lead keeps its reading: "Make a line chart of signups vs churn".)
            let found = (!active)
                .then(|| self.permits(s.clone()))
                .flatten()
                .or_else(|| self.statement(s.clone(), active))
                .or_else(|| {
                    (!active)
                        .then(|| self.question_after_comma(s.clone()))
                        .flatten()
                });
            let found = match found {
                Some(g) if versus && !matches!(g.rule, Found::Lead | Found::Title) => {
                    self.comparison(s.clone()).or(Some(g))
                }
                f => f,
            };
            if found.is_none()
                && titled.is_none()
                && let Some(t) = title_line.as_ref().filter(|t| **t == s)
                && let Some(g) = self.title_line_goal(t.clone())
            {
                titled = Some((g, s));
                continue;
            }
            if titled.is_some()
                && !found
                    .as_ref()
                    .is_some_and(|g| matches!(g.rule, Found::Lead | Found::Request | Found::Title))
            {
                break;
            }
            if let Some(g) = found {
                // (A setup told as a title, "Running the add-on on a Pi 4.", is read last.)
                if self.tells_setup(&g, s.clone()) {
                    told.get_or_insert((g, s));
                    continue;
                }
                // (So is a sentence telling how things are now: "Currently the photo backup
                // only runs on wifi. I'd like an option to ...".)
                if why.is_none()
                    && !active
                    && (self.reports_people(&g)
                        || self.relays_wish(&g)
                        || self.tells_present(s.clone()))
                {
                    why = Some((g, s));
                    continue;
                }
                // (A wish of a thing told before something is asked to be made is what the
                // thing must do: "It has to tick once a second. Build it as a React component
                // called Countdown" asks for the component.)
                // (So is a fault in a story told of others, no word of the user's own in it:
                // "A lighthouse keeper writes down ... but the logbook isn't in order. Write a
                // program that prints ...".)
                if matches!(g.rule, Found::Request | Found::ProblemReport)
                    && !active
                    && let Some((mut made, at)) = self.made_after(&owns, &s)
                    && (g.rule == Found::Request
                        || !self.holds_own_words(s.clone())
                            // (A version is no thing made: "Build 0.14.2 (Steam)".)
                            && self.text[made.description.clone()]
                                .starts_with(|c: char| c.is_alphabetic()))
                {
                    // (What the wish said is the thing's requirement when its own sentence
                    // states none.)
                    if g.rule == Found::Request
                        && !made.details.iter().any(|d| d.slot == 1)
                        && let Some(d) = g.details.iter().find(|d| d.slot == 1)
                    {
                        made.details.push(d.clone());
                    }
                    first = Some((made, at));
                    break;
                }
                if why.is_none() || matches!(g.rule, Found::Lead | Found::Request) {
                    first = Some((g, s));
                }
                break;
            }
        }
        // (A report told by its verb alone before a plea or an added request is the first
        // goal: `pleas.rs`.)
        if !active
            && !marked
            && titled.is_none()
            && why.is_none()
            && let Some((g, s)) = &first
            && matches!(g.rule, Found::Lead | Found::Request)
            && owns.first().is_some_and(|o| o.start < s.start)
            && let Some(r) = self.report_before(&owns, s)
        {
            first = Some(r);
        }
        first = first.or(titled).or(why);
        if active {
            if let Some((goal, sentence)) = first {
                self.further_goals(&goal, sentence, reading);
                take(goal, reading);
            }
            return;
        }
        // (Small talk states no goal for any pass below either: "Hi there! How are you?" is
        // read by the statement pass alone.)
        // (Nor does a sentence telling the setup beside others: "... Running on a Pi 4.")
        let several = owns.len() > 1;
        let owns: SmallVec<[Range<usize>; 8]> = owns
            .into_iter()
            .filter(|s| {
                let start = self.skip(s.start, |m| matches!(m, Meaning::Filler | Meaning::Ack));
                !self.small_talk_at(start..s.end)
                    && told.as_ref().is_none_or(|(_, t)| t != s)
                    && !(several && self.setup_opening(start..s.end))
            })
            .collect();
        // Without a lead or a problem word anywhere, a request that is a noun phrase, then a
        // sentence describing what a thing does. (A noun phrase introducing a pasted error is
        // the error's label: "spark job on the cluster:".)
        // (Beside a pasted error the user's noun phrase names the thing, the error is the
        // problem: "video player on the landing page".)
        let label = |_: &Range<usize>| !errors.is_empty();
        // A comparison or a title that asks for an explanation ("Rust vs Go for a CLI tool",
        // "React useEffect cleanup explained").
        if first.is_none() {
            first = owns
                .iter()
                .cloned()
                .find_map(|s| self.comparison(s.clone()).map(|g| (g, s)));
        }
        // The first of the user's own sentences (no label beside a pasted error) that `read`
        // finds a goal in, read from past its fillers.
        let first_read = |read: &dyn Fn(Range<usize>) -> Option<GoalLead>| {
            owns.iter()
                .filter(|s| !label(s) && !self.context_labelled((*s).clone()))
                .cloned()
                .find_map(|s| {
                    let start = self.skip(s.start, |m| matches!(m, Meaning::Filler | Meaning::Ack));
                    let span = self.story(start..s.end).unwrap_or(start..s.end);
                    (span.start < span.end)
                        .then(|| read(span))
                        .flatten()
                        .map(|g| (g, s))
                })
        };
        // A title that opens with the problem ("Crash when opening the settings screen",
        // "Memory leak in the reconnect loop", "Can't log in after ..."), then a request that
        // is a noun phrase.
        if first.is_none() {
            // (Not one back where it should be: "error rate back down to 0.1%".)
            first = first_read(&|span| {
                self.problem_title(self.missing_title(span))
                    .filter(|g| !self.says_recovered(g))
            });
        }
        // A thing wished for before a clause reporting a problem is what is asked, the
        // problem its reason: "I'd like a refund for order #58213, the blender arrived with a
        // cracked jug".
        let wished = |span: Range<usize>| {
            let end = self.text[span.clone()]
                .find(',')
                .map_or(span.end, |c| span.start + c);
            // (After a wish, or a lead of several words that says one: "i'd like", "can i
            // get"; not a lead word as a label, "Test: ...".)
            self.at(span.start, |m| {
                matches!(m, Meaning::Intent | Meaning::Lead(_))
            })
            .filter(|h| {
                self.text[h.start()..h.end()].contains(' ')
                    || self.at(span.start, |m| m == Meaning::Intent).is_some()
            })
            .and_then(|_| self.nominal(span.start..end))
        };
        if first
            .as_ref()
            .is_some_and(|(g, _)| g.rule == Found::ProblemReport)
            && let Some(w) = first_read(&wished)
        {
            first = Some(w);
        }
        // (Rule 10: a noun-phrase request asked "in" a language is code, "reverse the order
        // of words in a sentence in C".)
        if first.is_none() {
            first = first_read(&|span| {
                self.timed_setting(span.clone())
                    .or_else(|| {
                        self.nominal(span.clone())
                            .map(|g| self.as_code(&g, None).unwrap_or(g))
                    })
                    .or_else(|| wished(span))
            });
        }
        // A plain verb of the vocabulary after a wish or at the sentence's start ("it would be
        // really useful to filter invoices by status", "hide archived projects from the
        // sidebar"): a request whose change is what it says, whose target is its object.
        if first.is_none() {
            first = first_read(&|span| self.imperative(span));
        }
        // A context of the user's before a colon, then a request opened by a lead ("got this
        // in a phone screen last week and totally blanked: design a data structure that ..."):
        // the request after the colon.
        // (Looked for only in a message holding a colon.)
        if first.is_none() && !active && memchr::memchr(b':', self.text.as_bytes()).is_some() {
            first = first_read(&|span| self.colon_context(span));
        }
        if first.is_none() {
            first = first_read(&|span| self.takes_long(span));
        }
        // (A pasted error is stronger evidence than a sentence read by its verb alone.)
        // (Nor does it beat an error told in the user's own sentence.)
        // (A sentence or a clause telling what the user's thing uses or has, with another
        // after it, is context: "Our shop uses Shopify. Product images load slowly on mobile",
        // "our team uses github actions, and jobs sit in the queue for ages".)
        // (Where a thing runs, before another sentence, is its setup: "queue worker runs
        // under supervisor on a single VPS. after every deploy ..."; it reports only when no
        // other sentence does, "The cron job runs on the first of the month. It skipped June.")
        if first.is_none() && !marked {
            let last_own = owns.last().map(|s| s.start);
            // (The second pass only when the first set a setup aside.)
            let set_aside = std::cell::Cell::new(false);
            'passes: for strict in [true, false] {
                if !strict && !set_aside.get() {
                    break;
                }
                for strength in [Strength::Predicate, Strength::Suffix] {
                    first = owns.iter().cloned().find_map(|s| {
                        let last = Some(s.start) == last_own;
                        self.told(s.clone(), strength, last)
                            .filter(|g| {
                                let setup = strict && !last && self.tells_where_it_runs(g);
                                set_aside.set(set_aside.get() || setup);
                                !setup
                            })
                            .map(|g| (g, s))
                    });
                    if first.is_some() {
                        break 'passes;
                    }
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
        // (It wins over a question opened by a question word, as a pasted error does: "why
        // am I getting 'Permission denied (publickey)' when pushing to github".)
        if first.as_ref().is_none_or(|(g, _)| asks(g))
            && (marked || self.text.contains(['\'', '"', '`']) || self.met_problem().is_some())
            && let Some(g) = self.inline_error()
        {
            let all = 0..self.text.len();
            first = Some((g, all));
        }
        // A paste led in by a line of the user's own ("cargo build gives me", "logs from the
        // checkout lambda:") or followed by a place ("in the pagination helper"): the line
        // names the thing and, when it states no problem of its own, the paste is the problem.
        if let Some((g, s)) = &mut first
            && matches!(g.rule, Found::ProblemReport | Found::PastedError)
            && let Some(block) = errors.first()
        {
            let intro = self
                .introduction(block.clone())
                .filter(|i| g.rule == Found::PastedError || overlaps(&i.line, s));
            let thing = place
                .map(|(_, t)| t)
                .or_else(|| intro.as_ref().and_then(|i| i.thing.clone()));
            if let Some(t) = thing {
                set_detail(g, detail(0, t));
            }
            if let Some(i) = intro {
                let problem = i.problem.or_else(|| {
                    self.error_line(block.clone())
                        .map(|(line, _)| self.error_message(line))
                });
                if let Some(p) = problem {
                    set_detail(
                        g,
                        Detail {
                            slot: 1,
                            prefix: "fix: ",
                            spans: SmallVec::from_iter([p]),
                        },
                    );
                }
                g.rule = Found::IntroducedPaste;
            }
        }
        // (A repair asked of a demonstrative above a paste fixes the paste's error: "can you
        // fix this?" over a stack trace.)
        if let Some((g, _)) = &mut first
            && g.by_lead()
            && self.cls.goals[g.goal].goal_type == GoalType::TaskExecution
            && !g.details.iter().any(|d| d.slot == 1)
            && !errors.is_empty()
            && words(self.text, g.description.clone())
                .next()
                .is_some_and(|w| self.word_in(&w, &["this", "that", "it", "these"]))
            && let Some(e) = self.pasted_error(&errors)
            && let Some(d) = e.details.iter().find(|d| d.slot == 1)
        {
            set_detail(g, d.clone());
        }
        // (Speech written down runs its sentences together: a lead inside one, last.)
        if !marked && let Some(r) = self.run_on_over(first.as_ref(), &owns) {
            first = Some(r);
        }
        let Some((mut goal, sentence)) = first.or(told) else {
            return;
        };
        self.settle_target(&mut goal, sentence.clone());
        // (A report may come first, then a request: "1) the alarm doesn't ring on silent,
        // and 2) could you add a snooze option?", "the export is broken. also please add dark
        // mode".)
        if !listed.is_empty() {
            reading
                .more
                .extend(listed.into_iter().take(MAX_QUEUED_GOALS));
        } else if goal.by_lead() || goal.rule == Found::ProblemReport {
            self.further_goals(&goal, sentence, reading);
        }
        take(goal, reading);
    }
}
