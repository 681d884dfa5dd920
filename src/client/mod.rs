//! Clients of the protocol, over the same frame types as the server: the load generator, the
//! scripted client and its recorder, and a small HTTP client.

pub mod http;
pub(crate) mod loadgen;
pub(crate) mod record;
pub(crate) mod runner;
pub(crate) mod script;
