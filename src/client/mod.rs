//! Clients of the protocol, over the same frame types as the server: the load generator and the
//! scripted client.

pub mod loadgen;
pub mod record;
pub mod runner;
pub mod script;
