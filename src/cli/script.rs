//! `convstate script`: conversation scripts run against a server.

use super::*;

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

pub(super) fn script(args: ScriptArgs) -> ExitCode {
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
            (Some(session), Some(url)) => {
                runtime.block_on(record::live_steps(url, session, token.as_deref()))
            }
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
        let text = record::script(&engine, &name, &steps);
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
    let engine = std::sync::Arc::new(engine);
    let local: crate::client::runner::LocalServer = std::sync::Arc::new(move |idle| {
        let engine = engine.clone();
        Box::pin(async move { start_local(&engine, idle).await })
    });
    let options = crate::client::runner::Options {
        url: args.url,
        token,
        local,
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

/// A server in the process for one script (the memory store, no rate limits), with the
/// script's idle timeout: its URL, and the sender that stops it.
async fn start_local(
    engine: &crate::conversation::Engine,
    idle: Option<chrono::TimeDelta>,
) -> Result<crate::client::runner::Started, String> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .map_err(|e| format!("cannot start a server: {e}"))?;
    let addr = listener.local_addr().map_err(|e| e.to_string())?;
    let mut engine = engine.clone();
    if let Some(idle) = idle {
        engine.settings_mut().idle_timeout = idle;
    }
    let config = ServerConfig {
        store: "memory:".into(),
        rate_limit: 100_000,
        rate_burst: 100_000,
        ..ServerConfig::default()
    };
    let store = crate::store::open("memory:", &config.store_options()).map_err(|e| e.message)?;
    let (tx, rx) = tokio::sync::oneshot::channel();
    tokio::spawn(crate::server::run(listener, config, engine, store, async {
        let _ = rx.await;
    }));
    Ok((format!("ws://{addr}/ws"), tx))
}
