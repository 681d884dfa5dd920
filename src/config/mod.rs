//! Configuration values shared by the commands: the server's (here), the `llm` assistant's
//! (`llm.rs`), and the layers they are merged from: flags, environment, file (`layer.rs`).

mod layer;
mod llm;

pub use layer::{ConfigLayer, ENV_VARS, parse_listen};
pub use llm::{BusyPolicy, LlmConfig, LlmLayer};

use chrono::TimeDelta;

/// The longest idle timeout accepted: longer ones are surely a typo, and keeping deadlines far
/// inside chrono's range means adding one to a time never overflows.
const MAX_DURATION: TimeDelta = TimeDelta::days(3650);

/// Parses a human duration such as `2s`, `10m`, `1h 30m` or `500ms`.
pub fn parse_duration(text: &str) -> Result<TimeDelta, String> {
    let std = humantime::parse_duration(text.trim())
        .map_err(|e| format!("invalid duration \"{text}\": {e} (examples: 2s, 10m, 1h30m)"))?;
    let delta = TimeDelta::from_std(std).map_err(|_| format!("duration \"{text}\" is too long"))?;
    if delta <= TimeDelta::zero() {
        return Err(format!("duration \"{text}\" must be longer than zero"));
    }
    if delta > MAX_DURATION {
        return Err(format!("duration \"{text}\" is longer than ten years"));
    }
    Ok(delta)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_parse_in_human_units() {
        assert_eq!(parse_duration("2s"), Ok(TimeDelta::seconds(2)));
        assert_eq!(parse_duration("10m"), Ok(TimeDelta::minutes(10)));
        assert_eq!(parse_duration("1h 30m"), Ok(TimeDelta::minutes(90)));
        assert_eq!(parse_duration("500ms"), Ok(TimeDelta::milliseconds(500)));
        assert!(parse_duration("0s").is_err());
        assert!(parse_duration("ten minutes").is_err());
        assert!(parse_duration("100000 days").is_err());
    }
}

/// The configuration of `convstate serve`. Each value comes from the first of: a command-line
/// flag, a `CONVSTATE_*` environment variable, the TOML config file, the default below.
#[derive(Clone, Debug, PartialEq)]
pub struct ServerConfig {
    /// Address to listen on. Loopback by default: exposing the server is a decision.
    pub listen: std::net::SocketAddr,
    /// Idle timeout; `None` keeps the patterns' setting (10 minutes as shipped).
    pub idle_timeout: Option<TimeDelta>,
    /// Pattern directory; `None` uses the set built into the binary.
    pub patterns: Option<std::path::PathBuf>,
    /// Where sessions live: `sqlite:PATH` (durable, the default) or `memory:` (lost on
    /// restart).
    pub store: String,
    /// Most changes one SQLite transaction commits (group commit); 1 commits each on its own.
    pub store_batch: usize,
    /// The least time between two checkpoints of the SQLite store (copies of its log into the
    /// file, made after commits): short copies keep the log's fsyncs from waiting behind a
    /// large one (the ack tail); each costs CPU.
    pub store_checkpoint: std::time::Duration,
    /// How many SQLite files, each with its own writer thread, the sessions are spread over
    /// (1: one file, `PATH`; more: `PATH`, `PATH.shard1`, ...): more writers commit side by side
    /// on a machine with the cores for them. A store's count is fixed when it is created.
    pub store_shards: usize,
    /// The largest the SQLite file may grow, in bytes (a quota: at the limit, changes are
    /// refused as on a full disk until sessions are deleted); `None`: the disk's size.
    pub store_max_bytes: Option<u64>,
    /// Finished sessions without activity for this long are deleted from the store (24 hours:
    /// a user who comes back the next day still finds the conversation).
    pub retention: TimeDelta,
    /// Sessions without a client and without activity for this long leave memory (the store
    /// keeps them; they are loaded again when asked for, or when their idle deadline falls
    /// due).
    pub evict_after: TimeDelta,
    /// Largest client frame accepted, in bytes (64 KiB: a long message, never a file).
    pub max_frame_bytes: usize,
    /// Frames per second a connection may send on average (a person types far slower; a
    /// scripted client replaying a transcript fits).
    pub rate_limit: u32,
    /// Frames a connection may send at once above the average.
    pub rate_burst: u32,
    /// Browser origins allowed besides the server's own and localhost (`*` allows any).
    pub allowed_origins: Vec<String>,
    /// How often the server pings each client; a client silent for two intervals is dropped.
    pub ping_interval: std::time::Duration,
    /// How long one write to a client may take; a client that reads too slowly is closed.
    pub write_timeout: std::time::Duration,
    /// The kernel's send buffer of each connection, in bytes (Linux allocates twice this):
    /// what a client that does not read can make the server hold, and no more.
    pub send_buffer_bytes: usize,
    /// How long a client may take to send a request's header (a connection that never
    /// finishes one is closed).
    pub header_timeout: std::time::Duration,
    /// How long a graceful shutdown may wait for connections to close before it closes them.
    pub shutdown_timeout: std::time::Duration,
    /// Most TCP connections open at once (HTTP and WebSocket); more are answered 503
    /// `server_full` and closed.
    pub max_connections: usize,
    /// Most connections open at once from one address (an IPv6 /64 counts as one); more are
    /// answered 429 `rate_limited`. 0: no per-address cap.
    pub max_connections_per_ip: usize,
    /// New sessions one address may create per minute on average (an IPv6 /64 counts as one).
    pub ip_session_rate: u32,
    /// New sessions one address may create at once above that rate.
    pub ip_session_burst: u32,
    /// Whether loopback clients are exempt from the per-address limits (for benchmarks and
    /// load tests from the same machine).
    pub exempt_loopback: bool,
    /// Most sessions in memory on this node; a connection that would add one past it is
    /// refused with `server_full` (503).
    pub max_sessions: usize,
    /// The HS256 secret tokens are signed with; with it (or `jwt_public_key`) every connection
    /// needs a token (docs/security.md).
    pub jwt_secret: Option<Secret>,
    /// A PEM public key (RSA: RS256; EC P-256: ES256) tokens are verified with.
    pub jwt_public_key: Option<std::path::PathBuf>,
    /// The `iss` tokens must carry, if set.
    pub jwt_issuer: Option<String>,
    /// The `aud` tokens must carry, if set.
    pub jwt_audience: Option<String>,
    /// Serve a non-loopback address without authentication (refused otherwise).
    pub insecure_no_auth: bool,
    /// The origins the server's own pages are served from (`https://chat.example`): browsers
    /// there may connect. The request's `Host` is never trusted for this (DNS rebinding).
    pub public_origins: Vec<String>,
    /// A file of API keys, one per line: each opens the HTTP API and the metrics as an admin
    /// token does.
    pub api_keys_file: Option<std::path::PathBuf>,
    /// A second address that serves `/metrics` only, without a token (for a scraper on an
    /// internal network); the main address then does not serve `/metrics`.
    pub metrics_listen: Option<std::net::SocketAddr>,
    /// Who answers as the assistant in a new session: `observer` (clients send both roles) or
    /// `guide` (the built-in guide answers every user turn); a session may choose otherwise
    /// (docs/assistant.md).
    pub assistant: crate::assistant::Mode,
    /// The model the `llm` assistant calls.
    pub llm: LlmConfig,
    /// The prefix of every key of a Redis store (`redis://...`): deployments sharing one Redis
    /// each take their own.
    pub redis_prefix: String,
}

