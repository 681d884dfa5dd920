//! An orchestrator driving hosted flows through a small task graph (docs/flows.md).
//!
//! One `workflow` session for the whole job, one `task` session per task, a `retry` session for
//! a task whose review rejects it, and one `circuit-breaker` session that every task run
//! reports to. The server validates every move, stores it, and pushes it to every client of
//! the session (a UI watching the same sessions sees the job live).
//!
//! Run a server (`convstate serve`), then: `cargo run --example orchestrator [ws://127.0.0.1:8080/ws]`.
#![allow(dead_code)] // tests/orchestrator.rs takes `run` from this file

use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message;

type Socket =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// A session of one hosted flow.
pub(crate) struct Flow {
    socket: Socket,
    pub(crate) session_id: String,
    /// The flow's state (`state`, `counters`, `values`, `allowed_events` ...).
    pub(crate) state: Value,
    next: u64,
}

impl Flow {
    /// A new session of `flow` (with `settings`, `NAME=VALUE,...`).
    pub(crate) async fn open(url: &str, flow: &str, settings: &str) -> Result<Flow, String> {
        let mut address = format!("{url}?flow={flow}");
        if !settings.is_empty() {
            address.push_str(&format!("&settings={settings}"));
        }
        let (socket, _) = tokio_tungstenite::connect_async(&address)
            .await
            .map_err(|e| format!("{flow}: {e}"))?;
        let mut session = Flow {
            socket,
            session_id: String::new(),
            state: Value::Null,
            next: 0,
        };
        let welcome = session.frame().await?;
        session.session_id = welcome["session_id"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        session.state = welcome["state"].clone();
        Ok(session)
    }

    async fn frame(&mut self) -> Result<Value, String> {
        loop {
            let message =
                tokio::time::timeout(std::time::Duration::from_secs(10), self.socket.next())
                    .await
                    .map_err(|_| "no answer in 10 s".to_string())?
                    .ok_or("the connection closed")?
                    .map_err(|e| e.to_string())?;
            if let Message::Text(text) = message {
                return serde_json::from_str(&text).map_err(|e| e.to_string());
            }
        }
    }

    /// Sends an event and waits until it is stored (its ack); the state after it, or the
    /// server's refusal (`invalid_transition` with the allowed events).
    pub(crate) async fn send(&mut self, name: &str, data: Value) -> Result<&Value, Value> {
        self.next += 1;
        let id = format!("o-{}", self.next);
        let frame = json!({"type": "event", "name": name, "data": data, "id": id});
        self.socket
            .send(Message::Text(frame.to_string().into()))
            .await
            .map_err(|e| json!({"code": "closed", "message": e.to_string()}))?;
        loop {
            let frame = self
                .frame()
                .await
                .map_err(|e| json!({"code": "closed", "message": e}))?;
            match frame["type"].as_str() {
                Some("state") => self.state = frame["state"].clone(),
                Some("ack") if frame["id"] == id => return Ok(&self.state),
                Some("error") => return Err(frame),
                _ => {}
            }
        }
    }

    pub(crate) fn is(&self, state: &str) -> bool {
        self.state["state"] == state
    }
}

/// How a task's runs go in this example: the review's verdicts, in order.
struct Plan {
    name: &'static str,
    after: &'static [&'static str],
    reviews: &'static [&'static str],
}

const GRAPH: [Plan; 3] = [
    Plan {
        name: "schema",
        after: &[],
        reviews: &["approved"],
    },
    // Rejected once with low severity: the retry ladder's same-agent retry fixes it.
    Plan {
        name: "api",
        after: &["schema"],
        reviews: &["low", "approved"],
    },
    // Rejected with high severity: the task fails and blocks the workflow until the user
    // retries with guidance.
    Plan {
        name: "ui",
        after: &["schema"],
        reviews: &["high", "approved"],
    },
];

/// What the run ended with.
#[derive(Debug)]
pub(crate) struct Report {
    pub(crate) workflow: Value,
    pub(crate) tasks: Vec<(String, Value)>,
    pub(crate) breaker: Value,
    pub(crate) log: Vec<String>,
}

fn fail(e: Value) -> String {
    format!("refused: {}", e["message"])
}

