//! Property fuzzing of what reads untrusted input: the client frame parser, the classifier
//! (with text built from every phrase of every pattern class) and the pattern loader. Each
//! target runs generated inputs for a bounded time, `CONVSTATE_FUZZ_SECONDS` (10 by default);
//! a failure is shrunk to a small input, printed, and its seed kept in
//! `tests/fuzz.proptest-regressions`, which every later run tries first. The same entry points
//! (`convstate::fuzz`) are `cargo fuzz` targets in `tests/fuzz/` for longer runs.

use std::time::{Duration, Instant};

use proptest::prelude::*;
use proptest::test_runner::{Config, FileFailurePersistence, TestRunner};

/// Runs `check` on values of `strategy` until the time budget is spent; panics with the
/// smallest failing input found.
fn fuzz_for<S: Strategy>(name: &str, strategy: S, check: fn(&[u8]))
where
    S::Value: AsRef<[u8]>,
{
    let budget = std::env::var("CONVSTATE_FUZZ_SECONDS")
        .ok()
        .and_then(|s| s.parse::<f64>().ok())
        .map_or(Duration::from_secs(10), Duration::from_secs_f64);
    let config = Config {
        cases: 64,
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct(
            "tests/fuzz.proptest-regressions",
        ))),
        source_file: Some("tests/fuzz.rs"),
        ..Config::default()
    };
    let started = Instant::now();
    let mut rounds = 0u64;
    while rounds == 0 || started.elapsed() < budget {
        let mut runner = TestRunner::new(config.clone());
        if let Err(e) = runner.run(&strategy, |input| {
            check(input.as_ref());
            Ok(())
        }) {
            panic!("{name}: {e}");
        }
        rounds += 1;
    }
    println!(
        "{name}: {} inputs in {:.1} s",
        rounds * u64::from(config.cases),
        started.elapsed().as_secs_f64()
    );
}

/// Random edits of `text`: characters replaced, inserted, removed; a cut.
fn mutated(text: String) -> impl Strategy<Value = String> {
    let len = text.chars().count().max(1);
    let edit = (0..len, any::<char>(), 0u8..4);
    prop::collection::vec(edit, 0..6).prop_map(move |edits| {
        let mut chars: Vec<char> = text.chars().collect();
        for (at, c, kind) in edits {
            let at = at.min(chars.len());
            match kind {
                0 if at < chars.len() => chars[at] = c,
                1 => chars.insert(at, c),
                2 if at < chars.len() => {
                    chars.remove(at);
                }
                _ => chars.truncate(at),
            }
        }
        chars.into_iter().collect()
    })
}

/// JSON values shaped like frames: the protocol's keys and values, nested, with wrong types.
fn frame_like() -> impl Strategy<Value = String> {
    let key = prop::sample::select(vec![
        "type",
        "role",
        "text",
        "id",
        "signal",
        "artifact",
        "session_id",
        "last_seq",
        "extra",
        "",
    ]);
    let word = prop::sample::select(vec![
        "message",
        "signal",
        "get_state",
        "reset",
        "user",
        "assistant",
        "approve",
        "start_work",
        "work_done",
        "satisfied",
        "change_request",
        "cancel",
        "switch",
        "farewell",
        "Build a landing page",
        "",
    ]);
    let leaf = prop_oneof![
        Just(serde_json::Value::Null),
        any::<bool>().prop_map(serde_json::Value::from),
        any::<i64>().prop_map(serde_json::Value::from),
        any::<f64>().prop_map(serde_json::Value::from),
        word.prop_map(serde_json::Value::from),
        any::<String>().prop_map(serde_json::Value::from),
    ];
    let value = leaf.prop_recursive(4, 32, 6, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(serde_json::Value::from),
            prop::collection::vec((key.clone(), inner), 0..6).prop_map(|pairs| {
                serde_json::Value::Object(
                    pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect(),
                )
            }),
        ]
    });
    value
        .prop_map(|v| v.to_string())
        .prop_flat_map(|text| prop_oneof![3 => Just(text.clone()), 1 => mutated(text)])
}

#[test]
fn client_frames() {
    let valid = prop::sample::select(vec![
        r#"{"type":"message","role":"user","text":"Build a landing page","id":"c-1"}"#,
        r#"{"type":"message","role":"assistant","text":"done","artifact":{"a":[1,2]}}"#,
        r#"{"type":"signal","signal":"approve","id":"c-2"}"#,
        r#"{"type":"get_state"}"#,
        r#"{"type":"reset","id":"r"}"#,
    ])
    .prop_flat_map(|t| mutated(t.to_string()));
    let strategy = prop_oneof![
        2 => frame_like(),
        2 => valid,
        1 => any::<String>(),
        1 => prop::collection::vec(any::<u8>(), 0..64).prop_map(|b| String::from_utf8_lossy(&b).into_owned()),
    ];
    fuzz_for("client frames", strategy, convstate::fuzz::client_frame);
}

/// Every string of the shipped pattern files: goal leads, signal phrases, negations, fillers,
/// slot triggers, the words of every class.
fn phrases() -> Vec<String> {
    fn walk(value: &toml::Value, out: &mut Vec<String>) {
        match value {
            toml::Value::String(s) => out.push(s.clone()),
            toml::Value::Array(items) => items.iter().for_each(|v| walk(v, out)),
            toml::Value::Table(t) => t.values().for_each(|v| walk(v, out)),
            _ => {}
        }
    }
    let mut out = Vec::new();
    for text in convstate::patterns::builtin_texts() {
        let value: toml::Value = toml::from_str(text).expect("the shipped patterns parse");
        walk(&value, &mut out);
    }
    // Regexes and names are strings too: harmless, and they add odd punctuation.
    out.sort();
    out.dedup();
    assert!(out.len() > 100, "{} phrases", out.len());
    out
}

