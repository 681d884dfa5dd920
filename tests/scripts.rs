//! `convstate script` over the real binaries: the script library in `tests/scripts/` against a
//! real server process, readable failures, JUnit reports, and recording.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::{Client, ServerProcess, add_assemble_lead, copy_of_patterns, temp_path};

fn convstate(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_convstate"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("the binary runs")
}

fn library() -> Vec<String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scripts");
    let mut files: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .map(|p| p.display().to_string())
        .collect();
    files.sort();
    files
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).to_string()
}

#[test]
fn the_script_library_passes_against_the_real_server() {
    // The library's scripts are written for a 1 s idle timeout.
    let server = ServerProcess::start(&["--store", "memory:", "--idle-timeout", "1s"]).unwrap();
    let junit = temp_path("junit", "xml");
    let url = server.ws_url("");
    let mut args = vec![
        "script",
        "--url",
        &url,
        "--jobs",
        "4",
        "--junit",
        junit.to_str().unwrap(),
    ];
    let files = library();
    assert!(files.len() >= 12, "{files:?}");
    args.extend(files.iter().map(String::as_str));
    let out = convstate(&args);
    let text = stdout(&out);
    assert!(
        out.status.success(),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.trim_end()
            .ends_with(&format!("{} passed, 0 failed", files.len())),
        "{text}"
    );
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert!(
        xml.contains(&format!("tests=\"{}\" failures=\"0\"", files.len())),
        "{xml}"
    );
    assert_eq!(xml.matches("<testcase ").count(), files.len());
    // Four at a time, and still a line per step as it runs, each naming its file and line.
    let steps: usize = files
        .iter()
        .map(|f| {
            std::fs::read_to_string(f)
                .unwrap()
                .matches("[[step]]")
                .count()
        })
        .sum();
    assert_eq!(
        text.lines().filter(|l| l.starts_with("  ok   ")).count(),
        steps
    );
    assert!(server.stop().0.success());
}

