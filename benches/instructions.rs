//! The engine turns the instruction-count gate measures (scripts/instructions): the message mix
//! of benches/turn.rs, every conversation from a fresh session, `ROUNDS` times (the argument).
//! Prints the number of turns. Run under callgrind twice (two round counts), the difference
//! is the instructions of the turns alone, start-up excluded.

#[path = "conversations.rs"]
mod conversations;

use conversations::run_all;

fn main() {
    let rounds: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(1);
    let engine = convstate::patterns::builtin();
    let mut turns = 0u64;
    for _ in 0..rounds {
        run_all(&engine, |conv, _| {
            std::hint::black_box(conv);
            turns += 1;
        });
    }
    println!("{turns}");
}
