//! A session whose stored log cannot be read (a bad event row, a gap, a session row with a
//! value of another type) does not keep the server from starting: it is said, counted, and refused when asked
//! for, and every other session is served.

use crate::common::{Client, ServerProcess, http, temp_path};
use convstate::protocol::ErrorCode;
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unreadable_sessions_are_skipped_at_start_up_and_the_others_served() {
    let db = temp_path("unreadable", "db");
    let store = format!("sqlite:{}", db.display());
    let server = ServerProcess::start(&["--store", &store]).unwrap();
    let mut ids = Vec::new();
    for k in 0..4 {
        let (mut client, _) = Client::connect(&server.ws_url("")).await;
        client
            .turn(
                "user",
                "Build a landing page for a bakery",
                &format!("a-{k}"),
            )
            .await;
        client
            .turn(
                "user",
                "It should list the opening hours",
                &format!("b-{k}"),
            )
            .await;
        ids.push(client.session_id.clone());
    }
    assert!(server.stop().0.success());
    {
        let c = rusqlite::Connection::open(&db).unwrap();
        // A bad event, a gap in a log, a creation time of another type.
        c.execute(
            "UPDATE events SET event = '{not json' WHERE session_id = ?1 AND seq = 2",
            [&ids[0]],
        )
        .unwrap();
        c.execute(
            "DELETE FROM events WHERE session_id = ?1 AND seq = 1",
            [&ids[1]],
        )
        .unwrap();
        c.execute(
            "UPDATE sessions SET created_at = x'00ff' WHERE id = ?1",
            [&ids[2]],
        )
        .unwrap();
    }
    let server = ServerProcess::start(&["--store", &store]).expect("the server starts");
    let (_, metrics) = http(server.addr, "GET", "/metrics").await;
    assert!(
        metrics.contains("convstate_sessions_unreadable_total 3"),
        "{}",
        metrics
            .lines()
            .filter(|l| l.contains("unreadable"))
            .collect::<Vec<_>>()
            .join("\n")
    );
    // The sound one is served; the others are refused with a clear error.
    let (mut sound, _) = Client::connect(&server.ws_url(&format!("?session_id={}", ids[3]))).await;
    sound.send(json!({"type": "get_state"})).await;
    assert_eq!(sound.recv_state().await.seq, 2);
    for id in &ids[..3] {
        let (status, body) = http(server.addr, "GET", &format!("/api/sessions/{id}")).await;
        assert_eq!(status, 503, "{id}: {body}");
        assert_eq!(
            crate::common::error_code(&body),
            Some(ErrorCode::StoreUnavailable)
        );
    }
    let (_, log) = server.stop();
    assert!(
        log.iter()
            .filter(|l| l.contains("cannot be read: skipped"))
            .count()
            >= 3,
        "{log:?}"
    );
}
