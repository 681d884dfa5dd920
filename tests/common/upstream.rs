//! A local OpenAI-compatible chat-completions server for the tests of the `llm` assistant: a
//! real HTTP server (hyper) streaming Server-Sent Events as the real APIs do, which a test tells
//! how to answer each call (stream a reply, slowly or not; fail with a status; stall; send a
//! malformed chunk). It keeps every request's body, and when each call's client went away.
#![allow(dead_code)]

use std::collections::VecDeque;
use std::convert::Infallible;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use http_body_util::{BodyExt, Full, StreamBody, combinators::BoxBody};
use hyper::body::{Bytes, Frame, Incoming};
use hyper::{Request, Response};
use serde_json::{Value, json};

/// How the server answers one call.
#[derive(Clone, Debug)]
pub(crate) enum Behaviour {
    /// Streams these pieces, `gap` apart, then the usage and `[DONE]`.
    Reply { pieces: Vec<String>, gap: Duration },
    /// Answers with this HTTP status and an error body.
    Status(u16),
    /// Streams these pieces, then nothing more, keeping the connection open.
    Stall { pieces: Vec<String> },
    /// A chunk that is not JSON.
    Malformed,
}

impl Behaviour {
    pub(crate) fn reply(text: &str) -> Behaviour {
        Behaviour::Reply {
            pieces: text.split_inclusive(' ').map(String::from).collect(),
            gap: Duration::ZERO,
        }
    }
}

#[derive(Default)]
struct Shared {
    script: VecDeque<Behaviour>,
    default: Option<Behaviour>,
    requests: Vec<Value>,
    /// When each streamed call's client went away before the end.
    dropped: Vec<Instant>,
}

pub(crate) struct Upstream {
    /// The base URL, up to `/v1`.
    pub url: String,
    shared: Arc<Mutex<Shared>>,
    task: tokio::task::JoinHandle<()>,
}

impl Upstream {
    pub(crate) async fn start() -> Upstream {
        Upstream::start_on("127.0.0.1:0").await
    }

