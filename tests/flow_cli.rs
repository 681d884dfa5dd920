//! `convstate flow` over the real binary: the conductor UI's diagram edge for edge with its
//! design document's, and flow files checked with their lines.

use std::process::Command;

fn convstate(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_convstate"))
        .args(args)
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).to_string(),
        String::from_utf8_lossy(&out.stderr).to_string(),
    )
}

/// `FROM --> TO : LABEL` lines, spaces normalised, sorted (a multiset of edges).
fn edges(lines: &str) -> Vec<(String, String, String)> {
    let mut out: Vec<(String, String, String)> = lines
        .lines()
        .filter(|l| !l.starts_with("<!--"))
        .filter_map(|l| {
            let (from, rest) = l.trim().split_once("-->")?;
            let (to, label) = rest.split_once(':').unwrap_or((rest, ""));
            Some((from.trim().into(), to.trim().into(), label.trim().into()))
        })
        .collect();
    out.sort();
    out
}

#[test]
fn the_conductor_ui_diagram_matches_its_document_edge_for_edge() {
    let (ok, printed, _) = convstate(&["flow", "mermaid", "conductor-ui"]);
    assert!(ok);
    assert!(printed.starts_with("stateDiagram-v2\n"));
    let document = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/diagrams/conductor-ui-machine.md"),
    )
    .unwrap();
    let ours = edges(&printed);
    let theirs = edges(&document);
    assert_eq!(ours.len(), 21);
    assert_eq!(ours, theirs);
}

#[test]
fn flow_check_says_each_problem_with_its_line() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"));
    let path = dir.join("broken-flow.toml");
    std::fs::write(
        &path,
        "name = \"broken\"\ninitial = \"a\"\n\n[[states]]\nname = \"a\"\n\n[[states]]\nname = \"b\"\n\n[[events]]\nname = \"go\"\n\n[[events]]\nname = \"unused\"\n\n[[transitions]]\nfrom = \"a\"\nevent = \"go\"\nguard = \"tries >= limit\"\nto = \"a\"\nreason = \"again\"\n",
    )
    .unwrap();
    let (ok, _, said) = convstate(&["flow", "check", path.to_str().unwrap()]);
    assert!(!ok);
    let p = path.display();
    assert!(
        said.contains(&format!(
            "{p}:16: guard \"tries >= limit\": \"tries\" is not a counter, value or setting"
        )),
        "{said}"
    );
    // Once the names are right, the structure: b unreachable, a and b dead ends, unused event.
    let fixed = std::fs::read_to_string(&path)
        .unwrap()
        .replace("guard = \"tries >= limit\"\n", "");
    std::fs::write(&path, fixed).unwrap();
    let (ok, _, said) = convstate(&["flow", "check", path.to_str().unwrap()]);
    assert!(!ok);
    for expected in [
        format!("{p}:4: state \"a\" has no way out and is not terminal"),
        format!("{p}:7: state \"b\" cannot be reached from \"a\""),
        format!("{p}:13: event \"unused\" is used by no transition"),
    ] {
        assert!(said.contains(&expected), "{expected}\n{said}");
    }
    let (ok, said, _) = convstate(&["flow", "check", "patterns/flows/moderator.toml"]);
    assert!(ok, "{said}");
    assert!(said.contains("flow moderator OK"));
}

#[test]
fn a_pattern_directory_with_a_broken_flow_does_not_start() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("patterns-broken-flow");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("flows")).unwrap();
    for entry in std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/patterns")).unwrap() {
        let path = entry.unwrap().path();
        if path.is_file() {
            std::fs::copy(&path, dir.join(path.file_name().unwrap())).unwrap();
        }
    }
    std::fs::write(
        dir.join("flows/x.toml"),
        "name = \"x\"\ninitial = \"nowhere\"\nstates = []\nevents = []\ntransitions = []\n",
    )
    .unwrap();
    let (ok, _, said) = convstate(&["check-patterns", dir.to_str().unwrap()]);
    assert!(!ok);
    assert!(
        said.contains("flows/x.toml:2: initial state \"nowhere\" is not declared"),
        "{said}"
    );
}
