//! A small HTTP/1.1 client over hyper's, for the recorder and the tests: one request per
//! connection, the whole body read as text, every wait bounded.

use std::time::Duration;

use http_body_util::{BodyExt, Empty};
use hyper::body::Bytes;
use hyper_util::rt::TokioIo;

/// How long a request may take, from connecting to the end of the body.
const PATIENCE: Duration = Duration::from_secs(10);

/// A response: its status and its body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Response {
    pub status: u16,
    pub body: String,
}

/// `METHOD http://host:port/path` (a `ws://` URL is taken as its `http://` twin).
pub async fn request(method: &str, url: &str) -> Result<Response, String> {
    request_with(method, url, None).await
}

/// [`request`] with a bearer token, for a server with authentication on.
pub async fn request_with(
    method: &str,
    url: &str,
    token: Option<&str>,
) -> Result<Response, String> {
    tokio::time::timeout(PATIENCE, send(method, url, token))
        .await
        .map_err(|_| format!("{method} {url}: no answer in {} s", PATIENCE.as_secs()))?
}

pub async fn get(url: &str) -> Result<Response, String> {
    request("GET", url).await
}

async fn send(method: &str, url: &str, token: Option<&str>) -> Result<Response, String> {
    let rest = url
        .strip_prefix("http://")
        .or_else(|| url.strip_prefix("ws://"))
        .ok_or_else(|| format!("{url}: expected http://host:port/path"))?;
    let (host, path) = match rest.find('/') {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, "/"),
    };
    let stream = tokio::net::TcpStream::connect(host)
        .await
        .map_err(|e| format!("cannot connect to {host}: {e}"))?;
    let (mut sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .map_err(|e| format!("{host}: {e}"))?;
    let driver = tokio::spawn(connection);
    let mut request = hyper::Request::builder()
        .method(method)
        .uri(path)
        .header(hyper::header::HOST, host);
    if let Some(token) = token {
        request = request.header(hyper::header::AUTHORIZATION, format!("Bearer {token}"));
    }
    let request = request
        .body(Empty::<Bytes>::new())
        .map_err(|e| format!("{method} {url}: {e}"))?;
    let response = sender
        .send_request(request)
        .await
        .map_err(|e| format!("{method} {url}: {e}"))?;
    let status = response.status().as_u16();
    let body = response
        .into_body()
        .collect()
        .await
        .map_err(|e| format!("{method} {url}: {e}"))?
        .to_bytes();
    driver.abort();
    Ok(Response {
        status,
        body: String::from_utf8_lossy(&body).into_owned(),
    })
}
