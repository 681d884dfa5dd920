//! `convstate loadgen`: many concurrent sessions sending turns over WebSocket, measuring turns
//! per second and the latency from sending a turn to receiving its frame.
//!
//! Any server that answers each text frame with one text frame can be measured the same way,
//! which is what makes the echo-server baseline comparable: against convstate the answer is the
//! turn's `state` frame.

use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use tokio_tungstenite::tungstenite::Message;

use crate::protocol::Role;
use crate::protocol::{ClientFrame, FrameHead, FrameKind};

/// The worked example of the spec, cycled by every session (each starting at its own step).
const SCRIPT: [(Role, &str); 9] = [
    (Role::User, "I want to build a todo app"),
    (Role::Assistant, "What features do you need?"),
    (
        Role::User,
        "I need add, delete, and mark as complete functionality with React components",
    ),
    (Role::Assistant, "I'll create a React todo app component"),
    (Role::User, "Sounds good, go ahead"),
    (Role::Assistant, "<artifact type=\"react\">...</artifact>"),
    (Role::User, "Perfect! This is exactly what I needed"),
    (Role::User, "Now build a calculator"),
    (Role::User, "bye"),
];

#[derive(Clone, Debug)]
pub(crate) struct LoadOptions {
    /// `ws://host:port/ws` (or an echo server's URL).
    pub url: String,
    /// Concurrent sessions, one connection each.
    pub sessions: usize,
    /// Measured time, after the warm-up.
    pub duration: Duration,
    pub warmup: Duration,
    /// Turns per second for all sessions together; `None` sends each turn as soon as the last
    /// was answered (the most the server sustains).
    pub rate: Option<f64>,
    /// Whether the server greets each connection with a frame (convstate's `welcome`; an echo
    /// server sends none).
    pub welcome: bool,
    /// Send every turn with an id and measure until its `ack`, which the server sends once the
    /// change is durable (instead of until its `state` frame).
    pub ack: bool,
    /// Each session resets after this many turns (10: the worked example's nine turns, then a
    /// reset); 0 never resets, so sessions grow old as a long chat does.
    pub reset_every: u64,
    /// Turns each session sends before the warm-up, unmeasured: measures sessions that are
    /// already this old.
    pub turns_before: u64,
    /// A server process on this machine whose CPU time (user and system, from `/proc`) is read
    /// over the measured window: the report gives its CPU per turn.
    pub server_pid: Option<u32>,
}

/// What a run measured.
#[derive(Clone, Debug, serde::Serialize)]
pub(crate) struct LoadReport {
    pub sessions: usize,
    pub turns: u64,
    pub seconds: f64,
    pub turns_per_second: f64,
    pub p50_us: u64,
    pub p99_us: u64,
    pub max_us: u64,
    pub errors: u64,
    /// Of the errors, the turns the server refused with `rate_limited` (its per-connection
    /// frame rate capped the load, not its speed).
    pub rate_limited: u64,
    /// The server's CPU time per measured turn, in microseconds (with `server_pid`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub server_cpu_us_per_turn: Option<f64>,
    /// The same, by thread name (threads of one name summed: `convstate-store` for the SQLite
    /// writers, `convstate-check` for their checkpointers, `tokio-rt-worker` for the workers).
    #[serde(skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub server_threads_us_per_turn: std::collections::BTreeMap<String, f64>,
}

/// The command name and CPU time (user and system, in microseconds) of a `/proc` `stat` file.
fn cpu_of(stat: &str) -> Option<(String, f64)> {
    // The command name is in parentheses and may hold spaces.
    let (head, rest) = stat.rsplit_once(')')?;
    let name = head.split_once('(')?.1.to_string();
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks = fields.get(11)?.parse::<f64>().ok()? + fields.get(12)?.parse::<f64>().ok()?;
    // USER_HZ is 100 on Linux.
    Some((name, ticks * 10_000.0))
}

/// A process's CPU time (user and system) so far, in microseconds, from `/proc/PID/stat`.
fn cpu_us(pid: u32) -> Option<f64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    Some(cpu_of(&stat)?.1)
}

/// A process's CPU time so far by thread name, in microseconds, from `/proc/PID/task/*/stat`.
fn threads_cpu_us(pid: u32) -> std::collections::BTreeMap<String, f64> {
    let mut by_name = std::collections::BTreeMap::new();
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return by_name;
    };
    for task in tasks.flatten() {
        let stat = std::fs::read_to_string(task.path().join("stat")).unwrap_or_default();
        if let Some((name, us)) = cpu_of(&stat) {
            *by_name.entry(name).or_insert(0.0) += us;
        }
    }
    by_name
}

