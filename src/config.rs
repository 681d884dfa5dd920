//! Configuration values shared by the commands.

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

/// The `llm` assistant's upstream: an OpenAI-compatible chat-completions endpoint, and the
/// bounds of every call and of every session (docs/assistant.md).
#[derive(Clone, Debug, PartialEq)]
pub struct LlmConfig {
    /// The API's base URL, up to and including `/v1` (`http://127.0.0.1:11434/v1` for a local
    /// Ollama); `/chat/completions` is appended. Without it (and a model) there is no `llm` mode.
    pub url: Option<String>,
    pub model: Option<String>,
    /// Sent as `Authorization: Bearer KEY`.
    pub api_key: Option<Secret>,
    /// The longest a whole reply may take.
    pub timeout: std::time::Duration,
    /// The longest the upstream may send nothing (before the first byte, or between chunks).
    pub stall_timeout: std::time::Duration,
    /// Further attempts after a transient failure (a refused connection, 429, 5xx, a stall)
    /// before anything of the reply was delivered; backoff 0.5 s, 1 s, 2 s ... (at most 8 s).
    pub retries: u32,
    /// Consecutive failed replies that open the circuit breaker.
    pub breaker_failures: u32,
    /// How long the breaker stays open before one trial call.
    pub breaker_cooldown: std::time::Duration,
    /// `max_tokens` of each call.
    pub max_tokens: u32,
    /// Tokens (prompt and reply) one session may use; then its replies stop, with a reason.
    pub session_tokens: u64,
    /// Replies one session may get.
    pub session_replies: u32,
    /// The token budget of the recent transcript sent with a call (counted as 4 bytes a
    /// token, the usual rule of thumb for English; the model's own tokenizer is not known).
    pub context_tokens: usize,
    /// The longest reply kept, in bytes; a longer one is cut there and marked partial.
    pub max_reply_bytes: usize,
    /// Replies written at once on this node, all sessions together; a turn beyond is told the
    /// assistant is unavailable.
    pub max_concurrent: usize,
    /// What a user's turn does while a reply is written: `interrupt` (the reply stops and is
    /// stored as delivered, the turn is answered) or `refuse` (the turn is refused with
    /// `assistant_busy`, nothing applied).
    pub busy: BusyPolicy,
}

/// What a user's turn does while the `llm` assistant writes a reply.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum BusyPolicy {
    #[default]
    Interrupt,
    Refuse,
}

impl Default for LlmConfig {
    fn default() -> LlmConfig {
        LlmConfig {
            url: None,
            model: None,
            api_key: None,
            timeout: std::time::Duration::from_secs(120),
            stall_timeout: std::time::Duration::from_secs(30),
            retries: 2,
            breaker_failures: 5,
            breaker_cooldown: std::time::Duration::from_secs(30),
            max_tokens: 1024,
            session_tokens: 200_000,
            session_replies: 500,
            context_tokens: 4096,
            max_reply_bytes: 32 * 1024,
            max_concurrent: 64,
            busy: BusyPolicy::Interrupt,
        }
    }
}

/// The `[llm]` table of the config file (and `CONVSTATE_LLM_*`, `--llm-*`): every value
/// optional.
#[derive(Clone, Debug, Default, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LlmLayer {
    pub url: Option<String>,
    pub model: Option<String>,
    pub api_key: Option<Secret>,
    pub timeout: Option<String>,
    pub stall_timeout: Option<String>,
    pub retries: Option<u32>,
    pub breaker_failures: Option<u32>,
    pub breaker_cooldown: Option<String>,
    pub max_tokens: Option<u32>,
    pub session_tokens: Option<u64>,
    pub session_replies: Option<u32>,
    pub context_tokens: Option<u64>,
    pub max_reply_bytes: Option<u64>,
    pub max_concurrent: Option<u64>,
    pub busy: Option<String>,
}

impl LlmLayer {
    fn over(self, base: LlmLayer) -> LlmLayer {
        LlmLayer {
            url: self.url.or(base.url),
            model: self.model.or(base.model),
            api_key: self.api_key.or(base.api_key),
            timeout: self.timeout.or(base.timeout),
            stall_timeout: self.stall_timeout.or(base.stall_timeout),
            retries: self.retries.or(base.retries),
            breaker_failures: self.breaker_failures.or(base.breaker_failures),
            breaker_cooldown: self.breaker_cooldown.or(base.breaker_cooldown),
            max_tokens: self.max_tokens.or(base.max_tokens),
            session_tokens: self.session_tokens.or(base.session_tokens),
            session_replies: self.session_replies.or(base.session_replies),
            context_tokens: self.context_tokens.or(base.context_tokens),
            max_reply_bytes: self.max_reply_bytes.or(base.max_reply_bytes),
            max_concurrent: self.max_concurrent.or(base.max_concurrent),
            busy: self.busy.or(base.busy),
        }
    }

