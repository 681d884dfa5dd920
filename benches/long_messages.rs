//! Reading long messages: one engine step (classification, the goal's slot extractors, the
//! rules) on user messages of 1 KiB to 1 MiB, ordinary and built to be slow. The time per byte
//! must stay flat: a message's cost is linear in its length, whatever it holds.
//!
//! Run: `cargo bench --bench long_messages`. divan reports bytes per second (`BytesCount`): the
//! same figure at every size is linear.

use chrono::{DateTime, Utc};
use convstate::conversation::{Conversation, Engine, Input, Role};
use divan::{Bencher, black_box};

fn main() {
    divan::main();
}

const SIZES: [usize; 5] = [1 << 10, 16 << 10, 64 << 10, 256 << 10, 1 << 20];

/// What the message is made of, repeated to the size.
const KINDS: [(&str, &str); 20] = [
    (
        "prose_and_code",
        "The form should validate the email before it submits, and show the error under the field. ```fn check(e: &str) -> bool { e.contains('@') }``` Also keep the button disabled until then. ",
    ),
    (
        "signals",
        "ok sure yes go ahead sounds good perfect thanks ",
    ),
    ("negations", "no not never but don't however isn't "),
    ("contrast", "no but ok sure not yes go ahead never "),
    (
        "goal_leads",
        "Build a page. Make a form! Fix the button? Create an app; ",
    ),
    ("no_spaces", "abcdefghijklmnopqrstuvwxyz0123456789"),
    ("multibyte", "é漢🙂ü日本語テキスト✓ "),
    // Every word misspelt, or a known word near a vocabulary word (typo tolerance's slow paths).
    (
        "typos",
        "perfct thnaks takes books procede sonds good buld awsome ",
    ),
    // "Reading real messages": problem predicates after subjects in one long clause (each a
    // candidate subject), verbs in -s with no goal anywhere (the weakest evidence, read last),
    // and a pasted stack trace (error lines and frames).
    (
        "reports",
        "the submit button is hidden and the search results don't refresh and the export keeps failing ",
    ),
    (
        "behaviour",
        "the dropdown closes as the page loads the list shows old rows ",
    ),
    (
        "stack_trace",
        "TypeError: Cannot read properties of undefined (reading 'map')\n    at List (List.jsx:14:32)\n    at renderWithHooks (react-dom.js:1:1)\n",
    ),
    // Problems told of "it" after sentences that introduce nothing: each pronoun looks back at
    // the sentence before, finds no thing, and the reader goes on to the next sentence.
    (
        "context_pronouns",
        "since then. it keeps failing, it hangs again. ",
    ),
    // Lines that lead a paste in, each followed by an error with a source location; and a
    // thing whose noun phrase goes on with "of the" (each determiner checks the word before).
    (
        "pastes_led_in",
        "the build step gives me:\nError: thing failed: cause: x.rs:12:3\n",
    ),
    ("of_the", "fix the top of the box of the lid "),
    // Contrasts whose clause shares the subject before it, a topic and a comma before a
    // request, and indented code set aside (each contrast looks a few words ahead, each comma
    // for a lead after it, each line for a fence or an indent).
    (
        "topics_and_contrasts",
        "the build passes locally but fails on ci, those warnings in the console, can we get rid of them\n    s = 0\n",
    ),
    // One long sentence of sequencers and conjunctions after a first goal, none starting a
    // further one: each looks for a lead, a report or another kind after it (the reports
    // read are bounded; before that each read the rest of the sentence, quadratic).
    ("sequencers", "fix the header then broken plus it then it "),
    ("conjunctions", "build a page and x and also y "),
    // The user's own doing before "and", then its result: each "and" asks whether its clause
    // opens with a first person (found once per clause, at its first "and").
    (
        "narratives",
        "I click save and it crashes and we open the app and nothing happens and ",
    ),
    // After a first artifact, sequencers before an article and no kind, and sequencers set
    // apart before a plain word: each reads a window of words after it (before that each read
    // the rest of the sentence, quadratic).
    (
        "kinds_after_sequencers",
        "write a poem then a qqq, then zzz ",
    ),
    // Round 21: conditions before a lead and its comma, participles after a noun before a
    // preposition (each looks at the words beside it), kinds ended by a polite word and a
    // dash, adverbs before a report's verb, and a setup told as a title.
    (
        "conditions_and_participles",
        "When a game ends, save it. changes made in the editor aren't saved. excel formula pls - x. the sync only uploads photos, Running it on a Pi. ",
    ),
];

fn message(kind: &str, size: usize) -> String {
    let unit = KINDS
        .iter()
        .find(|(k, _)| *k == kind)
        .map_or("", |(_, u)| u);
    let mut text = String::with_capacity(size + unit.len());
    while text.len() < size {
        text.push_str(unit);
    }
    // Cut at a character boundary at or below `size`.
    let mut at = size.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    text.truncate(at);
    text
}

fn engine() -> &'static Engine {
    static ENGINE: std::sync::OnceLock<Engine> = std::sync::OnceLock::new();
    ENGINE.get_or_init(convstate::patterns::builtin)
}