/// Drives the graph to the end against the server at `url` (`ws://HOST:PORT/ws`).
pub(crate) async fn run(url: &str) -> Result<Report, String> {
    let mut log = Vec::new();
    let mut workflow = Flow::open(url, "workflow", "").await?;
    let mut breaker = Flow::open(url, "circuit-breaker", "threshold=3").await?;
    workflow
        .send("discovery_complete", json!({}))
        .await
        .map_err(fail)?;
    workflow
        .send("planning_complete", json!({}))
        .await
        .map_err(fail)?;
    log.push(format!("workflow {}: implementing", workflow.session_id));
    let mut done: Vec<&str> = Vec::new();
    let mut tasks = Vec::new();
    // Tasks in dependency order (the graph is small: its order is written so).
    for plan in &GRAPH {
        assert!(
            plan.after.iter().all(|d| done.contains(d)),
            "a task before its dependencies"
        );
        let mut task = Flow::open(url, "task", "max_attempts=3").await?;
        let mut retry: Option<Flow> = None;
        // The breaker decides whether a task may run at all.
        breaker.send("task", json!({})).await.map_err(fail)?;
        if breaker.is("open") {
            return Err("the circuit breaker is open: the user must intervene".into());
        }
        task.send("selected", json!({})).await.map_err(fail)?;
        for verdict in plan.reviews {
            task.send("implementation_complete", json!({}))
                .await
                .map_err(fail)?;
            if *verdict == "approved" {
                task.send("approved", json!({})).await.map_err(fail)?;
                breaker.send("success", json!({})).await.map_err(fail)?;
                if let Some(r) = retry.as_mut() {
                    r.send("approved", json!({})).await.map_err(fail)?;
                }
                break;
            }
            breaker.send("failure", json!({})).await.map_err(fail)?;
            let feedback =
                json!({"severity": verdict, "feedback": format!("{} needs work", plan.name)});
            task.send("rejected", feedback).await.map_err(fail)?;
            if task.is("retry_queued") {
                // The retry ladder says who tries again.
                let ladder = match retry.as_mut() {
                    Some(r) => r,
                    None => retry.insert(Flow::open(url, "retry", "").await?),
                };
                ladder
                    .send("rejected", json!({"feedback": "needs work"}))
                    .await
                    .map_err(fail)?;
                log.push(format!(
                    "task {}: retried by the {} agent",
                    plan.name, ladder.state["values"]["agent"]
                ));
                task.send("slot_available", json!({})).await.map_err(fail)?;
            } else if task.is("failed") {
                // A high-severity failure blocks the workflow; the user retries with guidance.
                let blocked = json!({"severity": "high", "task": plan.name});
                workflow.send("task_failed", blocked).await.map_err(fail)?;
                log.push(format!(
                    "workflow blocked: {}",
                    workflow.state["values"]["blocked_reason"]
                ));
                workflow.send("retry", json!({})).await.map_err(fail)?;
                task.send("retry", json!({"guidance": "follow the design system"}))
                    .await
                    .map_err(fail)?;
            }
        }
        if !task.is("completed") {
            return Err(format!(
                "task {} ended in {}",
                plan.name, task.state["state"]
            ));
        }
        workflow
            .send("task_completed", json!({}))
            .await
            .map_err(fail)?;
        log.push(format!(
            "task {}: completed after {} attempt(s)",
            plan.name, task.state["counters"]["attempts"]
        ));
        done.push(plan.name);
        tasks.push((plan.name.to_string(), task.state.clone()));
    }
    workflow
        .send("all_tasks_done", json!({}))
        .await
        .map_err(fail)?;
    workflow.send("merged", json!({})).await.map_err(fail)?;
    log.push(format!("workflow: {}", workflow.state["state"]));
    Ok(Report {
        workflow: workflow.state.clone(),
        tasks,
        breaker: breaker.state.clone(),
        log,
    })
}

#[tokio::main]
async fn main() {
    let url = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "ws://127.0.0.1:8080/ws".to_string());
    match run(&url).await {
        Ok(report) => {
            for line in &report.log {
                println!("{line}");
            }
            println!("circuit breaker: {}", report.breaker["state"]);
        }
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    }
}
