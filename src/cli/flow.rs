//! `convstate flow`: list, mermaid and check of flow files.

use super::*;

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

pub(super) fn flow(command: FlowCommand) -> ExitCode {
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