/// A session gathering a todo app's requirements: the step reads the slots too.
fn gathering() -> Conversation {
    let now: DateTime<Utc> = "2026-11-21T10:00:00Z".parse().unwrap();
    let mut conv = engine().start("s-bench", now);
    let input = Input::Message {
        role: Role::User,
        text: "I want to build a todo app",
        artifact: false,
    };
    engine().step(&mut conv, input, now);
    conv
}

fn step(bencher: Bencher, kind: &str, size: usize) {
    step_from(bencher, kind, size, gathering());
}

/// The same on a new session (no goal active): every rule of "Reading real messages" runs,
/// the weakest evidence included.
fn step_first(bencher: Bencher, kind: &str, size: usize) {
    let now: DateTime<Utc> = "2026-11-21T10:00:00Z".parse().unwrap();
    step_from(bencher, kind, size, engine().start("s-bench", now));
}

fn step_from(bencher: Bencher, kind: &str, size: usize, start: Conversation) {
    let text = message(kind, size);
    let now: DateTime<Utc> = "2026-11-21T10:00:05Z".parse().unwrap();
    bencher
        .counter(divan::counter::BytesCount::new(text.len()))
        .with_inputs(|| start.clone())
        .bench_local_refs(|conv| {
            let input = Input::Message {
                role: Role::User,
                text: &text,
                artifact: false,
            };
            black_box(engine().step(conv, input, now));
        });
}

#[divan::bench(args = SIZES)]
fn prose_and_code(bencher: Bencher, size: usize) {
    step(bencher, "prose_and_code", size);
}

#[divan::bench(args = SIZES)]
fn signals(bencher: Bencher, size: usize) {
    step(bencher, "signals", size);
}

#[divan::bench(args = SIZES)]
fn negations(bencher: Bencher, size: usize) {
    step(bencher, "negations", size);
}

#[divan::bench(args = SIZES)]
fn contrast(bencher: Bencher, size: usize) {
    step(bencher, "contrast", size);
}

#[divan::bench(args = SIZES)]
fn goal_leads(bencher: Bencher, size: usize) {
    step(bencher, "goal_leads", size);
}

#[divan::bench(args = SIZES)]
fn no_spaces(bencher: Bencher, size: usize) {
    step(bencher, "no_spaces", size);
}

#[divan::bench(args = SIZES)]
fn multibyte(bencher: Bencher, size: usize) {
    step(bencher, "multibyte", size);
}

#[divan::bench(args = SIZES)]
fn typos(bencher: Bencher, size: usize) {
    step(bencher, "typos", size);
}

#[divan::bench(args = SIZES)]
fn reports(bencher: Bencher, size: usize) {
    step(bencher, "reports", size);
}

#[divan::bench(args = SIZES)]
fn behaviour(bencher: Bencher, size: usize) {
    step(bencher, "behaviour", size);
}

#[divan::bench(args = SIZES)]
fn stack_trace(bencher: Bencher, size: usize) {
    step(bencher, "stack_trace", size);
}

#[divan::bench(args = SIZES)]
fn first_prose_and_code(bencher: Bencher, size: usize) {
    step_first(bencher, "prose_and_code", size);
}

#[divan::bench(args = SIZES)]
fn first_reports(bencher: Bencher, size: usize) {
    step_first(bencher, "reports", size);
}

#[divan::bench(args = SIZES)]
fn first_behaviour(bencher: Bencher, size: usize) {
    step_first(bencher, "behaviour", size);
}

#[divan::bench(args = SIZES)]
fn first_stack_trace(bencher: Bencher, size: usize) {
    step_first(bencher, "stack_trace", size);
}

#[divan::bench(args = SIZES)]
fn first_context_pronouns(bencher: Bencher, size: usize) {
    step_first(bencher, "context_pronouns", size);
}

#[divan::bench(args = SIZES)]
fn first_goal_leads(bencher: Bencher, size: usize) {
    step_first(bencher, "goal_leads", size);
}

#[divan::bench(args = SIZES)]
fn first_pastes_led_in(bencher: Bencher, size: usize) {
    step_first(bencher, "pastes_led_in", size);
}

#[divan::bench(args = SIZES)]
fn first_of_the(bencher: Bencher, size: usize) {
    step_first(bencher, "of_the", size);
}

#[divan::bench(args = SIZES)]
fn first_topics_and_contrasts(bencher: Bencher, size: usize) {
    step_first(bencher, "topics_and_contrasts", size);
}

#[divan::bench(args = SIZES)]
fn first_sequencers(bencher: Bencher, size: usize) {
    step_first(bencher, "sequencers", size);
}

#[divan::bench(args = SIZES)]
fn first_narratives(bencher: Bencher, size: usize) {
    step_first(bencher, "narratives", size);
}

#[divan::bench(args = SIZES)]
fn first_conjunctions(bencher: Bencher, size: usize) {
    step_first(bencher, "conjunctions", size);
}

#[divan::bench(args = SIZES)]
fn first_kinds_after_sequencers(bencher: Bencher, size: usize) {
    step_first(bencher, "kinds_after_sequencers", size);
}

#[divan::bench(args = SIZES)]
fn first_conditions_and_participles(bencher: Bencher, size: usize) {
    step_first(bencher, "conditions_and_participles", size);
}
