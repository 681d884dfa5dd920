//! One source of configuration (a flag set, the environment, a config file) and how the
//! sources merge into a [`ServerConfig`].

use super::*;

/// Declares every setting of a layer once: its key (the field, the config file's key), its
/// type, its `CONVSTATE_*` variable and how the variable's text is read. From the list come
/// the [`ConfigLayer`] struct (the config file's shape), [`ENV_VARS`], the reading of the
/// environment and the merge of two layers. (Flags, defaults and checks are in `serve`'s
/// arguments and [`ConfigLayer::resolve`]; docs/operations.md has a row per setting, and a test
/// holds every variable and flag to it.)
macro_rules! settings {
    (
        $( $field:ident : $ty:ty = $env:literal by $parse:ident, )*
        ; llm { $( $lfield:ident : $lty:ty = $lenv:literal by $lparse:ident, )* }
    ) => {
        /// One source of configuration: every value optional. The config file has this shape.
        #[derive(Clone, Debug, Default, serde::Deserialize)]
        #[serde(deny_unknown_fields)]
        pub struct ConfigLayer {
            $( pub $field: Option<$ty>, )*
            #[serde(default)]
            pub llm: LlmLayer,
        }

        /// The environment variables read, with the keys they set.
        pub const ENV_VARS: &[(&str, &str)] = &[
            $( ($env, stringify!($field)), )*
            $( ($lenv, concat!("llm.", stringify!($lfield))), )*
        ];

        impl ConfigLayer {
            /// Reads the `CONVSTATE_*` variables from `vars` (the process environment in
            /// practice); a value that does not read names its variable.
            pub fn from_env(vars: impl Fn(&str) -> Option<String>) -> Result<ConfigLayer, String> {
                let mut layer = ConfigLayer::default();
                $(
                    if let Some(v) = vars($env) {
                        layer.$field = Some(env_value::$parse($env, v)?);
                    }
                )*
                $(
                    if let Some(v) = vars($lenv) {
                        layer.llm.$lfield = Some(env_value::$lparse($lenv, v)?);
                    }
                )*
                Ok(layer)
            }

            /// This layer's values over `base`'s.
            pub fn over(self, base: ConfigLayer) -> ConfigLayer {
                ConfigLayer {
                    $( $field: self.$field.or(base.$field), )*
                    llm: self.llm.over(base.llm),
                }
            }
        }
    };
}

