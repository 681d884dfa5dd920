//! A peer of the server benchmark: a default axum WebSocket echo server (axum's extractor and
//! its defaults, nothing tuned), as a team starting a chat backend on axum would write it.
//!
//! `cargo run --release --example axum_echo -- 127.0.0.1:9002`

use axum::Router;
use axum::extract::ws::{WebSocket, WebSocketUpgrade};
use axum::response::Response;
use axum::routing::get;

async fn upgrade(ws: WebSocketUpgrade) -> Response {
    ws.on_upgrade(echo)
}

async fn echo(mut socket: WebSocket) {
    while let Some(Ok(message)) = socket.recv().await {
        let data = matches!(
            message,
            axum::extract::ws::Message::Text(_) | axum::extract::ws::Message::Binary(_)
        );
        if data && socket.send(message).await.is_err() {
            break;
        }
    }
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let addr = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "127.0.0.1:9002".to_string());
    let listener = tokio::net::TcpListener::bind(&addr).await?;
    eprintln!("axum echo listening address={}", listener.local_addr()?);
    axum::serve(listener, Router::new().route("/", get(upgrade))).await
}