#[test]
fn in_process_servers_and_the_recorder_use_the_given_patterns() {
    // A team's own pattern set: "assemble" as a lead of artifact creation.
    let dir = copy_of_patterns("team-patterns");
    add_assemble_lead(&dir);
    let script = temp_path("assemble", "toml");
    std::fs::write(
        &script,
        "name = \"assemble\"\n\n[[step]]\nuser = \"Assemble a sales dashboard\"\n\
         [step.expect]\ngoal_type = \"artifact_creation\"\ndescription = \"sales dashboard\"\n",
    )
    .unwrap();
    let with = convstate(&[
        "script",
        "--patterns",
        dir.to_str().unwrap(),
        script.to_str().unwrap(),
    ]);
    assert!(with.status.success(), "{}", stdout(&with));
    let without = convstate(&["script", script.to_str().unwrap()]);
    assert!(!without.status.success(), "{}", stdout(&without));

    // The recorder derives its expectations with the same patterns.
    let transcript = temp_path("assemble", "jsonl");
    std::fs::write(
        &transcript,
        "{\"role\":\"user\",\"text\":\"Assemble a sales dashboard\"}\n",
    )
    .unwrap();
    let recorded = temp_path("assemble-recorded", "toml");
    let out = convstate(&[
        "script",
        "--patterns",
        dir.to_str().unwrap(),
        "--record",
        recorded.to_str().unwrap(),
        transcript.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&recorded).unwrap();
    assert!(text.contains("artifact_creation"), "{text}");

    // A broken set is refused before anything runs, naming the file and line.
    std::fs::write(dir.join("goals.toml"), "[[goal]]\ntype = 3\n").unwrap();
    let out = convstate(&[
        "script",
        "--patterns",
        dir.to_str().unwrap(),
        script.to_str().unwrap(),
    ]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("goals.toml:"), "{err}");
}

#[test]
fn a_wrong_expectation_fails_with_a_readable_diff_and_the_corrected_script_passes() {
    let original = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scripts/worked-example.toml");
    let text = std::fs::read_to_string(&original).unwrap();
    // Step 3 must be planning; say understanding instead.
    let wrong_text = text.replacen("phase = \"planning\"", "phase = \"understanding\"", 1);
    let line = wrong_text[..wrong_text
        .find("phase = \"understanding\"\nmilestone = false")
        .unwrap()]
        .matches('\n')
        .count()
        + 1;
    let wrong: PathBuf = temp_path("wrong", "toml");
    std::fs::write(&wrong, &wrong_text).unwrap();
    let junit = temp_path("junit-wrong", "xml");
    let out = convstate(&[
        "script",
        wrong.to_str().unwrap(),
        "--junit",
        junit.to_str().unwrap(),
    ]);
    let text_out = stdout(&out);
    assert!(!out.status.success());
    let expected = format!(
        "{}:{line}: step 3 (user \"I need add, delete, and mark as complete functio…\"): phase\n    expected: understanding\n    got:      planning",
        wrong.display()
    );
    assert!(
        text_out.contains(&expected),
        "no\n{expected}\nin\n{text_out}"
    );
    assert!(
        text_out.trim_end().ends_with("0 passed, 1 failed"),
        "{text_out}"
    );
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert!(
        xml.contains("failures=\"1\"")
            && xml.contains("<failure message=\"phase: expected understanding, got planning\">"),
        "{xml}"
    );

    let out = convstate(&["script", original.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stdout(&out));
    assert!(stdout(&out).trim_end().ends_with("1 passed, 0 failed"));
}

#[test]
fn a_transcript_records_into_a_passing_script() {
    let recorded = temp_path("recorded", "toml");
    let out = convstate(&[
        "script",
        "--record",
        recorded.to_str().unwrap(),
        "tests/transcripts/worked-example.jsonl",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let script = std::fs::read_to_string(&recorded).unwrap();
    assert_eq!(script.matches("[[step]]").count(), 9);
    assert!(script.contains("phase = \"planning\""));
    let out = convstate(&["script", recorded.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stdout(&out));
}

#[tokio::test]
async fn a_live_session_records_into_a_passing_script() {
    let server = ServerProcess::start(&["--store", "memory:"]).unwrap();
    let (mut client, _) = Client::connect(&server.ws_url("")).await;
    client.turn("user", "Fix the checkout page", "c-1").await;
    client
        .turn("assistant", "How should it behave?", "c-2")
        .await;
    client.turn("user", "Faster, with fewer steps", "c-3").await;
    client
        .send(serde_json::json!({"type":"signal","signal":"approve","id":"c-4"}))
        .await;
    client.recv().await;
    client.recv().await;
    let recorded = temp_path("live", "toml");
    let url = server.ws_url("");
    let out = tokio::task::spawn_blocking(move || {
        convstate(&[
            "script",
            "--record",
            recorded.to_str().unwrap(),
            "--session",
            &client.session_id,
            "--url",
            &url,
        ])
        .status
        .success()
        .then_some(recorded)
    })
    .await
    .unwrap()
    .expect("recording succeeds");
    let script = std::fs::read_to_string(&out).unwrap();
    assert_eq!(script.matches("[[step]]").count(), 4);
    assert!(
        script.contains("signal = \"approve\"") && script.contains("phase = \"executing\""),
        "{script}"
    );
    // Run it against a server of its own.
    let result = convstate(&["script", out.to_str().unwrap()]);
    assert!(result.status.success(), "{}", stdout(&result));
    assert!(server.stop().0.success());
}

#[test]
fn a_broken_script_is_refused_with_its_line() {
    let bad = temp_path("bad", "toml");
    std::fs::write(
        &bad,
        "name = \"bad\"\n\n[[step]]\nuser = \"hi\"\n[step.expect]\nphaze = \"greeting\"\n",
    )
    .unwrap();
    let out = convstate(&["script", bad.to_str().unwrap()]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!("{}:6:", bad.display())) && err.contains("phaze"),
        "{err}"
    );
}

/// Against a server with authentication on: a script without a token is refused (401, said
/// plainly), with an admin token it passes (scripts speak as both roles); recording a live
/// session reads its log with the token from `--token` or `CONVSTATE_TOKEN` (an admin's, or
/// the session owner's; not another subject's).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn scripts_and_recordings_present_a_token() {
    const SECRET: &str = "scripts-secret-scripts-secret-scripts-secret";
    let mint = |sub: &str, role: &str| {
        jsonwebtoken::encode(
            &jsonwebtoken::Header::default(),
            &serde_json::json!({"sub": sub, "role": role,
                                "exp": chrono::Utc::now().timestamp() + 600}),
            &jsonwebtoken::EncodingKey::from_secret(SECRET.as_bytes()),
        )
        .unwrap()
    };
    let (admin, user) = (mint("ops", "admin"), mint("u1", "user"));
    let server = ServerProcess::spawn(
        &["--listen", "127.0.0.1:0", "--store", "memory:"],
        &[("CONVSTATE_JWT_SECRET", SECRET)],
    )
    .unwrap();
    let url = server.ws_url("");
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scripts/worked-example.toml");
    let example = example.to_str().unwrap().to_string();
    let run = |args: Vec<String>, env: Option<String>| {
        tokio::task::spawn_blocking(move || {
            let mut command = Command::new(env!("CARGO_BIN_EXE_convstate"));
            command.args(&args).env_remove("CONVSTATE_TOKEN");
            if let Some(token) = env {
                command.env("CONVSTATE_TOKEN", token);
            }
            command.output().unwrap()
        })
    };
    let args = |extra: &[&str]| {
        let mut a: Vec<String> = vec!["script".into(), "--url".into(), url.clone()];
        a.extend(extra.iter().map(|s| s.to_string()));
        a
    };
    let out = run(args(&[&example]), None).await.unwrap();
    assert!(!out.status.success());
    assert!(stdout(&out).contains("401"), "{}", stdout(&out));
    let out = run(args(&["--token", &admin, &example]), None)
        .await
        .unwrap();
    assert!(out.status.success(), "{}", stdout(&out));
    assert!(!stdout(&out).contains(&admin), "the token is never printed");

    let (mut client, _) = Client::connect(&server.ws_url(&format!("?token={user}"))).await;
    client.turn("user", "Fix the checkout page", "c-1").await;
    let recorded = temp_path("live-auth", "toml");
    let record = args(&[
        "--record",
        recorded.to_str().unwrap(),
        "--session",
        &client.session_id,
    ]);
    let out = run(record.clone(), Some(mint("u2", "user"))).await.unwrap();
    assert!(
        !out.status.success(),
        "another subject's token reads no log"
    );
    let said = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(said.contains("another subject"), "{said}");
    let out = run(record, Some(admin.clone())).await.unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let script = std::fs::read_to_string(&recorded).unwrap();
    assert_eq!(script.matches("[[step]]").count(), 1, "{script}");
    assert!(server.stop().0.success());
}
