//! The `llm` assistant's upstream: one streamed chat-completions call per reply to an
//! OpenAI-compatible API (a local Ollama, vLLM or llama.cpp server, or a hosted one), with a
//! timeout for the whole reply and one for silence, retries of transient failures with backoff
//! while nothing of the reply was delivered, and a circuit breaker over all calls.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use eventsource_stream::Eventsource as _;
use futures_util::StreamExt as _;
use serde::Deserialize;

use super::prompt::ChatMessage;
use crate::config::LlmConfig;

/// How a reply ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ended {
    /// The model finished.
    Done,
    /// The reply reached `max_reply_bytes`: cut there.
    TooLong,
}

/// Why a reply failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Failure {
    /// The breaker is open: no call was made.
    Unavailable { retry_in: Duration },
    /// The call failed (after its retries, if nothing had been delivered).
    Failed(String),
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failure::Unavailable { retry_in } => write!(
                f,
                "the model is unavailable after repeated failures; next try in {} s",
                retry_in.as_secs().max(1)
            ),
            Failure::Failed(why) => f.write_str(why),
        }
    }
}

/// What a call used, as the API reports it (or estimated at 4 bytes a token without a report).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Usage {
    pub prompt: u64,
    pub reply: u64,
}

/// The breaker's state, as `/metrics` and `assistant_status` frames say it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BreakerState {
    Closed,
    Open,
    HalfOpen,
}

impl BreakerState {
    pub fn as_str(self) -> &'static str {
        match self {
            BreakerState::Closed => "closed",
            BreakerState::Open => "open",
            BreakerState::HalfOpen => "half_open",
        }
    }
}

/// Closed; open after `failures` consecutive failed replies; after `cooldown`, half-open: one
/// trial call, whose success closes it and whose failure opens it again.
#[derive(Debug)]
pub struct Breaker {
    failures: u32,
    cooldown: Duration,
    inner: Mutex<BreakerInner>,
}

#[derive(Debug)]
struct BreakerInner {
    consecutive: u32,
    open_until: Option<Instant>,
    trial: bool,
}

