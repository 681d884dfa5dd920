//! Runs conversation scripts against a server and reports: a line per step (or a progress line
//! per script on a terminal), a diff per failed expectation with file, line and step, a final
//! `N passed, N failed`, and optionally a JUnit XML report.

use std::future::Future;
use std::io::Write as _;
use std::path::PathBuf;
use std::pin::Pin;
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use tokio_tungstenite::tungstenite::Message;

use super::script::{Action, Mismatch, Script, check};
use crate::protocol::{ClientFrame, ErrorCode, ServerFrame, StateUpdate, Welcome};
use crate::protocol::{Conversation, Transition};

type Socket =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// How long a step may wait for its answer.
const PATIENCE: Duration = Duration::from_secs(10);

#[derive(Clone)]
pub(crate) struct Options {
    /// A live server (`ws://host:port/ws`); `None` starts one in the process per script.
    pub url: Option<String>,
    /// A token presented on every connection (a server with authentication on).
    pub token: Option<String>,
    /// Starts the in-process server of a script run without a URL.
    pub local: LocalServer,
    pub jobs: usize,
}

/// A server of the process's own, for a script run without a URL: started with the script's
/// idle timeout, it gives its URL and the sender that stops it. The command supplies it: the
/// client knows no server and no store.
pub(crate) type LocalServer = Arc<
    dyn Fn(
            Option<chrono::TimeDelta>,
        ) -> Pin<Box<dyn Future<Output = Result<Started, String>> + Send>>
        + Send
        + Sync,
>;

/// A local server's URL, and the sender that stops it.
pub(crate) type Started = (String, tokio::sync::oneshot::Sender<()>);

/// The outcome of one step.
#[derive(Clone, Debug)]
pub(crate) struct StepOutcome {
    pub action: String,
    pub mismatches: Vec<Mismatch>,
}

/// The outcome of one script.
#[derive(Clone, Debug)]
pub(crate) struct Outcome {
    pub path: PathBuf,
    pub name: String,
    pub steps: Vec<StepOutcome>,
    /// The script could not run to its end (no server, a closed connection, an error frame).
    pub error: Option<String>,
    pub seconds: f64,
}

impl Outcome {
    pub(crate) fn passed(&self) -> bool {
        self.error.is_none() && self.steps.iter().all(|s| s.mismatches.is_empty())
    }

    /// The readable report of the failures: file, line, step, expected and got.
    pub(crate) fn diff(&self) -> String {
        let mut out = String::new();
        let file = self.path.display();
        for (i, step) in self.steps.iter().enumerate() {
            for m in &step.mismatches {
                out.push_str(&format!(
                    "  {file}:{}: step {} ({}): {}\n    expected: {}\n    got:      {}\n",
                    m.line,
                    i + 1,
                    step.action,
                    m.what,
                    m.expected,
                    m.got
                ));
            }
        }
        if let Some(e) = &self.error {
            out.push_str(&format!("  {file}: {e}\n"));
        }
        out
    }
}

/// How steps are shown while they run.
#[derive(Clone, Copy, PartialEq)]
enum Progress {
    /// A line per step (not a terminal; with several jobs the lines of scripts interleave, each
    /// naming its file and line).
    Lines,
    /// One line per script, rewritten in place at each step (a terminal, one job).
    InPlace,
    /// Only each script's verdict (a terminal, several jobs).
    Quiet,
}

/// Runs the scripts, `jobs` at a time, printing as it goes. Returns the outcomes in the order
/// of `scripts`.
pub(crate) async fn run_all(scripts: Vec<(Script, String)>, options: &Options) -> Vec<Outcome> {
    let tty = std::io::IsTerminal::is_terminal(&std::io::stdout());
    let progress = match (tty, options.jobs <= 1) {
        (false, _) => Progress::Lines,
        (true, true) => Progress::InPlace,
        (true, false) => Progress::Quiet,
    };
    let permits = Arc::new(tokio::sync::Semaphore::new(options.jobs.max(1)));
    let mut tasks = Vec::new();
    for (script, text) in scripts {
        let permits = permits.clone();
        let url = options.url.clone();
        let token = options.token.clone();
        let local = options.local.clone();
        tasks.push(tokio::spawn(async move {
            let _permit = permits.acquire_owned().await;
            let server = Server {
                url: url.as_deref(),
                token: token.as_deref(),
            };
            run_one(&script, &text, server, &local, progress).await
        }));
    }
    let mut outcomes = Vec::new();
    for t in tasks {
        match t.await {
            Ok(o) => outcomes.push(o),
            Err(e) => eprintln!("error: a script task failed: {e}"),
        }
    }
    outcomes
}