    fn resolve(self) -> Result<LlmConfig, String> {
        let mut c = LlmConfig::default();
        let duration = |key: &str, d: &str| {
            parse_duration(d)
                .map_err(|e| format!("llm.{key}: {e}"))?
                .to_std()
                .map_err(|_| format!("llm.{key}: out of range"))
        };
        let within = |key: &str, n: u64, range: std::ops::RangeInclusive<u64>| {
            if range.contains(&n) {
                Ok(n)
            } else {
                Err(format!(
                    "llm.{key}: {n} is outside {} to {}",
                    range.start(),
                    range.end()
                ))
            }
        };
        if let Some(url) = self.url {
            let url = url.trim().trim_end_matches('/').to_string();
            if !(url.starts_with("http://") || url.starts_with("https://")) {
                return Err(format!(
                    "llm.url: \"{url}\" is not an http:// or https:// URL such as http://127.0.0.1:11434/v1"
                ));
            }
            c.url = Some(url);
        }
        c.model = self
            .model
            .map(|m| m.trim().to_string())
            .filter(|m| !m.is_empty());
        c.api_key = self.api_key;
        if let Some(d) = self.timeout {
            c.timeout = duration("timeout", &d)?;
        }
        if let Some(d) = self.stall_timeout {
            c.stall_timeout = duration("stall_timeout", &d)?;
        }
        if let Some(d) = self.breaker_cooldown {
            c.breaker_cooldown = duration("breaker_cooldown", &d)?;
        }
        for (d, key) in [
            (c.timeout, "timeout"),
            (c.stall_timeout, "stall_timeout"),
            (c.breaker_cooldown, "breaker_cooldown"),
        ] {
            if d < std::time::Duration::from_millis(100) || d > std::time::Duration::from_secs(3600)
            {
                return Err(format!("llm.{key}: between 100ms and 1h, please"));
            }
        }
        if let Some(n) = self.retries {
            c.retries = within("retries", n.into(), 0..=10)? as u32;
        }
        if let Some(n) = self.breaker_failures {
            c.breaker_failures = within("breaker_failures", n.into(), 1..=1000)? as u32;
        }
        if let Some(n) = self.max_tokens {
            c.max_tokens = within("max_tokens", n.into(), 1..=1_000_000)? as u32;
        }
        if let Some(n) = self.session_tokens {
            c.session_tokens = within("session_tokens", n, 1..=u64::from(u32::MAX))?;
        }
        if let Some(n) = self.session_replies {
            c.session_replies = within("session_replies", n.into(), 1..=1_000_000)? as u32;
        }
        if let Some(n) = self.context_tokens {
            c.context_tokens = within("context_tokens", n, 0..=1 << 18)? as usize;
        }
        if let Some(n) = self.max_reply_bytes {
            c.max_reply_bytes = within("max_reply_bytes", n, 256..=1 << 20)? as usize;
        }
        if let Some(n) = self.max_concurrent {
            c.max_concurrent = within("max_concurrent", n, 1..=100_000)? as usize;
        }
        if let Some(busy) = self.busy {
            c.busy = match busy.trim() {
                "interrupt" => BusyPolicy::Interrupt,
                "refuse" => BusyPolicy::Refuse,
                other => {
                    return Err(format!("llm.busy: \"{other}\" is not interrupt or refuse"));
                }
            };
        }
        Ok(c)
    }
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

/// One source of configuration: every value optional. The config file has this shape.
#[derive(Clone, Debug, Default, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConfigLayer {
    pub listen: Option<String>,
    pub idle_timeout: Option<String>,
    pub patterns: Option<std::path::PathBuf>,
    pub store: Option<String>,
    pub store_batch: Option<u64>,
    pub store_checkpoint_ms: Option<u64>,
    pub store_shards: Option<u64>,
    pub store_max_bytes: Option<u64>,
    pub retention: Option<String>,
    pub evict_after: Option<String>,
    pub max_frame_bytes: Option<u64>,
    pub rate_limit: Option<u32>,
    pub rate_burst: Option<u32>,
    pub allowed_origins: Option<Vec<String>>,
    pub ping_interval: Option<String>,
    pub write_timeout: Option<String>,
    pub send_buffer_bytes: Option<u64>,
    pub header_timeout: Option<String>,
    pub shutdown_timeout: Option<String>,
    pub max_connections: Option<u64>,
    pub max_connections_per_ip: Option<u64>,
    pub ip_session_rate: Option<u32>,
    pub ip_session_burst: Option<u32>,
    pub exempt_loopback: Option<bool>,
    pub max_sessions: Option<u64>,
    pub jwt_secret: Option<Secret>,
    pub jwt_public_key: Option<std::path::PathBuf>,
    pub jwt_issuer: Option<String>,
    pub jwt_audience: Option<String>,
    pub insecure_no_auth: Option<bool>,
    pub public_origins: Option<Vec<String>>,
    pub api_keys_file: Option<std::path::PathBuf>,
    pub metrics_listen: Option<String>,
    pub assistant: Option<String>,
    #[serde(default)]
    pub llm: LlmLayer,
    pub redis_prefix: Option<String>,
}

