//! `convstate check-patterns` over the real binary: the shipped set passes, and broken copies
//! fail naming every problem's file and line.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn check(dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_convstate"))
        .arg("check-patterns")
        .arg(dir)
        .output()
        .expect("the convstate binary runs")
}

/// A fresh copy of the shipped pattern set in its own directory under the target dir.
fn copy_patterns(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("patterns-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("patterns");
    copy_dir(&src, &dir);
    dir
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let path = entry.unwrap().path();
        let target = to.join(path.file_name().unwrap());
        if path.is_dir() {
            copy_dir(&path, &target);
        } else {
            std::fs::copy(&path, target).unwrap();
        }
    }
}

/// Replaces the first `old` in `file` with `new` and returns the 1-based line it was on.
fn break_file(dir: &Path, file: &str, old: &str, new: &str) -> usize {
    let path = dir.join(file);
    let text = std::fs::read_to_string(&path).unwrap();
    let at = text
        .find(old)
        .unwrap_or_else(|| panic!("{old:?} not in {file}"));
    let line = text[..at].matches('\n').count() + 1;
    std::fs::write(&path, text.replacen(old, new, 1)).unwrap();
    line
}

#[test]
fn the_shipped_patterns_pass() {
    let out = check(&Path::new(env!("CARGO_MANIFEST_DIR")).join("patterns"));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("patterns OK"));
}

#[test]
fn every_problem_is_reported_with_its_file_and_line() {
    let dir = copy_patterns("many");
    let mut want = vec![
        (
            "slots.toml",
            break_file(
                &dir,
                "slots.toml",
                r"(?:in|with|using",
                r"(?:in|with|using((",
            ),
            "invalid regex",
        ),
        (
            "goals.toml",
            break_file(
                &dir,
                "goals.toml",
                "type = \"exploration\"",
                "type = \"exploration\"\ncolour = 3",
            ) + 1,
            "unknown key `colour`",
        ),
        (
            "goals.toml",
            break_file(
                &dir,
                "goals.toml",
                "\"target\", \"desired_change\"",
                "\"target\", \"desired_outcome\"",
            ),
            "unknown slot `desired_outcome`",
        ),
        (
            "language.toml",
            break_file(
                &dir,
                "language.toml",
                "clause_breaks = [\"but\", \"however\", \"although\", \"though\", \"except\", \"whereas\", \"while\", \"and i\", \"and we\", \"and they\", \"and you\", \"even though\", \"even tho\"]",
                "clause_breaks = []",
            ),
            "`clause_breaks` must not be empty",
        ),
        (
            "signals.toml",
            break_file(
                &dir,
                "signals.toml",
                "name = \"farewell\"",
                "name = \"approve\"",
            ),
            "duplicate signal `approve`",
        ),
        (
            "slots.toml",
            break_file(
                &dir,
                "slots.toml",
                "name = \"target\"",
                "name = \"requirements\"",
            ),
            "duplicate slot `requirements`",
        ),
        (
            "settings.toml",
            break_file(
                &dir,
                "settings.toml",
                "max_understanding_turns = 3",
                "max_understanding_turns = 0",
            ),
            "between 1 and 1000",
        ),
        (
            "signals.toml",
            break_file(
                &dir,
                "signals.toml",
                "role = \"assistant\"",
                "role = \"robot\"",
            ),
            "unknown role `robot`",
        ),
        (
            "slots.toml",
            break_file(&dir, "slots.toml", "{:purpose}", "{:purposes}"),
            "unknown vocabulary",
        ),
    ];
    // The duplicate `approve` leaves `farewell` undefined (reported at the top of the file),
    // and the duplicate `requirements` leaves `target` unknown where a goal names it.
    want.push(("signals.toml", 1, "signal `farewell` is not defined"));
    let target_line = want[2].1;
    want.push(("goals.toml", target_line, "unknown slot `target`"));
    let out = check(&dir);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    for (file, line, message) in &want {
        let prefix = format!("{}:{line}: ", dir.join(file).display());
        assert!(
            stderr
                .lines()
                .any(|l| l.starts_with(&prefix) && l.contains(message)),
            "no `{prefix}... {message}` in:\n{stderr}"
        );
    }
    assert!(
        stderr.contains(&format!("{} problems in the patterns", want.len())),
        "{stderr}"
    );
}

#[test]
fn a_toml_syntax_error_names_the_file_and_line() {
    let dir = copy_patterns("syntax");
    let line = break_file(&dir, "goals.toml", "slots = []", "slots = [");
    let out = check(&dir);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    let file = dir.join("goals.toml").display().to_string();
    // An unclosed `[` is noticed a little later, where the parser first sees what cannot be in
    // the list.
    let reported: Vec<usize> = stderr
        .lines()
        .filter_map(|l| l.strip_prefix(&format!("{file}:")))
        .filter_map(|l| l.split(':').next()?.parse().ok())
        .collect();
    assert_eq!(reported.len(), 1, "one error, not a cascade: {stderr}");
    assert!(
        (line..=line + 3).contains(&reported[0]),
        "line {line}: {stderr}"
    );
}

#[test]
fn a_missing_file_or_directory_is_reported() {
    let dir = copy_patterns("missing");
    std::fs::remove_file(dir.join("signals.toml")).unwrap();
    let out = check(&dir);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("signals.toml: cannot read"), "{stderr}");

    let out = check(Path::new("/nonexistent/patterns"));
    assert!(!out.status.success());
}

#[test]
fn replay_refuses_broken_patterns() {
    let dir = copy_patterns("replay");
    let line = break_file(&dir, "slots.toml", "pattern = '", "pattern = '(");
    let out = Command::new(env!("CARGO_BIN_EXE_convstate"))
        .args(["replay", "--patterns"])
        .arg(&dir)
        .arg("-")
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!("slots.toml:{line}: invalid regex")),
        "{stderr}"
    );
}
