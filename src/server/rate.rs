//! A token bucket, for every rate the server holds a client to: frames per connection, new
//! sessions and joins per address, rebuilds of missed frames per session.

use tokio::time::Instant;

/// A token bucket: `rate` per second on average, `burst` at once.
#[derive(Debug)]
pub(crate) struct RateLimiter {
    rate: f64,
    burst: f64,
    tokens: f64,
    last: Instant,
}

impl RateLimiter {
    pub(crate) fn new(rate: u32, burst: u32) -> RateLimiter {
        RateLimiter::per_second(f64::from(rate), burst, Instant::now())
    }

    pub(crate) fn per_second(rate: f64, burst: u32, now: Instant) -> RateLimiter {
        RateLimiter {
            rate,
            burst: f64::from(burst),
            tokens: f64::from(burst),
            last: now,
        }
    }

    /// Whether it would be full again at `now`: as good as a new one.
    pub(crate) fn full_at(&self, now: Instant) -> bool {
        let elapsed = now.saturating_duration_since(self.last).as_secs_f64();
        self.tokens + elapsed * self.rate >= self.burst
    }

    pub(crate) fn allow(&mut self, now: Instant) -> bool {
        let elapsed = now.saturating_duration_since(self.last).as_secs_f64();
        self.last = now;
        self.tokens = (self.tokens + elapsed * self.rate).min(self.burst);
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            true
        } else {
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn the_rate_limiter_allows_bursts_then_the_rate() {
        let t = Instant::now();
        let mut l = RateLimiter::new(10, 3);
        l.last = t;
        assert!(l.allow(t) && l.allow(t) && l.allow(t));
        assert!(!l.allow(t));
        assert!(l.allow(t + Duration::from_millis(100)));
        assert!(!l.allow(t + Duration::from_millis(120)));
        assert!(l.allow(t + Duration::from_secs(10)));
    }
}