/// The environment variables read, with the keys they set.
pub const ENV_VARS: [(&str, &str); 38] = [
    ("CONVSTATE_LISTEN", "listen"),
    ("CONVSTATE_IDLE_TIMEOUT", "idle_timeout"),
    ("CONVSTATE_PATTERNS", "patterns"),
    ("CONVSTATE_STORE", "store"),
    ("CONVSTATE_STORE_BATCH", "store_batch"),
    ("CONVSTATE_STORE_CHECKPOINT_MS", "store_checkpoint_ms"),
    ("CONVSTATE_STORE_SHARDS", "store_shards"),
    ("CONVSTATE_STORE_MAX_BYTES", "store_max_bytes"),
    ("CONVSTATE_RETENTION", "retention"),
    ("CONVSTATE_EVICT_AFTER", "evict_after"),
    ("CONVSTATE_MAX_FRAME_BYTES", "max_frame_bytes"),
    ("CONVSTATE_RATE_LIMIT", "rate_limit"),
    ("CONVSTATE_RATE_BURST", "rate_burst"),
    ("CONVSTATE_ALLOWED_ORIGINS", "allowed_origins"),
    ("CONVSTATE_PING_INTERVAL", "ping_interval"),
    ("CONVSTATE_WRITE_TIMEOUT", "write_timeout"),
    ("CONVSTATE_SEND_BUFFER_BYTES", "send_buffer_bytes"),
    ("CONVSTATE_HEADER_TIMEOUT", "header_timeout"),
    ("CONVSTATE_SHUTDOWN_TIMEOUT", "shutdown_timeout"),
    ("CONVSTATE_MAX_CONNECTIONS", "max_connections"),
    ("CONVSTATE_MAX_CONNECTIONS_PER_IP", "max_connections_per_ip"),
    ("CONVSTATE_IP_SESSION_RATE", "ip_session_rate"),
    ("CONVSTATE_IP_SESSION_BURST", "ip_session_burst"),
    ("CONVSTATE_EXEMPT_LOOPBACK", "exempt_loopback"),
    ("CONVSTATE_MAX_SESSIONS", "max_sessions"),
    ("CONVSTATE_JWT_SECRET", "jwt_secret"),
    ("CONVSTATE_JWT_PUBLIC_KEY", "jwt_public_key"),
    ("CONVSTATE_JWT_ISSUER", "jwt_issuer"),
    ("CONVSTATE_JWT_AUDIENCE", "jwt_audience"),
    ("CONVSTATE_INSECURE_NO_AUTH", "insecure_no_auth"),
    ("CONVSTATE_PUBLIC_ORIGINS", "public_origins"),
    ("CONVSTATE_API_KEYS_FILE", "api_keys_file"),
    ("CONVSTATE_METRICS_LISTEN", "metrics_listen"),
    ("CONVSTATE_ASSISTANT", "assistant"),
    ("CONVSTATE_LLM_URL", "llm.url"),
    ("CONVSTATE_LLM_MODEL", "llm.model"),
    ("CONVSTATE_LLM_API_KEY", "llm.api_key"),
    ("CONVSTATE_REDIS_PREFIX", "redis_prefix"),
];

/// A TOML syntax error in words a user acts on: a setting without a value, or text without
/// quotes, say so with the line's own key.
fn syntax_words(text: &str, line: usize, message: &str) -> String {
    let source = text.lines().nth(line - 1).unwrap_or("");
    let code = source.split('#').next().unwrap_or("").trim();
    if let Some((key, value)) = code.split_once('=') {
        let key = key.trim();
        let value = value.trim();
        if value.is_empty() {
            return format!(
                "{key} has no value: give one (for example {key} = \"...\" for text, a number \
                 as it is), or remove the line"
            );
        }
        if message.contains("quoted") {
            return format!("{key}: text is written in quotes: {key} = \"{value}\"");
        }
    }
    message.trim().to_string()
}

