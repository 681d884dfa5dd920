//! `convstate eval`: the scorer of a labelled corpus, its tables and thresholds.

use super::*;

pub(super) fn eval(
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
