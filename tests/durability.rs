//! Durability of the SQLite store, with the real binary: nothing acknowledged is lost across a
//! SIGKILL, nothing is applied twice, the recovered state is a fold of the log, idle deadlines
//! survive restarts, deletion erases, and damaged or foreign files are refused.

mod common;

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use common::{
    Client, ServerProcess, WORKED_EXAMPLE, add_assemble_lead, convstate, copy_of_patterns, http,
    temp_path,
};
use convstate::conversation::{Conversation, Goal, GoalReason, GoalStatus, Phase};
use convstate::protocol::ServerFrame;
use convstate::store::{self, Event, Stored};
use futures_util::{SinkExt, StreamExt};
use serde_json::json;
use tokio_tungstenite::tungstenite::Message;

fn sqlite_args(db: &std::path::Path) -> Vec<String> {
    vec![
        "--store".into(),
        format!("sqlite:{}", db.display()),
        "--rate-limit".into(),
        "100000".into(),
        "--rate-burst".into(),
        "100000".into(),
        // The load comes from this machine: many connections and sessions from one address.
        "--exempt-loopback".into(),
    ]
}

fn start(args: &[String]) -> ServerProcess {
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    ServerProcess::start(&args).unwrap_or_else(|log| panic!("the server did not start:\n{log}"))
}

/// How many sessions of the load have their welcome, and how many could not connect.
#[derive(Default)]
struct Started {
    connected: AtomicUsize,
    failed: AtomicUsize,
    first_error: std::sync::Mutex<Option<String>>,
}

/// One session of the load: sends turns with ids and records what was acknowledged.
async fn drive(
    url: String,
    session: usize,
    acked_total: Arc<AtomicUsize>,
    started: Arc<Started>,
) -> (String, Vec<(String, u64)>) {
    let welcome = match tokio_tungstenite::connect_async(&url).await {
        Ok((mut ws, _)) => match ws.next().await {
            Some(Ok(Message::Text(t))) => match ServerFrame::parse(&t).unwrap() {
                ServerFrame::Welcome(welcome) => Ok((ws, welcome)),
                other => Err(format!("no welcome: {}", other.to_text())),
            },
            other => Err(format!("no welcome: {other:?}")),
        },
        Err(e) => Err(format!("connect: {e}")),
    };
    let (mut ws, welcome) = match welcome {
        Ok(w) => w,
        Err(e) => {
            started.failed.fetch_add(1, Ordering::Relaxed);
            started.first_error.lock().unwrap().get_or_insert(e);
            return (String::new(), Vec::new());
        }
    };
    started.connected.fetch_add(1, Ordering::Relaxed);
    let id = welcome.session_id.into_owned();
    let mut acked = Vec::new();
    for k in 0.. {
        let (role, text, _) = WORKED_EXAMPLE[(session + k) % WORKED_EXAMPLE.len()];
        let turn_id = format!("t{session}-{k}");
        let frame =
            json!({"type":"message","role":role,"text":format!("{text} ({turn_id})"),"id":turn_id});
        if ws
            .send(Message::Text(frame.to_string().into()))
            .await
            .is_err()
        {
            break;
        }
        // The state frame, then the ack.
        let mut got_ack = None;
        while got_ack.is_none() {
            match ws.next().await {
                Some(Ok(Message::Text(t))) => {
                    if let ServerFrame::Ack(ack) = ServerFrame::parse(&t).unwrap() {
                        got_ack = Some(ack.seq);
                    }
                }
                Some(Ok(_)) => {}
                _ => return (id, acked), // the server died
            }
        }
        acked.push((turn_id, got_ack.unwrap()));
        acked_total.fetch_add(1, Ordering::Relaxed);
    }
    (id, acked)
}

