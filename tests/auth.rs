//! Authentication over real sockets, with tokens minted here: refused tokens get 401 and
//! create nothing, a token restricted to one session opens no other, another subject's session
//! is refused before the upgrade (its owner is stored with it, across a SIGKILL), and a frame
//! beyond the token's role is refused with `forbidden` and changes nothing. A token never
//! reaches the log.

mod common;

use common::{
    Client, ServerProcess, StoreKind, TestServer, error_code, http, http_with, raw_upgrade, upgrade,
};
use convstate::config::{Secret, ServerConfig};
use convstate::protocol::{ErrorCode, ServerFrame, StateUpdate};
use jsonwebtoken::{EncodingKey, Header, encode};
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::client::IntoClientRequest;

const SECRET: &str = "tests-secret-tests-secret-tests-secret";

fn config() -> ServerConfig {
    ServerConfig {
        jwt_secret: Some(Secret(SECRET.into())),
        jwt_issuer: Some("https://auth.example".into()),
        jwt_audience: Some("convstate".into()),
        ..ServerConfig::default()
    }
}

fn mint_with(claims: Value, secret: &str) -> String {
    encode(
        &Header::default(),
        &claims,
        &EncodingKey::from_secret(secret.as_bytes()),
    )
    .unwrap()
}

fn claims(sub: &str, role: &str) -> Value {
    json!({
        "sub": sub,
        "role": role,
        "iss": "https://auth.example",
        "aud": "convstate",
        "exp": chrono::Utc::now().timestamp() + 600,
    })
}

fn mint(sub: &str, role: &str) -> String {
    mint_with(claims(sub, role), SECRET)
}

/// A token restricted to session `sid` (and so granted it, whoever owns it).
fn mint_for(sub: &str, role: &str, sid: &str) -> String {
    let mut c = claims(sub, role);
    c["sid"] = sid.into();
    mint_with(c, SECRET)
}

async fn sessions_created(server: &TestServer) -> u64 {
    let (_, metrics) = http_with(server.addr, "GET", "/metrics", &mint("ops", "admin")).await;
    metrics
        .lines()
        .find_map(|l| l.strip_prefix("convstate_sessions_created_total "))
        .and_then(|n| n.trim().parse().ok())
        .expect("the metric")
}

