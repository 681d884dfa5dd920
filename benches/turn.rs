//! One turn of the engine on realistic messages: classify + transition + JSON `state` frame,
//! with divan's allocation counts.
//!
//! Run: `cargo bench --bench turn`. Baselines in the same run:
//! - `naive_classify`: what a hand-rolled classifier does with the same phrase lists
//!   (lowercase the message, then `contains` for every phrase): substring matching, the very
//!   defect the engine fixes, and its cost;
//! - `json_frame`: serialising the `state` frame alone, the floor of a turn;
//! - `classify` against `classify_spelled` (typo tolerance) and `step` against `step_typos_off`:
//!   what reading misspelt words costs.

use chrono::TimeDelta;
use convstate::conversation::{Engine, Input, Role};
use convstate::patterns::{self, PatternSource};
use convstate::protocol::ServerFrame;
use convstate::protocol::json::FrameText;
use divan::{AllocProfiler, Bencher, black_box};

#[global_allocator]
static ALLOC: AllocProfiler = AllocProfiler::system();

fn main() {
    divan::main();
}

#[path = "conversations.rs"]
mod conversations;
use conversations::{CONVERSATIONS, run_all, start};

fn engine() -> &'static Engine {
    static ENGINE: std::sync::OnceLock<Engine> = std::sync::OnceLock::new();
    ENGINE.get_or_init(patterns::builtin)
}

fn turn_count() -> usize {
    CONVERSATIONS.iter().map(|c| c.len()).sum()
}

/// Every message of the conversations.
fn messages() -> impl Iterator<Item = (Role, &'static str)> {
    CONVERSATIONS.iter().flat_map(|c| c.iter().copied())
}

/// A whole turn: classify + transition + `state` frame (a new string each, as the server
/// writes it). Each iteration runs all conversations from fresh sessions, so goal creation is
/// counted as it happens.
#[divan::bench]
fn turn(bencher: Bencher) {
    let engine = engine();
    bencher
        .counter(divan::counter::ItemsCount::new(turn_count()))
        .bench_local(|| {
            run_all(engine, |conv, transitions| {
                black_box(FrameText::state(conv, 1, transitions));
            })
        });
}

/// Classify + transition, without the frame.
#[divan::bench]
fn step(bencher: Bencher) {
    let engine = engine();
    bencher
        .counter(divan::counter::ItemsCount::new(turn_count()))
        .bench_local(|| {
            run_all(engine, |conv, _| {
                black_box(conv);
            })
        });
}

/// Classification alone.
#[divan::bench]
fn classify(bencher: Bencher) {
    let engine = engine();
    bencher
        .counter(divan::counter::ItemsCount::new(turn_count()))
        .bench_local(|| {
            for (role, text) in messages() {
                black_box(engine.classifier().read(black_box(text), role));
            }
        });
}

/// What a turn reads now: a user's message is spelled first (typo tolerance), then read.
/// Against `classify` (reading alone, as before typo tolerance) in the same run.
#[divan::bench]
fn classify_spelled(bencher: Bencher) {
    let engine = engine();
    bencher
        .counter(divan::counter::ItemsCount::new(turn_count()))
        .bench_local(|| {
            for (role, text) in messages() {
                black_box(spelled_read(engine, black_box(text), role));
            }
        });
}

/// `classify_spelled` on the same messages with a typo in every word of four letters or more
/// (two inner letters swapped).
#[divan::bench]
fn classify_spelled_typos_everywhere(bencher: Bencher) {
    static TYPOS: std::sync::OnceLock<Vec<(Role, String)>> = std::sync::OnceLock::new();
    let typos = TYPOS.get_or_init(|| messages().map(|(r, t)| (r, with_typos(t))).collect());
    let engine = engine();
    bencher
        .counter(divan::counter::ItemsCount::new(turn_count()))
        .bench_local(|| {
            for (role, text) in typos {
                black_box(spelled_read(engine, black_box(text), *role));
            }
        });
}

