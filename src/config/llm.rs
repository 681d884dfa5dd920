//! The `llm` assistant's configuration and its layer.

use super::{Secret, parse_duration};

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
    pub(super) fn over(self, base: LlmLayer) -> LlmLayer {
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

    pub(super) fn resolve(self) -> Result<LlmConfig, String> {
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
