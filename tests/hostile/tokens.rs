//! Tokens over their lifetime: a token without the configured issuer or audience, or not valid
//! yet, is refused at the upgrade; a connection whose token expires is told so and closed.

use std::time::Duration;

use crate::common::{Client, StoreKind, TestServer, error_code, upgrade};
use convstate::config::{Secret, ServerConfig};
use convstate::protocol::{ErrorCode, ServerFrame};
use jsonwebtoken::{EncodingKey, Header, encode};
use serde_json::{Value, json};

const SECRET: &str = "hostile-secret-hostile-secret-hostile";

fn config() -> ServerConfig {
    ServerConfig {
        jwt_secret: Some(Secret(SECRET.into())),
        jwt_issuer: Some("https://auth.example".into()),
        jwt_audience: Some("convstate".into()),
        // Pinged every 3 s: the clients below, idle for 4 s, are not dropped as silent.
        ping_interval: Duration::from_secs(3),
        ..ServerConfig::default()
    }
}

fn claims(exp_in: i64) -> Value {
    json!({
        "sub": "u-1",
        "role": "user",
        "iss": "https://auth.example",
        "aud": "convstate",
        "exp": chrono::Utc::now().timestamp() + exp_in,
    })
}

fn mint(claims: &Value) -> String {
    encode(
        &Header::default(),
        claims,
        &EncodingKey::from_secret(SECRET.as_bytes()),
    )
    .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_token_without_the_configured_issuer_or_audience_or_not_valid_yet_is_refused() {
    let server = TestServer::start(config(), None, StoreKind::Memory).await;
    let good = claims(600);
    let (status, _) = upgrade(server.addr, &format!("?token={}", mint(&good))).await;
    assert_eq!(status, 101);
    for (change, words) in [
        ("iss", "missing: iss"),
        ("aud", "missing: aud"),
        ("nbf", "not valid yet"),
    ] {
        let mut c = good.clone();
        if change == "nbf" {
            c["nbf"] = (chrono::Utc::now().timestamp() + 600).into();
        } else {
            c.as_object_mut().unwrap().remove(change);
        }
        let (status, body) = upgrade(server.addr, &format!("?token={}", mint(&c))).await;
        assert_eq!(status, 401, "{change}: {body}");
        assert_eq!(error_code(&body), Some(ErrorCode::Unauthorized));
        assert!(body.contains(words), "{change}: {body}");
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_connection_whose_token_expires_is_told_and_closed_with_4001() {
    let server = TestServer::start(config(), None, StoreKind::Memory).await;
    // Expired 27 s ago: still within the 30 s leeway, so accepted for about 3 s more.
    let token = mint(&claims(-27));
    let (mut talker, _) = Client::connect(&server.ws_url(&format!("?token={token}"))).await;
    talker.turn("user", "Build a landing page", "t-1").await;
    let id = talker.session_id.clone();
    let (mut listener, _) =
        Client::connect(&server.ws_url(&format!("?token={token}&session_id={id}"))).await;
    tokio::time::sleep(Duration::from_secs(4)).await;
    // The next turn is refused, then the connection closes.
    talker
        .send(json!({"type": "message", "role": "user", "text": "Add a menu", "id": "t-2"}))
        .await;
    let refused = loop {
        match talker.recv().await {
            ServerFrame::Error(e) => break e,
            ServerFrame::State(_) | ServerFrame::Ack(_) => panic!("a turn acked after expiry"),
            _ => continue,
        }
    };
    assert_eq!(refused.code, ErrorCode::TokenExpired, "{}", refused.message);
    assert_eq!(talker.closed_with().await, Some(4001));
    // One that only listens is closed at its next ping, told why.
    assert!(
        listener
            .expect_error(ErrorCode::TokenExpired)
            .await
            .contains("expired")
    );
    assert_eq!(listener.closed_with().await, Some(4001));
    // Nothing was applied after the expiry.
    let (mut admin_view, _) =
        Client::connect(&server.ws_url(&format!("?token={}&session_id={id}", mint(&claims(600)))))
            .await;
    admin_view.send(json!({"type": "get_state"})).await;
    assert_eq!(admin_view.recv_state().await.seq, 1);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_websocket_answers_a_foreign_session_and_a_missing_one_alike() {
    let server = TestServer::start(config(), None, StoreKind::Memory).await;
    let mut owner = claims(600);
    owner["sub"] = "owner".into();
    let (mut client, _) =
        Client::connect(&server.ws_url(&format!("?token={}", mint(&owner)))).await;
    client.turn("user", "Build a landing page", "o-1").await;
    let foreign = client.session_id.clone();
    let stranger = mint(&claims(600));
    let (status_foreign, body_foreign) = upgrade(
        server.addr,
        &format!("?token={stranger}&session_id={foreign}"),
    )
    .await;
    let (status_missing, body_missing) = upgrade(
        server.addr,
        &format!("?token={stranger}&session_id=s-nobody-here"),
    )
    .await;
    assert_eq!((status_foreign, status_missing), (403, 403));
    assert_eq!(body_foreign, body_missing);
    assert_eq!(error_code(&body_missing), Some(ErrorCode::Forbidden));
    // An admin is told the truth.
    let mut admin = claims(600);
    admin["role"] = "admin".into();
    let (status, _) = upgrade(
        server.addr,
        &format!("?token={}&session_id=s-nobody-here", mint(&admin)),
    )
    .await;
    assert_eq!(status, 101);
    server.stop().await;
}
