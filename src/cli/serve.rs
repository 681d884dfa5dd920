//! `convstate serve`: its flags (each over its `CONVSTATE_*` variable, over the config
//! file, over the default) and the server started with them.

use super::*;

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

pub(super) fn serve(args: ServeArgs) -> ExitCode {
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
