//! `convstate loadgen`: the load generator against a running server.

use super::*;

#[derive(Debug, clap::Args)]
pub struct LoadgenArgs {
    /// WebSocket URL of the server.
    #[arg(long, default_value = "ws://127.0.0.1:8080/ws")]
    pub url: String,
    /// Concurrent sessions, one connection each.
    #[arg(long, default_value_t = 1000)]
    pub sessions: usize,
    /// Measured time.
    #[arg(long, default_value = "10s", value_parser = parse_std_duration)]
    pub duration: std::time::Duration,
    /// Time before measuring.
    #[arg(long, default_value = "2s", value_parser = parse_std_duration)]
    pub warmup: std::time::Duration,
    /// Turns per second for all sessions together (default: as fast as answered).
    #[arg(long)]
    pub rate: Option<f64>,
    /// The server sends no greeting (an echo server).
    #[arg(long)]
    pub no_welcome: bool,
    /// Send turns with ids and measure until their acks (durable changes).
    #[arg(long)]
    pub ack: bool,
    /// Each session resets after this many turns; 0 never resets (sessions grow old).
    #[arg(long, default_value_t = 10, value_name = "N")]
    pub reset_every: u64,
    /// Turns each session sends first, unmeasured (to measure old sessions).
    #[arg(long, default_value_t = 0, value_name = "N")]
    pub turns_before: u64,
    /// The server's process id, to report its CPU time per measured turn (Linux /proc).
    #[arg(long, value_name = "PID")]
    pub server_pid: Option<u32>,
    /// Only open this many connections and hold them idle for --duration.
    #[arg(long, value_name = "N")]
    pub idle: Option<usize>,
    /// Only create this many sessions (one turn each, connections closed after), then stop.
    #[arg(long, value_name = "N", conflicts_with = "idle")]
    pub create: Option<usize>,
}

fn parse_std_duration(text: &str) -> Result<std::time::Duration, String> {
    crate::config::parse_duration(text)?
        .to_std()
        .map_err(|_| "duration out of range".to_string())
}

pub(super) fn loadgen(args: LoadgenArgs) -> ExitCode {
    let Some(runtime) = runtime() else {
        return ExitCode::FAILURE;
    };
    let welcome = !args.no_welcome;
    let result = runtime.block_on(async move {
        if let Some(n) = args.create {
            let made = crate::client::loadgen::create_sessions(&args.url, n).await?;
            return Ok(format!("{{\"sessions_created\":{made}}}"));
        }
        if let Some(n) = args.idle {
            let open =
                crate::client::loadgen::hold_idle(&args.url, n, args.duration, welcome).await?;
            return Ok(format!("{{\"idle_connections\":{open}}}"));
        }
        let report = crate::client::loadgen::run(crate::client::loadgen::LoadOptions {
            url: args.url,
            sessions: args.sessions,
            duration: args.duration,
            warmup: args.warmup,
            rate: args.rate,
            welcome,
            ack: args.ack,
            reset_every: args.reset_every,
            turns_before: args.turns_before,
            server_pid: args.server_pid,
        })
        .await?;
        if report.rate_limited > 0 {
            // Said on standard error: standard output stays one JSON line.
            eprintln!("{}", rate_limit_hint(&report));
        }
        serde_json::to_string(&report).map_err(|e| e.to_string())
    });
    match result {
        Ok(line) => {
            say!("{line}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

/// What a load run capped by the server's rate limit says, and the settings that lift it.
fn rate_limit_hint(report: &crate::client::loadgen::LoadReport) -> String {
    format!(
        "note: the server refused {} of the turns with rate_limited: it takes at most \
         `rate_limit` frames a second per connection (20 by default, bursts of `rate_burst`, \
         40), so these figures measure that limit, not the server. To load the server itself, \
         start it with higher limits, e.g. `convstate serve --rate-limit 1000000 --rate-burst \
         1000000` (or rate_limit and rate_burst in its config file).",
        report.rate_limited
    )
}