/// The crash test of one seed: `sessions` sessions, killed once `kill_after` turns are acked;
/// the server started with `extra` arguments too.
async fn crash_and_recover(seed: u64, sessions: usize, kill_after: usize, extra: &[&str]) {
    let db = temp_path(&format!("crash-{seed}"), "db");
    let mut args = sqlite_args(&db);
    args.extend(extra.iter().map(|a| a.to_string()));
    let server = start(&args);
    let acked_total = Arc::new(AtomicUsize::new(0));
    let started = Arc::new(Started::default());
    let url = server.ws_url("");
    let tasks: Vec<_> = (0..sessions)
        .map(|i| {
            let (acked_total, started) = (acked_total.clone(), started.clone());
            tokio::spawn(drive(url.clone(), i + seed as usize, acked_total, started))
        })
        .collect();
    // Every session connected (on a slow machine the last ones may take seconds to be accepted
    // while the first ones already send), then the kill once `kill_after` turns are acknowledged.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(120);
    let problem = loop {
        let connected = started.connected.load(Ordering::Relaxed);
        let failed = started.failed.load(Ordering::Relaxed);
        let acked = acked_total.load(Ordering::Relaxed);
        if failed > 0 {
            let first = started.first_error.lock().unwrap().clone();
            break Some(format!(
                "{failed} sessions could not connect, the first: {first:?}"
            ));
        }
        if connected == sessions && acked >= kill_after {
            break None;
        }
        if tokio::time::Instant::now() > deadline {
            break Some(format!(
                "after 120 s: {connected} of {sessions} sessions connected, {acked} turns acknowledged"
            ));
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    };
    let log = server.kill(); // mid-load: every session is still sending
    if let Some(problem) = problem {
        let tail = &log[log.len().saturating_sub(20)..];
        panic!("{problem}; the server's log ends:\n{}", tail.join("\n"));
    }
    let mut acked: HashMap<String, Vec<(String, u64)>> = HashMap::new();
    for t in tasks {
        let (id, turns) = t.await.unwrap();
        if !id.is_empty() {
            acked.insert(id, turns);
        }
    }
    let total: usize = acked.values().map(Vec::len).sum();
    assert_eq!(acked.len(), sessions, "sessions connected");
    assert!(total >= kill_after, "{total} turns acknowledged");

    let server = start(&args);
    let engine = convstate::patterns::builtin();
    for (id, turns) in &acked {
        let (status, body) = http(server.addr, "GET", &format!("/api/sessions/{id}/events")).await;
        if turns.is_empty() && status == 404 {
            continue; // no change acknowledged: it may never have been stored
        }
        assert_eq!(status, 200, "session {id}: {body}");
        let events: Vec<Event> = serde_json::from_str(&body).unwrap();
        // Contiguous, each turn at most once, every acknowledged turn present at its seq.
        for (i, e) in events.iter().enumerate() {
            assert_eq!(e.seq, i as u64 + 1, "session {id}: a gap in the log");
        }
        let ids: Vec<&str> = events.iter().filter_map(|e| e.id.as_deref()).collect();
        let unique: HashSet<&str> = ids.iter().copied().collect();
        assert_eq!(
            ids.len(),
            unique.len(),
            "session {id}: a turn applied twice"
        );
        let by_id: HashMap<&str, u64> = events
            .iter()
            .filter_map(|e| e.id.as_deref().map(|i| (i, e.seq)))
            .collect();
        for (turn, seq) in turns {
            assert_eq!(
                by_id.get(turn.as_str()),
                Some(seq),
                "session {id}: acknowledged turn {turn} lost"
            );
        }
        // The recovered state is a fresh fold of the log.
        let (status, body) = http(server.addr, "GET", &format!("/api/sessions/{id}")).await;
        assert_eq!(status, 200);
        let recovered: Conversation = serde_json::from_str(&body).unwrap();
        let stored = Stored {
            session_id: id.clone(),
            created_at: recovered.created_at,
            owner: None,
            snapshot: None,
            events: events.clone(),
            recent_ids: Vec::new(),
        };
        let folded = store::fold(&engine, &stored).unwrap();
        assert_eq!(recovered, folded.conv, "session {id}");
        assert_eq!(
            folded.conv.turn_count as usize,
            events.len(),
            "session {id}: turns"
        );
    }
    // A client resumes, and a retried turn is acknowledged again, not applied again.
    let (id, turns) = acked.iter().find(|(_, t)| !t.is_empty()).unwrap();
    let (last_id, last_seq) = turns.last().unwrap();
    let (mut client, welcome) =
        Client::connect(&server.ws_url(&format!("?session_id={id}&last_seq={last_seq}"))).await;
    assert!(welcome.resumed);
    assert_eq!(welcome.seq, *last_seq);
    client
        .send(json!({"type":"message","role":"user","text":"again","id":last_id}))
        .await;
    // Changes committed after the last ack (their acks lost in the crash) come first, in
    // order; then the retry's ack, the first one again.
    let mut seq = *last_seq;
    loop {
        let frame = client.recv().await;
        if let ServerFrame::Ack(_) = frame {
            assert_eq!(frame, ServerFrame::ack(last_id, *last_seq));
            break;
        }
        let ServerFrame::State(state) = frame else {
            panic!("not a state frame: {}", frame.to_text());
        };
        assert_eq!(state.seq, seq + 1);
        seq += 1;
    }
    client.send(json!({"type":"get_state"})).await;
    assert_eq!(client.recv().await.seq().unwrap(), seq);
    let (status, _) = server.stop();
    assert!(status.success());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn acknowledged_turns_survive_sigkill_over_several_seeds() {
    for (seed, kill_after) in [(1, 5_000), (2, 5_600), (3, 6_200)] {
        crash_and_recover(seed, 500, kill_after, &[]).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn acknowledged_turns_survive_sigkill_on_a_sharded_store() {
    crash_and_recover(4, 500, 5_000, &["--store-shards", "3"]).await;
}

#[tokio::test]
async fn the_last_client_ids_survive_a_restart_through_the_snapshots() {
    let db = temp_path("recent-ids", "db");
    let args = sqlite_args(&db);
    let server = start(&args);
    let (mut client, welcome) = Client::connect(&server.ws_url("")).await;
    let id = welcome.session_id.to_string();
    // 330 turns (five snapshots), every tenth without an id: 297 ids, of which the last 256
    // are remembered.
    let mut ids = Vec::new();
    for k in 1..=330u64 {
        let role = if k % 2 == 1 { "user" } else { "assistant" };
        let text = format!("note {k}");
        if k % 10 == 0 {
            client
                .send(json!({"type":"message","role":role,"text":text}))
                .await;
            client.recv_state().await;
        } else {
            let turn = format!("c-{k}");
            let (_, seq) = client.turn(role, &text, &turn).await;
            assert_eq!(seq, k);
            ids.push((turn, k));
        }
    }
    drop(client);
    assert!(server.stop().0.success());
    let conn = rusqlite::Connection::open(&db).unwrap();
    let kept: i64 = conn
        .query_row(
            "SELECT count(*) FROM snapshots WHERE recent_ids IS NOT NULL",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(kept, 5, "every snapshot holds the ids");
    drop(conn);

    let server = start(&args);
    let (mut client, _) = Client::connect(&server.ws_url(&format!("?session_id={id}"))).await;
    let first = ids.len() - 256;
    // Remembered, from before the first kept snapshot to after the last: their first ack.
    for (turn, seq) in [&ids[first], &ids[200], &ids[ids.len() - 1]] {
        client
            .send(json!({"type":"message","role":"user","text":"again","id":turn}))
            .await;
        assert_eq!(client.recv().await, ServerFrame::ack(turn, *seq));
    }
    // The one before them is forgotten: applied as a new turn.
    let (forgotten, _) = &ids[first - 1];
    let (_, seq) = client.turn("user", "again", forgotten).await;
    assert_eq!(seq, 331);
    drop(client);
    assert!(server.stop().0.success());
}

/// The sessions a sharded store is filled with to see each file hold some.
const SHARDED_SESSIONS: usize = 40;

#[tokio::test]
async fn a_sharded_store_is_opened_only_whole_and_with_its_own_count() {
    let db = temp_path("sharded", "db");
    let store = format!("sqlite:{}", db.display());
    let files: Vec<std::path::PathBuf> = ["", ".shard1", ".shard2"]
        .iter()
        .map(|s| std::path::PathBuf::from(format!("{}{s}", db.display())))
        .collect();
    let server = start(&[
        "--store".into(),
        store.clone(),
        "--store-shards".into(),
        "3".into(),
    ]);
    // Session ids are random, and so is their shard: with 40 sessions the chance that one of
    // the three files holds none is about 3 × (2/3)^40, 2 in 10 million (12 gave 2 in 100).
    let mut ids = Vec::new();
    for n in 0..SHARDED_SESSIONS {
        let (mut client, welcome) = Client::connect(&server.ws_url("")).await;
        for (i, (role, text, _)) in WORKED_EXAMPLE.iter().enumerate().take(1 + n % 4) {
            client.turn(role, text, &format!("t{i}")).await;
        }
        ids.push(welcome.session_id.to_string());
    }
    let mut states = Vec::new();
    for id in &ids {
        let (status, body) = http(server.addr, "GET", &format!("/api/sessions/{id}")).await;
        assert_eq!(status, 200, "{body}");
        states.push(body);
    }
    assert!(server.stop().0.success());
    // Each file holds some of the sessions, and none holds them all.
    for file in &files {
        let conn = rusqlite::Connection::open(file).unwrap();
        let n: i64 = conn
            .query_row("SELECT count(*) FROM sessions", [], |r| r.get(0))
            .unwrap();
        assert!(
            (1..SHARDED_SESSIONS as i64).contains(&n),
            "{}: {n} sessions",
            file.display()
        );
    }
    // The same count again: every session as it was.
    let server = start(&[
        "--store".into(),
        store.clone(),
        "--store-shards".into(),
        "3".into(),
    ]);
    for (id, before) in ids.iter().zip(&states) {
        let (status, body) = http(server.addr, "GET", &format!("/api/sessions/{id}")).await;
        assert_eq!((status, &body), (200, before));
    }
    assert!(server.stop().0.success());
    // Another count, or a file missing: refused, naming the store's count, the files untouched.
    let bytes = |files: &[std::path::PathBuf]| -> Vec<Vec<u8>> {
        files.iter().map(|f| std::fs::read(f).unwrap()).collect()
    };
    let before = bytes(&files);
    for (shards, expect) in [
        ("1", "start the server with --store-shards 3"),
        ("2", "start the server with --store-shards 3"),
        ("4", "start the server with --store-shards 3"),
    ] {
        let err = ServerProcess::start(&["--store", &store, "--store-shards", shards])
            .err()
            .expect("refused");
        assert!(err.contains(expect), "{shards}: {err}");
        assert!(!err.contains("panicked"), "{err}");
    }
    assert!(bytes(&files) == before, "a refused start changed a file");
    // The first file made to look older: a refused start migrates no file of the set.
    let version = |file: &std::path::Path, set: Option<i32>| -> i32 {
        let conn = rusqlite::Connection::open(file).unwrap();
        if let Some(v) = set {
            conn.execute_batch(&format!("PRAGMA user_version = {v};"))
                .unwrap();
        }
        conn.query_row("PRAGMA user_version", [], |r| r.get(0))
            .unwrap()
    };
    version(&files[0], Some(3));
    let aside = temp_path("sharded-aside", "db");
    std::fs::rename(&files[2], &aside).unwrap();
    let err = ServerProcess::start(&["--store", &store, "--store-shards", "3"])
        .err()
        .expect("refused");
    assert!(
        err.contains("1 missing") && err.contains(&files[2].display().to_string()),
        "{err}"
    );
    assert_eq!(
        version(&files[0], None),
        3,
        "a refused start migrated a file"
    );
    version(&files[0], Some(4));
    std::fs::rename(&aside, &files[2]).unwrap();
    // A first start that cannot make every file is completed by the next one (the files it
    // made hold no session yet).
    let fresh = temp_path("sharded-fresh", "db");
    let blocker = std::path::PathBuf::from(format!("{}.shard2-wal", fresh.display()));
    std::fs::create_dir_all(&blocker).unwrap();
    let fresh_store = format!("sqlite:{}", fresh.display());
    let err = ServerProcess::start(&["--store", &fresh_store, "--store-shards", "3"])
        .err()
        .expect("refused");
    assert!(err.contains(".shard2"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    assert!(
        fresh.exists(),
        "the first file was made before the third failed"
    );
    std::fs::remove_dir(&blocker).unwrap();
    // A file another server holds (one making the same new set) is left to it.
    let held_path = temp_path("sharded-held", "db");
    let held = std::fs::File::create(&held_path).unwrap();
    held.try_lock().unwrap();
    let held_store = format!("sqlite:{}", held_path.display());
    let err = ServerProcess::start(&["--store", &held_store, "--store-shards", "3"])
        .err()
        .expect("refused");
    assert!(err.contains("in use by another convstate server"), "{err}");
    assert!(held_path.exists(), "the held file was removed");
    drop(held);
    let server = ServerProcess::start(&["--store", &fresh_store, "--store-shards", "3"]).unwrap();
    assert!(server.stop().0.success());
    // A quota too small to share between the files is refused at start.
    let err = ServerProcess::start(&[
        "--store",
        &fresh_store,
        "--store-shards",
        "3",
        "--store-max-bytes",
        "2000000",
    ])
    .err()
    .expect("refused");
    assert!(err.contains("below 1048576"), "{err}");
    // Another count is reached by export and import: every session comes along.
    let (ok, exported, said) = convstate(&["export", "--store", &store, "--store-shards", "3"]);
    assert!(ok, "{said}");
    let dump = temp_path("sharded", "jsonl");
    std::fs::write(&dump, &exported).unwrap();
    let single = format!("sqlite:{}", temp_path("unsharded", "db").display());
    let dump_arg = dump.display().to_string();
    let (ok, _, said) = convstate(&["import", "--store", &single, &dump_arg]);
    assert!(ok, "{said}");
    let server = start(&["--store".into(), single]);
    for (id, before) in ids.iter().zip(&states) {
        let (status, body) = http(server.addr, "GET", &format!("/api/sessions/{id}")).await;
        assert_eq!((status, &body), (200, before));
    }
    assert!(server.stop().0.success());
}

#[tokio::test]
async fn idle_deadlines_survive_a_restart() {
    let db = temp_path("deadline", "db");
    let mut args = sqlite_args(&db);
    args.extend(["--idle-timeout".to_string(), "1s".to_string()]);
    let server = start(&args);
    let (mut client, _) = Client::connect(&server.ws_url("")).await;
    client.turn("user", "Build a landing page", "c-1").await;
    let id = client.session_id.clone();
    server.kill(); // down before the deadline
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let server = start(&args);
    // Applied at start-up, before anyone reconnects: visible to the client that does.
    let (mut client, welcome) = Client::connect(&server.ws_url(&format!("?session_id={id}"))).await;
    assert_eq!(welcome.state.phase, Phase::Idle);
    let goal = &welcome.state.completed_goals[0];
    assert_eq!(goal.status, GoalStatus::Abandoned);
    assert_eq!(goal.reason, Some(GoalReason::IdleTimeout));
    assert_eq!(welcome.seq, 2);
    let (status, body) = http(server.addr, "GET", &format!("/api/sessions/{id}/events")).await;
    assert_eq!(status, 200);
    let events: Vec<Event> = serde_json::from_str(&body).unwrap();
    assert_eq!(events[1].change, store::Change::Idle);
    // The session goes on from idle.
    let (state, _) = client.turn("user", "Now build a calculator", "c-2").await;
    assert_eq!(state.state.phase, Phase::Understanding);
    assert!(server.stop().0.success());
}

#[tokio::test]
async fn long_sessions_recover_from_snapshots() {
    let db = temp_path("snapshots", "db");
    let args = sqlite_args(&db);
    let server = start(&args);
    let (mut client, _) = Client::connect(&server.ws_url("")).await;
    let mut last = None;
    for i in 0..150 {
        let (role, text, _) = WORKED_EXAMPLE[i % WORKED_EXAMPLE.len()];
        last = Some(client.turn(role, text, &format!("c-{i}")).await.0);
    }
    let last = last.unwrap();
    let id = client.session_id.clone();
    assert!(server.stop().0.success());
    let server = start(&args);
    let (_, welcome) = Client::connect(&server.ws_url(&format!("?session_id={id}"))).await;
    assert_eq!(welcome.seq, 150);
    assert_eq!(welcome.state, last.state);
    assert!(server.stop().0.success());
    // The snapshot is there, and folding from it equals folding the whole log.
    let store = sqlite_store(&db);
    let stored = store.load(&id, u64::MAX, u64::MAX).unwrap().unwrap();
    assert_eq!(stored.snapshot.as_ref().map(|(seq, _)| *seq), Some(128));
    assert_eq!(stored.events.len(), 22);
    let engine = convstate::patterns::builtin();
    let from_snapshot = store::fold(&engine, &stored).unwrap();
    let all = Stored {
        snapshot: None,
        events: store.events(&id, 0, usize::MAX).unwrap().unwrap(),
        ..stored
    };
    assert_eq!(from_snapshot.conv, store::fold(&engine, &all).unwrap().conv);
}

#[tokio::test]
async fn deleting_a_session_erases_it_from_the_file() {
    let db = temp_path("erasure", "db");
    let args = sqlite_args(&db);
    let server = start(&args);
    let (mut client, _) = Client::connect(&server.ws_url("")).await;
    client
        .turn("user", "Build a page about zebra-quartz-umbrella", "c-1")
        .await;
    for i in 0..70 {
        client
            .turn(
                "user",
                &format!("more about zebra-quartz-umbrella {i}"),
                &format!("c-{}", i + 2),
            )
            .await;
    }
    let id = client.session_id.clone();
    let (status, _) = http(server.addr, "DELETE", &format!("/api/sessions/{id}")).await;
    assert_eq!(status, 204);
    let (status, _) = http(server.addr, "GET", &format!("/api/sessions/{id}/events")).await;
    assert_eq!(status, 404);
    for file in [db.clone(), db.with_extension("db-wal")] {
        let bytes = std::fs::read(&file).unwrap_or_default();
        let found = bytes.windows(22).any(|w| w == b"zebra-quartz-umbrella ");
        assert!(!found, "{} still holds the deleted text", file.display());
    }
    assert!(server.stop().0.success());
}

/// The SQLite store in `db`, opened as a server opens it.
fn sqlite_store(db: &std::path::Path) -> Arc<dyn store::Store> {
    store::open(
        &format!("sqlite:{}", db.display()),
        &store::Options::default(),
    )
    .unwrap()
}

/// A store file with a few sessions in it, closed.
fn populated_db(name: &str) -> std::path::PathBuf {
    let db = temp_path(name, "db");
    let s = sqlite_store(&db);
    let engine = convstate::patterns::builtin();
    let now = chrono::Utc::now();
    for n in 0..200 {
        let id: Arc<str> = format!("s-{n:04}").into();
        s.write(
            store::Write::Create {
                session: id.clone(),
                created_at: now,
                idle_deadline: None,
                owner: None,
            },
            None,
        )
        .unwrap();
        let mut conv = engine.start(&*id, now);
        for (seq, (role, text, _)) in WORKED_EXAMPLE.iter().enumerate() {
            let role = if *role == "user" {
                convstate::conversation::Role::User
            } else {
                convstate::conversation::Role::Assistant
            };
            let input = convstate::conversation::Input::Message {
                role,
                text,
                artifact: false,
            };
            engine.step(&mut conv, input, now);
            let event = Event {
                seq: seq as u64 + 1,
                at: now,
                change: store::Change::from_input(&input),
                id: None,
            };
            s.write(
                store::Write::Append(Box::new(store::Append {
                    session: id.clone(),
                    event,
                    phase: conv.phase,
                    idle_deadline: conv.idle_deadline,
                    snapshot: None,
                    finished: Vec::new(),
                    goals_total: conv.completed_goals_total,
                })),
                None,
            )
            .unwrap();
        }
    }
    s.close();
    drop(s);
    db
}

/// A store without writes for a second gives its page caches and its record of last seqs back
/// to the allocator; afterwards it reads what it needs again: a stale append is still refused,
/// the next one taken.
#[tokio::test]
async fn a_quiet_store_gives_its_caches_back_and_goes_on() {
    let db = populated_db("quiet");
    let s = sqlite_store(&db);
    let now = chrono::Utc::now();
    let engine = convstate::patterns::builtin();
    let append = |seq: u64| {
        let id: Arc<str> = "s-0007".into();
        let conv = engine.start(&*id, now);
        store::Write::Append(Box::new(store::Append {
            session: id,
            event: Event {
                seq,
                at: now,
                change: store::Change::from_input(&convstate::conversation::Input::Tick),
                id: None,
            },
            phase: conv.phase,
            idle_deadline: None,
            snapshot: None,
            finished: Vec::new(),
            goals_total: 0,
        }))
    };
    let held = WORKED_EXAMPLE.len() as u64;
    let loaded = s.load("s-0007", u64::MAX, u64::MAX).unwrap().unwrap();
    assert_eq!(loaded.events.len() as u64, held);
    let ticket = s.write(append(held + 1), None).unwrap();
    s.committed(ticket).await.unwrap();
    // Quiet for longer than a second: the caches go.
    tokio::time::sleep(Duration::from_millis(1_500)).await;
    let ticket = s.write(append(held + 1), None).unwrap();
    let err = s.committed(ticket).await.expect_err("a seq taken already");
    assert!(err.to_string().contains("seq"), "{err}");
    let ticket = s.write(append(held + 2), None).unwrap();
    s.committed(ticket).await.unwrap();
    let events = s.events("s-0007", 0, usize::MAX).unwrap().unwrap();
    assert_eq!(events.last().map(|e| e.seq), Some(held + 2));
    assert_eq!(events.len() as u64, held + 2);
    s.close();
}

fn refused(db: &std::path::Path, expect: &str) {
    let before = std::fs::read(db).unwrap();
    let err = ServerProcess::start(&["--store", &format!("sqlite:{}", db.display())])
        .err()
        .expect("the server refuses to start");
    assert!(
        err.contains(&db.display().to_string()),
        "the error names the file: {err}"
    );
    assert!(err.contains(expect), "{expect:?} not in: {err}");
    assert!(!err.contains("panicked"), "{err}");
    assert!(
        std::fs::read(db).unwrap() == before,
        "{} was changed",
        db.display()
    );
}

#[test]
fn damaged_or_foreign_files_are_refused_at_start_up() {
    // Not SQLite at all.
    let db = temp_path("garbage", "db");
    std::fs::write(&db, b"these are my notes, not a database\n".repeat(100)).unwrap();
    refused(&db, "not a SQLite database");

    // Another application's SQLite database.
    let db = temp_path("foreign", "db");
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.execute_batch("CREATE TABLE recipes (name TEXT); INSERT INTO recipes VALUES ('cake');")
        .unwrap();
    drop(conn);
    refused(&db, "another application");

    // Ours, from a newer version.
    let db = populated_db("newer");
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.execute_batch("PRAGMA user_version = 99;").unwrap();
    drop(conn);
    refused(&db, "newer convstate");

    // Ours, damaged in the middle.
    let db = populated_db("corrupt");
    let mut bytes = std::fs::read(&db).unwrap();
    assert!(bytes.len() > 40_000, "a file of {} bytes", bytes.len());
    for b in &mut bytes[20_000..24_000] {
        *b = 0xA5;
    }
    std::fs::write(&db, &bytes).unwrap();
    refused(&db, "refusing to serve from it");

    // Ours, truncated.
    let db = populated_db("truncated");
    let bytes = std::fs::read(&db).unwrap();
    std::fs::write(&db, &bytes[..bytes.len() / 2]).unwrap();
    refused(&db, "refusing to serve from it");
}

#[test]
fn a_new_store_file_and_its_directory_are_created() {
    let dir = temp_path("fresh-dir", "d");
    let db = dir.join("nested").join("convstate.db");
    let server = ServerProcess::start(&["--store", &format!("sqlite:{}", db.display())]).unwrap();
    assert!(db.exists());
    assert!(server.stop().0.success());
}

#[test]
fn a_change_of_rules_since_the_last_run_is_logged() {
    const CHANGED: &str = "the patterns, settings or version changed";
    let db = temp_path("rules", "db");
    let store = format!("sqlite:{}", db.display());
    let run = |extra: &[&str]| {
        let mut args = vec!["--store", store.as_str()];
        args.extend_from_slice(extra);
        let (status, log) = ServerProcess::start(&args).unwrap().stop();
        assert!(status.success(), "{log:?}");
        log.iter().any(|l| l.contains(CHANGED))
    };
    assert!(!run(&[]), "a new file has no earlier rules");
    assert!(!run(&[]), "the same rules again");
    assert!(run(&["--idle-timeout", "5m"]), "another idle timeout");
    assert!(!run(&["--idle-timeout", "5m"]));
    // Other pattern files: a copy of the built-in set with one more lead.
    let dir = copy_of_patterns("rules-patterns");
    let patterns = dir.to_str().unwrap();
    assert!(
        !run(&["--idle-timeout", "5m", "--patterns", patterns]),
        "the same text"
    );
    add_assemble_lead(&dir);
    assert!(
        run(&["--idle-timeout", "5m", "--patterns", patterns]),
        "a new lead"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_survives_a_kill_right_after_its_first_ack_and_a_bare_one_leaves_nothing() {
    // A session is created in the store by its first change: once that change is acknowledged
    // it outlives a crash, while one that only got its welcome was never stored. Under load (so
    // commits are large and slow), the server is killed the moment the first ack arrives;
    // three times.
    let db = temp_path("welcomed", "db");
    let args = sqlite_args(&db);
    let (mut acked_ids, mut bare_ids) = (Vec::new(), Vec::new());
    for round in 0..3 {
        let server = start(&args);
        let acked = Arc::new(AtomicUsize::new(0));
        let started = Arc::new(Started::default());
        let load: Vec<_> = (0..300)
            .map(|i| {
                let (acked, started) = (acked.clone(), started.clone());
                tokio::spawn(drive(server.ws_url(""), round * 1000 + i, acked, started))
            })
            .collect();
        while acked.load(Ordering::Relaxed) < 2_000 {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        let (_bare, bare) = Client::connect(&server.ws_url("")).await;
        let (mut client, _) = Client::connect(&server.ws_url("")).await;
        client.turn("user", "Build a landing page", "first").await;
        server.kill();
        acked_ids.push(client.session_id.clone());
        bare_ids.push(bare.session_id.to_string());
        for task in load {
            task.await.unwrap();
        }
    }
    let server = start(&args);
    for id in &acked_ids {
        let (status, body) = http(server.addr, "GET", &format!("/api/sessions/{id}")).await;
        assert_eq!(status, 200, "session {id}: {body}");
    }
    for id in &bare_ids {
        let (status, body) = http(server.addr, "GET", &format!("/api/sessions/{id}")).await;
        assert_eq!(status, 404, "session {id}, never changed: {body}");
    }
    assert!(server.stop().0.success());
}

#[tokio::test]
async fn a_second_server_on_the_same_file_is_refused() {
    let db = temp_path("one-server", "db");
    let args = sqlite_args(&db);
    let first = start(&args);
    let args_ref: Vec<&str> = args.iter().map(String::as_str).collect();
    let log = ServerProcess::start(&args_ref)
        .err()
        .expect("a second server on the file does not start");
    assert!(
        log.contains(&format!(
            "{}: in use by another convstate server",
            db.display()
        )),
        "{log}"
    );
    // The first one serves on, durably.
    let (mut client, _) = Client::connect(&first.ws_url("")).await;
    let (_, ack) = client.turn("user", "Build a landing page", "c-1").await;
    assert_eq!(ack, 1);
    // A killed server leaves no lock behind.
    let id = client.session_id.clone();
    first.kill();
    let again = start(&args);
    let (status, _) = http(again.addr, "GET", &format!("/api/sessions/{id}")).await;
    assert_eq!(status, 200);
    assert!(again.stop().0.success());
}

/// A store file of schema 1 (one snapshot per session, holding the whole history; no index of
/// client ids or goals) is migrated in place at start-up and loses nothing: the history, the
/// retried ids and the log are all there.
#[tokio::test]
async fn a_schema_1_file_is_migrated_without_losing_anything() {
    let db = temp_path("schema-1", "db");
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.execute_batch(
        "PRAGMA journal_mode = WAL;
         PRAGMA application_id = 1129534529; PRAGMA user_version = 1;
         CREATE TABLE sessions (id TEXT PRIMARY KEY, created_at TEXT NOT NULL,
             last_seq INTEGER NOT NULL, phase TEXT NOT NULL, updated_ms INTEGER NOT NULL,
             idle_deadline_ms INTEGER) WITHOUT ROWID;
         CREATE INDEX sessions_pending ON sessions (idle_deadline_ms)
             WHERE idle_deadline_ms IS NOT NULL;
         CREATE TABLE events (session_id TEXT NOT NULL, seq INTEGER NOT NULL,
             event TEXT NOT NULL, PRIMARY KEY (session_id, seq)) WITHOUT ROWID;
         CREATE TABLE snapshots (session_id TEXT PRIMARY KEY, seq INTEGER NOT NULL,
             state TEXT NOT NULL) WITHOUT ROWID;",
    )
    .unwrap();
    // 70 changes: 35 goals stated and cancelled, ids c-1 to c-70. Schema 1 kept the whole
    // history in the state, and snapshots without the totals.
    let mut engine = convstate::patterns::builtin();
    engine.settings_mut().history_window = 1000;
    let id = "s-0123456789abcdef01234567";
    let created: chrono::DateTime<chrono::Utc> = chrono::Utc::now() - chrono::TimeDelta::minutes(1);
    let mut conv = engine.start(id, created);
    let mut at = created;
    for seq in 1..=70u64 {
        at += chrono::TimeDelta::milliseconds(100);
        let text = if seq % 2 == 1 {
            format!("Build a landing page for product {}", seq / 2)
        } else {
            "bye".to_string()
        };
        let input = convstate::conversation::Input::Message {
            role: convstate::conversation::Role::User,
            text: &text,
            artifact: false,
        };
        engine.step(&mut conv, input, at);
        let event = Event {
            seq,
            at,
            change: store::Change::from_input(&input),
            id: Some(format!("c-{seq}")),
        };
        conn.execute(
            "INSERT INTO events (session_id, seq, event) VALUES (?1, ?2, ?3)",
            rusqlite::params![id, seq as i64, serde_json::to_string(&event).unwrap()],
        )
        .unwrap();
        if seq == 64 {
            let mut state = serde_json::to_value(&conv).unwrap();
            let map = state.as_object_mut().unwrap();
            map.remove("completed_goals_total");
            map.remove("abandoned_goals_total");
            conn.execute(
                "INSERT INTO snapshots (session_id, seq, state) VALUES (?1, 64, ?2)",
                rusqlite::params![id, state.to_string()],
            )
            .unwrap();
        }
    }
    conn.execute(
        "INSERT INTO sessions VALUES (?1, ?2, 70, 'idle', ?3, NULL)",
        rusqlite::params![
            id,
            created.to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true),
            at.timestamp_millis()
        ],
    )
    .unwrap();
    drop(conn);

    // Opened as a file of a sharded store: refused before any migration, the file as it was.
    let before = std::fs::read(&db).unwrap();
    let store = format!("sqlite:{}", db.display());
    let err = ServerProcess::start(&["--store", &store, "--store-shards", "2"])
        .err()
        .expect("refused");
    assert!(err.contains("--store-shards 1"), "{err}");
    assert!(
        std::fs::read(&db).unwrap() == before,
        "the refused start changed the file"
    );

    let args = sqlite_args(&db);
    let server = start(&args);
    let (status, body) = http(server.addr, "GET", &format!("/api/sessions/{id}")).await;
    assert_eq!(status, 200, "{body}");
    let state: Conversation = serde_json::from_str(&body).unwrap();
    assert_eq!(state.completed_goals_total, 35);
    assert_eq!(state.abandoned_goals_total, 35);
    assert_eq!(state.completed_goals.len(), 20);
    assert_eq!(
        state.completed_goals[19].description,
        "landing page for product 34"
    );
    // The whole history: 32 goals from the snapshot, 3 rebuilt from the log after it.
    let (status, body) = http(
        server.addr,
        "GET",
        &format!("/api/sessions/{id}/goals?limit=1000"),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let goals: Vec<Goal> = serde_json::from_str(&body).unwrap();
    let names: Vec<String> = goals.iter().map(|g| g.description.clone()).collect();
    let want: Vec<String> = (0..35)
        .map(|k| format!("landing page for product {k}"))
        .collect();
    assert_eq!(names, want);
    // Retried ids, from before and after the snapshot, get their first ack.
    let (mut client, _) = Client::connect(&server.ws_url(&format!("?session_id={id}"))).await;
    for k in [1u64, 64, 70] {
        client
            .send(json!({"type":"message","role":"user","text":"bye","id":format!("c-{k}")}))
            .await;
        assert_eq!(client.recv().await, ServerFrame::ack(&format!("c-{k}"), k));
    }
    let (status, body) = http(server.addr, "GET", &format!("/api/sessions/{id}/events")).await;
    assert_eq!(status, 200);
    assert_eq!(serde_json::from_str::<Vec<Event>>(&body).unwrap().len(), 70);
    let (status, log) = server.stop();
    assert!(status.success());
    assert!(
        log.iter()
            .any(|l| l.contains("migrated the store from schema 1 to 4")),
        "{log:?}"
    );
    let conn = rusqlite::Connection::open(&db).unwrap();
    let version: i32 = conn
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .unwrap();
    assert_eq!(version, 4);
    // The index of every event's client id is gone; the ids live with the snapshots.
    let index: i64 = conn
        .query_row(
            "SELECT count(*) FROM sqlite_master WHERE name = 'events_client_ids'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(index, 0);
}