/// Runs the load and reports. Connections are opened first, in batches, then every session
/// starts at once.
pub(crate) async fn run(options: LoadOptions) -> Result<LoadReport, String> {
    let mut sockets = Vec::with_capacity(options.sessions);
    for chunk in (0..options.sessions).collect::<Vec<_>>().chunks(200) {
        let connects = chunk.iter().map(|_| connect(&options.url, options.welcome));
        for socket in futures_util::future::join_all(connects).await {
            sockets.push(socket?);
        }
    }
    // Sessions first grow as old as asked, all together; the clock starts when all are.
    let ready = std::sync::Arc::new(tokio::sync::Barrier::new(options.sessions + 1));
    let (times_tx, times_rx) = tokio::sync::watch::channel(None::<(Instant, Instant, Instant)>);
    let interval = options
        .rate
        .map(|r| Duration::from_secs_f64(options.sessions as f64 / r.max(0.001)));
    let tasks: Vec<_> = sockets
        .into_iter()
        .enumerate()
        .map(|(i, mut ws)| {
            let ack = options.ack;
            let reset_every = options.reset_every;
            let turns_before = options.turns_before;
            let offset = interval.map_or(Duration::ZERO, |iv| {
                iv.mul_f64(i as f64 / options.sessions as f64)
            });
            let ready = ready.clone();
            let mut times = times_rx.clone();
            tokio::spawn(async move {
                let mut latencies: Vec<u32> = Vec::new();
                let mut errors = 0u64;
                let mut limited = 0u64;
                let mut n = 0u64;
                let frame = |n: u64| {
                    // The worked example in order; every `reset_every` turns a reset, so a
                    // session holds a run of fresh conversations, as a chat does.
                    let id = ack.then(|| format!("l{i}-{n}"));
                    let at = i as u64 + n;
                    let q = if reset_every > 0 {
                        at % reset_every
                    } else {
                        at
                    };
                    if reset_every > 0 && q == reset_every - 1 {
                        ClientFrame::Reset { id }
                    } else {
                        let (role, text) = SCRIPT[(q % SCRIPT.len() as u64) as usize];
                        ClientFrame::Message {
                            role,
                            text: text.to_string(),
                            id,
                            artifact: None,
                        }
                    }
                };
                while n < turns_before {
                    let json = serde_json::to_string(&frame(n)).unwrap_or_default();
                    n += 1;
                    if ws.send(Message::Text(json.into())).await.is_err()
                        || !matches!(next_reply(&mut ws, ack).await, Some(Reply::Answer))
                    {
                        errors += 1;
                        break;
                    }
                }
                ready.wait().await;
                let Ok(Some((start, measure_from, end))) =
                    times.wait_for(Option::is_some).await.map(|t| *t)
                else {
                    return (latencies, errors, limited);
                };
                let mut next_send = start + offset;
                loop {
                    let now = Instant::now();
                    if now >= end {
                        break;
                    }
                    if next_send > now {
                        tokio::time::sleep_until(next_send.into()).await;
                    }
                    let json = serde_json::to_string(&frame(n)).unwrap_or_default();
                    n += 1;
                    let sent = Instant::now();
                    if ws.send(Message::Text(json.into())).await.is_err() {
                        errors += 1;
                        break;
                    }
                    match next_reply(&mut ws, ack).await {
                        Some(Reply::Answer) => {
                            if sent >= measure_from && sent < end {
                                let us = sent.elapsed().as_micros().min(u32::MAX as u128) as u32;
                                latencies.push(us);
                            }
                        }
                        Some(Reply::Error) => errors += 1,
                        Some(Reply::RateLimited) => {
                            errors += 1;
                            limited += 1;
                        }
                        None => {
                            errors += 1;
                            break;
                        }
                    }
                    next_send = match interval {
                        Some(iv) => (next_send + iv).max(Instant::now() - iv),
                        None => Instant::now(),
                    };
                }
                let _ = ws.close(None).await;
                (latencies, errors, limited)
            })
        })
        .collect();
    ready.wait().await;
    let start = Instant::now() + Duration::from_millis(200);
    let measure_from = start + options.warmup;
    let end = measure_from + options.duration;
    let _ = times_tx.send(Some((start, measure_from, end)));
    // The server's CPU time over the measured window.
    let cpu = match options.server_pid {
        Some(pid) => {
            tokio::time::sleep_until(measure_from.into()).await;
            let before = (cpu_us(pid), threads_cpu_us(pid));
            tokio::time::sleep_until(end.into()).await;
            let after = (cpu_us(pid), threads_cpu_us(pid));
            let threads: std::collections::BTreeMap<String, f64> = after
                .1
                .into_iter()
                .map(|(name, us)| {
                    let was = before.1.get(&name).copied().unwrap_or(0.0);
                    (name, us - was)
                })
                .collect();
            before.0.zip(after.0).map(|(b, a)| (a - b, threads))
        }
        None => None,
    };
    let mut all = Vec::new();
    let (mut errors, mut rate_limited) = (0, 0);
    for t in tasks {
        let (latencies, e, limited) = t.await.map_err(|e| format!("a session task failed: {e}"))?;
        all.extend(latencies);
        errors += e;
        rate_limited += limited;
    }
    all.sort_unstable();
    let pct = |p: f64| -> u64 {
        if all.is_empty() {
            0
        } else {
            u64::from(all[((all.len() - 1) as f64 * p).round() as usize])
        }
    };
    let seconds = options.duration.as_secs_f64();
    let turns = all.len().max(1) as f64;
    Ok(LoadReport {
        sessions: options.sessions,
        turns: all.len() as u64,
        seconds,
        turns_per_second: all.len() as f64 / seconds,
        p50_us: pct(0.50),
        p99_us: pct(0.99),
        max_us: all.last().copied().map_or(0, u64::from),
        errors,
        rate_limited,
        server_cpu_us_per_turn: cpu.as_ref().map(|(us, _)| us / turns),
        server_threads_us_per_turn: cpu
            .map(|(_, threads)| threads.into_iter().map(|(n, us)| (n, us / turns)).collect())
            .unwrap_or_default(),
    })
}

