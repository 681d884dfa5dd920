//! convstate: a conversational chat backend that keeps, for every session, the state of the
//! conversation (phase, goal, required information, turns, history, idle deadline) and a text
//! summary ready for an LLM's system prompt.
//!
//! # Layout
//!
//! - [`assistant`]: who answers as the assistant (observer, the built-in guide, a model).
//! - [`conversation`]: the pure engine (no I/O, no clock reads): state, classifier, the rule
//!   table, the summary. Everything else depends on it; it depends on nothing of ours.
//! - [`flow`]: hosted flows, pure like the engine: flow files (`patterns/flows/*.toml`), their
//!   checks and Mermaid diagrams, a running flow's events and timers.
//! - [`patterns`]: reads `patterns/*.toml` (and `flows/`) into the engine, reporting
//!   `path:line: message`; the rules' fingerprint.
//! - [`protocol`]: the wire contract's frames, both ways, and how they are written.
//! - `replay`: the offline `replay` command over the same engine and frames.
//! - [`server`]: the WebSocket server: sessions, pushes from the store's commits, the idle
//!   sweeper, HTTP.
//! - [`store`]: where sessions live: an event log per session (memory, SQLite, Redis), settled
//!   in order.
//! - [`config`]: the server's configuration.
//! - [`transfer`]: sessions moved between stores (`export`, `import`).
//! - [`client`]: clients of the protocol (scripted client, recorder, load generator, HTTP).
//! - [`cli`]: the command line.
//!
//! Data flows one way: socket → protocol → engine → store → every client of the session: a
//! change reaches clients only once the store holds it.

/// `println!` for the commands' output that ignores a closed standard output
/// (`convstate script ... | head`) instead of panicking.
macro_rules! say {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stdout().lock(), $($arg)*);
    }};
}

pub mod assistant;
pub mod cli;
pub mod client;
pub mod config;
pub mod conversation;
pub mod diagnostic;
pub mod eval;
pub mod flow;
#[doc(hidden)]
pub mod fuzz;
pub mod patterns;
pub mod protocol;
pub(crate) mod replay;
pub mod server;
pub mod store;
pub mod transfer;