settings! {
    listen: String = "CONVSTATE_LISTEN" by text,
    idle_timeout: String = "CONVSTATE_IDLE_TIMEOUT" by text,
    patterns: std::path::PathBuf = "CONVSTATE_PATTERNS" by path,
    store: String = "CONVSTATE_STORE" by text,
    store_batch: u64 = "CONVSTATE_STORE_BATCH" by number,
    store_checkpoint_ms: u64 = "CONVSTATE_STORE_CHECKPOINT_MS" by number,
    store_shards: u64 = "CONVSTATE_STORE_SHARDS" by number,
    store_max_bytes: u64 = "CONVSTATE_STORE_MAX_BYTES" by number,
    retention: String = "CONVSTATE_RETENTION" by text,
    evict_after: String = "CONVSTATE_EVICT_AFTER" by text,
    max_frame_bytes: u64 = "CONVSTATE_MAX_FRAME_BYTES" by number,
    rate_limit: u32 = "CONVSTATE_RATE_LIMIT" by small,
    rate_burst: u32 = "CONVSTATE_RATE_BURST" by small,
    allowed_origins: Vec<String> = "CONVSTATE_ALLOWED_ORIGINS" by list,
    ping_interval: String = "CONVSTATE_PING_INTERVAL" by text,
    write_timeout: String = "CONVSTATE_WRITE_TIMEOUT" by text,
    send_buffer_bytes: u64 = "CONVSTATE_SEND_BUFFER_BYTES" by number,
    header_timeout: String = "CONVSTATE_HEADER_TIMEOUT" by text,
    shutdown_timeout: String = "CONVSTATE_SHUTDOWN_TIMEOUT" by text,
    max_connections: u64 = "CONVSTATE_MAX_CONNECTIONS" by number,
    max_connections_per_ip: u64 = "CONVSTATE_MAX_CONNECTIONS_PER_IP" by number,
    ip_session_rate: u32 = "CONVSTATE_IP_SESSION_RATE" by small,
    ip_session_burst: u32 = "CONVSTATE_IP_SESSION_BURST" by small,
    exempt_loopback: bool = "CONVSTATE_EXEMPT_LOOPBACK" by boolean,
    max_sessions: u64 = "CONVSTATE_MAX_SESSIONS" by number,
    jwt_secret: Secret = "CONVSTATE_JWT_SECRET" by secret,
    jwt_public_key: std::path::PathBuf = "CONVSTATE_JWT_PUBLIC_KEY" by path,
    jwt_issuer: String = "CONVSTATE_JWT_ISSUER" by text,
    jwt_audience: String = "CONVSTATE_JWT_AUDIENCE" by text,
    insecure_no_auth: bool = "CONVSTATE_INSECURE_NO_AUTH" by boolean,
    public_origins: Vec<String> = "CONVSTATE_PUBLIC_ORIGINS" by list,
    api_keys_file: std::path::PathBuf = "CONVSTATE_API_KEYS_FILE" by path,
    metrics_listen: String = "CONVSTATE_METRICS_LISTEN" by text,
    assistant: String = "CONVSTATE_ASSISTANT" by text,
    redis_prefix: String = "CONVSTATE_REDIS_PREFIX" by text,
    ; llm {
        url: String = "CONVSTATE_LLM_URL" by text,
        model: String = "CONVSTATE_LLM_MODEL" by text,
        api_key: Secret = "CONVSTATE_LLM_API_KEY" by secret,
    }
}

/// How a `CONVSTATE_*` variable's text is read: each reader names the variable in its error.
mod env_value {
    use super::Secret;

    pub(super) fn text(_: &str, v: String) -> Result<String, String> {
        Ok(v)
    }

    pub(super) fn path(_: &str, v: String) -> Result<std::path::PathBuf, String> {
        Ok(v.into())
    }

    pub(super) fn secret(_: &str, v: String) -> Result<Secret, String> {
        Ok(Secret(v))
    }

    pub(super) fn number(var: &str, v: String) -> Result<u64, String> {
        v.trim()
            .parse::<u64>()
            .map_err(|_| format!("{var}: \"{v}\" is not a whole number"))
    }

    pub(super) fn small(var: &str, v: String) -> Result<u32, String> {
        number(var, v.clone())?
            .try_into()
            .map_err(|_| format!("{var}: \"{v}\" is too large"))
    }

    pub(super) fn boolean(var: &str, v: String) -> Result<bool, String> {
        match v.trim() {
            "1" | "true" | "yes" | "on" => Ok(true),
            "0" | "false" | "no" | "off" => Ok(false),
            other => Err(format!("{var}: \"{other}\" is not true or false")),
        }
    }

    /// Comma-separated, blanks dropped.
    pub(super) fn list(_: &str, v: String) -> Result<Vec<String>, String> {
        Ok(v.split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(String::from)
            .collect())
    }
}

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

    /// Every setting declared in `settings!` has its row in docs/operations.md: the file key
    /// (an `[llm]` key in the table's llm row) and its variable.
    #[test]
    fn every_setting_is_documented() {
        let doc = include_str!("../../docs/operations.md");
        for (var, key) in ENV_VARS {
            assert!(
                doc.contains(&format!("`{var}`")),
                "{var} is not in docs/operations.md"
            );
            let key = key.strip_prefix("llm.").unwrap_or(key);
            assert!(
                doc.contains(&format!("`{key}`")),
                "{key} is not in docs/operations.md"
            );
        }
    }

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