/// An address to listen on: `HOST:PORT` (an IP address or a name such as `localhost`, which is
/// looked up; its IPv4 address first), `[IPV6]:PORT`, or a bare `PORT` (on loopback).
pub fn parse_listen(text: &str) -> Result<std::net::SocketAddr, String> {
    use std::net::ToSocketAddrs;
    let text = text.trim();
    let forms = "use HOST:PORT (127.0.0.1:8080, localhost:8080, 0.0.0.0:8080, [::1]:8080) or a \
                 bare PORT (8080, on loopback)";
    if !text.is_empty() && text.chars().all(|c| c.is_ascii_digit()) {
        let port: u16 = text
            .parse()
            .map_err(|_| format!("\"{text}\" is not a port (1 to 65535)"))?;
        return Ok(std::net::SocketAddr::from(([127, 0, 0, 1], port)));
    }
    if let Ok(addr) = text.parse() {
        return Ok(addr);
    }
    let Some((host, port)) = text.rsplit_once(':') else {
        return Err(format!("\"{text}\" has no port: {forms}"));
    };
    if host.is_empty() || port.parse::<u16>().is_err() {
        return Err(format!("\"{text}\" is not an address: {forms}"));
    }
    let found: Vec<std::net::SocketAddr> = text
        .to_socket_addrs()
        .map_err(|e| format!("\"{text}\": the name {host} cannot be looked up ({e}): {forms}"))?
        .collect();
    found
        .iter()
        .find(|a| a.is_ipv4())
        .or(found.first())
        .copied()
        .ok_or_else(|| format!("\"{text}\": the name {host} has no address: {forms}"))
}