fn print_outcome(o: &Outcome) {
    let mut out = std::io::stdout().lock();
    let verdict = if o.passed() { "PASS" } else { "FAIL" };
    let _ = writeln!(
        out,
        "{verdict} {} ({}, {} steps, {:.2} s)",
        o.name,
        o.path.display(),
        o.steps.len(),
        o.seconds
    );
    if !o.passed() {
        let _ = write!(out, "{}", o.diff());
    }
}

/// Where a script runs: a live server (`None`: one in the process), and the token to present.
#[derive(Clone, Copy)]
struct Server<'a> {
    url: Option<&'a str>,
    token: Option<&'a str>,
}

/// Runs one script, showing its steps as `progress` says, then its verdict.
async fn run_one(
    script: &Script,
    text: &str,
    server: Server<'_>,
    start: &LocalServer,
    progress: Progress,
) -> Outcome {
    let started = Instant::now();
    let mut outcome = Outcome {
        path: script.path.clone(),
        name: script.name.clone(),
        steps: Vec::new(),
        error: None,
        seconds: 0.0,
    };
    // Without a URL, a server of our own, with the script's idle timeout.
    let mut local = None;
    let url = match server.url {
        Some(u) => u.to_string(),
        None => match start(script.idle_timeout).await {
            Ok((u, stop)) => {
                local = Some(stop);
                u
            }
            Err(e) => {
                outcome.error = Some(e);
                return outcome;
            }
        },
    };
    let result = drive(script, text, &url, server.token, &mut outcome, progress).await;
    if let Err(e) = result {
        outcome.error = Some(e);
    }
    if let Some(stop) = local {
        let _ = stop.send(());
    }
    outcome.seconds = started.elapsed().as_secs_f64();
    if progress == Progress::InPlace {
        let _ = write!(std::io::stdout(), "\r\x1b[K");
    }
    print_outcome(&outcome);
    outcome
}

/// What a step saw: the state after it, its transitions, the summary.
struct Seen {
    state: Conversation,
    transitions: Vec<Transition>,
    summary: String,
    seq: u64,
    /// What the server's assistant said in answer (a guide session).
    answers: Vec<String>,
}

impl Seen {
    fn of(frame: StateUpdate<'static>) -> Seen {
        Seen {
            seq: frame.seq,
            state: frame.state.into_owned(),
            transitions: frame.transitions.into_owned(),
            summary: frame.summary.into_owned(),
            answers: Vec::new(),
        }
    }
}

