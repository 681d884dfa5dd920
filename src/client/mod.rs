//! Clients of the protocol, over the same frame types as the server: the load generator, the
//! scripted client and its recorder, and a small HTTP client.

pub mod http;
pub mod loadgen;
pub mod record;
pub mod runner;
pub mod script;
