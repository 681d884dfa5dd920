//! The engine turns the instruction-count gate measures (scripts/instructions): the message mix
//! of benches/turn.rs, every conversation from a fresh session, `ROUNDS` times (the argument).
//! Prints the number of turns. Run under callgrind twice (two round counts), the difference
//! is the instructions of the turns alone, start-up excluded.

#[path = "conversations.rs"]
mod conversations;

use chrono::{DateTime, TimeDelta, Utc};
use conversations::CONVERSATIONS;
use convstate::conversation::Input;

fn main() {
    let rounds: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(1);
    let engine = convstate::patterns::builtin();
    let start: DateTime<Utc> = "2026-11-21T10:00:00Z".parse().unwrap();
    let mut turns = 0u64;
    for _ in 0..rounds {
        for conversation in CONVERSATIONS {
            let mut now = start;
            let mut conv = engine.start("s-count", now);
            for (role, text) in conversation.iter() {
                now += TimeDelta::seconds(20);
                let step = engine.step(
                    &mut conv,
                    Input::Message {
                        role: *role,
                        text,
                        artifact: false,
                    },
                    now,
                );
                std::hint::black_box(step);
                turns += 1;
            }
        }
    }
    println!("{turns}");
}
