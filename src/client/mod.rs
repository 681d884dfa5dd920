//! Clients of the protocol, over the same frame types as the server: the load generator, the
//! scripted client, and a small HTTP client. (Recording a script: `cli/record.rs`.)

pub mod http;
pub(crate) mod loadgen;
pub(crate) mod runner;
pub(crate) mod script;

type Socket =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// Opens a WebSocket to `url`, presenting `token` (if any) as `Authorization: Bearer`.
pub(crate) async fn open_socket(url: &str, token: Option<&str>) -> Result<Socket, String> {
    use tokio_tungstenite::tungstenite::client::IntoClientRequest;
    let mut request = url
        .into_client_request()
        .map_err(|e| format!("{url}: {e}"))?;
    if let Some(token) = token {
        let value = format!("Bearer {token}")
            .parse()
            .map_err(|_| "the token holds characters a header cannot carry".to_string())?;
        request.headers_mut().insert("Authorization", value);
    }
    match tokio_tungstenite::connect_async(request).await {
        Ok((ws, _)) => Ok(ws),
        // Refused before the upgrade: the status and the server's reason (its error object's
        // message, or its text).
        Err(tokio_tungstenite::tungstenite::Error::Http(response)) => {
            let body = response
                .body()
                .as_deref()
                .map(String::from_utf8_lossy)
                .unwrap_or_default();
            let reason = serde_json::from_str::<serde_json::Value>(&body)
                .ok()
                .and_then(|v| v["message"].as_str().map(String::from))
                .unwrap_or_else(|| body.trim().to_string());
            Err(format!(
                "{url} refused the connection: {}: {reason}",
                response.status()
            ))
        }
        Err(e) => Err(format!("cannot connect to {url}: {e}")),
    }
}
