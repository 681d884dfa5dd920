//! The data path end to end: nothing reaches a client before the store holds it, a failing store
//! refuses and recovers in the same process, retried ids survive restarts, a resuming or lagging
//! client gets exactly the frames it missed, and state frames stay small in long sessions.

mod common;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::BufRead;
use std::time::Duration;

use common::{Client, PATIENCE, ServerProcess, StoreKind, TestServer, http, temp_path};
use convstate::config::ServerConfig;
use convstate::conversation::{Conversation, Goal, GoalReason, Phase, TransitionReason};
use convstate::protocol::{ErrorCode, ServerFrame, Welcome};
use convstate::store::{self, Event, Stored};
use futures_util::StreamExt;
use serde_json::json;
use tokio_tungstenite::tungstenite::Message;

/// A text of about 3 KB: fills a small disk in a few hundred turns.
fn long_text(marker: &str) -> String {
    let mut text = format!("The requirements, part {marker}:");
    while text.len() < 3000 {
        text.push_str(" it should list orders by date and show totals per customer;");
    }
    text
}

/// How a test makes the store run out of space, and frees it again.
#[derive(Clone, Copy, Debug)]
enum Fault {
    /// A 2 MiB tmpfs of its own (a private mount namespace), half of it taken by a ballast
    /// file that is deleted to free space.
    Tmpfs,
    /// `--store-max-bytes`: SQLite's own page limit; space is freed by deleting a large session.
    MaxBytes,
}

/// A small tmpfs in a private mount namespace, held by a process: unmounted when it dies.
struct SmallDisk {
    holder: std::process::Child,
    dir: std::path::PathBuf,
}