async fn drive(
    script: &Script,
    text: &str,
    url: &str,
    token: Option<&str>,
    outcome: &mut Outcome,
    progress: Progress,
) -> Result<(), String> {
    // The script's choice of assistant goes with every connection of it.
    let chosen = script
        .assistant
        .map(|mode| format!("assistant={mode}"))
        .unwrap_or_default();
    let with = |url: &str, query: &str| match (query.is_empty(), chosen.is_empty()) {
        (true, true) => url.to_string(),
        (false, true) => format!("{url}?{query}"),
        (true, false) => format!("{url}?{chosen}"),
        (false, false) => format!("{url}?{query}&{chosen}"),
    };
    let (mut ws, welcome) = connect(&with(url, ""), token).await?;
    let session = welcome.session_id.to_string();
    let mut seq = welcome.seq;
    let file = script.path.display();
    for (i, step) in script.steps.iter().enumerate() {
        let id = format!("script-{}", i + 1);
        let seen = match &step.action {
            Action::Message {
                role,
                text,
                artifact,
            } => {
                let frame = ClientFrame::Message {
                    role: *role,
                    text: text.clone(),
                    id: Some(id.clone()),
                    artifact: artifact.then_some(serde_json::Value::Bool(true)),
                };
                exchange(&mut ws, &frame, &id, seq).await?
            }
            Action::Signal(signal) => {
                let frame = ClientFrame::Signal {
                    signal: *signal,
                    id: Some(id.clone()),
                };
                exchange(&mut ws, &frame, &id, seq).await?
            }
            Action::Reset => {
                let frame = ClientFrame::Reset {
                    id: Some(id.clone()),
                };
                exchange(&mut ws, &frame, &id, seq).await?
            }
            Action::Wait(d) => wait(&mut ws, *d).await?,
            Action::Reconnect => {
                let _ = ws.close(None).await;
                let (again, welcome) = connect(
                    &with(url, &format!("session_id={session}&last_seq={seq}")),
                    token,
                )
                .await?;
                ws = again;
                Seen {
                    seq: welcome.seq,
                    summary: welcome.summary.into_owned(),
                    state: welcome.state.into_owned(),
                    transitions: Vec::new(),
                    answers: Vec::new(),
                }
            }
        };
        seq = seen.seq;
        let mismatches = check(
            &step.expect,
            &seen.state,
            &seen.transitions,
            &seen.summary,
            &seen.answers,
            text,
        );
        let phase = seen.state.phase.to_string();
        let action = step.action.describe();
        match progress {
            Progress::InPlace => {
                let _ = write!(
                    std::io::stdout(),
                    "\r\x1b[K[{}/{}] {} {action} -> {phase}",
                    i + 1,
                    script.steps.len(),
                    script.name
                );
                let _ = std::io::stdout().flush();
            }
            Progress::Lines => {
                let mark = if mismatches.is_empty() {
                    "ok  "
                } else {
                    "FAIL"
                };
                say!(
                    "  {mark} {file}:{} step {} {action} -> {phase}",
                    step.line,
                    i + 1
                );
            }
            Progress::Quiet => {}
        }
        outcome.steps.push(StepOutcome { action, mismatches });
    }
    let _ = ws.close(None).await;
    Ok(())
}

async fn connect(url: &str, token: Option<&str>) -> Result<(Socket, Welcome<'static>), String> {
    let mut ws = super::open_socket(url, token).await?;
    match next_frame(&mut ws).await? {
        ServerFrame::Welcome(welcome) => Ok((ws, welcome)),
        other => Err(format!("expected a welcome frame, got {}", other.to_text())),
    }
}

async fn next_frame(ws: &mut Socket) -> Result<ServerFrame<'static>, String> {
    loop {
        let message = tokio::time::timeout(PATIENCE, ws.next())
            .await
            .map_err(|_| "no answer from the server in 10 s".to_string())?
            .ok_or("the server closed the connection")?
            .map_err(|e| format!("connection: {e}"))?;
        match message {
            Message::Text(t) => return ServerFrame::parse(&t),
            Message::Close(_) => return Err("the server closed the connection".into()),
            _ => continue,
        }
    }
}

async fn send(ws: &mut Socket, frame: &ClientFrame) -> Result<(), String> {
    let text = crate::protocol::to_text(frame);
    ws.send(Message::Text(text.into()))
        .await
        .map_err(|e| format!("send: {e}"))
}

