//! The baseline of the server benchmark: a minimal tokio-tungstenite echo server, as a chat
//! backend that does nothing would be. Each text frame comes back as it went.
//!
//! `cargo run --release --example echo_server -- 127.0.0.1:9001`

use futures_util::{SinkExt, StreamExt};
use tokio::net::TcpListener;

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let addr = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "127.0.0.1:9001".to_string());
    let listener = TcpListener::bind(&addr).await?;
    eprintln!("echo server listening address={}", listener.local_addr()?);
    loop {
        let (stream, _) = listener.accept().await?;
        tokio::spawn(async move {
            let Ok(mut ws) = tokio_tungstenite::accept_async(stream).await else {
                return;
            };
            while let Some(Ok(message)) = ws.next().await {
                if (message.is_text() || message.is_binary()) && ws.send(message).await.is_err() {
                    break;
                }
            }
        });
    }
}
