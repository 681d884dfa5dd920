//! Floods: pings and frames over the rate count against it, and a client that keeps sending
//! far over it is closed (1008), while a bystander is served.

use std::time::{Duration, Instant};

use crate::common::{Client, StoreKind, TestServer};
use convstate::config::ServerConfig;
use futures_util::SinkExt;
use serde_json::json;
use tokio_tungstenite::tungstenite::Message;

fn config() -> ServerConfig {
    ServerConfig {
        rate_limit: 20,
        rate_burst: 40,
        ..ServerConfig::default()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_flooding_pings_or_frames_is_closed_and_a_bystander_is_served() {
    let server = TestServer::start(config(), None, StoreKind::Memory).await;
    let (mut bystander, _) = Client::connect(&server.ws_url("")).await;
    for kind in ["ping", "text"] {
        let (mut flooder, _) = Client::connect(&server.ws_url("")).await;
        let started = Instant::now();
        // Far more than the rate allows, at once.
        for _ in 0..2000 {
            let message = match kind {
                "ping" => Message::Ping(vec![1, 2, 3].into()),
                _ => Message::Text(r#"{"type":"get_state"}"#.into()),
            };
            if flooder.ws.feed(message).await.is_err() {
                break;
            }
        }
        let _ = flooder.ws.flush().await;
        assert_eq!(
            flooder.closed_with().await,
            Some(1008),
            "{kind}: a flooder is closed with 1008 (after {:?})",
            started.elapsed()
        );
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "{kind}: closed after {:?}",
            started.elapsed()
        );
        bystander
            .send(json!({"type": "message", "role": "user", "text": format!("Build a {kind} page"), "id": kind}))
            .await;
        bystander.recv_state().await;
        bystander.expect_ack(kind).await;
    }
    server.stop().await;
}
