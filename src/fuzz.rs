//! Fuzzing entry points: each takes arbitrary bytes and panics only on a bug, an invariant
//! broken. The test command runs them on generated inputs for a bounded time
//! (`tests/fuzz.rs`); `tests/fuzz/` holds `cargo fuzz` targets over the same functions for
//! longer runs (docs/testing.md).

use std::sync::OnceLock;

use chrono::{DateTime, Utc};

use crate::conversation::{Engine, Input, Role, Summary};
use crate::patterns::{self, PatternSource};
use crate::protocol::{ClientFrame, ErrorCode, MAX_ID_BYTES};

fn engine() -> &'static Engine {
    static ENGINE: OnceLock<Engine> = OnceLock::new();
    ENGINE.get_or_init(patterns::builtin)
}

fn start_time() -> DateTime<Utc> {
    DateTime::from_timestamp(1_800_000_000, 0).unwrap_or_default()
}

/// A client frame, as the server reads it: refused with one of the parser's codes and a
/// message, or accepted, and then it reads back to itself once written.
pub fn client_frame(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return; // the WebSocket layer closes with 1007 before the parser sees it
    };
    match ClientFrame::parse(text) {
        Ok(frame) => {
            assert!(frame.id().is_none_or(|id| id.len() <= MAX_ID_BYTES));
            let written = crate::protocol::to_text(&frame);
            assert_eq!(
                ClientFrame::parse(&written).as_ref(),
                Ok(&frame),
                "{written}"
            );
        }
        Err(refusal) => {
            assert!(
                matches!(
                    refusal.code,
                    ErrorCode::BadJson | ErrorCode::BadRequest | ErrorCode::UnknownType
                ),
                "{:?}",
                refusal.code
            );
            assert!(!refusal.message.is_empty());
        }
    }
}

/// A message, read by the classifier in both roles and stepped on a new conversation: every
/// span it reports lies on character boundaries of the text, the state keeps its caps, and
/// the summary renders.
pub fn message(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let engine = engine();
    let classifier = engine.classifier();
    for role in [Role::User, Role::Assistant] {
        let reading = classifier.read(&text, role);
        if let Some(lead) = reading.goal {
            assert!(text.get(lead.description).is_some());
        }
    }
    for slot in 0..classifier.slots().len() {
        if let Some(span) = classifier.extract(&text, slot) {
            assert!(text.get(span).is_some());
        }
    }
    // The spelling pass: every correction's spans lie on boundaries of both texts, and the
    // whole read text maps back to the whole message.
    let said = classifier.spell(&text);
    for c in &said.corrections {
        assert!(text.get(c.original.clone()).is_some());
        assert!(said.text.get(c.read.clone()).is_some());
    }
    assert_eq!(said.original_text(0..said.text.len()), &*text);
    // The inspector's notes quote the message (its quotes made straight) at their spans.
    let normalized = crate::conversation::text::normalize(&text);
    let (_, explanation) = engine.step_explained(
        &mut engine.start("s-fuzz", start_time()),
        Input::Message {
            role: Role::User,
            text: &text,
            artifact: false,
        },
        start_time(),
    );
    for p in &explanation.phrases {
        assert_eq!(normalized.get(p.start..p.end), Some(p.text.as_str()));
    }
    let settings = engine.settings();
    let mut conv = engine.start("s-fuzz", start_time());
    for (role, at) in [(Role::User, 1), (Role::User, 2), (Role::Assistant, 3)] {
        let input = Input::Message {
            role,
            text: &text,
            artifact: false,
        };
        let now = start_time() + chrono::TimeDelta::seconds(at);
        engine.step(&mut conv, input, now);
        if let Some(goal) = &conv.current_goal {
            let cap = settings.max_description_chars as usize + 1;
            assert!(goal.description.chars().count() <= cap);
            for slot in &goal.required_info {
                let cap = settings.max_value_chars as usize + 1;
                assert!(slot.value.as_ref().is_none_or(|v| v.chars().count() <= cap));
            }
        }
    }
    let _ = Summary(&conv).to_string();
}

/// A pattern set with one of its files replaced: the first byte picks the file, the rest is
/// its text. It loads, and reads a message, or it is refused with errors that name a file.
pub fn pattern_file(data: &[u8]) {
    let Some((&which, rest)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return; // read_to_string refuses it before the loader
    };
    let mut texts = patterns::builtin_texts().map(str::to_string);
    texts[usize::from(which) % texts.len()] = text.to_string();
    match patterns::load(&PatternSource::Texts(Box::new(texts))) {
        Ok(engine) => {
            let _ = engine
                .classifier()
                .read("Build a landing page, then never mind", Role::User);
        }
        Err(errors) => {
            assert!(!errors.0.is_empty());
            for e in &errors.0 {
                assert!(e.path.starts_with("patterns"), "{e}");
                assert!(!e.message.is_empty(), "{e}");
            }
        }
    }
}