impl SmallDisk {
    fn new(size: &str) -> SmallDisk {
        let dir = temp_path("tmpfs", "d");
        std::fs::create_dir_all(&dir).unwrap();
        let script = format!(
            "mount -t tmpfs -o size={size} tmpfs '{}' && echo mounted && exec sleep 3600",
            dir.display()
        );
        let mut holder = std::process::Command::new("unshare")
            .args(["-m", "--propagation", "private", "sh", "-c", &script])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("unshare runs (util-linux)");
        let mut line = String::new();
        let _ = std::io::BufReader::new(holder.stdout.take().unwrap()).read_line(&mut line);
        if line.trim() != "mounted" {
            let _ = holder.kill();
            let out = holder.wait_with_output().unwrap();
            panic!(
                "cannot mount a small tmpfs in a private mount namespace (this test needs root): {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        SmallDisk { holder, dir }
    }

    fn prefix(&self) -> Vec<String> {
        let pid = self.holder.id().to_string();
        ["nsenter", "-t", &pid, "-m", "--"]
            .iter()
            .map(|s| s.to_string())
            .collect()
    }

    /// Runs a shell command inside the namespace.
    fn sh(&self, command: &str) {
        let mut args = self.prefix();
        args.extend(["sh".to_string(), "-c".to_string(), command.to_string()]);
        let status = std::process::Command::new(&args[0])
            .args(&args[1..])
            .status()
            .unwrap();
        assert!(status.success(), "{command}");
    }
}

impl Drop for SmallDisk {
    fn drop(&mut self) {
        let _ = self.holder.kill();
        let _ = self.holder.wait();
    }
}

/// A server on a store that runs out of space, and the means to free it.
struct Full {
    fault: Fault,
    disk: Option<SmallDisk>,
    args: Vec<String>,
    /// With `MaxBytes`: the session whose deletion frees space.
    ballast: Option<String>,
}

impl Full {
    fn new(fault: Fault) -> Full {
        let rate = ["--rate-limit", "100000", "--rate-burst", "100000"].map(String::from);
        match fault {
            Fault::Tmpfs => {
                let disk = SmallDisk::new("2m");
                disk.sh(&format!(
                    "head -c 1048576 /dev/zero > '{}/ballast'",
                    disk.dir.display()
                ));
                let mut args = vec![
                    "--store".to_string(),
                    format!("sqlite:{}/convstate.db", disk.dir.display()),
                ];
                args.extend(rate);
                Full {
                    fault,
                    disk: Some(disk),
                    args,
                    ballast: None,
                }
            }
            Fault::MaxBytes => {
                let db = temp_path("max-bytes", "db");
                let mut args = vec![
                    "--store".to_string(),
                    format!("sqlite:{}", db.display()),
                    "--store-max-bytes".to_string(),
                    "1048576".to_string(),
                ];
                args.extend(rate);
                Full {
                    fault,
                    disk: None,
                    args,
                    ballast: None,
                }
            }
        }
    }

    fn start(&self) -> ServerProcess {
        let prefix = self
            .disk
            .as_ref()
            .map(SmallDisk::prefix)
            .unwrap_or_default();
        let prefix: Vec<&str> = prefix.iter().map(String::as_str).collect();
        let mut args = vec!["--listen", "127.0.0.1:0"];
        args.extend(self.args.iter().map(String::as_str));
        ServerProcess::spawn_in(&prefix, &args, &[])
            .unwrap_or_else(|log| panic!("the server did not start:\n{log}"))
    }

    /// Takes space that `free` gives back.
    async fn take_space(&mut self, server: &ServerProcess) {
        if let Fault::MaxBytes = self.fault {
            let (mut client, _) = Client::connect(&server.ws_url("")).await;
            for i in 0..150 {
                client
                    .turn(
                        "user",
                        &long_text(&format!("ballast {i}")),
                        &format!("b-{i}"),
                    )
                    .await;
            }
            self.ballast = Some(client.session_id.clone());
        }
    }

    async fn free(&self, server: &ServerProcess) {
        match self.fault {
            Fault::Tmpfs => {
                let disk = self.disk.as_ref().unwrap();
                disk.sh(&format!("rm '{}/ballast'", disk.dir.display()));
            }
            Fault::MaxBytes => {
                let id = self.ballast.as_ref().unwrap();
                let (status, body) =
                    http(server.addr, "DELETE", &format!("/api/sessions/{id}")).await;
                assert_eq!(status, 204, "{body}");
            }
        }
    }
}

/// What one client saw: every frame, in order.
type Seen = Vec<ServerFrame<'static>>;

/// Reads every frame until the connection ends.
async fn watch(mut ws: Client) -> Seen {
    let mut seen = Vec::new();
    while let Some(Ok(message)) = ws.ws.next().await {
        if let Message::Text(t) = message {
            seen.push(ServerFrame::parse(&t).unwrap_or_else(|e| panic!("{e}")));
        }
    }
    seen
}

/// Sends long turns with ids, `depth` at a time without waiting (so changes queue behind a
/// failing one), until the store refuses one; returns the acknowledged (id, seq)s and the
/// client, still connected.
async fn fill(
    mut client: Client,
    welcome: Welcome<'static>,
    name: String,
    depth: usize,
) -> (Client, Vec<(String, u64)>, Seen) {
    let mut acked = Vec::new();
    let mut seen = vec![ServerFrame::Welcome(welcome)];
    for round in 0..2_000 {
        let ids: Vec<String> = (0..depth).map(|k| format!("{name}-{round}-{k}")).collect();
        for id in &ids {
            client
                .send(json!({"type":"message","role":"user","text":long_text(id),"id":id}))
                .await;
        }
        // One answer per frame, in order: an ack, or an error in its place.
        let mut refused = false;
        for id in &ids {
            loop {
                let frame = client.recv().await;
                seen.push(frame.clone());
                match &frame {
                    ServerFrame::Ack(ack) => {
                        assert_eq!(&*ack.id, id.as_str(), "answers in the order of the frames");
                        acked.push((id.clone(), ack.seq));
                        break;
                    }
                    ServerFrame::Error(e) => {
                        assert_eq!(e.code, ErrorCode::StoreUnavailable, "{}", frame.to_text());
                        refused = true;
                        break;
                    }
                    _ => {}
                }
            }
        }
        if refused {
            return (client, acked, seen);
        }
    }
    panic!("{name}: the store never filled up");
}

/// Every `state` frame a client saw (its frames, from its welcome on) is the log's state at that
/// seq, and every ack is in the log.
fn check_against_log(
    engine: &convstate::conversation::Engine,
    events: &[Event],
    seen: &[ServerFrame<'_>],
) {
    for (i, e) in events.iter().enumerate() {
        assert_eq!(e.seq, i as u64 + 1, "a gap in the log");
    }
    let by_id: HashMap<&str, u64> = events
        .iter()
        .filter_map(|e| e.id.as_deref().map(|id| (id, e.seq)))
        .collect();
    assert_eq!(
        by_id.len(),
        events.iter().filter(|e| e.id.is_some()).count()
    );
    let mut states = BTreeMap::new();
    for frame in seen {
        match frame {
            ServerFrame::State(state) => {
                states.insert(state.seq, &*state.state);
            }
            ServerFrame::Ack(ack) => {
                let id = &*ack.id;
                assert_eq!(
                    by_id.get(id).copied(),
                    Some(ack.seq),
                    "acknowledged {id} is not in the log at its seq"
                );
            }
            _ => {}
        }
    }
    let Some(ServerFrame::Welcome(first)) = seen.first() else {
        panic!("a client's frames start with its welcome");
    };
    let created_at = first.state.created_at;
    let session_id = first.session_id.to_string();
    for (seq, state) in states {
        assert!(
            seq as usize <= events.len(),
            "a client saw seq {seq}, the log ends at {}",
            events.len()
        );
        let folded = store::fold(
            engine,
            &Stored {
                session_id: session_id.clone(),
                created_at,
                owner: None,
                snapshot: None,
                events: events[..seq as usize].to_vec(),
                recent_ids: Vec::new(),
            },
        )
        .unwrap();
        assert_eq!(
            *state, folded.conv,
            "the state a client saw at seq {seq} is not the log's"
        );
    }
}

/// The whole log of a session, page by page.
async fn all_events(addr: std::net::SocketAddr, id: &str) -> Vec<Event> {
    let mut events: Vec<Event> = Vec::new();
    loop {
        let after = events.last().map_or(0, |e| e.seq);
        let (status, body) = http(
            addr,
            "GET",
            &format!("/api/sessions/{id}/events?after={after}"),
        )
        .await;
        assert_eq!(status, 200, "{body}");
        let page: Vec<Event> = serde_json::from_str(&body).unwrap();
        if page.is_empty() {
            return events;
        }
        events.extend(page);
    }
}

async fn readyz(addr: std::net::SocketAddr) -> (u16, String) {
    http(addr, "GET", "/readyz").await
}

/// A full store under load: no client ever sees a change the log lacks, turns are refused
/// while it is full, `/readyz` says why, and once space is freed the same process serves again.
async fn a_full_store_publishes_nothing_it_did_not_store_and_recovers(fault: Fault) {
    let mut full = Full::new(fault);
    let server = full.start();
    assert_eq!(readyz(server.addr).await.0, 200);
    full.take_space(&server).await;
    // Sessions with a sender and a watcher each, all writing until the store refuses.
    let mut senders = Vec::new();
    let mut watchers = Vec::new();
    for s in 0..4 {
        let (sender, sender_welcome) = Client::connect(&server.ws_url("")).await;
        let url = server.ws_url(&format!("?session_id={}", sender.session_id));
        let (watcher, welcome) = Client::connect(&url).await;
        let mut first = vec![ServerFrame::Welcome(welcome)];
        watchers.push(tokio::spawn(async move {
            first.extend(watch(watcher).await);
            first
        }));
        let depth = if s % 2 == 0 { 1 } else { 4 };
        senders.push(tokio::spawn(fill(
            sender,
            sender_welcome,
            format!("s{s}"),
            depth,
        )));
    }
    let mut filled = Vec::new();
    for t in senders {
        filled.push(t.await.unwrap());
    }
    // Failing: /readyz names the cause; a turn is refused at once; so is a new session.
    let (status, body) = readyz(server.addr).await;
    assert_eq!(status, 503, "{body}");
    assert!(body.contains("full"), "{body}");
    let (client, _, _) = &mut filled[0];
    client
        .send(json!({"type":"message","role":"user","text":"still there?","id":"x-1"}))
        .await;
    client.expect_error(ErrorCode::StoreUnavailable).await;
    let (status, _) = http(server.addr, "GET", "/healthz").await;
    assert_eq!(status, 200, "liveness is not readiness");
    let refused = tokio_tungstenite::connect_async(server.ws_url(""))
        .await
        .expect_err("no new session while the store refuses writes");
    assert!(refused.to_string().contains("503"), "{refused}");
    // Reading goes on: a client joins an existing session and gets its state.
    let id = filled[1].0.session_id.clone();
    let (_, welcome) = Client::connect(&server.ws_url(&format!("?session_id={id}"))).await;
    assert!(welcome.seq > 0);

    full.free(&server).await;
    let started = std::time::Instant::now();
    while readyz(server.addr).await.0 != 200 {
        assert!(
            started.elapsed() < PATIENCE,
            "not ready again: {:?}",
            readyz(server.addr).await
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    // The same process reads and takes turns again.
    for (client, _, _) in &filled {
        let path = format!("/api/sessions/{}/events?limit=1", client.session_id);
        let (status, body) = http(server.addr, "GET", &path).await;
        assert_eq!(status, 200, "{body}");
    }
    let mut sessions = Vec::new();
    for (n, (mut client, mut acked, mut seen)) in filled.into_iter().enumerate() {
        let id = format!("after-{n}");
        client
            .send(json!({"type":"message","role":"user","text":"and a chart","id":id}))
            .await;
        loop {
            let frame = client.recv().await;
            seen.push(frame.clone());
            if let ServerFrame::Ack(ack) = &frame {
                acked.push((id.clone(), ack.seq));
                break;
            }
            assert!(
                !matches!(frame, ServerFrame::Error(_)),
                "{}",
                frame.to_text()
            );
        }
        sessions.push((client.session_id.clone(), acked, seen));
    }
    drop(server.kill());
    let mut seen_by_watchers = Vec::new();
    for w in watchers {
        seen_by_watchers.push(w.await.unwrap());
    }
    // After a crash and a restart the log holds every frame any client saw.
    let server = full.start();
    let engine = convstate::patterns::builtin();
    for ((id, acked, seen), watcher) in sessions.iter().zip(&seen_by_watchers) {
        let events = all_events(server.addr, id).await;
        check_against_log(&engine, &events, seen);
        check_against_log(&engine, &events, watcher);
        let in_log: HashSet<(String, u64)> = events
            .iter()
            .filter_map(|e| e.id.clone().map(|i| (i, e.seq)))
            .collect();
        for a in acked {
            assert!(in_log.contains(a), "acknowledged {a:?} lost");
        }
    }
    assert!(server.stop().0.success());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_tmpfs_publishes_nothing_it_did_not_store_and_recovers() {
    a_full_store_publishes_nothing_it_did_not_store_and_recovers(Fault::Tmpfs).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_store_at_its_size_limit_publishes_nothing_it_did_not_store_and_recovers() {
    a_full_store_publishes_nothing_it_did_not_store_and_recovers(Fault::MaxBytes).await;
}

/// A process's CPU time so far (user and system), from `/proc`.
fn cpu_seconds(pid: u32) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .unwrap()
        .1
        .split_whitespace()
        .collect();
    let ticks: f64 = fields[11].parse::<f64>().unwrap() + fields[12].parse::<f64>().unwrap();
    ticks / 100.0
}

/// An idle deadline that passes while the store refuses writes: the sweep is tried again
/// (calmly: no busy loop), not lost, and once the store takes writes the session goes idle and
/// its clients see it, though none of them sends anything.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_idle_deadline_passing_while_the_store_refuses_is_applied_once_it_recovers() {
    let mut full = Full::new(Fault::MaxBytes);
    full.args
        .extend(["--idle-timeout".to_string(), "3s".to_string()]);
    let server = full.start();
    full.take_space(&server).await;
    let (mut sleeper, _) = Client::connect(&server.ws_url("")).await;
    let (_, _) = sleeper.turn("user", "Build a landing page", "z-1").await;
    let deadline = std::time::Instant::now() + Duration::from_secs(3);
    let url = server.ws_url(&format!("?session_id={}", sleeper.session_id));
    let (watcher, _) = Client::connect(&url).await;
    let (filler, welcome) = Client::connect(&server.ws_url("")).await;
    let (_filler, _, _) = fill(filler, welcome, "f".to_string(), 4).await;
    assert!(
        std::time::Instant::now() < deadline,
        "the store filled up only after the idle deadline: this test proves nothing on a machine this slow"
    );
    let watching = tokio::spawn(watch(watcher));
    // Past the deadline, the store still refusing: the sweep waits, and costs next to nothing.
    tokio::time::sleep_until((deadline + Duration::from_millis(500)).into()).await;
    let pid = server.child.id();
    let before = cpu_seconds(pid);
    tokio::time::sleep(Duration::from_secs(2)).await;
    let spent = cpu_seconds(pid) - before;
    // Idle, the server spends about 0.01 s in 2 s; sweeping again at once, it spent 0.16 to
    // 0.39 s here.
    assert!(
        spent < 0.1,
        "{spent:.2} s of CPU in 2 s while the store refused"
    );
    assert_eq!(readyz(server.addr).await.0, 503);
    full.free(&server).await;
    // Applied within seconds of the store taking writes again, pushed to the watcher.
    let started = std::time::Instant::now();
    loop {
        let (status, body) = http(
            server.addr,
            "GET",
            &format!("/api/sessions/{}", sleeper.session_id),
        )
        .await;
        assert_eq!(status, 200, "{body}");
        let state: Conversation = serde_json::from_str(&body).unwrap();
        if state.phase == Phase::Idle {
            assert_eq!(
                state.completed_goals[0].reason,
                Some(GoalReason::IdleTimeout)
            );
            break;
        }
        assert!(started.elapsed() < PATIENCE, "still {:?}", state.phase);
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    drop(server.kill());
    let seen = watching.await.unwrap();
    let idle = seen.iter().find_map(|f| match f {
        ServerFrame::State(s) if s.state.phase == Phase::Idle => Some(s),
        _ => None,
    });
    let idle = idle.expect("the watcher saw the session go idle");
    assert_eq!(idle.transitions[0].reason, TransitionReason::IdleTimeout);
}

/// 64 turns (a snapshot falls on the 64th) and 70, a SIGKILL, a restart: a retry of any of them
/// gets its first ack again and changes nothing.
#[tokio::test]
async fn retried_ids_survive_a_restart_whatever_the_snapshot_cadence() {
    for turns in [64u64, 70] {
        let db = temp_path(&format!("retry-{turns}"), "db");
        let store = format!("sqlite:{}", db.display());
        let args = [
            "--store",
            &store,
            "--rate-limit",
            "100000",
            "--rate-burst",
            "100000",
        ];
        let server = ServerProcess::start(&args).unwrap();
        let (mut client, _) = Client::connect(&server.ws_url("")).await;
        let id = client.session_id.clone();
        let mut acks = Vec::new();
        for k in 1..=turns {
            let (_, ack) = client
                .turn("user", &format!("Add a field {k}"), &format!("c-{k}"))
                .await;
            acks.push(ack);
        }
        server.kill();
        let server = ServerProcess::start(&args).unwrap();
        let (mut client, welcome) =
            Client::connect(&server.ws_url(&format!("?session_id={id}&last_seq={turns}"))).await;
        assert_eq!(welcome.seq, turns);
        for (k, ack) in (1..=turns).zip(&acks) {
            client
                .send(json!({"type":"message","role":"user","text":format!("Add a field {k}"),"id":format!("c-{k}")}))
                .await;
            assert_eq!(
                client.recv().await,
                ServerFrame::ack(&format!("c-{k}"), *ack),
                "{turns} turns: retry of c-{k}"
            );
        }
        client.send(json!({"type":"get_state"})).await;
        let now = client.recv_state().await;
        assert_eq!(now.seq, turns);
        assert_eq!(now.state.turn_count, turns);
        assert!(server.stop().0.success());
    }
}

/// The last 256 ids are remembered, no more: 300 turns, a restart, and the retry of the last is
/// answered with its ack while the first, forgotten, is applied as a new change.
#[tokio::test]
async fn the_last_256_ids_are_remembered_across_a_restart() {
    let db = temp_path("retry-300", "db");
    let store = format!("sqlite:{}", db.display());
    let args = [
        "--store",
        &store,
        "--rate-limit",
        "100000",
        "--rate-burst",
        "100000",
    ];
    let server = ServerProcess::start(&args).unwrap();
    let (mut client, _) = Client::connect(&server.ws_url("")).await;
    let id = client.session_id.clone();
    for k in 1..=300 {
        client
            .send(json!({"type":"message","role":"user","text":format!("Add a field {k}"),"id":format!("c-{k}")}))
            .await;
    }
    // Each ack follows its state frame; with frames in flight, later frames may come between.
    let mut acks = 0u64;
    while acks < 300 {
        if let ServerFrame::Ack(ack) = client.recv().await {
            acks += 1;
            assert_eq!((&*ack.id, ack.seq), (format!("c-{acks}").as_str(), acks));
        }
    }
    server.kill();
    let server = ServerProcess::start(&args).unwrap();
    let (mut client, _) = Client::connect(&server.ws_url(&format!("?session_id={id}"))).await;
    for (k, seq) in [(300, 300), (45, 45), (44, 301)] {
        client
            .send(json!({"type":"message","role":"user","text":"again","id":format!("c-{k}")}))
            .await;
        if seq > 300 {
            assert_eq!(client.recv_state().await.seq, seq, "c-{k} is applied anew");
        }
        assert_eq!(client.expect_ack(&format!("c-{k}")).await, seq, "c-{k}");
    }
    assert!(server.stop().0.success());
}

async fn a_client_resuming_with_last_seq_gets_exactly_what_it_missed(store: StoreKind) {
    let server = TestServer::with_store(store).await;
    let (mut a, welcome) = Client::connect(&server.ws_url("")).await;
    assert!(!welcome.resumed, "a new session resumes nothing");
    a.turn("user", "I want to build a todo app", "a-1").await;
    a.turn("assistant", "What features do you need?", "a-2")
        .await;
    let id = a.session_id.clone();
    let (mut b, welcome) = Client::connect(&server.ws_url(&format!("?session_id={id}"))).await;
    assert!(!welcome.resumed, "no last_seq: nothing to resume");
    a.ws.close(None).await.unwrap();
    // Three changes while `a` is away.
    let mut missed = Vec::new();
    missed.push(
        b.turn(
            "user",
            "I need add, delete, and mark as complete functionality with React components",
            "b-1",
        )
        .await
        .0,
    );
    missed.push(
        b.turn("assistant", "I'll create a React todo app component", "b-2")
            .await
            .0,
    );
    b.send(json!({"type":"signal","signal":"work_done","id":"b-3"}))
        .await;
    missed.push(b.recv_state().await);
    b.expect_ack("b-3").await;
    let (mut a, welcome) =
        Client::connect(&server.ws_url(&format!("?session_id={id}&last_seq=2"))).await;
    assert!(welcome.resumed);
    assert_eq!(welcome.seq, 2, "the welcome is where the client left off");
    for frame in &missed {
        assert_eq!(
            a.recv().await,
            ServerFrame::State(frame.clone()),
            "the missed frames, in order"
        );
    }
    assert_eq!(missed[2].state.phase, Phase::Reviewing);
    assert_eq!(missed[0].transitions[0].to, Phase::Planning);
    // Then live frames.
    let (live, _) = b.turn("user", "Perfect!", "b-4").await;
    assert_eq!(a.recv().await, ServerFrame::State(live.clone()));
    // Up to date already: nothing to replay.
    let (mut c, welcome) =
        Client::connect(&server.ws_url(&format!("?session_id={id}&last_seq=6"))).await;
    assert_eq!((welcome.resumed, welcome.seq), (true, 6));
    assert!(c.quiet_for(Duration::from_millis(200)).await);
    // A seq the session never had: the full state, not resumed.
    let (_, welcome) =
        Client::connect(&server.ws_url(&format!("?session_id={id}&last_seq=99"))).await;
    assert_eq!((welcome.resumed, welcome.seq), (false, 6));
    // From the very start: the state at creation, then every change.
    let (mut d, welcome) =
        Client::connect(&server.ws_url(&format!("?session_id={id}&last_seq=0"))).await;
    assert_eq!((welcome.resumed, welcome.seq), (true, 0));
    assert_eq!(welcome.state.phase, Phase::Greeting);
    assert_eq!(welcome.state.turn_count, 0);
    let mut last = None;
    for seq in 1..=6 {
        let frame = d.recv_state().await;
        assert_eq!(frame.seq, seq);
        last = Some(frame);
    }
    assert_eq!(last, Some(live), "up to date");
    server.stop().await;
}

async fn a_resume_from_too_far_back_says_so_and_carries_the_full_state(store: StoreKind) {
    let config = ServerConfig {
        rate_limit: 100_000,
        rate_burst: 100_000,
        ..ServerConfig::default()
    };
    let server = TestServer::start(config, None, store).await;
    let (mut a, _) = Client::connect(&server.ws_url("")).await;
    for k in 0..400 {
        a.send(json!({"type":"message","role":"user","text":format!("hello {k}")}))
            .await;
    }
    for _ in 0..400 {
        a.recv().await;
    }
    let id = a.session_id.clone();
    let (mut old, welcome) =
        Client::connect(&server.ws_url(&format!("?session_id={id}&last_seq=1"))).await;
    assert!(!welcome.resumed);
    assert_eq!(welcome.seq, 400);
    assert!(old.quiet_for(Duration::from_millis(200)).await);
    // Within reach: every frame after it.
    let (mut near, welcome) =
        Client::connect(&server.ws_url(&format!("?session_id={id}&last_seq=300"))).await;
    assert_eq!((welcome.resumed, welcome.seq), (true, 300));
    for seq in 301..=400 {
        assert_eq!(near.recv().await.seq(), Some(seq));
    }
    server.stop().await;
}

/// A client that does not read while its session changes fast falls behind the live broadcast;
/// it is caught up from the log, frame by frame, not skipped to the current state.
async fn a_client_lagging_behind_the_broadcast_is_caught_up_without_gaps(store: StoreKind) {
    let config = ServerConfig {
        rate_limit: 100_000,
        rate_burst: 100_000,
        ..ServerConfig::default()
    };
    let server = TestServer::start(config, None, store).await;
    let (mut writer, _) = Client::connect(&server.ws_url("")).await;
    let id = writer.session_id.clone();
    // The slow reader: a tiny receive buffer, and it reads nothing for now.
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.set_recv_buffer_size(4096).unwrap();
    let stream = socket.connect(server.addr).await.unwrap();
    let (mut slow, _) =
        tokio_tungstenite::client_async(server.ws_url(&format!("?session_id={id}")), stream)
            .await
            .unwrap();
    // A goal with a long description (cut to 200 characters in the state), then assistant
    // turns: the reader's 4 KiB window fills within a few frames, and there are fewer changes
    // than can be rebuilt from the log.
    let turns = 240u64;
    let mut description = String::from("Build a landing page called");
    while description.len() < 30_000 {
        description.push_str(" alpha beta gamma");
    }
    let mut frames = Vec::new();
    writer
        .send(json!({"type":"message","role":"user","text":description}))
        .await;
    for k in 1..turns {
        writer
            .send(
                json!({"type":"message","role":"assistant","text":format!("Working on part {k}")}),
            )
            .await;
    }
    for _ in 0..turns {
        frames.push(writer.recv().await);
    }
    // Now read everything: the welcome, then seq 1 to the end, each with its transitions.
    let mut got: Vec<ServerFrame<'static>> = Vec::new();
    while got.len() < turns as usize + 1 {
        let Ok(message) = tokio::time::timeout(PATIENCE, slow.next()).await else {
            let seqs: Vec<u64> = got.iter().filter_map(ServerFrame::seq).collect();
            let jumps: Vec<_> = seqs.windows(2).filter(|w| w[1] != w[0] + 1).collect();
            panic!("{} frames arrived, jumps at {jumps:?}", got.len());
        };
        let message = message.unwrap().unwrap();
        if let Message::Text(t) = message {
            got.push(ServerFrame::parse(&t).unwrap_or_else(|e| panic!("{e}")));
        }
    }
    assert!(
        matches!(got[0], ServerFrame::Welcome(_)),
        "{}",
        got[0].to_text()
    );
    assert_eq!(
        &got[1..],
        &frames[..],
        "every frame, in order, none skipped"
    );
    let (_, metrics) = http(server.addr, "GET", "/metrics").await;
    let caught_up = metrics
        .lines()
        .find_map(|l| l.strip_prefix("convstate_catch_ups_total "))
        .and_then(|n| n.parse::<u64>().ok())
        .expect("a catch-up counter");
    assert!(
        caught_up > 0,
        "the reader never fell behind: the test proves nothing"
    );
    let _ = slow.close(None).await;
    server.stop().await;
}

/// A thousand finished goals: the state frame carries a window of them and the totals, and the
/// whole history is paged over HTTP.
async fn state_frames_stay_small_after_a_thousand_goals(store: StoreKind) {
    let config = ServerConfig {
        rate_limit: 100_000,
        rate_burst: 100_000,
        ..ServerConfig::default()
    };
    let server = TestServer::start(config, None, store).await;
    let (mut client, _) = Client::connect(&server.ws_url("")).await;
    for k in 0..1_000 {
        client
            .send(json!({"type":"message","role":"user","text":format!("Build a landing page for product {k}")}))
            .await;
        client
            .send(json!({"type":"message","role":"user","text":"bye"}))
            .await;
    }
    let mut last = None;
    for _ in 0..2_000 {
        last = Some(client.recv().await);
    }
    let (frame, _) = client.turn("user", "Build a todo app", "c-last").await;
    let size = ServerFrame::State(frame.clone()).to_text().len();
    assert!(size < 16 * 1024, "a state frame of {size} bytes");
    let state = &frame.state;
    assert_eq!(state.completed_goals.len(), 20);
    assert_eq!(state.completed_goals_total, 1000);
    assert_eq!(state.abandoned_goals_total, 1000);
    assert_eq!(
        state.completed_goals[19].description,
        "landing page for product 999"
    );
    let last = last.unwrap();
    let Some(last) = last.conversation() else {
        panic!("no state in {}", last.to_text());
    };
    assert_eq!(last.completed_goals_total, 1000);
    assert!(
        frame
            .summary
            .ends_with("Completed Goals: 0\nAbandoned Goals: 1000"),
        "{:?}",
        frame.summary
    );
    // The whole history over HTTP, oldest first, in pages.
    let goals = format!("/api/sessions/{}/goals", client.session_id);
    let (status, body) = http(server.addr, "GET", &goals).await;
    assert_eq!(status, 200, "{body}");
    let page: Vec<Goal> = serde_json::from_str(&body).unwrap();
    assert_eq!(page.len(), 100, "the default page");
    assert_eq!(page[0].description, "landing page for product 0");
    let (_, body) = http(server.addr, "GET", &format!("{goals}?after=990&limit=5")).await;
    let page: Vec<Goal> = serde_json::from_str(&body).unwrap();
    let names: Vec<&str> = page.iter().map(|g| g.description.as_str()).collect();
    assert_eq!(
        names,
        (990..995)
            .map(|k| format!("landing page for product {k}"))
            .collect::<Vec<_>>()
    );
    let (_, body) = http(server.addr, "GET", &format!("{goals}?after=0&limit=1000")).await;
    assert_eq!(
        serde_json::from_str::<Vec<Goal>>(&body).unwrap().len(),
        1000
    );
    for bad in ["?limit=1001", "?limit=0", "?after=x"] {
        let (status, body) = http(server.addr, "GET", &format!("{goals}{bad}")).await;
        assert_eq!(status, 400, "{bad}: {body}");
        assert!(body.contains("bad_request"), "{body}");
    }
    // The event log pages too: 1,000 events at most per request.
    let events = format!("/api/sessions/{}/events", client.session_id);
    let (_, body) = http(server.addr, "GET", &events).await;
    let page: Vec<Event> = serde_json::from_str(&body).unwrap();
    assert_eq!(page.len(), 1000);
    let (_, body) = http(server.addr, "GET", &format!("{events}?after=1990&limit=20")).await;
    let page: Vec<Event> = serde_json::from_str(&body).unwrap();
    assert_eq!(page.len(), 11);
    assert_eq!(page[10].seq, 2001);
    let (status, _) = http(server.addr, "GET", &format!("{events}?limit=5000")).await;
    assert_eq!(status, 400);
    server.stop().await;
}

async fn ids_longer_than_128_bytes_are_refused(store: StoreKind) {
    let server = TestServer::with_store(store).await;
    let (mut client, _) = Client::connect(&server.ws_url("")).await;
    client
        .send(json!({"type":"message","role":"user","text":"hi","id":"x".repeat(129)}))
        .await;
    let e = client.expect_error(ErrorCode::BadRequest).await;
    assert!(e.contains("128"), "{e}");
    let (state, _) = client.turn("user", "hi", &"y".repeat(128)).await;
    assert_eq!(state.seq, 1, "nothing was applied before");
    server.stop().await;
}

/// `get_state` between pushes skips none of them: the frames waiting go out before the answer,
/// so a client sees every change once, in order, however its requests fall among them. (Two
/// worker threads, so changes are published while the reader's requests are answered.)
async fn get_state_skips_no_frame(store: StoreKind) {
    let config = ServerConfig {
        rate_limit: 100_000,
        rate_burst: 100_000,
        ..ServerConfig::default()
    };
    let server = TestServer::start(config, None, store).await;
    let (mut writer, _) = Client::connect(&server.ws_url("")).await;
    let url = server.ws_url(&format!("?session_id={}", writer.session_id));
    let (mut reader, _) = Client::connect(&url).await;
    // Fewer changes than a client may fall behind and still be caught up from the log (256).
    let changes = 250u64;
    let writing = tokio::spawn(async move {
        for k in 0..changes {
            writer
                .send(json!({"type":"message","role":"user","text":format!("hello {k}")}))
                .await;
        }
        for _ in 0..changes {
            writer.recv().await;
        }
    });
    // A request after every third frame received, while the changes stream in.
    let mut seqs = Vec::new();
    let mut asked = 0;
    let mut answered = 0;
    while seqs.last() != Some(&changes) || answered < asked {
        let state = reader.recv_state().await;
        seqs.push(state.seq);
        if seqs.len() > changes as usize {
            answered = seqs.len() - changes as usize;
        }
        if seqs.len() % 3 == 0 && seqs.last() != Some(&changes) {
            reader.send(json!({"type":"get_state"})).await;
            asked += 1;
        }
    }
    writing.await.unwrap();
    assert!(asked > 20, "only {asked} requests");
    assert_eq!(
        seqs.len(),
        changes as usize + asked,
        "every change and every answer"
    );
    assert!(
        seqs.windows(2).all(|w| w[0] <= w[1]),
        "never backwards: {seqs:?}"
    );
    let distinct: HashSet<u64> = seqs.iter().copied().collect();
    assert_eq!(
        distinct,
        (1..=changes).collect(),
        "every change, none skipped"
    );
    server.stop().await;
}

mod get_state_skips_no_frame {
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn memory() {
        super::get_state_skips_no_frame(crate::common::StoreKind::Memory).await
    }
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn sqlite() {
        super::get_state_skips_no_frame(crate::common::StoreKind::Sqlite).await
    }
}

on_every_store!(
    a_client_resuming_with_last_seq_gets_exactly_what_it_missed,
    a_resume_from_too_far_back_says_so_and_carries_the_full_state,
    a_client_lagging_behind_the_broadcast_is_caught_up_without_gaps,
    state_frames_stay_small_after_a_thousand_goals,
    ids_longer_than_128_bytes_are_refused,
);
