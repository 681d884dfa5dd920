//! The demo page and its embed script, compiled into the binary so the server shows them
//! wherever it is started.

use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};

const INDEX: &str = include_str!("../../web-demo/index.html");
const APP: &str = include_str!("../../web-demo/app.js");
const STYLE: &str = include_str!("../../web-demo/style.css");
const EMBED: &str = include_str!("../../web-demo/embed.js");

fn asset(content_type: &'static str, body: &'static str) -> Response {
    (
        [
            (header::CONTENT_TYPE, HeaderValue::from_static(content_type)),
            // The page changes with the binary; a stale cached copy would speak to a newer
            // server.
            (header::CACHE_CONTROL, HeaderValue::from_static("no-cache")),
        ],
        body,
    )
        .into_response()
}

pub(crate) async fn index() -> Response {
    asset("text/html; charset=utf-8", INDEX)
}

pub(crate) async fn app() -> Response {
    asset("text/javascript; charset=utf-8", APP)
}

pub(crate) async fn style() -> Response {
    asset("text/css; charset=utf-8", STYLE)
}

pub(crate) async fn embed() -> Response {
    asset("text/javascript; charset=utf-8", EMBED)
}
