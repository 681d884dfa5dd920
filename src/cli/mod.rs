//! The command line: serve, replay, schema, loadgen, script, export, import, check-patterns and
//! flow (list, mermaid, check); each command parses its arguments here and calls the library.

use std::io::{BufReader, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

use crate::config::{ConfigLayer, ServerConfig};
use crate::patterns::{self, PatternSource};

mod eval;
mod flow;
mod loadgen;
mod record;
mod script;
mod serve;

use eval::eval;
pub use flow::FlowCommand;
use flow::flow;
pub use loadgen::LoadgenArgs;
use loadgen::loadgen;
pub use script::ScriptArgs;
use script::script;
pub use serve::ServeArgs;
use serve::serve;

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

/// Loads the pattern set in `dir` and returns every problem (the `check-patterns` command):
/// the patterns, then the guide's phrases, if the directory has its own, read against them.
fn check_patterns(dir: &std::path::Path) -> Result<(), crate::diagnostic::Diagnostics> {
    let source = PatternSource::Dir(dir.to_path_buf());
    let engine = patterns::load(&source)?;
    crate::assistant::guide::Guide::load(&source, &engine).map(|_| ())
}