impl Breaker {
    pub fn new(failures: u32, cooldown: Duration) -> Breaker {
        Breaker {
            failures: failures.max(1),
            cooldown,
            inner: Mutex::new(BreakerInner {
                consecutive: 0,
                open_until: None,
                trial: false,
            }),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, BreakerInner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Whether a call may go out now; while open, how long until it may.
    pub fn admit(&self, now: Instant) -> Result<(), Duration> {
        let mut b = self.lock();
        match b.open_until {
            None => Ok(()),
            Some(until) if now < until => Err(until - now),
            // Half-open: one trial at a time.
            Some(_) if b.trial => Err(self.cooldown),
            Some(_) => {
                b.trial = true;
                Ok(())
            }
        }
    }

    /// A call admitted as the half-open trial ended without a verdict (it was stopped): the
    /// next call may be the trial.
    fn release(&self) {
        self.lock().trial = false;
    }

    /// Whether it is open now (without taking a half-open trial).
    pub fn check(&self, now: Instant) -> Result<(), Duration> {
        match self.lock().open_until {
            Some(until) if now < until => Err(until - now),
            _ => Ok(()),
        }
    }

    pub fn success(&self) {
        let mut b = self.lock();
        b.consecutive = 0;
        b.open_until = None;
        b.trial = false;
    }

    pub fn failure(&self, now: Instant) {
        let mut b = self.lock();
        b.consecutive = b.consecutive.saturating_add(1);
        if b.trial || b.consecutive >= self.failures {
            b.open_until = Some(now + self.cooldown);
        }
        b.trial = false;
    }

    pub fn state(&self, now: Instant) -> BreakerState {
        let b = self.lock();
        match b.open_until {
            None => BreakerState::Closed,
            Some(until) if now < until => BreakerState::Open,
            Some(_) => BreakerState::HalfOpen,
        }
    }
}

/// The upstream.
#[derive(Debug)]
pub struct Llm {
    client: reqwest::Client,
    endpoint: String,
    model: String,
    config: LlmConfig,
    pub breaker: Breaker,
    /// Replies written at once ([`LlmConfig::max_concurrent`]).
    pub slots: std::sync::Arc<tokio::sync::Semaphore>,
}

/// One chunk of a streamed reply.
#[derive(Deserialize)]
struct Chunk {
    #[serde(default)]
    choices: Vec<Choice>,
    #[serde(default)]
    usage: Option<ChunkUsage>,
}

#[derive(Deserialize)]
struct Choice {
    #[serde(default)]
    delta: Delta,
}

#[derive(Default, Deserialize)]
struct Delta {
    #[serde(default)]
    content: Option<String>,
}

#[derive(Deserialize)]
struct ChunkUsage {
    #[serde(default)]
    prompt_tokens: u64,
    #[serde(default)]
    completion_tokens: u64,
}

/// An attempt's failure, and whether another attempt may help.
struct AttemptError {
    why: String,
    transient: bool,
}

impl Llm {
    /// The upstream of `config`, if it names one (a URL and a model).
    pub fn new(config: &LlmConfig) -> Result<Option<Llm>, String> {
        let (Some(url), Some(model)) = (&config.url, &config.model) else {
            return Ok(None);
        };
        let client = reqwest::Client::builder()
            .connect_timeout(config.stall_timeout)
            .read_timeout(config.stall_timeout)
            .build()
            .map_err(|e| format!("llm: cannot build the HTTP client: {e}"))?;
        Ok(Some(Llm {
            client,
            endpoint: format!("{url}/chat/completions"),
            model: model.clone(),
            config: config.clone(),
            breaker: Breaker::new(config.breaker_failures, config.breaker_cooldown),
            slots: std::sync::Arc::new(tokio::sync::Semaphore::new(config.max_concurrent)),
        }))
    }

    pub fn config(&self) -> &LlmConfig {
        &self.config
    }

    /// Streams one reply to `messages`, calling `delta` with each piece as it comes (it returns
    /// false to stop: the reply is then over, as `TooLong`). Retries transient failures while
    /// nothing was delivered. Dropping the future cancels the call.
    pub async fn reply(
        &self,
        messages: &[ChatMessage],
        mut delta: impl FnMut(&str) -> bool,
    ) -> (Result<Ended, Failure>, Usage) {
        if let Err(retry_in) = self.breaker.admit(Instant::now()) {
            return (Err(Failure::Unavailable { retry_in }), Usage::default());
        }
        // Dropped before a verdict (the reply was stopped): a half-open trial is released.
        struct Verdict<'b>(&'b Breaker, bool);
        impl Drop for Verdict<'_> {
            fn drop(&mut self) {
                if !self.1 {
                    self.0.release();
                }
            }
        }
        let mut verdict = Verdict(&self.breaker, false);
        let deadline = tokio::time::Instant::now() + self.config.timeout;
        let mut delivered = 0usize;
        let mut usage = Usage::default();
        let mut attempt = 0;
        let result = loop {
            let outcome = tokio::time::timeout_at(
                deadline,
                self.attempt(messages, &mut delta, &mut delivered, &mut usage),
            )
            .await
            .unwrap_or_else(|_| {
                Err(AttemptError {
                    why: format!(
                        "the model took longer than {} s",
                        self.config.timeout.as_secs()
                    ),
                    transient: false,
                })
            });
            match outcome {
                Ok(ended) => break Ok(ended),
                Err(e) if e.transient && delivered == 0 && attempt < self.config.retries => {
                    let backoff = Duration::from_millis(500 << attempt.min(4));
                    attempt += 1;
                    tracing::info!(attempt, "llm: {}; retrying in {backoff:?}", e.why);
                    if tokio::time::Instant::now() + backoff >= deadline {
                        break Err(Failure::Failed(e.why));
                    }
                    tokio::time::sleep(backoff).await;
                }
                Err(e) => break Err(Failure::Failed(e.why)),
            }
        };
        match &result {
            Ok(_) => self.breaker.success(),
            Err(_) => self.breaker.failure(Instant::now()),
        }
        verdict.1 = true;
        if usage == Usage::default() {
            // No report from the API: estimated.
            let sent: usize = messages.iter().map(|m| m.content.len()).sum();
            usage = Usage {
                prompt: (sent / 4) as u64,
                reply: (delivered / 4) as u64,
            };
        }
        (result, usage)
    }

