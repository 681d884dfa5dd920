//! The command line: serve, replay, schema, loadgen, script, export, import, check-patterns and
//! flow (list, mermaid, check); each command parses its arguments here and calls the library.

use std::io::{BufReader, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

use crate::config::{ConfigLayer, ServerConfig};
use crate::patterns::{self, PatternSource};

#[derive(Debug, Parser)]
#[command(
    name = "convstate",
    version,
    about = "Live conversation state for chat frontends"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Serve conversations over WebSocket (GET /ws) with live state pushes.
    #[command(
        after_help = "Example:\n  convstate serve --listen 127.0.0.1:9000 --idle-timeout 2m --store sqlite:data/convstate.db"
    )]
    Serve(Box<ServeArgs>),
    /// Replay a JSON Lines transcript offline and print the state frame of each step.
    #[command(
        after_help = "Example:\n  convstate replay --brief tests/transcripts/worked-example.jsonl"
    )]
    Replay {
        /// Pattern directory (default: the set built into the binary).
        #[arg(long, value_name = "DIR")]
        patterns: Option<PathBuf>,
        /// Idle timeout, e.g. 2s, 10m (default: the patterns' settings, 10m).
        #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
        idle_timeout: Option<chrono::TimeDelta>,
        /// Session id written into the frames.
        #[arg(long, value_name = "ID", default_value = "s-replay")]
        session_id: String,
        /// One line per step for a person (seq, phase, transitions, goal) instead of frames.
        #[arg(long)]
        brief: bool,
        /// The --brief line, then why: each phrase found (class, role, byte span) and whether it
        /// counted or which rule dropped it, each word read as another, the goal lead and its
        /// wrapper, and the rule of the transition table that fired.
        #[arg(long, conflicts_with = "brief")]
        explain: bool,
        /// Transcript file, or - for standard input.
        file: PathBuf,
    },
    /// Score the engine on labelled messages (JSON Lines: text, goal, slots, class ...): a
    /// confusion matrix of goal types, precision and recall per type, recall per slot,
    /// accuracy per class, and every miss. Exits 1 under the thresholds.
    #[command(
        after_help = "Example:\n  convstate eval tests/corpus/holdout.jsonl --min-type 95 --min-slots 90"
    )]
    Eval {
        /// Corpus files (JSON Lines, the format of tests/corpus/README.md); each is reported
        /// on its own, then all together.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Pattern directory (default: the set built into the binary).
        #[arg(long, value_name = "DIR")]
        patterns: Option<PathBuf>,
        /// The reports as JSON (one object: per file and all together).
        #[arg(long)]
        json: bool,
        /// Fail when goal types are read right in fewer than P % of the cases (every file and
        /// all together).
        #[arg(long, value_name = "P")]
        min_type: Option<f64>,
        /// Fail when slot values are read right in fewer than P % of the labelled values.
        #[arg(long, value_name = "P")]
        min_slots: Option<f64>,
        /// Print only the tables, not every miss.
        #[arg(long)]
        quiet: bool,
    },
    /// Print the JSON Schema of every protocol frame.
    #[command(after_help = "Example:\n  convstate schema > protocol.schema.json")]
    Schema,
    /// Load a server with concurrent sessions and report turns per second and latency.
    #[command(
        after_help = "Example (against a server started with --rate-limit 1000000 --rate-burst 1000000, so its\nper-connection rate limit does not cap the load):\n  convstate loadgen --url ws://127.0.0.1:8080/ws --sessions 200 --duration 5s --ack"
    )]
    Loadgen(LoadgenArgs),
    /// Run conversation scripts against a server (or record one from a conversation).
    #[command(after_help = "Example:\n  convstate script tests/scripts/worked-example.toml")]
    Script(ScriptArgs),
    /// Write sessions of a store (all, or those named) as JSON Lines: a header line per
    /// session, then its events.
    #[command(
        after_help = "Example:\n  convstate export --store sqlite:data/convstate.db > sessions.jsonl"
    )]
    Export {
        /// The store: sqlite:PATH or redis://HOST:PORT[/DB].
        #[arg(long)]
        store: String,
        /// The prefix of the Redis keys.
        #[arg(long, value_name = "PREFIX", default_value = "convstate")]
        redis_prefix: String,
        /// How many files the SQLite store spreads its sessions over (as serve's), 1 to 64.
        #[arg(long, value_name = "N", default_value_t = 1,
              value_parser = clap::value_parser!(u16).range(1..=64))]
        store_shards: u16,
        /// Only this session (repeat for more).
        #[arg(long = "session", value_name = "ID")]
        sessions: Vec<String>,
    },
    /// Read sessions written by export (a file, or - for standard input) into a store; a
    /// session the store already has is left as it is.
    #[command(
        after_help = "Example:\n  convstate import --store redis://127.0.0.1:6379 --redis-prefix chat sessions.jsonl"
    )]
    Import {
        /// The store: sqlite:PATH or redis://HOST:PORT[/DB].
        #[arg(long)]
        store: String,
        /// The prefix of the Redis keys.
        #[arg(long, value_name = "PREFIX", default_value = "convstate")]
        redis_prefix: String,
        /// How many files the SQLite store spreads its sessions over (as serve's), 1 to 64.
        #[arg(long, value_name = "N", default_value_t = 1,
              value_parser = clap::value_parser!(u16).range(1..=64))]
        store_shards: u16,
        /// Pattern directory the server folds the sessions with (default: the built-in set).
        #[arg(long, value_name = "DIR")]
        patterns: Option<PathBuf>,
        /// The export.
        file: PathBuf,
    },
    /// Check a pattern directory and report every problem as path:line: message.
    #[command(
        after_help = "Example:\n  cp -r patterns my-patterns && convstate check-patterns my-patterns"
    )]
    CheckPatterns {
        /// Pattern directory.
        #[arg(default_value = "patterns")]
        dir: PathBuf,
    },
    /// Hosted flows: check a flow file, or print a flow as a Mermaid diagram.
    #[command(subcommand)]
    #[command(
        after_help = "Examples:\n  convstate flow list\n  convstate flow mermaid conductor-ui\n  convstate flow check patterns/flows/moderator.toml"
    )]
    Flow(FlowCommand),
}