impl ConfigLayer {
    /// Reads a TOML config file.
    /// Every problem is said, each with its line (one per line), in one error of several lines.
    pub fn from_file(path: &std::path::Path) -> Result<ConfigLayer, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("config file {}: {e}", path.display()))?;
        ConfigLayer::from_text(&path.display().to_string(), &text)
    }

    /// [`ConfigLayer::from_file`] of a file's text (`name` in messages).
    pub fn from_text(name: &str, text: &str) -> Result<ConfigLayer, String> {
        let line_of = |offset: usize| crate::diagnostic::line_of(text, offset);
        let keys = crate::diagnostic::KeyLines::new(text);
        let mut problems: Vec<(usize, String)> = Vec::new();
        // Syntax first, every line with a mistake (the parser goes on after one).
        let (_, syntax) = toml::de::DeTable::parse_recoverable(text);
        for e in syntax {
            let line = e.span().map_or(1, |s| line_of(s.start));
            if problems.iter().any(|(l, _)| *l == line) {
                continue;
            }
            problems.push((line, syntax_words(text, line, e.message())));
        }
        if problems.is_empty() {
            // Then each setting on its own: every unknown name or wrong type is said.
            match toml::from_str::<toml::Table>(text) {
                Ok(table) => {
                    for (key, value) in &table {
                        let mut one = toml::Table::new();
                        one.insert(key.clone(), value.clone());
                        if let Err(e) = toml::Value::Table(one).try_into::<ConfigLayer>() {
                            let line = keys.line(key).unwrap_or(1);
                            let message = e.message().trim().to_string();
                            problems.push((line, format!("{key}: {message}")));
                        }
                    }
                }
                Err(e) => problems.push((
                    e.span().map_or(1, |s| line_of(s.start)),
                    e.message().trim().to_string(),
                )),
            }
        }
        if problems.is_empty() {
            return toml::from_str(text).map_err(|e| format!("{name}: {}", e.message().trim()));
        }
        problems.sort_by_key(|(line, _)| *line);
        Err(problems
            .iter()
            .map(|(line, m)| format!("{name}:{line}: {m}"))
            .collect::<Vec<_>>()
            .join("\n"))
    }

    /// Reads the `CONVSTATE_*` variables from `vars` (the process environment in practice).
    pub fn from_env(vars: impl Fn(&str) -> Option<String>) -> Result<ConfigLayer, String> {
        let mut layer = ConfigLayer::default();
        for (var, _) in ENV_VARS {
            let Some(value) = vars(var) else { continue };
            let number = |v: &str| {
                v.trim()
                    .parse::<u64>()
                    .map_err(|_| format!("{var}: \"{v}\" is not a whole number"))
            };
            let list = |v: &str| -> Vec<String> {
                v.split(',')
                    .map(str::trim)
                    .filter(|s| !s.is_empty())
                    .map(String::from)
                    .collect()
            };
            let boolean = |v: &str| match v.trim() {
                "1" | "true" | "yes" | "on" => Ok(true),
                "0" | "false" | "no" | "off" => Ok(false),
                other => Err(format!("{var}: \"{other}\" is not true or false")),
            };
            let small = |v: &str| {
                number(v)?
                    .try_into()
                    .map_err(|_| format!("{var}: \"{v}\" is too large"))
            };
            match var {
                "CONVSTATE_LISTEN" => layer.listen = Some(value),
                "CONVSTATE_IDLE_TIMEOUT" => layer.idle_timeout = Some(value),
                "CONVSTATE_PATTERNS" => layer.patterns = Some(value.into()),
                "CONVSTATE_STORE" => layer.store = Some(value),
                "CONVSTATE_STORE_BATCH" => layer.store_batch = Some(number(&value)?),
                "CONVSTATE_STORE_SHARDS" => layer.store_shards = Some(number(&value)?),
                "CONVSTATE_STORE_CHECKPOINT_MS" => {
                    layer.store_checkpoint_ms = Some(number(&value)?)
                }
                "CONVSTATE_STORE_MAX_BYTES" => layer.store_max_bytes = Some(number(&value)?),
                "CONVSTATE_RETENTION" => layer.retention = Some(value),
                "CONVSTATE_EVICT_AFTER" => layer.evict_after = Some(value),
                "CONVSTATE_MAX_FRAME_BYTES" => layer.max_frame_bytes = Some(number(&value)?),
                "CONVSTATE_RATE_LIMIT" => layer.rate_limit = Some(small(&value)?),
                "CONVSTATE_RATE_BURST" => layer.rate_burst = Some(small(&value)?),
                "CONVSTATE_ALLOWED_ORIGINS" => layer.allowed_origins = Some(list(&value)),
                "CONVSTATE_PUBLIC_ORIGINS" => layer.public_origins = Some(list(&value)),
                "CONVSTATE_API_KEYS_FILE" => layer.api_keys_file = Some(value.into()),
                "CONVSTATE_METRICS_LISTEN" => layer.metrics_listen = Some(value),
                "CONVSTATE_ASSISTANT" => layer.assistant = Some(value),
                "CONVSTATE_LLM_URL" => layer.llm.url = Some(value),
                "CONVSTATE_LLM_MODEL" => layer.llm.model = Some(value),
                "CONVSTATE_LLM_API_KEY" => layer.llm.api_key = Some(Secret(value)),
                "CONVSTATE_REDIS_PREFIX" => layer.redis_prefix = Some(value),
                "CONVSTATE_PING_INTERVAL" => layer.ping_interval = Some(value),
                "CONVSTATE_WRITE_TIMEOUT" => layer.write_timeout = Some(value),
                "CONVSTATE_SEND_BUFFER_BYTES" => layer.send_buffer_bytes = Some(number(&value)?),
                "CONVSTATE_HEADER_TIMEOUT" => layer.header_timeout = Some(value),
                "CONVSTATE_SHUTDOWN_TIMEOUT" => layer.shutdown_timeout = Some(value),
                "CONVSTATE_MAX_CONNECTIONS" => layer.max_connections = Some(number(&value)?),
                "CONVSTATE_MAX_CONNECTIONS_PER_IP" => {
                    layer.max_connections_per_ip = Some(number(&value)?)
                }
                "CONVSTATE_IP_SESSION_RATE" => layer.ip_session_rate = Some(small(&value)?),
                "CONVSTATE_IP_SESSION_BURST" => layer.ip_session_burst = Some(small(&value)?),
                "CONVSTATE_EXEMPT_LOOPBACK" => layer.exempt_loopback = Some(boolean(&value)?),
                "CONVSTATE_INSECURE_NO_AUTH" => layer.insecure_no_auth = Some(boolean(&value)?),
                "CONVSTATE_MAX_SESSIONS" => layer.max_sessions = Some(number(&value)?),
                "CONVSTATE_JWT_SECRET" => layer.jwt_secret = Some(Secret(value)),
                "CONVSTATE_JWT_PUBLIC_KEY" => layer.jwt_public_key = Some(value.into()),
                "CONVSTATE_JWT_ISSUER" => layer.jwt_issuer = Some(value),
                "CONVSTATE_JWT_AUDIENCE" => layer.jwt_audience = Some(value),
                _ => {}
            }
        }
        Ok(layer)
    }

    /// This layer's values over `base`'s.
    pub fn over(self, base: ConfigLayer) -> ConfigLayer {
        ConfigLayer {
            listen: self.listen.or(base.listen),
            idle_timeout: self.idle_timeout.or(base.idle_timeout),
            patterns: self.patterns.or(base.patterns),
            store: self.store.or(base.store),
            store_batch: self.store_batch.or(base.store_batch),
            store_checkpoint_ms: self.store_checkpoint_ms.or(base.store_checkpoint_ms),
            store_shards: self.store_shards.or(base.store_shards),
            store_max_bytes: self.store_max_bytes.or(base.store_max_bytes),
            retention: self.retention.or(base.retention),
            evict_after: self.evict_after.or(base.evict_after),
            max_frame_bytes: self.max_frame_bytes.or(base.max_frame_bytes),
            rate_limit: self.rate_limit.or(base.rate_limit),
            rate_burst: self.rate_burst.or(base.rate_burst),
            allowed_origins: self.allowed_origins.or(base.allowed_origins),
            ping_interval: self.ping_interval.or(base.ping_interval),
            write_timeout: self.write_timeout.or(base.write_timeout),
            send_buffer_bytes: self.send_buffer_bytes.or(base.send_buffer_bytes),
            header_timeout: self.header_timeout.or(base.header_timeout),
            shutdown_timeout: self.shutdown_timeout.or(base.shutdown_timeout),
            max_connections: self.max_connections.or(base.max_connections),
            max_connections_per_ip: self.max_connections_per_ip.or(base.max_connections_per_ip),
            ip_session_rate: self.ip_session_rate.or(base.ip_session_rate),
            ip_session_burst: self.ip_session_burst.or(base.ip_session_burst),
            exempt_loopback: self.exempt_loopback.or(base.exempt_loopback),
            max_sessions: self.max_sessions.or(base.max_sessions),
            jwt_secret: self.jwt_secret.or(base.jwt_secret),
            jwt_public_key: self.jwt_public_key.or(base.jwt_public_key),
            jwt_issuer: self.jwt_issuer.or(base.jwt_issuer),
            jwt_audience: self.jwt_audience.or(base.jwt_audience),
            insecure_no_auth: self.insecure_no_auth.or(base.insecure_no_auth),
            public_origins: self.public_origins.or(base.public_origins),
            api_keys_file: self.api_keys_file.or(base.api_keys_file),
            metrics_listen: self.metrics_listen.or(base.metrics_listen),
            assistant: self.assistant.or(base.assistant),
            llm: self.llm.over(base.llm),
            redis_prefix: self.redis_prefix.or(base.redis_prefix),
        }
    }

    /// The configuration: this layer's values over the defaults, checked.
    pub fn resolve(self) -> Result<ServerConfig, String> {
        let mut c = ServerConfig::default();
        if let Some(listen) = self.listen {
            c.listen = parse_listen(&listen).map_err(|e| format!("listen: {e}"))?;
        }
        if let Some(d) = self.idle_timeout {
            c.idle_timeout = Some(parse_duration(&d).map_err(|e| format!("idle_timeout: {e}"))?);
        }
        c.patterns = self.patterns.or(c.patterns);
        if let Some(store) = self.store {
            c.store = store;
        }
        if let Some(n) = self.store_batch {
            if !(1..=1_000_000).contains(&n) {
                return Err(format!("store_batch: {n} is outside 1 to 1000000"));
            }
            c.store_batch = n as usize;
        }
        if let Some(ms) = self.store_checkpoint_ms {
            if !(1..=1_000).contains(&ms) {
                return Err(format!("store_checkpoint_ms: {ms} is outside 1 to 1000"));
            }
            c.store_checkpoint = std::time::Duration::from_millis(ms);
        }
        if let Some(n) = self.store_shards {
            let max = crate::store::sharded::MAX_SHARDS;
            if !(1..=max as u64).contains(&n) {
                return Err(format!("store_shards: {n} is outside 1 to {max}"));
            }
            c.store_shards = n as usize;
        }
        if let Some(n) = self.store_max_bytes {
            let least = crate::store::MIN_STORE_BYTES;
            if n < least {
                return Err(format!(
                    "store_max_bytes: {n} is below {least} bytes (room for the schema, and for \
                     the probe that finds out whether a full store takes writes again)"
                ));
            }
            c.store_max_bytes = Some(n);
        }
        if let Some(d) = self.retention {
            c.retention = parse_duration(&d).map_err(|e| format!("retention: {e}"))?;
        }
        if let Some(d) = self.evict_after {
            c.evict_after = parse_duration(&d).map_err(|e| format!("evict_after: {e}"))?;
        }
        if let Some(n) = self.max_frame_bytes {
            if !(256..=16 << 20).contains(&n) {
                return Err(format!(
                    "max_frame_bytes: {n} is outside 256 to 16777216 bytes"
                ));
            }
            c.max_frame_bytes = n as usize;
        }
        if let Some(n) = self.rate_limit {
            if n == 0 {
                return Err("rate_limit: must be at least 1 frame per second".to_string());
            }
            c.rate_limit = n;
        }
        if let Some(n) = self.rate_burst {
            c.rate_burst = n.max(1);
        }
        if let Some(origins) = self.allowed_origins {
            c.allowed_origins = origins;
        }
        let std_duration = |key: &str, d: &str| {
            parse_duration(d)
                .map_err(|e| format!("{key}: {e}"))?
                .to_std()
                .map_err(|_| format!("{key}: out of range"))
        };
        if let Some(d) = self.ping_interval {
            c.ping_interval = std_duration("ping_interval", &d)?;
        }
        if let Some(d) = self.write_timeout {
            c.write_timeout = std_duration("write_timeout", &d)?;
        }
        if let Some(n) = self.send_buffer_bytes {
            if !(4096..=16 << 20).contains(&n) {
                return Err(format!(
                    "send_buffer_bytes: {n} is outside 4096 to 16777216 bytes"
                ));
            }
            c.send_buffer_bytes = n as usize;
        }
        if let Some(d) = self.header_timeout {
            c.header_timeout = std_duration("header_timeout", &d)?;
        }
        if let Some(d) = self.shutdown_timeout {
            c.shutdown_timeout = std_duration("shutdown_timeout", &d)?;
        }
        let count = |key: &str, n: u64, min: u64| {
            if (min..=100_000_000).contains(&n) {
                Ok(n as usize)
            } else {
                Err(format!("{key}: {n} is outside {min} to 100000000"))
            }
        };
        if let Some(n) = self.max_connections {
            c.max_connections = count("max_connections", n, 1)?;
        }
        if let Some(n) = self.max_connections_per_ip {
            c.max_connections_per_ip = count("max_connections_per_ip", n, 0)?;
        }
        if let Some(n) = self.ip_session_rate {
            if n == 0 {
                return Err("ip_session_rate: must be at least 1 session per minute".to_string());
            }
            c.ip_session_rate = n;
        }
        if let Some(n) = self.ip_session_burst {
            c.ip_session_burst = n.max(1);
        }
        if let Some(b) = self.exempt_loopback {
            c.exempt_loopback = b;
        }
        if let Some(n) = self.max_sessions {
            c.max_sessions = count("max_sessions", n, 1)?;
        }
        c.jwt_secret = self.jwt_secret;
        c.jwt_public_key = self.jwt_public_key;
        c.jwt_issuer = self.jwt_issuer;
        c.jwt_audience = self.jwt_audience;
        c.insecure_no_auth = self.insecure_no_auth.unwrap_or(false);
        c.public_origins = self.public_origins.unwrap_or_default();
        c.api_keys_file = self.api_keys_file;
        if let Some(listen) = self.metrics_listen {
            c.metrics_listen =
                Some(parse_listen(&listen).map_err(|e| format!("metrics_listen: {e}"))?);
        }
        if let Some(mode) = self.assistant {
            c.assistant = mode.trim().parse().map_err(|e| format!("assistant: {e}"))?;
        }
        c.llm = self.llm.resolve()?;
        if let Some(prefix) = self.redis_prefix {
            let prefix = prefix.trim();
            if prefix.is_empty()
                || prefix.len() > 64
                || !prefix
                    .chars()
                    .all(|ch| ch.is_ascii_alphanumeric() || "-_.:".contains(ch))
            {
                return Err(format!(
                    "redis_prefix: \"{prefix}\": 1 to 64 letters, digits, - _ . or :"
                ));
            }
            c.redis_prefix = prefix.to_string();
        }
        if c.assistant == crate::assistant::Mode::Llm
            && (c.llm.url.is_none() || c.llm.model.is_none())
        {
            return Err(
                "assistant: llm needs a model to call: set llm.url and llm.model (--llm-url, --llm-model, CONVSTATE_LLM_URL, CONVSTATE_LLM_MODEL)"
                    .to_string(),
            );
        }
        Ok(c)
    }
}