#[test]
fn messages() {
    let phrases = phrases();
    let piece = prop_oneof![
        6 => prop::sample::select(phrases.clone()),
        2 => prop::sample::select(vec![" ", ", ", ". ", "! ", "? ", "\n", " and ", " but ", " not "])
            .prop_map(str::to_string),
        // (Separators of several bytes and marks the reader skips: "Bug — ...", "-: ".)
        // (And the words of round 11's rules around multibyte words: "let ユーザーs ...";
        // and round 12's: "up to", a scope after a value, "nothing", a copula frame, "so".)
        1 => prop::sample::select(vec![
            " — ", " – ", "-: ", " plus ", "[x]", ": 9 ", "let ユーザーs ", " per-", " via ",
            " until ", " even though ", "2 things: ", "'", " up to ", " for this ", " nothing ",
            "it's the ", " so ", " rendérs behind the ", "Feature request: ", " look fine ",
        ])
            .prop_map(str::to_string),
        1 => any::<char>().prop_map(|c| c.to_string()),
        1 => prop::sample::select(vec!["’", "‘", "é", "🙂", "\u{301}", "\u{202e}", "\u{0}", "İ", "ß"])
            .prop_map(str::to_string),
    ];
    let sentence = prop::collection::vec(piece, 0..40).prop_map(|p| p.concat());
    // A long message: one piece of real text repeated, as pasted text and attacks do.
    let long =
        (prop::sample::select(phrases), 1usize..3_000).prop_map(|(p, n)| format!("{p} ").repeat(n));
    let strategy = prop_oneof![
        6 => sentence.clone(),
        1 => sentence.prop_flat_map(mutated),
        1 => long,
        1 => any::<String>(),
    ];
    fuzz_for("messages", strategy, convstate::fuzz::message);
}

#[test]
fn pattern_files() {
    let texts = convstate::patterns::builtin_texts();
    let junk = prop::sample::select(vec![
        "[",
        "[[goal]]",
        "x = ",
        "phrases = [\"((\"]",
        "pattern = \"(a+)+$\"",
        "pattern = \"\\\\\"",
        "max_description_chars = -1",
        "max_value_chars = 99999999999999999999",
        "history_window = 1e9",
        "idle_timeout = \"forever\"",
        "type = \"nonsense\"",
        "\u{0}",
        "= = =",
        "phrases = []",
        "leads = [\"\"]",
    ]);
    let file = (0usize..texts.len()).prop_flat_map(move |i| {
        let lines: Vec<String> = texts[i].lines().map(str::to_string).collect();
        let n = lines.len().max(1);
        let edit = (0..n, 0u8..4, junk.clone());
        prop::collection::vec(edit, 0..5).prop_map(move |edits| {
            let mut lines = lines.clone();
            for (at, kind, junk) in edits {
                let at = at.min(lines.len().saturating_sub(1));
                match kind {
                    0 if !lines.is_empty() => {
                        lines.remove(at);
                    }
                    1 if !lines.is_empty() => {
                        let line = lines[at].clone();
                        lines.insert(at, line);
                    }
                    2 => lines.insert(at, junk.to_string()),
                    _ if !lines.is_empty() => {
                        let cut = lines[at].len() / 2;
                        let cut = (0..=cut)
                            .rev()
                            .find(|c| lines[at].is_char_boundary(*c))
                            .unwrap_or(0);
                        lines[at].truncate(cut);
                    }
                    _ => {}
                }
            }
            let mut data = vec![i as u8];
            data.extend_from_slice(lines.join("\n").as_bytes());
            data
        })
    });
    fuzz_for("pattern files", file, convstate::fuzz::pattern_file);
}

/// Inputs the fuzzer once found panicking: a phrase hit running past its clause's end ("not"
/// before a clause's end, a lead inside a run-on sentence).
#[test]
fn found_inputs_stay_fixed() {
    for text in [
        "\\b(?:that|which)\\s+(?P<value>(?:lets?|allows?|enables?|shows?|displays?|tracks?|stores?|sends?|supports?|handles?|converts?|calculates?|generates?|takes?|accepts?|validates?|uses?|has|includes?|lists?|manages?)\\s+[^.!?;\\n]+) but \u{301} and  rendérs behind the show meisn't workingasapdozen not ",
        "let ユーザーs ? other ways toexceli will putreorganisedisappearbest judgementremind me to but İ per- rendérs behind the switchisn't workingbegandozen not randomleave this to you-: i trust your judgment and researchliterally but ✅",
        // A problem phrase running past a clause cut at its bound.
        "deadlock deadlock deadlock deadlock deadlock deadlock deadlock deadlock deadlock deadlock deadlock deadlock deadlock deadlock deadlock deadlock deadlock deadlock ",
        // A verb taken by its place after "could you", with no phrase of the vocabulary.
        "could you addhelp me ",
        // A dash right before a line's end: the words before the dash start past it.
        "\u{202e}\u{301}theirwreckedactual behavior \u{2013} \nit should be possible tois it possible for you toready for reviewit looks likeadd some\u{2019}what are some good ways toreorganiseyaml file but  and  i'd like you to",
    ] {
        convstate::fuzz::message(text.as_bytes());
    }
}