#[derive(Debug, Subcommand)]
pub enum FlowCommand {
    /// Check flow files (unreachable states, states with no way out, unused events, unknown
    /// names): every problem as path:line: message.
    ///
    /// Example: convstate flow check patterns/flows/moderator.toml
    Check {
        /// Flow files (TOML).
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
    /// Print a flow as a Mermaid stateDiagram-v2.
    ///
    /// Example: convstate flow mermaid conductor-ui
    Mermaid {
        /// A shipped flow's name, or a flow file's path.
        name: String,
        /// Pattern directory whose flows/ holds the flow (default: the shipped flows).
        #[arg(long, value_name = "DIR")]
        patterns: Option<PathBuf>,
    },
    /// List the flows (name and description).
    List {
        /// Pattern directory (default: the shipped flows).
        #[arg(long, value_name = "DIR")]
        patterns: Option<PathBuf>,
    },
}

#[derive(Debug, clap::Args)]
pub struct ScriptArgs {
    /// Script files (TOML); with --record and no --session, one replay transcript (JSON Lines).
    pub files: Vec<PathBuf>,
    /// A running server (ws://host:port/ws); without it each script gets a server of its own.
    #[arg(long)]
    pub url: Option<String>,
    /// Scripts run at once, each in its own session.
    #[arg(long, default_value_t = 1)]
    pub jobs: usize,
    /// Write a JUnit XML report here.
    #[arg(long, value_name = "PATH")]
    pub junit: Option<PathBuf>,
    /// Write a script recorded from the transcript (or from --session on --url) here.
    #[arg(long, value_name = "OUT.toml")]
    pub record: Option<PathBuf>,
    /// With --record: the live session to record (needs --url).
    #[arg(long, value_name = "ID")]
    pub session: Option<String>,
    /// Pattern directory of the in-process servers and of the recorder (default: the
    /// built-in set). A server given with --url uses its own.
    #[arg(long, value_name = "DIR")]
    pub patterns: Option<PathBuf>,
    /// A token for a --url server with authentication on (default: CONVSTATE_TOKEN): presented
    /// on every connection, and, to record a live session, to read its log (an admin token or
    /// an API key).
    #[arg(long, value_name = "TOKEN")]
    pub token: Option<String>,
}

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

/// Flags of `serve`. Each overrides the `CONVSTATE_*` variable of the same name, which
/// overrides the config file, which overrides the default.
#[derive(Debug, clap::Args)]
pub struct ServeArgs {
    /// TOML config file (also CONVSTATE_CONFIG).
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Address to listen on [default: 127.0.0.1:8080].
    #[arg(long, value_name = "ADDR")]
    pub listen: Option<String>,
    /// Idle timeout, e.g. 2s, 10m [default: the patterns' setting, 10m].
    #[arg(long, value_name = "DURATION")]
    pub idle_timeout: Option<String>,
    /// Pattern directory [default: the set built into the binary].
    #[arg(long, value_name = "DIR")]
    pub patterns: Option<PathBuf>,
    /// Session store: sqlite:PATH or memory: [default: sqlite:data/convstate.db].
    #[arg(long, value_name = "URL")]
    pub store: Option<String>,
    /// Most changes one store transaction commits; 1 disables group commit [default: 4096].
    #[arg(long, value_name = "N")]
    pub store_batch: Option<u64>,
    /// Least milliseconds between two copies of the SQLite log into its file: smaller keeps
    /// the ack tail short on a slow disk, larger costs less CPU; 1 to 1000 [default: 2].
    #[arg(long, value_name = "MS")]
    pub store_checkpoint_ms: Option<u64>,
    /// Spread the SQLite store's sessions over this many files, each with its own writer
    /// thread (PATH, PATH.shard1, ...); fixed when the store is created, 1 to 64 [default: 1].
    #[arg(long, value_name = "N")]
    pub store_shards: Option<u64>,
    /// The largest the SQLite file may grow, in bytes; at the limit changes are refused until
    /// sessions are deleted [default: no limit].
    #[arg(long, value_name = "BYTES")]
    pub store_max_bytes: Option<u64>,
    /// Delete finished sessions from the store after this long without activity [default: 24h].
    #[arg(long, value_name = "DURATION")]
    pub retention: Option<String>,
    /// Largest client frame in bytes [default: 65536].
    #[arg(long, value_name = "BYTES")]
    pub max_frame_bytes: Option<u64>,
    /// Frames per second per connection [default: 20].
    #[arg(long, value_name = "N")]
    pub rate_limit: Option<u32>,
    /// Frames a connection may send at once [default: 40].
    #[arg(long, value_name = "N")]
    pub rate_burst: Option<u32>,
    /// Browser origins allowed besides the server's own and localhost, comma-separated.
    #[arg(long, value_name = "ORIGINS", value_delimiter = ',')]
    pub allowed_origins: Option<Vec<String>>,
    /// Keep-alive ping interval [default: 30s].
    #[arg(long, value_name = "DURATION")]
    pub ping_interval: Option<String>,
    /// How long one write to a client may take before it is closed as too slow [default: 10s].
    #[arg(long, value_name = "DURATION")]
    pub write_timeout: Option<String>,
    /// The kernel's send buffer of each connection, in bytes [default: 131072].
    #[arg(long, value_name = "BYTES")]
    pub send_buffer_bytes: Option<u64>,
    /// How long a client may take to send a request header [default: 10s].
    #[arg(long, value_name = "DURATION")]
    pub header_timeout: Option<String>,
    /// How long a graceful shutdown waits for connections to close [default: 10s]; a second
    /// SIGINT or SIGTERM stops at once (after the store is flushed).
    #[arg(long, value_name = "DURATION")]
    pub shutdown_timeout: Option<String>,
    /// Most connections open at once [default: 10000].
    #[arg(long, value_name = "N")]
    pub max_connections: Option<u64>,
    /// Most connections open at once from one address; 0: no cap [default: 256].
    #[arg(long, value_name = "N")]
    pub max_connections_per_ip: Option<u64>,
    /// New sessions one address may create per minute [default: 120].
    #[arg(long, value_name = "N")]
    pub ip_session_rate: Option<u32>,
    /// New sessions one address may create at once above that rate [default: 60].
    #[arg(long, value_name = "N")]
    pub ip_session_burst: Option<u32>,
    /// Exempt loopback clients from the per-address limits (benchmarks, local load tests).
    #[arg(long)]
    pub exempt_loopback: bool,
    /// How long a session without a client stays in memory after its last change [default:
    /// 10m]; the store keeps it.
    #[arg(long, value_name = "DURATION")]
    pub evict_after: Option<String>,
    /// Most sessions in memory on this node [default: 100000].
    #[arg(long, value_name = "N")]
    pub max_sessions: Option<u64>,
    /// Require a JWT signed with this HS256 secret on every connection (at least 32 bytes;
    /// prefer CONVSTATE_JWT_SECRET: flags show in the process list).
    #[arg(long, value_name = "SECRET")]
    pub jwt_secret: Option<String>,
    /// Require a JWT verified with this PEM public key (RSA: RS256, EC P-256: ES256).
    #[arg(long, value_name = "FILE")]
    pub jwt_public_key: Option<PathBuf>,
    /// The `iss` claim tokens must carry.
    #[arg(long, value_name = "ISSUER")]
    pub jwt_issuer: Option<String>,
    /// The `aud` claim tokens must carry.
    #[arg(long, value_name = "AUDIENCE")]
    pub jwt_audience: Option<String>,
    /// Serve a non-loopback address without authentication: anyone who reaches it can read and
    /// write every session whose id they know, and the HTTP API.
    #[arg(long)]
    pub insecure_no_auth: bool,
    /// The origins the server's own pages are served from, comma-separated
    /// (https://chat.example): needed for the demo page when the server is not on loopback.
    #[arg(long = "public-origin", value_name = "ORIGINS", value_delimiter = ',')]
    pub public_origins: Option<Vec<String>>,
    /// A file of API keys, one per line (# comments): each opens the HTTP API and the metrics.
    #[arg(long, value_name = "FILE")]
    pub api_keys_file: Option<PathBuf>,
    /// Serve /metrics on this second address only, without a token (for a scraper on an
    /// internal network): 127.0.0.1:9090.
    #[arg(long, value_name = "ADDRESS")]
    pub metrics_listen: Option<String>,
    /// Who answers as the assistant in new sessions: observer (clients send both roles), guide
    /// (the built-in guide answers every user turn) or llm (a model answers, streamed; needs
    /// --llm-url and --llm-model) [default: observer].
    #[arg(long, value_name = "MODE")]
    pub assistant: Option<String>,
    /// The llm assistant's OpenAI-compatible API, up to /v1 (http://127.0.0.1:11434/v1 for a
    /// local Ollama); its key from CONVSTATE_LLM_API_KEY or the config file.
    #[arg(long, value_name = "URL")]
    pub llm_url: Option<String>,
    /// The model the llm assistant calls.
    #[arg(long, value_name = "MODEL")]
    pub llm_model: Option<String>,
    /// The prefix of every key of a Redis store, so several deployments share one Redis
    /// [default: convstate].
    #[arg(long, value_name = "PREFIX")]
    pub redis_prefix: Option<String>,
}

impl ServeArgs {
    /// The configuration: flags over environment over file over defaults.
    pub fn resolve(self, env: impl Fn(&str) -> Option<String>) -> Result<ServerConfig, String> {
        let file = match self
            .config
            .clone()
            .or_else(|| env("CONVSTATE_CONFIG").map(PathBuf::from))
        {
            Some(path) => ConfigLayer::from_file(&path)?,
            None => ConfigLayer::default(),
        };
        let env = ConfigLayer::from_env(env)?;
        let flags = ConfigLayer {
            listen: self.listen,
            idle_timeout: self.idle_timeout,
            patterns: self.patterns,
            store: self.store,
            store_batch: self.store_batch,
            store_checkpoint_ms: self.store_checkpoint_ms,
            store_shards: self.store_shards,
            store_max_bytes: self.store_max_bytes,
            retention: self.retention,
            max_frame_bytes: self.max_frame_bytes,
            rate_limit: self.rate_limit,
            rate_burst: self.rate_burst,
            allowed_origins: self.allowed_origins,
            ping_interval: self.ping_interval,
            write_timeout: self.write_timeout,
            send_buffer_bytes: self.send_buffer_bytes,
            header_timeout: self.header_timeout,
            shutdown_timeout: self.shutdown_timeout,
            max_connections: self.max_connections,
            max_connections_per_ip: self.max_connections_per_ip,
            ip_session_rate: self.ip_session_rate,
            ip_session_burst: self.ip_session_burst,
            exempt_loopback: self.exempt_loopback.then_some(true),
            max_sessions: self.max_sessions,
            evict_after: self.evict_after,
            jwt_secret: self.jwt_secret.map(crate::config::Secret),
            jwt_public_key: self.jwt_public_key,
            jwt_issuer: self.jwt_issuer,
            jwt_audience: self.jwt_audience,
            insecure_no_auth: self.insecure_no_auth.then_some(true),
            public_origins: self.public_origins,
            api_keys_file: self.api_keys_file,
            metrics_listen: self.metrics_listen,
            assistant: self.assistant,
            llm: crate::config::LlmLayer {
                url: self.llm_url,
                model: self.llm_model,
                ..Default::default()
            },
            redis_prefix: self.redis_prefix,
        };
        flags.over(env.over(file)).resolve()
    }
}

fn parse_duration(text: &str) -> Result<chrono::TimeDelta, String> {
    crate::config::parse_duration(text)
}

/// Runs a parsed command line.
pub fn run(cli: Cli) -> ExitCode {
    match cli.command {
        Command::Serve(args) => serve(*args),
        Command::Loadgen(args) => loadgen(args),
        Command::Script(args) => script(args),
        Command::Eval {
            files,
            patterns,
            json,
            min_type,
            min_slots,
            quiet,
        } => eval(files, patterns, json, min_type, min_slots, quiet),
        Command::Schema => {
            let _ = std::io::stdout().write_all(crate::protocol::schema().as_bytes());
            ExitCode::SUCCESS
        }
        Command::Replay {
            patterns,
            idle_timeout,
            session_id,
            brief,
            explain,
            file,
        } => {
            let format = if explain {
                crate::replay::Format::Explain
            } else if brief {
                crate::replay::Format::Brief
            } else {
                crate::replay::Format::Frames
            };
            let mut engine = match patterns::load(&PatternSource::from_option(patterns)) {
                Ok(engine) => engine,
                Err(errors) => return report_patterns(&errors),
            };
            if let Some(timeout) = idle_timeout {
                engine.settings_mut().idle_timeout = timeout;
            }
            let stdout = std::io::stdout().lock();
            let name = file.display().to_string();
            let result = if name == "-" {
                crate::replay::replay(
                    &engine,
                    &session_id,
                    format,
                    std::io::stdin().lock(),
                    stdout,
                )
            } else {
                match std::fs::File::open(&file) {
                    Ok(f) => crate::replay::replay(
                        &engine,
                        &session_id,
                        format,
                        BufReader::new(f),
                        stdout,
                    ),
                    Err(e) => {
                        eprintln!("error: {name}: {e}");
                        return ExitCode::FAILURE;
                    }
                }
            };
            match result {
                Ok(()) => ExitCode::SUCCESS,
                Err(crate::replay::ReplayError::Line(n, m)) => {
                    eprintln!("error: {name}:{n}: {m}");
                    ExitCode::FAILURE
                }
                Err(crate::replay::ReplayError::At(n, c, m)) => {
                    eprintln!("error: {name}:{n}:{c}: {m}");
                    ExitCode::FAILURE
                }
                // The reader of the output went away (`| head`): a normal end.
                Err(crate::replay::ReplayError::Io(e))
                    if e.kind() == std::io::ErrorKind::BrokenPipe =>
                {
                    ExitCode::SUCCESS
                }
                Err(e) => {
                    eprintln!("error: {name}: {e}");
                    ExitCode::FAILURE
                }
            }
        }
        Command::Export {
            store,
            redis_prefix,
            store_shards,
            sessions,
        } => {
            let options = crate::store::Options {
                prefix: redis_prefix,
                shards: usize::from(store_shards),
                ..crate::store::Options::default()
            };
            let opened = match crate::store::open_existing(&store, &options) {
                Ok(s) => s,
                Err(e) => {
                    eprintln!("error: {e}");
                    return ExitCode::FAILURE;
                }
            };
            let mut out = std::io::BufWriter::new(std::io::stdout().lock());
            let result = crate::transfer::export(&*opened, &sessions, &mut out);
            drop(out);
            opened.close();
            match result {
                Ok(n) => {
                    eprintln!("{n} sessions exported from {}", opened.describe());
                    ExitCode::SUCCESS
                }
                Err(e) => {
                    eprintln!("error: {e}");
                    ExitCode::FAILURE
                }
            }
        }
        Command::Import {
            store,
            redis_prefix,
            store_shards,
            patterns: dir,
            file,
        } => {
            let engine = match patterns::load(&PatternSource::from_option(dir)) {
                Ok(engine) => engine,
                Err(errors) => return report_patterns(&errors),
            };
            let options = crate::store::Options {
                prefix: redis_prefix,
                shards: usize::from(store_shards),
                ..crate::store::Options::default()
            };
            let opened = match crate::store::open(&store, &options) {
                Ok(s) => s,
                Err(e) => {
                    eprintln!("error: {e}");
                    return ExitCode::FAILURE;
                }
            };
            // The input is read twice (checked whole, then written): standard input is kept
            // in a temporary file meanwhile.
            // A new file of a name nobody can guess, never one planted there (a link).
            let mut nonce = [0u8; 8];
            let _ = getrandom::fill(&mut nonce);
            let spooled = std::env::temp_dir().join(format!(
                "convstate-import-{}-{:016x}.jsonl",
                std::process::id(),
                u64::from_le_bytes(nonce)
            ));
            let source = if file.as_os_str() == "-" {
                let copied = std::fs::OpenOptions::new()
                    .write(true)
                    .create_new(true)
                    .open(&spooled)
                    .and_then(|mut f| {
                        std::io::copy(&mut std::io::stdin().lock(), &mut f).map(|_| ())
                    });
                if let Err(e) = copied {
                    let _ = std::fs::remove_file(&spooled);
                    eprintln!("error: standard input: {e}");
                    return ExitCode::FAILURE;
                }
                spooled.clone()
            } else {
                file.clone()
            };
            let mut open = || -> Result<Box<dyn std::io::BufRead>, String> {
                std::fs::File::open(&source)
                    .map(|f| Box::new(BufReader::new(f)) as Box<dyn std::io::BufRead>)
                    .map_err(|e| format!("{}: {e}", file.display()))
            };
            let result = crate::transfer::import(&opened, &engine, &mut open);
            if file.as_os_str() == "-" {
                let _ = std::fs::remove_file(&spooled);
            }
            opened.close();
            match result {
                Ok(done) => {
                    eprintln!(
                        "{} sessions ({} events) imported into {}",
                        done.sessions,
                        done.events,
                        opened.describe()
                    );
                    for id in &done.skipped {
                        eprintln!("skipped {id}: the store already has it");
                    }
                    ExitCode::SUCCESS
                }
                Err(e) => {
                    eprintln!("error: {e}");
                    ExitCode::FAILURE
                }
            }
        }
        Command::Flow(command) => flow(command),
        Command::CheckPatterns { dir } => match check_patterns(&dir) {
            Ok(()) => {
                say!("{}: patterns OK", dir.display());
                ExitCode::SUCCESS
            }
            Err(errors) => report_patterns(&errors),
        },
    }
}

/// The async runtime of the commands that need one; says why when it cannot start.
fn eval(
    files: Vec<PathBuf>,
    patterns: Option<PathBuf>,
    json: bool,
    min_type: Option<f64>,
    min_slots: Option<f64>,
    quiet: bool,
) -> ExitCode {
    use crate::eval::{Report, parse, run};
    let engine = match patterns::load(&PatternSource::from_option(patterns)) {
        Ok(engine) => engine,
        Err(errors) => return report_patterns(&errors),
    };
    let mut reports = Vec::new();
    let mut all = Vec::new();
    for file in &files {
        let name = file.display().to_string();
        let text = match std::fs::read_to_string(file) {
            Ok(t) => t,
            Err(e) => {
                eprintln!("error: {name}: {e}");
                return ExitCode::FAILURE;
            }
        };
        let cases = match parse(&name, &text) {
            Ok(c) => c,
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::FAILURE;
            }
        };
        let outcomes: Vec<_> = cases
            .iter()
            .map(|(line, case)| run(&engine, &name, *line, case))
            .collect();
        reports.push((name, Report::of(&outcomes)));
        all.extend(outcomes);
    }
    if files.len() > 1 {
        reports.push(("all".to_string(), Report::of(&all)));
    }
    let mut out = std::io::stdout().lock();
    if json {
        let map: serde_json::Map<String, serde_json::Value> = reports
            .iter()
            .map(|(n, r)| (n.clone(), serde_json::to_value(r).unwrap_or_default()))
            .collect();
        let _ = writeln!(out, "{}", serde_json::Value::Object(map));
    } else {
        for (name, report) in &reports {
            let mut text = report.text(name);
            if quiet && let Some(at) = text.find("\nmisses:") {
                text.truncate(at + 1);
            }
            let _ = writeln!(out, "{text}");
        }
    }
    let mut failed = false;
    for (name, r) in &reports {
        if let Some(p) = min_type
            && r.goal_accuracy() < p
        {
            eprintln!("{name}: goal type {:.1}% is under {p}%", r.goal_accuracy());
            failed = true;
        }
        if let Some(p) = min_slots
            && r.slot_accuracy() < p
        {
            eprintln!(
                "{name}: slot values {:.1}% are under {p}%",
                r.slot_accuracy()
            );
            failed = true;
        }
    }
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

fn runtime() -> Option<tokio::runtime::Runtime> {
    match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => Some(rt),
        Err(e) => {
            eprintln!("error: cannot start the runtime: {e}");
            None
        }
    }
}