#[cfg(test)]
mod layer_tests {
    use super::*;

    #[test]
    fn flags_beat_env_beat_file_beat_defaults() {
        let file = ConfigLayer {
            listen: Some("0.0.0.0:9000".into()),
            retention: Some("2h".into()),
            rate_limit: Some(5),
            ..ConfigLayer::default()
        };
        let env = ConfigLayer::from_env(|v| match v {
            "CONVSTATE_LISTEN" => Some("127.0.0.1:9001".into()),
            "CONVSTATE_ALLOWED_ORIGINS" => Some("https://a.example, https://b.example".into()),
            "CONVSTATE_RATE_LIMIT" => Some("7".into()),
            _ => None,
        })
        .unwrap();
        let flags = ConfigLayer {
            listen: Some("127.0.0.1:9002".into()),
            ..ConfigLayer::default()
        };
        let c = flags.over(env.over(file)).resolve().unwrap();
        assert_eq!(c.listen.to_string(), "127.0.0.1:9002");
        assert_eq!(c.rate_limit, 7);
        assert_eq!(c.retention, TimeDelta::hours(2));
        assert_eq!(
            c.allowed_origins,
            ["https://a.example", "https://b.example"]
        );
        assert_eq!(c.max_frame_bytes, 64 * 1024);
        assert_eq!(
            ConfigLayer::default().resolve().unwrap(),
            ServerConfig::default()
        );
    }

