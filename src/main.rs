//! The `convstate` binary: wiring only; everything lives in the library.

use std::io::IsTerminal;

use clap::Parser;
use tracing_subscriber::EnvFilter;

// See Cargo.toml: jemalloc serves the Rust code and, unprefixed, SQLite's C code as well.
#[cfg(all(feature = "jemalloc", not(target_env = "msvc")))]
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

fn main() -> std::process::ExitCode {
    let cli = convstate::cli::Cli::parse();
    // Logs go to standard error; RUST_LOG overrides the level: info for the server, warnings
    // only for the client commands (which may run a server of their own).
    let level = match cli.command {
        convstate::cli::Command::Serve(_) => "info",
        _ => "warn",
    };
    tracing_subscriber::fmt()
        .with_env_filter(
            EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(level)),
        )
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .init();
    convstate::cli::run(cli)
}