fn report_patterns(errors: &crate::diagnostic::Diagnostics) -> ExitCode {
    eprintln!("{errors}");
    let n = errors.0.len();
    eprintln!(
        "error: {n} problem{} in the patterns",
        if n == 1 { "" } else { "s" }
    );
    ExitCode::FAILURE
}

fn serve(args: ServeArgs) -> ExitCode {
    let config = match args.resolve(|var| std::env::var(var).ok()) {
        Ok(config) => config,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    // Before anything is opened or created.
    if let Err(e) = config
        .check_exposure()
        .and_then(|()| crate::server::check_credentials(&config))
    {
        eprintln!("error: {e}");
        return ExitCode::FAILURE;
    }
    let source = PatternSource::from_option(config.patterns.clone());
    let mut engine = match patterns::load(&source) {
        Ok(engine) => engine,
        Err(errors) => return report_patterns(&errors),
    };
    // The guide's phrases are checked at start-up too, whichever mode is the default: a session
    // may ask for the guide.
    if let Err(errors) = crate::assistant::guide::Guide::load(&source, &engine) {
        return report_patterns(&errors);
    }
    if let Some(timeout) = config.idle_timeout {
        engine.settings_mut().idle_timeout = timeout;
    }
    let Some(runtime) = runtime() else {
        return ExitCode::FAILURE;
    };
    // The address first: a start that fails there (the port is taken) leaves nothing behind,
    // no store file or directory created.
    let listener = match runtime.block_on(tokio::net::TcpListener::bind(config.listen)) {
        Ok(listener) => listener,
        Err(e) => {
            let hint = if e.kind() == std::io::ErrorKind::AddrInUse {
                " (another process listens there: stop it, or choose another port with --listen)"
            } else {
                ""
            };
            eprintln!("error: cannot listen on {}: {e}{hint}", config.listen);
            return ExitCode::FAILURE;
        }
    };
    // A store that cannot be opened (a damaged or foreign file) stops the server here, before
    // it serves anything.
    let store = match crate::store::open(&config.store, &config.store_options()) {
        Ok(store) => store,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    let result = runtime.block_on(async move {
        crate::server::run(
            listener,
            config,
            engine,
            store,
            crate::server::Shutdown::on_signals(),
        )
        .await
        .map_err(|e| format!("server: {e}"))
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn loadgen(args: LoadgenArgs) -> ExitCode {
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

fn script(args: ScriptArgs) -> ExitCode {
    let Some(runtime) = runtime() else {
        return ExitCode::FAILURE;
    };
    // Loaded once: broken patterns are reported before anything runs, and every in-process
    // server gets a copy.
    let engine = match patterns::load(&PatternSource::from_option(args.patterns.clone())) {
        Ok(engine) => engine,
        Err(errors) => return report_patterns(&errors),
    };
    // Not echoed anywhere: a flag shows in the process list, the variable does not.
    let token = args.token.or_else(|| std::env::var("CONVSTATE_TOKEN").ok());
    if let Some(out) = args.record {
        let steps = match (&args.session, &args.url) {
            (Some(session), Some(url)) => runtime.block_on(crate::client::record::live_steps(
                url,
                session,
                token.as_deref(),
            )),
            (Some(_), None) => Err("--record --session needs the server's --url".to_string()),
            (None, _) if args.files.len() == 1 => std::fs::File::open(&args.files[0])
                .map_err(|e| format!("{}: {e}", args.files[0].display()))
                .and_then(|f| {
                    crate::replay::read_transcript(BufReader::new(f))
                        .map_err(|e| format!("{}: {e}", args.files[0].display()))
                }),
            (None, _) => Err("--record takes one transcript".to_string()),
        };
        let steps = match steps {
            Ok(s) => s,
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::FAILURE;
            }
        };
        let name = out
            .file_stem()
            .map(|s| s.to_string_lossy().to_string())
            .unwrap_or_else(|| "recorded".into());
        let text = crate::client::record::script(&engine, &name, &steps);
        return match std::fs::write(&out, text) {
            Ok(()) => {
                say!("recorded {} steps into {}", steps.len(), out.display());
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("error: {}: {e}", out.display());
                ExitCode::FAILURE
            }
        };
    }
    if args.files.is_empty() {
        eprintln!("error: no script given (convstate script FILE... [--url ws://...])");
        return ExitCode::FAILURE;
    }
    let mut scripts = Vec::new();
    for path in &args.files {
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) => {
                eprintln!("error: {}: {e}", path.display());
                return ExitCode::FAILURE;
            }
        };
        match crate::client::script::parse_text(path, &text) {
            Ok(s) => scripts.push((s, text)),
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::FAILURE;
            }
        }
    }
    let options = crate::client::runner::Options {
        url: args.url,
        token,
        engine: std::sync::Arc::new(engine),
        jobs: args.jobs.max(1),
    };
    let outcomes = runtime.block_on(crate::client::runner::run_all(scripts, &options));
    if let Some(path) = &args.junit
        && let Err(e) = std::fs::write(path, crate::client::runner::junit(&outcomes))
    {
        eprintln!("error: {}: {e}", path.display());
        return ExitCode::FAILURE;
    }
    let failed = outcomes.iter().filter(|o| !o.passed()).count();
    say!("{} passed, {failed} failed", outcomes.len() - failed);
    if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

fn flow(command: FlowCommand) -> ExitCode {
    use crate::flow::{Flow, Flows, Problem};
    let read = |path: &std::path::Path| -> Result<Flow, Vec<Problem>> {
        let text = std::fs::read_to_string(path).map_err(|e| {
            vec![Problem {
                path: path.display().to_string(),
                line: None,
                message: format!("cannot read: {e}"),
            }]
        })?;
        Flow::parse(&path.display().to_string(), &text)
    };
    let flows = |patterns: Option<PathBuf>| -> Result<std::sync::Arc<Flows>, ExitCode> {
        match patterns {
            None => Ok(Flows::shipped()),
            Some(dir) => match patterns::load(&PatternSource::Dir(dir)) {
                Ok(engine) => Ok(std::sync::Arc::new(engine.flows().clone())),
                Err(errors) => Err(report_patterns(&errors)),
            },
        }
    };
    match command {
        FlowCommand::Check { files } => {
            let mut failed = false;
            for path in &files {
                match read(path) {
                    Ok(flow) => say!(
                        "{}: flow {} OK ({} states, {} events, {} transitions, {} timers)",
                        path.display(),
                        flow.name,
                        flow.states.len(),
                        flow.events.len(),
                        flow.rows.len(),
                        flow.timers.len()
                    ),
                    Err(errors) => {
                        failed = true;
                        for e in errors {
                            eprintln!("{e}");
                        }
                    }
                }
            }
            if failed {
                ExitCode::FAILURE
            } else {
                ExitCode::SUCCESS
            }
        }
        FlowCommand::Mermaid { name, patterns } => {
            let path = std::path::Path::new(&name);
            let flow = if name.ends_with(".toml") || path.is_file() {
                match read(path) {
                    Ok(flow) => flow,
                    Err(errors) => {
                        for e in errors {
                            eprintln!("{e}");
                        }
                        return ExitCode::FAILURE;
                    }
                }
            } else {
                let all = match flows(patterns) {
                    Ok(all) => all,
                    Err(code) => return code,
                };
                match all.get(&name) {
                    Some(flow) => flow.as_ref().clone(),
                    None => {
                        let names: Vec<&str> = all.names().collect();
                        eprintln!(
                            "error: no flow \"{name}\" (the flows: {})",
                            names.join(", ")
                        );
                        return ExitCode::FAILURE;
                    }
                }
            };
            let _ = std::io::stdout().write_all(flow.mermaid().as_bytes());
            ExitCode::SUCCESS
        }
        FlowCommand::List { patterns } => {
            let all = match flows(patterns) {
                Ok(all) => all,
                Err(code) => return code,
            };
            for name in all.names() {
                if let Some(flow) = all.get(name) {
                    say!("{name}: {}", flow.description);
                }
            }
            ExitCode::SUCCESS
        }
    }
}

/// Loads the pattern set in `dir` and returns every problem (the `check-patterns` command):
/// the patterns, then the guide's phrases, if the directory has its own, read against them.
fn check_patterns(dir: &std::path::Path) -> Result<(), crate::diagnostic::Diagnostics> {
    let source = PatternSource::Dir(dir.to_path_buf());
    let engine = patterns::load(&source)?;
    crate::assistant::guide::Guide::load(&source, &engine).map(|_| ())
}