/// Classify + transition with the inspector's notes (what `?explain=1` and `replay --explain`
/// cost), against `step` (notes off).
#[divan::bench]
fn step_explained(bencher: Bencher) {
    let engine = engine();
    bencher
        .counter(divan::counter::ItemsCount::new(turn_count()))
        .bench_local(|| {
            for conversation in CONVERSATIONS {
                let mut now = start();
                let mut conv = engine.start("s-bench", now);
                for (role, text) in conversation.iter() {
                    now += TimeDelta::seconds(20);
                    let input = Input::Message {
                        role: *role,
                        text,
                        artifact: false,
                    };
                    black_box(engine.step_explained(&mut conv, input, now));
                }
            }
        });
}

/// Classify + transition with typo tolerance off (`typo_tolerance = false`), against `step`.
#[divan::bench]
fn step_typos_off(bencher: Bencher) {
    static ENGINE: std::sync::OnceLock<Engine> = std::sync::OnceLock::new();
    let engine = ENGINE.get_or_init(|| {
        let mut e = patterns::builtin();
        e.settings_mut().typo_tolerance = false;
        e
    });
    bencher
        .counter(divan::counter::ItemsCount::new(turn_count()))
        .bench_local(|| {
            run_all(engine, |conv, _| {
                black_box(conv);
            })
        });
}

fn spelled_read(engine: &Engine, text: &str, role: Role) -> convstate::conversation::Reading {
    if role == Role::User {
        let said = engine.classifier().spell(text);
        engine.classifier().read(&said.text, role)
    } else {
        engine.classifier().read(text, role)
    }
}

/// Swaps the second and third letters of every word of four letters or more.
fn with_typos(text: &str) -> String {
    let mut out = String::new();
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut String| {
        let mut w: Vec<char> = word.chars().collect();
        if w.len() >= 4 {
            w.swap(1, 2);
        }
        out.extend(w);
        word.clear();
    };
    for c in text.chars() {
        if c.is_ascii_alphabetic() {
            word.push(c);
        } else {
            flush(&mut word, &mut out);
            out.push(c);
        }
    }
    flush(&mut word, &mut out);
    out
}

/// The `state` frames alone.
#[divan::bench]
fn json_frame(bencher: Bencher) {
    let engine = engine();
    let mut states = Vec::new();
    run_all(engine, |conv, _| states.push(conv.clone()));
    bencher
        .counter(divan::counter::ItemsCount::new(states.len()))
        .bench_local(|| {
            for conv in &states {
                black_box(FrameText::state(conv, 1, &[]));
            }
        });
}

/// Baseline: the same frames through serde_json (the reference the frame writer must equal).
#[divan::bench]
fn serde_json_frame(bencher: Bencher) {
    let engine = engine();
    let mut states = Vec::new();
    run_all(engine, |conv, _| states.push(conv.clone()));
    let mut buf = Vec::with_capacity(8192);
    bencher
        .counter(divan::counter::ItemsCount::new(states.len()))
        .bench_local(|| {
            for conv in &states {
                buf.clear();
                serde_json::to_writer(&mut buf, &ServerFrame::state(conv, 1, &[])).unwrap();
                black_box(&buf);
            }
        });
}

/// Baseline: a hand-rolled classifier over the same phrase lists: lowercase, then `contains`.
#[divan::bench]
fn naive_classify(bencher: Bencher) {
    let (lexicon, _) = patterns::read(&PatternSource::Builtin).unwrap();
    let phrases: Vec<String> = lexicon
        .signals
        .iter()
        .flat_map(|s| s.phrases.iter())
        .chain(
            lexicon
                .goals
                .iter()
                .flat_map(|g| g.leads.iter().flat_map(|l| l.phrases.iter())),
        )
        .chain(lexicon.slots.iter().flat_map(|s| s.cues.iter()))
        .map(|p| p.to_lowercase())
        .collect();
    bencher
        .counter(divan::counter::ItemsCount::new(turn_count()))
        .bench_local(|| {
            for (_, text) in messages() {
                let lower = black_box(text).to_lowercase();
                black_box(
                    phrases
                        .iter()
                        .filter(|p| lower.contains(p.as_str()))
                        .count(),
                );
            }
        });
}

/// The spelling pass alone, over the user messages.
#[divan::bench]
fn spell_only(bencher: Bencher) {
    let engine = engine();
    bencher.bench_local(|| {
        for (role, text) in messages() {
            if role == Role::User {
                black_box(engine.classifier().spell(black_box(text)));
            }
        }
    });
}