/// Sends a frame with `id` and returns the state frame of its change (matched by the ack's
/// `seq`). In a guide session the ack names the guide's last answer: the step's transitions
/// are then those of every change after `after` up to it, and its answers what the guide said.
/// A rate-limited frame is sent again a second later.
async fn exchange(
    ws: &mut Socket,
    frame: &ClientFrame,
    id: &str,
    after: u64,
) -> Result<Seen, String> {
    let mut frames: Vec<StateUpdate<'static>> = Vec::new();
    send(ws, frame).await?;
    loop {
        match next_frame(ws).await? {
            ServerFrame::State(state) => frames.push(state),
            ServerFrame::Ack(ack) if ack.id == id => {
                let own = frames.iter().rposition(|s| s.seq == ack.seq);
                let step: Vec<&StateUpdate<'static>> = frames
                    .iter()
                    .filter(|s| s.seq > after && s.seq <= ack.seq)
                    .collect();
                let transitions: Vec<Transition> = step
                    .iter()
                    .flat_map(|s| s.transitions.iter().copied())
                    .collect();
                let answers: Vec<String> = step
                    .iter()
                    .filter_map(|s| s.message.as_ref())
                    .filter(|m| m.role == crate::protocol::Role::Assistant)
                    .map(|m| m.text.to_string())
                    .collect();
                let guided = !answers.is_empty()
                    && !matches!(
                        frame,
                        ClientFrame::Message {
                            role: crate::protocol::Role::Assistant,
                            ..
                        }
                    );
                return Ok(match own {
                    Some(at) => {
                        let mut seen = Seen::of(frames.swap_remove(at));
                        if guided {
                            seen.transitions = transitions;
                            seen.answers = answers;
                        }
                        seen
                    }
                    None => {
                        // Acknowledged without a change of its own: the current state.
                        send(ws, &ClientFrame::GetState {}).await?;
                        let mut now = Seen::of(next_state(ws).await?);
                        now.transitions.clear();
                        now
                    }
                });
            }
            ServerFrame::Error(e) if e.code == ErrorCode::RateLimited => {
                tokio::time::sleep(Duration::from_secs(1)).await;
                send(ws, frame).await?;
            }
            ServerFrame::Error(e) => {
                return Err(format!(
                    "the server refused the step: {} ({})",
                    e.message, e.code
                ));
            }
            _ => {}
        }
    }
}

async fn next_state(ws: &mut Socket) -> Result<StateUpdate<'static>, String> {
    loop {
        if let ServerFrame::State(state) = next_frame(ws).await? {
            return Ok(state);
        }
    }
}

/// Waits, keeping what the server pushes meanwhile (an idle transition); the step's state is
/// the state after the wait, its transitions those pushed during it.
async fn wait(ws: &mut Socket, d: Duration) -> Result<Seen, String> {
    let until = tokio::time::Instant::now() + d;
    let mut transitions = Vec::new();
    loop {
        match tokio::time::timeout_at(until, ws.next()).await {
            Err(_) => break,
            Ok(Some(Ok(Message::Text(t)))) => {
                if let ServerFrame::State(state) = ServerFrame::parse(&t)? {
                    transitions.extend(state.transitions.iter().copied());
                }
            }
            Ok(Some(Ok(_))) => {}
            Ok(_) => return Err("the server closed the connection during a wait".into()),
        }
    }
    send(ws, &ClientFrame::GetState {}).await?;
    let mut now = Seen::of(next_state(ws).await?);
    now.transitions = transitions;
    Ok(now)
}

/// A JUnit XML report: one test case per script.
pub(crate) fn junit(outcomes: &[Outcome]) -> String {
    fn esc(s: &str) -> String {
        s.replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;")
            .replace('"', "&quot;")
    }
    let failures = outcomes.iter().filter(|o| !o.passed()).count();
    let total: f64 = outcomes.iter().map(|o| o.seconds).sum();
    let mut out = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"convstate scripts\" tests=\"{}\" failures=\"{failures}\" time=\"{total:.3}\">\n<testsuite name=\"convstate scripts\" tests=\"{}\" failures=\"{failures}\" time=\"{total:.3}\">\n",
        outcomes.len(),
        outcomes.len()
    );
    for o in outcomes {
        out.push_str(&format!(
            "  <testcase name=\"{}\" classname=\"{}\" time=\"{:.3}\">",
            esc(&o.name),
            esc(&o.path.display().to_string()),
            o.seconds
        ));
        if o.passed() {
            out.push_str("</testcase>\n");
        } else {
            let first = o
                .steps
                .iter()
                .flat_map(|s| s.mismatches.first())
                .next()
                .map(|m| format!("{}: expected {}, got {}", m.what, m.expected, m.got))
                .or_else(|| o.error.clone())
                .unwrap_or_default();
            out.push_str(&format!(
                "\n    <failure message=\"{}\">{}</failure>\n  </testcase>\n",
                esc(&first),
                esc(&o.diff())
            ));
        }
    }
    out.push_str("</testsuite>\n</testsuites>\n");
    out
}