    /// On `addr` (an upstream that comes back where it was).
    pub(crate) async fn start_on(addr: &str) -> Upstream {
        let mut tries = 0;
        let listener = loop {
            match tokio::net::TcpListener::bind(addr).await {
                Ok(l) => break l,
                Err(e) if tries < 50 => {
                    tries += 1;
                    let _ = e;
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
                Err(e) => panic!("cannot listen on {addr}: {e}"),
            }
        };
        let addr = listener.local_addr().unwrap();
        let shared = Arc::new(Mutex::new(Shared {
            default: Some(Behaviour::reply("Hello! What would you like to build?")),
            ..Shared::default()
        }));
        let serving = shared.clone();
        let task = tokio::spawn(async move {
            let mut connections = tokio::task::JoinSet::new();
            loop {
                let Ok((stream, _)) = listener.accept().await else {
                    continue;
                };
                let shared = serving.clone();
                connections.spawn(async move {
                    let service = hyper::service::service_fn(move |req| {
                        let shared = shared.clone();
                        async move { Ok::<_, Infallible>(answer(req, shared).await) }
                    });
                    let _ = hyper::server::conn::http1::Builder::new()
                        .serve_connection(hyper_util::rt::TokioIo::new(stream), service)
                        .await;
                });
            }
        });
        Upstream {
            url: format!("http://{addr}/v1"),
            shared,
            task,
        }
    }

    /// The next calls are answered so, in order; then as `default` says.
    pub(crate) fn script(&self, behaviours: impl IntoIterator<Item = Behaviour>) {
        self.shared.lock().unwrap().script.extend(behaviours);
    }

    pub(crate) fn default(&self, behaviour: Behaviour) {
        self.shared.lock().unwrap().default = Some(behaviour);
    }

    /// The bodies of the calls received so far.
    pub(crate) fn requests(&self) -> Vec<Value> {
        self.shared.lock().unwrap().requests.clone()
    }

    pub(crate) fn dropped(&self) -> Vec<Instant> {
        self.shared.lock().unwrap().dropped.clone()
    }

    /// Stops answering: the listener and every connection close.
    pub(crate) fn kill(&self) {
        self.task.abort();
    }
}

impl Drop for Upstream {
    fn drop(&mut self) {
        self.task.abort();
    }
}

type Body = BoxBody<Bytes, Infallible>;

async fn answer(req: Request<Incoming>, shared: Arc<Mutex<Shared>>) -> Response<Body> {
    let path = req.uri().path().to_string();
    let body = req.into_body().collect().await.map(|b| b.to_bytes());
    let json: Value = body
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or(Value::Null);
    if path != "/v1/chat/completions" || json["stream"] != true {
        return plain(404, "no such route, or not a streamed call");
    }
    let behaviour = {
        let mut s = shared.lock().unwrap();
        s.requests.push(json);
        let next = s.script.pop_front();
        next.or_else(|| s.default.clone())
            .unwrap_or(Behaviour::Status(500))
    };
    match behaviour {
        Behaviour::Status(code) => plain(code, r#"{"error":{"message":"told to fail"}}"#),
        Behaviour::Malformed => stream(
            vec![("data: {not json\n\n".into(), Duration::ZERO)],
            false,
            shared,
        ),
        Behaviour::Reply { pieces, gap } => {
            let mut events: Vec<(String, Duration)> =
                pieces.iter().map(|p| (chunk(p), gap)).collect();
            let usage = json!({"id": "c-1", "object": "chat.completion.chunk", "choices": [],
                "usage": {"prompt_tokens": 100, "completion_tokens": pieces.len(), "total_tokens": 100 + pieces.len()}});
            events.push((format!("data: {usage}\n\n"), Duration::ZERO));
            events.push(("data: [DONE]\n\n".into(), Duration::ZERO));
            stream(events, false, shared)
        }
        Behaviour::Stall { pieces } => {
            let events = pieces.iter().map(|p| (chunk(p), Duration::ZERO)).collect();
            stream(events, true, shared)
        }
    }
}

fn chunk(piece: &str) -> String {
    let c = json!({"id": "c-1", "object": "chat.completion.chunk", "model": "test",
        "choices": [{"index": 0, "delta": {"content": piece}, "finish_reason": null}]});
    format!("data: {c}\n\n")
}

fn plain(status: u16, body: &str) -> Response<Body> {
    Response::builder()
        .status(status)
        .header("content-type", "application/json")
        .body(Full::new(Bytes::from(body.to_string())).boxed())
        .unwrap()
}

/// An SSE response sending `events` (each after its delay); with `hang`, it then stays open.
/// When the client goes away first, the time is recorded.
fn stream(
    events: Vec<(String, Duration)>,
    hang: bool,
    shared: Arc<Mutex<Shared>>,
) -> Response<Body> {
    let (tx, rx) = tokio::sync::mpsc::channel::<Bytes>(4);
    tokio::spawn(async move {
        for (event, delay) in events {
            if !delay.is_zero() {
                tokio::select! {
                    _ = tokio::time::sleep(delay) => {}
                    _ = tx.closed() => {
                        shared.lock().unwrap().dropped.push(Instant::now());
                        return;
                    }
                }
            }
            if tx.send(Bytes::from(event)).await.is_err() {
                shared.lock().unwrap().dropped.push(Instant::now());
                return;
            }
        }
        if hang {
            tx.closed().await;
            shared.lock().unwrap().dropped.push(Instant::now());
        }
    });
    let body = futures_util::stream::unfold(rx, |mut rx| async move {
        rx.recv()
            .await
            .map(|b| (Ok::<_, Infallible>(Frame::data(b)), rx))
    });
    Response::builder()
        .header("content-type", "text/event-stream")
        .body(BodyExt::boxed(StreamBody::new(body)))
        .unwrap()
}
