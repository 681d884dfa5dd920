//! The database file deleted under a running server: the store notices (its inode), refuses
//! writes, `/readyz` turns unready, and what was acknowledged is saved back to the path, so a
//! restart serves it.

use std::time::{Duration, Instant};

use crate::common::{Client, ServerProcess, http, temp_path};
use convstate::protocol::{ErrorCode, ServerFrame};
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deleted_database_file_is_noticed_and_nothing_acknowledged_is_lost() {
    let db = temp_path("vanished", "db");
    let store = format!("sqlite:{}", db.display());
    let server = ServerProcess::start(&["--store", &store]).unwrap();
    let (mut client, _) = Client::connect(&server.ws_url("")).await;
    let id = client.session_id.clone();
    for k in 0..10 {
        client
            .turn(
                "user",
                &format!("Add field {k} to the form"),
                &format!("a-{k}"),
            )
            .await;
    }
    std::fs::remove_file(&db).unwrap();
    // Ready says so within a few seconds, without any write.
    let started = Instant::now();
    loop {
        let (status, _) = http(server.addr, "GET", "/readyz").await;
        if status == 503 {
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "/readyz still {status}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    // Further turns are refused, none acknowledged.
    for k in 10..20 {
        client
            .send(json!({"type": "message", "role": "user", "text": format!("Add field {k}"), "id": format!("a-{k}")}))
            .await;
        match client.recv().await {
            ServerFrame::Error(e) => {
                assert_eq!(e.code, ErrorCode::StoreUnavailable, "{}", e.message)
            }
            other => panic!("turn {k} after the deletion: {}", other.to_text()),
        }
    }
    let (status, log) = server.stop();
    assert!(status.success(), "{log:?}");
    assert!(
        log.iter().any(|l| l.contains("deleted or replaced")),
        "the log says what happened"
    );
    // A restart serves every acknowledged turn.
    let server = ServerProcess::start(&["--store", &store]).unwrap();
    let (mut again, _) = Client::connect(&server.ws_url(&format!("?session_id={id}"))).await;
    again.send(json!({"type": "get_state"})).await;
    assert_eq!(again.recv_state().await.seq, 10);
    let (status, _) = http(server.addr, "GET", "/readyz").await;
    assert_eq!(status, 200);
    assert!(server.stop().0.success());
}