    #[test]
    fn the_checkpoint_spacing_is_a_setting_within_bounds() {
        assert_eq!(
            ConfigLayer::default()
                .resolve()
                .unwrap()
                .store_options()
                .checkpoint,
            std::time::Duration::from_millis(2)
        );
        let env = ConfigLayer::from_env(|v| {
            (v == "CONVSTATE_STORE_CHECKPOINT_MS").then(|| "50".to_string())
        })
        .unwrap();
        assert_eq!(
            env.resolve().unwrap().store_checkpoint,
            std::time::Duration::from_millis(50)
        );
        for ms in [0, 1_001] {
            let layer = ConfigLayer {
                store_checkpoint_ms: Some(ms),
                ..ConfigLayer::default()
            };
            assert!(
                layer
                    .resolve()
                    .unwrap_err()
                    .starts_with("store_checkpoint_ms:")
            );
        }
    }

    #[test]
    fn a_store_quota_leaves_room_for_the_full_disk_probe() {
        let layer = |n| ConfigLayer {
            store_max_bytes: Some(n),
            ..ConfigLayer::default()
        };
        assert!(
            layer(65_536)
                .resolve()
                .unwrap_err()
                .starts_with("store_max_bytes: 65536 is below 1048576")
        );
        assert_eq!(
            layer(1 << 20).resolve().unwrap().store_max_bytes,
            Some(1 << 20)
        );
    }

