//! The command line: `convstate replay` and `convstate check-patterns`.

use std::io::{BufReader, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

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
    /// Replay a JSON Lines transcript offline and print the state frame of each step.
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
        /// Transcript file, or - for standard input.
        file: PathBuf,
    },
    /// Check a pattern directory and report every problem as path:line: message.
    CheckPatterns {
        /// Pattern directory.
        #[arg(default_value = "patterns")]
        dir: PathBuf,
    },
}

fn parse_duration(text: &str) -> Result<chrono::TimeDelta, String> {
    crate::config::parse_duration(text)
}

/// Runs a parsed command line.
pub fn run(cli: Cli) -> ExitCode {
    match cli.command {
        Command::Replay {
            patterns,
            idle_timeout,
            session_id,
            brief,
            file,
        } => {
            let format = if brief {
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
                Err(e) => {
                    eprintln!("error: {name}: {e}");
                    ExitCode::FAILURE
                }
            }
        }
        Command::CheckPatterns { dir } => match patterns::check(&dir) {
            Ok(()) => {
                let _ = writeln!(std::io::stdout(), "{}: patterns OK", dir.display());
                ExitCode::SUCCESS
            }
            Err(errors) => report_patterns(&errors),
        },
    }
}

fn report_patterns(errors: &patterns::PatternErrors) -> ExitCode {
    eprintln!("{errors}");
    let n = errors.0.len();
    eprintln!(
        "error: {n} problem{} in the patterns",
        if n == 1 { "" } else { "s" }
    );
    ExitCode::FAILURE
}