/// Creates `count` sessions, each with one user turn (stored, its `state` frame read), then
/// leaves them: the server's memory per session it holds is measured after. At most 500
/// connections at a time; returns how many sessions were created.
pub(crate) async fn create_sessions(url: &str, count: usize) -> Result<usize, String> {
    let mut created = 0;
    for chunk in (0..count).collect::<Vec<_>>().chunks(500) {
        let one = |_: &usize| async {
            let mut ws = connect(url, true).await?;
            let frame = ClientFrame::Message {
                role: Role::User,
                text: SCRIPT[0].1.to_string(),
                id: None,
                artifact: None,
            };
            let json = serde_json::to_string(&frame).map_err(|e| e.to_string())?;
            ws.send(Message::Text(json.into()))
                .await
                .map_err(|e| e.to_string())?;
            let answered = matches!(next_reply(&mut ws, false).await, Some(Reply::Answer));
            let _ = ws.close(None).await;
            Ok::<bool, String>(answered)
        };
        for made in futures_util::future::join_all(chunk.iter().map(one)).await {
            if made? {
                created += 1;
            }
        }
    }
    Ok(created)
}

/// Opens `count` connections, reads their first frame, and holds them for `hold`: the server's
/// memory per idle connection is measured meanwhile.
pub(crate) async fn hold_idle(
    url: &str,
    count: usize,
    hold: Duration,
    welcome: bool,
) -> Result<usize, String> {
    let mut sockets = Vec::with_capacity(count);
    for chunk in (0..count).collect::<Vec<_>>().chunks(250) {
        let connects = chunk.iter().map(|_| connect(url, welcome));
        for socket in futures_util::future::join_all(connects).await {
            sockets.push(socket?);
        }
    }
    let open = sockets.len();
    tracing::info!(connections = open, "holding idle connections");
    // Keep reading, so pings are answered and the connections stay alive.
    let readers: Vec<_> = sockets
        .into_iter()
        .map(|mut ws| {
            tokio::spawn(async move {
                let _ =
                    tokio::time::timeout(hold, async { while ws.next().await.is_some() {} }).await;
            })
        })
        .collect();
    for r in readers {
        let _ = r.await;
    }
    Ok(open)
}

type Socket =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// Connects and, when the server greets, reads the greeting.
async fn connect(url: &str, welcome: bool) -> Result<Socket, String> {
    let (mut ws, _) = tokio_tungstenite::connect_async(url)
        .await
        .map_err(|e| format!("cannot connect to {url}: {e}"))?;
    if welcome {
        next_reply(&mut ws, false)
            .await
            .ok_or_else(|| format!("{url} closed before its first frame"))?;
    }
    Ok(ws)
}

enum Reply {
    Answer,
    Error,
    /// An error of code `rate_limited`.
    RateLimited,
}

/// The next text frame (with `ack`, the next `ack` frame). Any text frame counts as an answer
/// from a server that is not convstate (the echo server's frames are ours, echoed).
async fn next_reply(ws: &mut Socket, ack: bool) -> Option<Reply> {
    loop {
        match ws.next().await? {
            Ok(Message::Text(t)) => match FrameHead::parse(&t).map(|h| h.kind) {
                Ok(FrameKind::Error) if t.contains(r#""code":"rate_limited""#) => {
                    return Some(Reply::RateLimited);
                }
                Ok(FrameKind::Error) => return Some(Reply::Error),
                Ok(FrameKind::Ack) => return Some(Reply::Answer),
                Ok(_) if ack => continue,
                _ => return Some(Reply::Answer),
            },
            Ok(Message::Close(_)) | Err(_) => return None,
            Ok(_) => continue,
        }
    }
}