/// A secret: kept, compared, never printed.
#[derive(Clone, PartialEq, Eq, serde::Deserialize)]
#[serde(transparent)]
pub struct Secret(pub String);

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Secret(..)")
    }
}

impl Default for ServerConfig {
    fn default() -> ServerConfig {
        ServerConfig {
            listen: std::net::SocketAddr::from(([127, 0, 0, 1], 8080)),
            idle_timeout: None,
            patterns: None,
            store: "sqlite:data/convstate.db".to_string(),
            store_batch: 4096,
            store_checkpoint: std::time::Duration::from_millis(2),
            store_shards: 1,
            store_max_bytes: None,
            retention: TimeDelta::hours(24),
            evict_after: TimeDelta::minutes(10),
            max_frame_bytes: 64 * 1024,
            rate_limit: 20,
            rate_burst: 40,
            allowed_origins: Vec::new(),
            ping_interval: std::time::Duration::from_secs(30),
            write_timeout: std::time::Duration::from_secs(10),
            send_buffer_bytes: 128 * 1024,
            header_timeout: std::time::Duration::from_secs(10),
            shutdown_timeout: std::time::Duration::from_secs(10),
            max_connections: 10_000,
            max_connections_per_ip: 256,
            ip_session_rate: 120,
            ip_session_burst: 60,
            exempt_loopback: false,
            max_sessions: 100_000,
            jwt_secret: None,
            jwt_public_key: None,
            jwt_issuer: None,
            jwt_audience: None,
            insecure_no_auth: false,
            public_origins: Vec::new(),
            api_keys_file: None,
            metrics_listen: None,
            assistant: crate::assistant::Mode::Observer,
            llm: LlmConfig::default(),
            redis_prefix: "convstate".to_string(),
        }
    }
}

impl ServerConfig {
    /// Refuses an address other than loopback without authentication, unless
    /// `insecure_no_auth` accepts the risk: a fresh server is safe on a laptop, and exposing it
    /// takes a deliberate step.
    pub fn check_exposure(&self) -> Result<(), String> {
        let authenticated = self.jwt_secret.is_some() || self.jwt_public_key.is_some();
        if authenticated || self.insecure_no_auth || self.listen.ip().is_loopback() {
            Ok(())
        } else {
            Err(ServerConfig::unauthenticated(self.listen))
        }
    }

    /// Why an address is not served without authentication, and what to do.
    fn unauthenticated(address: std::net::SocketAddr) -> String {
        format!(
            "refusing to serve {address} without authentication: set --jwt-secret (or \
             CONVSTATE_JWT_SECRET) or --jwt-public-key, listen on 127.0.0.1, or pass \
             --insecure-no-auth to accept the risk (docs/security.md)"
        )
    }

    /// How to open the store.
    pub fn store_options(&self) -> crate::store::Options {
        crate::store::Options {
            batch: self.store_batch,
            checkpoint: self.store_checkpoint,
            shards: self.store_shards,
            max_bytes: self.store_max_bytes,
            prefix: self.redis_prefix.clone(),
        }
    }
}