/// A client of a new session, opened with `token`, after one user turn: its state frame.
async fn started(server: &TestServer, token: &str, text: &str) -> (Client, StateUpdate<'static>) {
    let (mut client, _) = Client::connect(&server.ws_url(&format!("?token={token}"))).await;
    client
        .send(json!({"type": "message", "role": "user", "text": text, "id": "c-1"}))
        .await;
    let ServerFrame::State(first) = client.recv().await else {
        panic!("a state frame")
    };
    let _ack = client.recv().await;
    (client, first)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refused_tokens_get_401_and_create_nothing() {
    let server = TestServer::start(config(), None, StoreKind::Memory).await;
    let expired = {
        let mut c = claims("u1", "user");
        c["exp"] = (chrono::Utc::now().timestamp() - 3600).into();
        mint_with(c, SECRET)
    };
    let issuer = {
        let mut c = claims("u1", "user");
        c["iss"] = "https://elsewhere.example".into();
        mint_with(c, SECRET)
    };
    let audience = {
        let mut c = claims("u1", "user");
        c["aud"] = "another-service".into();
        mint_with(c, SECRET)
    };
    let no_exp = {
        let mut c = claims("u1", "user");
        c.as_object_mut().unwrap().remove("exp");
        mint_with(c, SECRET)
    };
    let cases = [
        ("no token", String::new(), "a token is needed"),
        ("malformed", "?token=abc.def".into(), "malformed"),
        ("expired", format!("?token={expired}"), "expired"),
        (
            "wrongly signed",
            format!(
                "?token={}",
                mint_with(claims("u1", "user"), "some-other-secret-of-enough-length")
            ),
            "signature",
        ),
        ("wrong issuer", format!("?token={issuer}"), "issuer"),
        ("wrong audience", format!("?token={audience}"), "audience"),
        (
            "no exp",
            format!("?token={no_exp}"),
            "required claim is missing: exp",
        ),
    ];
    for (name, query, why) in cases {
        let (status, body) = upgrade(server.addr, &query).await;
        assert_eq!(status, 401, "{name}: {body}");
        assert_eq!(error_code(&body), Some(ErrorCode::Unauthorized), "{name}");
        assert!(body.contains(why), "{name}: {body}");
    }
    assert_eq!(sessions_created(&server).await, 0);
    // A good token, in the query or as a bearer header, opens a session.
    let (status, body) = upgrade(server.addr, &format!("?token={}", mint("u1", "user"))).await;
    assert_eq!(status, 101, "{body}");
    let mut request = server.ws_url("").into_client_request().unwrap();
    request.headers_mut().insert(
        "Authorization",
        format!("Bearer {}", mint("u1", "user")).parse().unwrap(),
    );
    let (ws, _) = tokio_tungstenite::connect_async(request).await.unwrap();
    drop(ws);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_frame_beyond_the_tokens_role_is_forbidden_and_changes_nothing() {
    let server = TestServer::start(config(), None, StoreKind::Memory).await;
    let user = mint("u1", "user");
    let (mut alice, first) = started(&server, &user, "I want to build a todo app").await;
    let session = alice.session_id.clone();
    let forbidden = [
        json!({"type": "message", "role": "assistant", "text": "Here it is", "id": "c-2"}),
        json!({"type": "signal", "signal": "work_done", "id": "c-3"}),
    ];
    for frame in forbidden {
        alice.send(frame.clone()).await;
        let ServerFrame::Error(e) = alice.recv().await else {
            panic!("an error for {frame}")
        };
        assert_eq!(e.code, ErrorCode::Forbidden, "{frame}");
    }
    // An observer receives, and sends nothing that changes the session (its token names the
    // session: it belongs to another subject).
    let observer = mint_for("watcher", "observer", &session);
    let (mut bob, _) =
        Client::connect(&server.ws_url(&format!("?session_id={session}&token={observer}"))).await;
    for frame in [
        json!({"type": "message", "role": "user", "text": "cancel", "id": "o-1"}),
        json!({"type": "signal", "signal": "approve"}),
        json!({"type": "reset"}),
    ] {
        bob.send(frame.clone()).await;
        let ServerFrame::Error(e) = bob.recv().await else {
            panic!("an error for {frame}")
        };
        assert_eq!(e.code, ErrorCode::Forbidden, "{frame}");
    }
    // An assistant speaks as the assistant only.
    let assistant = mint_for("replier", "assistant", &session);
    let (mut carol, _) =
        Client::connect(&server.ws_url(&format!("?session_id={session}&token={assistant}"))).await;
    carol
        .send(json!({"type": "message", "role": "user", "text": "never mind"}))
        .await;
    let ServerFrame::Error(e) = carol.recv().await else {
        panic!("an error")
    };
    assert_eq!(e.code, ErrorCode::Forbidden);
    // Nothing changed: the state is still the one after the first turn.
    bob.send(json!({"type": "get_state"})).await;
    let ServerFrame::State(now) = bob.recv().await else {
        panic!("the state")
    };
    assert_eq!(now.seq, first.seq);
    assert_eq!(now.state.turn_count, 1);
    carol
        .send(json!({"type": "message", "role": "assistant", "text": "What features do you need?", "id": "a-1"}))
        .await;
    let ServerFrame::State(next) = carol.recv().await else {
        panic!("a state frame")
    };
    assert_eq!(next.seq, first.seq + 1);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_token_for_one_session_opens_no_other() {
    let server = TestServer::start(config(), None, StoreKind::Memory).await;
    let user = mint("u1", "user");
    let (alice, _) = started(&server, &user, "hello").await;
    let mine = alice.session_id.clone();
    let only = mint_for("u2", "user", &mine);
    let created = sessions_created(&server).await;
    for query in [
        format!("?token={only}"),
        format!("?session_id=s-other&token={only}"),
    ] {
        let (status, body) = upgrade(server.addr, &query.clone()).await;
        assert_eq!(status, 403, "{query}: {body}");
        assert_eq!(error_code(&body), Some(ErrorCode::Forbidden));
    }
    assert_eq!(sessions_created(&server).await, created);
    let (status, body) = upgrade(server.addr, &format!("?session_id={mine}&token={only}")).await;
    assert_eq!(status, 101, "{body}");
    server.stop().await;
}

/// The state's `seq` and turn count as a fresh client of `session` sees them.
async fn seen(server_ws: &str, session: &str, token: &str) -> (u64, u64) {
    let (mut c, _) =
        Client::connect(&format!("{server_ws}?session_id={session}&token={token}")).await;
    c.send(json!({"type": "get_state"})).await;
    let ServerFrame::State(s) = c.recv().await else {
        panic!("the state")
    };
    (s.seq, s.state.turn_count)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn another_subjects_session_is_refused_before_the_upgrade() {
    let server = TestServer::start(config(), None, StoreKind::Memory).await;
    let alice = mint("alice", "user");
    let (_a, first) = started(&server, &alice, "I want to build a todo app").await;
    let session = _a.session_id.clone();
    // A session with no change yet (in memory only) has its owner too.
    let (fresh, _) = Client::connect(&server.ws_url(&format!("?token={alice}"))).await;
    let created = sessions_created(&server).await;
    for (who, token) in [
        ("another user", mint("bob", "user")),
        ("another subject's observer token", mint("bob", "observer")),
        (
            "another subject's assistant token",
            mint("bob", "assistant"),
        ),
    ] {
        for id in [&session, &fresh.session_id] {
            let (status, body) =
                upgrade(server.addr, &format!("?session_id={id}&token={token}")).await;
            assert_eq!(status, 403, "{who}: {body}");
            assert_eq!(error_code(&body), Some(ErrorCode::Forbidden), "{who}");
            assert!(body.contains("another subject"), "{body}");
        }
    }
    assert_eq!(sessions_created(&server).await, created, "nothing created");
    let ws = format!("ws://{}/ws", server.addr);
    // Its owner (any of its tokens), a token naming it and an admin open it; nothing changed.
    assert_eq!(seen(&ws, &session, &alice).await, (first.seq, 1));
    let granted = mint_for("bob", "observer", &session);
    assert_eq!(seen(&ws, &session, &granted).await, (first.seq, 1));
    let admin = mint("ops", "admin");
    let (mut root, _) =
        Client::connect(&server.ws_url(&format!("?session_id={session}&token={admin}"))).await;
    root.send(json!({"type": "reset", "id": "r-1"})).await;
    let ServerFrame::State(after) = root.recv().await else {
        panic!("the state after the admin's reset")
    };
    assert_eq!(after.state.turn_count, 0);
    server.stop().await;
}

/// The owner is stored with the session: after a SIGKILL and a restart on the same SQLite
/// file, another subject is still refused and the owner still admitted. A file of schema 2
/// (before owners) is migrated, and its sessions, which have no owner, open only to an admin
/// or a token naming them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn owners_survive_a_sigkill_and_a_restart() {
    let db = common::temp_path("owners", "db");
    let store = format!("sqlite:{}", db.display());
    let args = ["--store", store.as_str()];
    let env = [("CONVSTATE_JWT_SECRET", SECRET)];
    let alice = mint_with(
        json!({"sub": "alice", "exp": chrono::Utc::now().timestamp() + 600}),
        SECRET,
    );
    let bob = mint_with(
        json!({"sub": "bob", "exp": chrono::Utc::now().timestamp() + 600}),
        SECRET,
    );
    let admin = mint_with(
        json!({"sub": "ops", "role": "admin", "exp": chrono::Utc::now().timestamp() + 600}),
        SECRET,
    );
    let serve = || {
        let mut all = vec!["--listen", "127.0.0.1:0"];
        all.extend_from_slice(&args);
        ServerProcess::spawn(&all, &env).expect("serves")
    };
    let server = serve();
    let (mut a, _) = Client::connect(&server.ws_url(&format!("?token={alice}"))).await;
    a.send(json!({"type": "message", "role": "user", "text": "Build a landing page", "id": "c-1"}))
        .await;
    let ServerFrame::State(first) = a.recv().await else {
        panic!("a state frame")
    };
    assert_eq!(
        a.recv().await,
        ServerFrame::ack("c-1", first.seq),
        "acked: durable"
    );
    let session = a.session_id.clone();
    drop(a);
    server.kill();

    let server = serve();
    let (status, body) = upgrade(server.addr, &format!("?session_id={session}&token={bob}")).await;
    assert_eq!(status, 403, "{body}");
    let ws = format!("ws://{}/ws", server.addr);
    assert_eq!(seen(&ws, &session, &alice).await, (first.seq, 1));
    drop(server);

    // Back to schema 2: the owner column, the index of client ids, the snapshots without
    // their ids and the version as they were.
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.execute_batch(
        "ALTER TABLE sessions DROP COLUMN owner; ALTER TABLE snapshots DROP COLUMN recent_ids;
         CREATE INDEX events_client_ids ON events (session_id, seq) WHERE client_id IS NOT NULL;
         PRAGMA user_version = 2;",
    )
    .unwrap();
    drop(conn);
    let server = serve();
    for token in [&alice, &bob] {
        let (status, body) =
            upgrade(server.addr, &format!("?session_id={session}&token={token}")).await;
        assert_eq!(status, 403, "{body}");
    }
    assert_eq!(
        seen(&ws_of(&server), &session, &admin).await,
        (first.seq, 1)
    );
    let granted = mint_with(
        json!({"sub": "alice", "sid": session, "exp": chrono::Utc::now().timestamp() + 600}),
        SECRET,
    );
    assert_eq!(
        seen(&ws_of(&server), &session, &granted).await,
        (first.seq, 1)
    );
    let (status, log) = server.stop();
    assert!(status.success());
    assert!(
        log.iter()
            .any(|l| l.contains("migrated the store from schema 2 to 4")),
        "{log:?}"
    );
}

fn ws_of(server: &ServerProcess) -> String {
    format!("ws://{}/ws", server.addr)
}

#[test]
fn a_token_never_reaches_the_log() {
    let server = ServerProcess::spawn(
        &["--listen", "127.0.0.1:0", "--store", "memory:"],
        &[("CONVSTATE_JWT_SECRET", SECRET)],
    )
    .unwrap();
    let good = mint_with(
        json!({"sub": "u1", "exp": chrono::Utc::now().timestamp() + 600}),
        SECRET,
    );
    let bad = mint_with(
        json!({"sub": "u1", "exp": chrono::Utc::now().timestamp() + 600}),
        "a-wrong-secret-a-wrong-secret-a-wrong",
    );
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let url = server.ws_url(&format!("?token={good}"));
    runtime.block_on(async {
        let (mut client, _) = Client::connect(&url).await;
        client
            .send(json!({"type": "message", "role": "user", "text": "hello", "id": "c-1"}))
            .await;
        let _ = client.recv().await;
    });
    let (status, _) = raw_upgrade(server.addr, &format!("?token={bad}"));
    assert_eq!(status, 401);
    let (exit, log) = server.stop();
    assert!(exit.success());
    let log = log.join("\n");
    assert!(
        log.contains("authentication: every connection needs a token"),
        "{log}"
    );
    for token in [&good, &bad] {
        // Not whole, and not its signature either.
        let signature = token.rsplit('.').next().unwrap();
        assert!(!log.contains(signature), "{log}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_http_api_is_an_admins_and_a_session_is_read_by_its_owner() {
    let server = TestServer::start(config(), None, StoreKind::Memory).await;
    let user = mint("u1", "user");
    let (alice, _) = started(&server, &user, "hello").await;
    let id = alice.session_id.clone();
    let paths = [
        format!("/api/sessions/{id}"),
        format!("/api/sessions/{id}/summary"),
        format!("/api/sessions/{id}/events"),
        format!("/api/sessions/{id}/goals"),
    ];
    let admin = mint("ops", "admin");
    let bob = mint("bob", "user");
    for path in &paths {
        let (status, body) = http(server.addr, "GET", path).await;
        assert_eq!(status, 401, "{path}: {body}");
        assert_eq!(error_code(&body), Some(ErrorCode::Unauthorized), "{path}");
        // Another subject's token reads nothing of it.
        let (status, body) = http_with(server.addr, "GET", path, &bob).await;
        assert_eq!(status, 403, "{path}: {body}");
        assert_eq!(error_code(&body), Some(ErrorCode::Forbidden), "{path}");
        // Its owner reads it (the widget shows the transcript from the log), as does an admin.
        for token in [&user, &admin] {
            let (status, body) = http_with(server.addr, "GET", path, token).await;
            assert_eq!(status, 200, "{path}: {body}");
        }
    }
    // A session that does not exist: 403 for a reader (ids cannot be probed), 404 for an admin.
    let (status, _) = http_with(server.addr, "GET", "/api/sessions/s-none", &bob).await;
    assert_eq!(status, 403);
    let (status, _) = http_with(server.addr, "GET", "/api/sessions/s-none", &admin).await;
    assert_eq!(status, 404);
    let (status, _) = http(server.addr, "GET", "/metrics").await;
    assert_eq!(status, 401);
    let (status, body) = http_with(server.addr, "GET", "/metrics", &user).await;
    assert_eq!(status, 403, "{body}");
    let (status, _) = http_with(server.addr, "GET", "/metrics", &admin).await;
    assert_eq!(status, 200);
    // Deleting is an admin's, even for the owner.
    let (status, _) = http(server.addr, "DELETE", &format!("/api/sessions/{id}")).await;
    assert_eq!(status, 401);
    let (status, _) = http_with(server.addr, "DELETE", &format!("/api/sessions/{id}"), &user).await;
    assert_eq!(status, 403);
    let (status, _) = http_with(
        server.addr,
        "DELETE",
        &format!("/api/sessions/{id}"),
        &admin,
    )
    .await;
    assert_eq!(status, 204);
    for open in ["/healthz", "/readyz"] {
        assert_eq!(http(server.addr, "GET", open).await.0, 200, "{open}");
    }
    server.stop().await;
}

#[test]
fn another_address_than_loopback_needs_authentication_or_a_deliberate_flag() {
    let dir = common::temp_path("exposed", "d");
    let store = format!("sqlite:{}/convstate.db", dir.display());
    let refused = ServerProcess::spawn(&["--listen", "0.0.0.0:0", "--store", &store], &[])
        .err()
        .expect("refused");
    assert!(
        refused.contains("refusing to serve 0.0.0.0:0 without authentication"),
        "{refused}"
    );
    assert!(refused.contains("--insecure-no-auth"), "{refused}");
    assert!(!dir.exists(), "nothing created before the refusal");
    // A key that cannot serve is refused as early: a short secret, a missing key file.
    for (args, envs, said) in [
        (
            vec![],
            vec![("CONVSTATE_JWT_SECRET", "short")],
            "at least 32 bytes",
        ),
        (
            vec!["--api-keys-file", "/nonexistent/keys"],
            vec![],
            "api_keys_file",
        ),
        (
            vec!["--jwt-public-key", "/nonexistent/key.pem"],
            vec![],
            "jwt_public_key",
        ),
    ] {
        let mut all = vec!["--listen", "127.0.0.1:0", "--store", &store];
        all.extend(args);
        let refused = ServerProcess::spawn(&all, &envs).err().expect("refused");
        assert!(refused.contains(said), "{refused}");
        assert!(!dir.exists(), "nothing created before the refusal: {said}");
    }
    for (args, envs) in [
        (vec!["--insecure-no-auth"], vec![]),
        (vec![], vec![("CONVSTATE_JWT_SECRET", SECRET)]),
    ] {
        let mut all = vec!["--listen", "0.0.0.0:0", "--store", "memory:"];
        all.extend(args);
        let server = ServerProcess::spawn(&all, &envs).expect("serves");
        let (status, log) = server.stop();
        assert!(status.success());
        let log = log.join("\n");
        assert!(
            log.contains("authentication is off on a non-loopback address")
                || log.contains("every connection needs a token"),
            "{log}"
        );
    }
    // Loopback without authentication serves, and says so.
    let server = ServerProcess::spawn(&["--listen", "127.0.0.1:0", "--store", "memory:"], &[])
        .expect("serves");
    let (_, log) = server.stop();
    assert!(
        log.join("\n")
            .contains("authentication is off: serving on loopback only")
    );
}

#[test]
fn origins_are_checked_against_the_configured_ones_never_the_host() {
    // A rebinding name: the page's origin and the Host header agree, and point here.
    let rebinding = "Origin: http://evil.example:8080\r\nHost: evil.example:8080\r\n";
    let server = ServerProcess::spawn(&["--listen", "127.0.0.1:0", "--store", "memory:"], &[])
        .expect("serves");
    let (status, _) = common::raw_upgrade_with(server.addr, "", rebinding);
    assert_eq!(status, 403);
    // With authentication off, the API too refuses a rebinding name (a page's same-origin
    // reads and deletes), and a browser's DELETE from an origin not allowed.
    let (status, _, body) = common::raw_request(
        server.addr,
        "GET /api/sessions/s-1",
        "Host: evil.example:8080\r\n",
    );
    assert_eq!(status, 403, "{body}");
    assert!(
        body.contains("host evil.example:8080 is not served here"),
        "{body}"
    );
    let (status, _, body) = common::raw_request(
        server.addr,
        "DELETE /api/sessions/s-1",
        "Origin: http://evil.example:8080\r\n",
    );
    assert_eq!(status, 403, "{body}");
    let (status, _, _) =
        common::raw_request(server.addr, "GET /api/sessions/s-1", "Host: localhost\r\n");
    assert_eq!(status, 404, "localhost: an unknown session, not refused");
    // On loopback, a localhost page may connect.
    let (status, _) =
        common::raw_upgrade_with(server.addr, "", "Origin: http://localhost:3000\r\n");
    assert_eq!(status, 101);
    server.stop();
    // Not on loopback: localhost pages may not; the public origin may.
    let server = ServerProcess::spawn(
        &[
            "--listen",
            "0.0.0.0:0",
            "--store",
            "memory:",
            "--insecure-no-auth",
            "--public-origin",
            "https://chat.example",
        ],
        &[],
    )
    .expect("serves");
    let addr = std::net::SocketAddr::from(([127, 0, 0, 1], server.addr.port()));
    for (origin, expected) in [
        ("http://localhost:3000", 403),
        ("http://127.0.0.1:8080", 403),
        ("http://evil.example:8080", 403),
        ("https://chat.example", 101),
    ] {
        let (status, body) = common::raw_upgrade_with(addr, "", &format!("Origin: {origin}\r\n"));
        assert_eq!(status, expected, "{origin}: {body}");
    }
    server.stop();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_api_key_opens_the_http_api_and_the_metrics() {
    let key = "an-api-key-for-the-tests-0123456789abcdef";
    let file = common::temp_path("api-keys", "txt");
    std::fs::write(&file, format!("# operators\n{key}\n")).unwrap();
    // With tokens too, and alone.
    for with_tokens in [true, false] {
        let config = ServerConfig {
            api_keys_file: Some(file.clone()),
            ..if with_tokens {
                config()
            } else {
                ServerConfig::default()
            }
        };
        let server = TestServer::start(config, None, StoreKind::Memory).await;
        for path in ["/metrics", "/api/sessions/s-nobody"] {
            assert_eq!(http(server.addr, "GET", path).await.0, 401, "{path}");
            let wrong = &key[..key.len() - 1];
            assert_eq!(
                http_with(server.addr, "GET", path, wrong).await.0,
                401,
                "{path}"
            );
            let expected = if path == "/metrics" { 200 } else { 404 };
            assert_eq!(
                http_with(server.addr, "GET", path, key).await.0,
                expected,
                "{path}"
            );
        }
        server.stop().await;
    }
}

/// `--metrics-listen`: the metrics move to an address of their own, served there without a
/// token (and nothing else is); the main address no longer serves them, even to an admin.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_metrics_may_have_an_address_of_their_own() {
    let server = ServerProcess::spawn(
        &[
            "--listen",
            "127.0.0.1:0",
            "--store",
            "memory:",
            "--metrics-listen",
            "127.0.0.1:0",
        ],
        &[("CONVSTATE_JWT_SECRET", SECRET)],
    )
    .expect("serves");
    let metrics_addr: std::net::SocketAddr = server
        .early_log()
        .iter()
        .find_map(|l| {
            let at = l.find("metrics_address=")?;
            l[at + 16..].split_whitespace().next()?.parse().ok()
        })
        .expect("the metrics address is logged");
    let admin = mint_with(
        json!({"sub": "ops", "role": "admin", "exp": chrono::Utc::now().timestamp() + 600}),
        SECRET,
    );
    let (status, body) = http(metrics_addr, "GET", "/metrics").await;
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("convstate_sessions_created_total"), "{body}");
    for path in ["/api/sessions/s-1", "/ws", "/", "/healthz"] {
        assert_eq!(http(metrics_addr, "GET", path).await.0, 404, "{path}");
    }
    let (status, _) = http_with(server.addr, "GET", "/metrics", &admin).await;
    assert_eq!(status, 404);
    let (status, _) = http_with(server.addr, "GET", "/api/sessions/s-1", &admin).await;
    assert_eq!(status, 404, "unknown session: the API is still served");
    assert_eq!(http(server.addr, "GET", "/healthz").await.0, 200);
    let (status, log) = server.stop();
    assert!(status.success(), "{log:?}");
}

/// `sid` restricts a token on the HTTP API too: a user token naming one session reads no other
/// session of its subject, and an admin token naming one session is an admin of that session
/// only (not of the others, not of the metrics). An embedding site's preflight (the widget sends
/// `Authorization` to the API) is answered for allowed origins only.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sid_restricts_a_token_on_the_api_and_allowed_sites_get_preflights() {
    let server = TestServer::start(
        ServerConfig {
            allowed_origins: vec!["https://shop.example".into()],
            ..config()
        },
        None,
        StoreKind::Memory,
    )
    .await;
    let user = mint("u1", "user");
    let (first, _) = started(&server, &user, "hello").await;
    let (second, _) = started(&server, &user, "hi again").await;
    let (one, two) = (first.session_id.clone(), second.session_id.clone());
    let only_one = mint_for("u1", "user", &one);
    assert_eq!(
        http_with(
            server.addr,
            "GET",
            &format!("/api/sessions/{one}"),
            &only_one
        )
        .await
        .0,
        200
    );
    let (status, body) = http_with(
        server.addr,
        "GET",
        &format!("/api/sessions/{two}"),
        &only_one,
    )
    .await;
    assert_eq!(status, 403, "{body}");
    // An admin token naming one session is an admin of that session only.
    let admin_one = mint_for("ops", "admin", &one);
    for (method, path, status) in [
        ("GET", format!("/api/sessions/{two}/events"), 403),
        ("GET", "/metrics".to_string(), 403),
        ("DELETE", format!("/api/sessions/{two}"), 403),
        ("DELETE", format!("/api/sessions/{one}"), 204),
    ] {
        let (got, body) = http_with(server.addr, method, &path, &admin_one).await;
        assert_eq!(got, status, "{method} {path}: {body}");
    }

    let preflight = |origin: &str| {
        format!(
            "Origin: {origin}\r\nAccess-Control-Request-Method: GET\r\n\
             Access-Control-Request-Headers: authorization\r\n"
        )
    };
    let path = format!("OPTIONS /api/sessions/{two}/events");
    let addr = server.addr;
    let (status, head, _) = tokio::task::spawn_blocking({
        let (path, headers) = (path.clone(), preflight("https://shop.example"));
        move || common::raw_request(addr, &path, &headers)
    })
    .await
    .unwrap();
    assert_eq!(status, 204, "{head}");
    let head = head.to_ascii_lowercase();
    assert!(
        head.contains("access-control-allow-origin: https://shop.example"),
        "{head}"
    );
    assert!(
        head.contains("access-control-allow-headers: authorization"),
        "{head}"
    );
    let (status, head, _) = tokio::task::spawn_blocking(move || {
        common::raw_request(addr, &path, &preflight("https://evil.example"))
    })
    .await
    .unwrap();
    assert_eq!(status, 403, "{head}");
    assert!(
        !head
            .to_ascii_lowercase()
            .contains("access-control-allow-origin")
    );
    server.stop().await;
}
