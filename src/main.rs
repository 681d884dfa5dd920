//! The `convstate` binary: wiring only; everything lives in the library.

use clap::Parser;

fn main() -> std::process::ExitCode {
    convstate::cli::run(convstate::cli::Cli::parse())
}