    async fn attempt(
        &self,
        messages: &[ChatMessage],
        delta: &mut impl FnMut(&str) -> bool,
        delivered: &mut usize,
        usage: &mut Usage,
    ) -> Result<Ended, AttemptError> {
        let body = serde_json::json!({
            "model": self.model,
            "messages": messages,
            "stream": true,
            "stream_options": {"include_usage": true},
            "max_tokens": self.config.max_tokens,
        });
        let mut request = self
            .client
            .post(&self.endpoint)
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .body(body.to_string());
        if let Some(key) = &self.config.api_key {
            request = request.bearer_auth(&key.0);
        }
        let response = request.send().await.map_err(|e| AttemptError {
            why: format!("the model cannot be reached: {}", root_cause(&e)),
            transient: true,
        })?;
        let status = response.status();
        if !status.is_success() {
            let transient = status.as_u16() == 429 || status.is_server_error();
            return Err(AttemptError {
                why: format!("the model answered HTTP {status}"),
                transient,
            });
        }
        // Everything read from the upstream is bounded, however it sends it.
        let limit = self.config.max_reply_bytes * 16 + (64 << 10);
        let mut read = 0usize;
        let bytes = response.bytes_stream().map(move |chunk| match chunk {
            Ok(c) => {
                read += c.len();
                if read > limit {
                    Err(std::io::Error::other(format!(
                        "more than {limit} bytes for one reply"
                    )))
                } else {
                    Ok(c)
                }
            }
            Err(e) => Err(std::io::Error::other(root_cause(&e))),
        });
        let mut events = bytes.eventsource();
        loop {
            let next = tokio::time::timeout(self.config.stall_timeout, events.next()).await;
            let event = match next {
                Err(_) => {
                    return Err(AttemptError {
                        why: format!(
                            "the model sent nothing for {} s",
                            self.config.stall_timeout.as_secs()
                        ),
                        transient: true,
                    });
                }
                Ok(None) => {
                    return Err(AttemptError {
                        why: "the model's stream ended before [DONE]".into(),
                        transient: true,
                    });
                }
                Ok(Some(Err(e))) => {
                    return Err(AttemptError {
                        why: format!("the model's stream broke: {e}"),
                        transient: true,
                    });
                }
                Ok(Some(Ok(event))) => event,
            };
            let data = event.data.trim();
            if data == "[DONE]" {
                return Ok(Ended::Done);
            }
            if data.is_empty() {
                continue;
            }
            let chunk: Chunk = serde_json::from_str(data).map_err(|e| AttemptError {
                why: format!("the model sent a chunk that is not a completion chunk: {e}"),
                transient: false,
            })?;
            if let Some(u) = chunk.usage {
                *usage = Usage {
                    prompt: u.prompt_tokens,
                    reply: u.completion_tokens,
                };
            }
            for choice in chunk.choices {
                if let Some(text) = choice.delta.content.filter(|t| !t.is_empty()) {
                    *delivered += text.len();
                    if !delta(&text) {
                        return Ok(Ended::TooLong);
                    }
                }
            }
        }
    }
}

/// The innermost cause of an error, which says what happened ("Connection refused").
fn root_cause(e: &(dyn std::error::Error + 'static)) -> String {
    let mut cause = e;
    while let Some(next) = cause.source() {
        cause = next;
    }
    cause.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_breaker_opens_after_consecutive_failures_and_closes_after_a_trial() {
        let b = Breaker::new(3, Duration::from_secs(10));
        let t0 = Instant::now();
        b.failure(t0);
        b.failure(t0);
        assert_eq!(b.state(t0), BreakerState::Closed);
        b.success();
        b.failure(t0);
        b.failure(t0);
        assert!(b.admit(t0).is_ok());
        b.failure(t0);
        assert_eq!(b.state(t0), BreakerState::Open);
        assert!(b.admit(t0 + Duration::from_secs(5)).is_err());
        // Half-open: one trial; a second caller waits.
        let later = t0 + Duration::from_secs(11);
        assert_eq!(b.state(later), BreakerState::HalfOpen);
        assert!(b.admit(later).is_ok());
        assert!(b.admit(later).is_err());
        // A trial stopped before its verdict leaves the next call the trial.
        b.release();
        assert!(b.admit(later).is_ok());
        // The trial fails: open again for a whole cooldown.
        b.failure(later);
        assert_eq!(b.state(later + Duration::from_secs(5)), BreakerState::Open);
        let again = later + Duration::from_secs(11);
        assert!(b.admit(again).is_ok());
        b.success();
        assert_eq!(b.state(again), BreakerState::Closed);
    }
}