    #[test]
    fn the_store_shards_are_a_setting_within_bounds() {
        assert_eq!(ConfigLayer::default().resolve().unwrap().store_shards, 1);
        let env =
            ConfigLayer::from_env(|v| (v == "CONVSTATE_STORE_SHARDS").then(|| "4".to_string()))
                .unwrap();
        assert_eq!(env.resolve().unwrap().store_options().shards, 4);
        for n in [0, 65] {
            let layer = ConfigLayer {
                store_shards: Some(n),
                ..ConfigLayer::default()
            };
            assert!(layer.resolve().unwrap_err().starts_with("store_shards:"));
        }
    }

    #[test]
    fn bad_values_are_named() {
        let err = |layer: ConfigLayer| layer.resolve().unwrap_err();
        assert!(
            err(ConfigLayer {
                listen: Some("nowhere".into()),
                ..Default::default()
            })
            .starts_with("listen:")
        );
        assert!(
            err(ConfigLayer {
                idle_timeout: Some("soon".into()),
                ..Default::default()
            })
            .starts_with("idle_timeout:")
        );
        assert!(
            err(ConfigLayer {
                max_frame_bytes: Some(1),
                ..Default::default()
            })
            .starts_with("max_frame_bytes:")
        );
        let env = ConfigLayer::from_env(|v| (v == "CONVSTATE_RATE_LIMIT").then(|| "lots".into()));
        assert!(env.unwrap_err().starts_with("CONVSTATE_RATE_LIMIT:"));
    }
}
