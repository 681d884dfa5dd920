//! Clients of the protocol, over the same frame types as the server: the load generator.

pub mod loadgen;
