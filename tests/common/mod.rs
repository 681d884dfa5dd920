//! Shared helpers of the end-to-end tests: an in-process server on port 0, a WebSocket client
//! and a minimal HTTP client.
#![allow(dead_code)]

pub(crate) mod upstream;

use std::net::SocketAddr;
use std::time::Duration;

use convstate::config::ServerConfig;
use convstate::protocol::{ErrorCode, ServerFrame, StateUpdate, Welcome};
use convstate::server::Clock;
use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio::net::TcpStream;
use tokio::sync::oneshot;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

/// How long a test waits for a frame that must come.
pub(crate) const PATIENCE: Duration = Duration::from_secs(10);

pub(crate) struct TestServer {
    pub addr: SocketAddr,
    stop: Option<oneshot::Sender<()>>,
    handle: tokio::task::JoinHandle<std::io::Result<()>>,
}

/// The stores the end-to-end tests run against.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum StoreKind {
    Memory,
    Sqlite,
    /// SQLite spread over three files (`--store-shards 3`).
    ShardedSqlite,
}

impl StoreKind {
    /// A store URL: memory, or a new SQLite file of its own under the target directory.
    pub(crate) fn url(self) -> String {
        match self {
            StoreKind::Memory => "memory:".to_string(),
            StoreKind::Sqlite | StoreKind::ShardedSqlite => {
                format!("sqlite:{}", temp_path("store", "db").display())
            }
        }
    }

    /// `config` on this store: a new one of its own.
    pub(crate) fn configure(self, config: &mut ServerConfig) {
        config.store = self.url();
        config.store_shards = if self == StoreKind::ShardedSqlite {
            3
        } else {
            1
        };
    }
}

/// A copy of the built-in pattern set in a fresh directory.
pub(crate) fn copy_of_patterns(stem: &str) -> std::path::PathBuf {
    let dir = temp_path(stem, "d");
    std::fs::create_dir_all(&dir).unwrap();
    let builtin = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("patterns");
    copy_dir(&builtin, &dir);
    dir
}

/// Copies the files of `from` into `to`, and its directories (the flows) the same way.
pub(crate) fn copy_dir(from: &std::path::Path, to: &std::path::Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let path = entry.unwrap().path();
        let target = to.join(path.file_name().unwrap());
        if path.is_dir() {
            copy_dir(&path, &target);
        } else {
            std::fs::copy(&path, target).unwrap();
        }
    }
}

/// Adds "assemble" as a lead of artifact creation to the pattern set in `dir`.
pub(crate) fn add_assemble_lead(dir: &std::path::Path) {
    let goals = dir.join("goals.toml");
    let text = std::fs::read_to_string(&goals).unwrap();
    assert!(
        text.contains("\"build\","),
        "no build lead in {}",
        goals.display()
    );
    let text = text.replacen("\"build\",", "\"assemble\", \"build\",", 1);
    std::fs::write(&goals, text).unwrap();
}

/// A fresh path under the target directory's temporary folder.
pub(crate) fn temp_path(stem: &str, ext: &str) -> std::path::PathBuf {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    let n = N.fetch_add(1, Ordering::Relaxed);
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("stores");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{stem}-{}-{n}.{ext}", std::process::id()));
    let _ = std::fs::remove_file(&path);
    path
}

impl TestServer {
    /// Starts a server with `config` (its `listen` is ignored: port 0 on loopback, its store
    /// replaced by `store`) and the built-in patterns, with `idle` as the idle timeout when
    /// given.
    pub(crate) async fn start(
        mut config: ServerConfig,
        idle: Option<chrono::TimeDelta>,
        store: StoreKind,
    ) -> TestServer {
        store.configure(&mut config);
        TestServer::start_on(config, idle).await
    }

    /// Starts a server on `config.store` as it is.
    pub(crate) async fn start_on(
        config: ServerConfig,
        idle: Option<chrono::TimeDelta>,
    ) -> TestServer {
        TestServer::start_with_clock(config, idle, Clock::System).await
    }

    /// Starts a server on `config.store` with `clock`.
    pub(crate) async fn start_with_clock(
        config: ServerConfig,
        idle: Option<chrono::TimeDelta>,
        clock: Clock,
    ) -> TestServer {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let mut engine = convstate::patterns::builtin();
        if let Some(idle) = idle {
            engine.settings_mut().idle_timeout = idle;
        }
        let store = convstate::store::open(&config.store, &config.store_options())
            .expect("the store opens");
        let (tx, rx) = oneshot::channel();
        let handle = tokio::spawn(convstate::server::run_with_clock(
            listener,
            config,
            engine,
            store,
            clock,
            async {
                let _ = rx.await;
            },
        ));
        TestServer {
            addr,
            stop: Some(tx),
            handle,
        }
    }

    pub(crate) async fn with_store(store: StoreKind) -> TestServer {
        TestServer::start(ServerConfig::default(), None, store).await
    }

    pub(crate) async fn default() -> TestServer {
        TestServer::with_store(StoreKind::Memory).await
    }

    pub(crate) fn ws_url(&self, query: &str) -> String {
        format!("ws://{}/ws{query}", self.addr)
    }

    /// Stops the server and waits for `run` to return.
    pub(crate) async fn stop(mut self) {
        if let Some(tx) = self.stop.take() {
            let _ = tx.send(());
        }
        tokio::time::timeout(PATIENCE, &mut self.handle)
            .await
            .expect("the server stops")
            .expect("the server task")
            .expect("run returns Ok");
    }
}

pub(crate) struct Client {
    pub ws: WebSocketStream<MaybeTlsStream<TcpStream>>,
    pub session_id: String,
}

impl Client {
    /// Connects and reads the `welcome` frame.
    pub(crate) async fn connect(url: &str) -> (Client, Welcome<'static>) {
        let (ws, _) = tokio_tungstenite::connect_async(url)
            .await
            .expect("connects");
        let mut client = Client {
            ws,
            session_id: String::new(),
        };
        let ServerFrame::Welcome(welcome) = client.recv().await else {
            panic!("the first frame is not a welcome");
        };
        assert_eq!(welcome.protocol, 1);
        client.session_id = welcome.session_id.to_string();
        (client, welcome)
    }

    /// Connects and reads the first frame as JSON (a hosted flow's welcome carries the flow's
    /// run, not a conversation).
    pub(crate) async fn connect_raw(url: &str) -> (Client, Value) {
        let (ws, _) = tokio_tungstenite::connect_async(url)
            .await
            .expect("connects");
        let mut client = Client {
            ws,
            session_id: String::new(),
        };
        let welcome: Value = serde_json::from_str(&client.recv_text().await).unwrap();
        assert_eq!(welcome["type"], "welcome", "{welcome}");
        client.session_id = welcome["session_id"].as_str().unwrap().to_string();
        (client, welcome)
    }

    /// The next frame as JSON.
    pub(crate) async fn recv_json(&mut self) -> Value {
        serde_json::from_str(&self.recv_text().await).unwrap()
    }

    pub(crate) async fn connect_with_origin(url: &str, origin: &str) -> Result<Client, String> {
        let mut request = url.into_client_request().unwrap();
        request
            .headers_mut()
            .insert("Origin", origin.parse().unwrap());
        match tokio_tungstenite::connect_async(request).await {
            Ok((ws, _)) => Ok(Client {
                ws,
                session_id: String::new(),
            }),
            Err(e) => Err(e.to_string()),
        }
    }

    /// Sends a client frame given as JSON (malformed ones included).
    pub(crate) async fn send(&mut self, frame: Value) {
        self.send_text(&frame.to_string()).await;
    }

    pub(crate) async fn send_text(&mut self, text: &str) {
        self.ws
            .send(Message::Text(text.into()))
            .await
            .expect("sends");
    }

    /// The next frame (pings and pongs skipped), read through the protocol's type.
    pub(crate) async fn recv(&mut self) -> ServerFrame<'static> {
        let text = self.recv_text().await;
        ServerFrame::parse(&text).unwrap_or_else(|e| panic!("{e}"))
    }

    /// The next text frame as it came (pings and pongs skipped).
    pub(crate) async fn recv_text(&mut self) -> String {
        self.recv_text_within(PATIENCE).await
    }

    /// The next frame, waiting up to `patience` (in paused time, longer than the deadline
    /// awaited: the runtime jumps to the earliest timer).
    pub(crate) async fn recv_within(&mut self, patience: Duration) -> ServerFrame<'static> {
        let text = self.recv_text_within(patience).await;
        ServerFrame::parse(&text).unwrap_or_else(|e| panic!("{e}"))
    }

    async fn recv_text_within(&mut self, patience: Duration) -> String {
        loop {
            let message = tokio::time::timeout(patience, self.ws.next())
                .await
                .expect("a frame in time")
                .expect("the connection is open")
                .expect("a valid frame");
            match message {
                Message::Text(text) => return text.to_string(),
                Message::Ping(_) | Message::Pong(_) => continue,
                other => panic!("unexpected frame {other:?}"),
            }
        }
    }

    /// The next frame, which must be a `state` frame.
    pub(crate) async fn recv_state(&mut self) -> StateUpdate<'static> {
        match self.recv().await {
            ServerFrame::State(state) => state,
            other => panic!("expected a state frame, got {}", other.to_text()),
        }
    }

    /// Whether a text frame arrives within `wait`.
    pub(crate) async fn quiet_for(&mut self, wait: Duration) -> bool {
        match tokio::time::timeout(wait, self.ws.next()).await {
            Err(_) => true,
            Ok(Some(Ok(Message::Text(t)))) => panic!("unexpected frame {t}"),
            Ok(_) => true,
        }
    }

    /// The close frame's code, reading past any text frames.
    pub(crate) async fn closed_with(&mut self) -> Option<u16> {
        loop {
            match tokio::time::timeout(PATIENCE, self.ws.next())
                .await
                .expect("closes in time")
            {
                Some(Ok(Message::Close(frame))) => return frame.map(|f| u16::from(f.code)),
                Some(Ok(_)) => continue,
                Some(Err(_)) | None => return None,
            }
        }
    }

    /// Sends a message turn with `id` and returns its `state` frame and the `seq` of its ack.
    pub(crate) async fn turn(
        &mut self,
        role: &str,
        text: &str,
        id: &str,
    ) -> (StateUpdate<'static>, u64) {
        self.send(json!({"type": "message", "role": role, "text": text, "id": id}))
            .await;
        let state = self.recv_state().await;
        let seq = self.expect_ack(id).await;
        assert_eq!(seq, state.seq);
        (state, seq)
    }

    /// The next frame is the `ack` of `id`; returns its `seq`.
    pub(crate) async fn expect_ack(&mut self, id: &str) -> u64 {
        match self.recv().await {
            ServerFrame::Ack(ack) => {
                assert_eq!(ack.id, id);
                ack.seq
            }
            other => panic!("expected the ack of {id}, got {}", other.to_text()),
        }
    }

    /// The next frame is an error of `code`; returns its message.
    pub(crate) async fn expect_error(&mut self, code: ErrorCode) -> String {
        match self.recv().await {
            ServerFrame::Error(e) => {
                assert_eq!(e.code, code, "{}", e.message);
                e.message.into_owned()
            }
            other => panic!("expected an error {code}, got {}", other.to_text()),
        }
    }
}

/// One HTTP request (hyper's client): the status and the body.
pub(crate) async fn http(addr: SocketAddr, method: &str, path: &str) -> (u16, String) {
    let response = convstate::client::http::request(method, &format!("http://{addr}{path}"))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    (response.status, response.body)
}

/// [`http`] with a bearer token.
pub(crate) async fn http_with(
    addr: SocketAddr,
    method: &str,
    path: &str,
    token: &str,
) -> (u16, String) {
    let url = format!("http://{addr}{path}");
    let response = convstate::client::http::request_with(method, &url, Some(token))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    (response.status, response.body)
}

/// The worked example of the spec, with the phase after each step.
pub(crate) const WORKED_EXAMPLE: [(&str, &str, &str); 9] = [
    ("user", "I want to build a todo app", "understanding"),
    ("assistant", "What features do you need?", "understanding"),
    (
        "user",
        "I need add, delete, and mark as complete functionality with React components",
        "planning",
    ),
    (
        "assistant",
        "I'll create a React todo app component",
        "executing",
    ),
    ("user", "Sounds good, go ahead", "executing"),
    (
        "assistant",
        "<artifact type=\"react\">...</artifact>",
        "reviewing",
    ),
    (
        "user",
        "Perfect! This is exactly what I needed",
        "completed",
    ),
    ("user", "Now build a calculator", "understanding"),
    ("user", "bye", "idle"),
];

/// Runs each named test body `async fn NAME(store: StoreKind)` once per store, as the tests
/// `NAME::memory`, `NAME::sqlite` and `NAME::sqlite_sharded`.
#[macro_export]
macro_rules! on_every_store {
    ($($name:ident),* $(,)?) => {
        $(mod $name {
            #[tokio::test]
            async fn memory() {
                super::$name($crate::common::StoreKind::Memory).await
            }
            #[tokio::test]
            async fn sqlite() {
                super::$name($crate::common::StoreKind::Sqlite).await
            }
            #[tokio::test]
            async fn sqlite_sharded() {
                super::$name($crate::common::StoreKind::ShardedSqlite).await
            }
        })*
    };
}

/// How a test of deadlines waits. On the memory store, in tokio's paused time (the test runs
/// with `start_paused`) with the real-world durations: ten minutes pass in an instant. On
/// SQLite, for real with short durations: its writer is a thread of its own, whose commits
/// paused time would race (the runtime, idle while a commit is on its way, would jump to the
/// next timer).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Timing {
    pub paused: bool,
}

impl Timing {
    pub(crate) fn of(store: StoreKind) -> Timing {
        Timing {
            paused: store == StoreKind::Memory,
        }
    }

    /// `paused` in paused time, `real` otherwise.
    pub(crate) fn pick<T>(&self, paused: T, real: T) -> T {
        if self.paused { paused } else { real }
    }

    /// The server's clock: tokio's in paused time, the system's otherwise.
    pub(crate) fn clock(&self) -> Clock {
        if self.paused {
            Clock::tokio()
        } else {
            Clock::System
        }
    }

    /// A server with `store` and `clock`.
    pub(crate) async fn server(
        &self,
        mut config: ServerConfig,
        idle: Option<chrono::TimeDelta>,
        store: StoreKind,
        clock: Clock,
    ) -> TestServer {
        store.configure(&mut config);
        TestServer::start_with_clock(config, idle, clock).await
    }
}

/// Runs each test of deadlines `async fn NAME(store: StoreKind)` on the memory store in paused
/// time and on SQLite for real, as `NAME::memory_in_paused_time` and `NAME::sqlite`.
#[macro_export]
macro_rules! deadlines_on_both_stores {
    ($($name:ident),* $(,)?) => {
        $(mod $name {
            #[tokio::test(start_paused = true)]
            async fn memory_in_paused_time() {
                super::$name($crate::common::StoreKind::Memory).await
            }
            #[tokio::test]
            async fn sqlite() {
                super::$name($crate::common::StoreKind::Sqlite).await
            }
        })*
    };
}

/// `convstate ARGS` run to its end in the target's temporary directory: success, standard
/// output, standard error.
pub(crate) fn convstate(args: &[&str]) -> (bool, String, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_convstate"))
        .args(args)
        .current_dir(env!("CARGO_TARGET_TMPDIR"))
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `convstate serve` as a child process, on port 0, in the target directory.
pub(crate) struct ServerProcess {
    pub child: std::process::Child,
    pub addr: SocketAddr,
    /// What it logged up to and including the line with its address.
    early: Vec<String>,
    log: Option<std::thread::JoinHandle<Vec<String>>>,
}

impl ServerProcess {
    /// Starts the binary with `args` after `serve --listen 127.0.0.1:0`, and waits for the
    /// address it logs. Returns the log instead when it exits before listening.
    pub(crate) fn start(args: &[&str]) -> Result<ServerProcess, String> {
        let mut all = vec!["--listen", "127.0.0.1:0"];
        all.extend_from_slice(args);
        ServerProcess::spawn(&all, &[])
    }

    /// Starts `convstate serve ARGS` with extra environment variables.
    pub(crate) fn spawn(args: &[&str], envs: &[(&str, &str)]) -> Result<ServerProcess, String> {
        ServerProcess::spawn_in(&[], args, envs)
    }

    /// Starts `PREFIX... convstate serve ARGS` (a prefix such as `nsenter -t PID -m --` runs
    /// the server in another mount namespace).
    pub(crate) fn spawn_in(
        prefix: &[&str],
        args: &[&str],
        envs: &[(&str, &str)],
    ) -> Result<ServerProcess, String> {
        use std::io::{BufRead, BufReader};
        let binary = env!("CARGO_BIN_EXE_convstate");
        let mut command = match prefix.split_first() {
            Some((program, rest)) => {
                let mut c = std::process::Command::new(program);
                c.args(rest).arg(binary);
                c
            }
            None => std::process::Command::new(binary),
        };
        let mut child = command
            .arg("serve")
            .args(args)
            .envs(envs.iter().copied())
            .current_dir(env!("CARGO_TARGET_TMPDIR"))
            .env("RUST_LOG", "info")
            .stderr(std::process::Stdio::piped())
            .stdout(std::process::Stdio::null())
            .spawn()
            .expect("the binary starts");
        let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
        let mut seen = Vec::new();
        let addr = loop {
            let Some(Ok(line)) = lines.next() else {
                let _ = child.wait();
                return Err(seen.join("\n"));
            };
            let addr = line
                .find("address=")
                .filter(|_| line.contains("listening"))
                .map(|at| {
                    line[at + 8..]
                        .split_whitespace()
                        .next()
                        .unwrap()
                        .parse()
                        .unwrap()
                });
            seen.push(line);
            if let Some(addr) = addr {
                break addr;
            }
        };
        let log = std::thread::spawn(move || lines.map_while(Result::ok).collect());
        Ok(ServerProcess {
            child,
            addr,
            early: seen,
            log: Some(log),
        })
    }

    pub(crate) fn ws_url(&self, query: &str) -> String {
        format!("ws://{}/ws{query}", self.addr)
    }

    /// What it logged up to and including the line with its address.
    pub(crate) fn early_log(&self) -> &[String] {
        &self.early
    }

    /// Its resident memory, in MiB (Linux's /proc).
    pub(crate) fn rss_mib(&self) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).unwrap();
        status
            .lines()
            .find_map(|l| l.strip_prefix("VmRSS:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
            .expect("VmRSS")
            / 1024
    }

    /// Sends a signal with the shell's builtin `kill` (no procps needed).
    pub(crate) fn signal(&self, name: &str) {
        let status = std::process::Command::new("sh")
            .args(["-c", &format!("kill -{name} {}", self.child.id())])
            .status()
            .unwrap();
        assert!(status.success());
    }

    /// SIGKILL: no shutdown, no flush. Returns what it had logged.
    pub(crate) fn kill(mut self) -> Vec<String> {
        self.child.kill().unwrap();
        self.wait().1
    }

    /// SIGTERM, and the exit status and log.
    pub(crate) fn stop(self) -> (std::process::ExitStatus, Vec<String>) {
        self.signal("TERM");
        self.wait()
    }

    /// Waits for the process to exit: its status and log.
    pub(crate) fn wait(mut self) -> (std::process::ExitStatus, Vec<String>) {
        let status = self.child.wait().unwrap();
        let mut log = std::mem::take(&mut self.early);
        log.extend(self.log.take().unwrap().join().unwrap());
        (status, log)
    }
}

/// A test that fails half-way leaves no server process behind.
impl Drop for ServerProcess {
    fn drop(&mut self) {
        if matches!(self.child.try_wait(), Ok(None)) {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// An upgrade request written by hand; the status and body of the answer.
pub(crate) fn raw_upgrade(addr: SocketAddr, query: &str) -> (u16, String) {
    raw_upgrade_with(addr, query, "")
}

/// [`raw_upgrade`] from async code (it blocks, so on a blocking thread).
pub(crate) async fn upgrade(addr: SocketAddr, query: &str) -> (u16, String) {
    let query = query.to_string();
    tokio::task::spawn_blocking(move || raw_upgrade(addr, &query))
        .await
        .unwrap()
}

/// [`raw_upgrade`] with extra header lines (each ending in `\r\n`).
pub(crate) fn raw_upgrade_with(addr: SocketAddr, query: &str, headers: &str) -> (u16, String) {
    let (status, _, body) = raw_request(
        addr,
        &format!("GET /ws{query}"),
        &format!(
            "Connection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\n\
             Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n{headers}"
        ),
    );
    (status, body)
}

/// A request written by hand (`line` is `METHOD TARGET`; `headers` end in CRLF; `Host` is the
/// server's address unless given): the status, head and body of the answer.
pub(crate) fn raw_request(addr: SocketAddr, line: &str, headers: &str) -> (u16, String, String) {
    use std::io::{Read, Write};
    let given = headers.to_ascii_lowercase().contains("host:");
    let host = if given {
        String::new()
    } else {
        format!("Host: {addr}\r\n")
    };
    let mut s = std::net::TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(PATIENCE)).unwrap();
    write!(s, "{line} HTTP/1.1\r\n{host}{headers}\r\n").unwrap();
    let mut answer = Vec::new();
    let mut buf = [0u8; 4096];
    while let Ok(n @ 1..) = s.read(&mut buf) {
        answer.extend_from_slice(&buf[..n]);
        let text = String::from_utf8_lossy(&answer);
        if text.starts_with("HTTP/1.1 101") && text.contains("\r\n\r\n") {
            break;
        }
        if let Some((head, body)) = text.split_once("\r\n\r\n") {
            let length = head
                .lines()
                .find_map(|l| l.strip_prefix("content-length: "))
                .and_then(|n| n.trim().parse::<usize>().ok());
            if length.is_some_and(|n| body.len() >= n) {
                break;
            }
        }
    }
    let text = String::from_utf8_lossy(&answer).into_owned();
    let status = text
        .get(9..12)
        .and_then(|s| s.parse().ok())
        .unwrap_or_default();
    let (head, body) = text
        .split_once("\r\n\r\n")
        .map(|(h, b)| (h.to_string(), b.to_string()))
        .unwrap_or_default();
    (status, head, body)
}

/// The code of an `error` body, if it is one.
pub(crate) fn error_code(body: &str) -> Option<ErrorCode> {
    match ServerFrame::parse(body) {
        Ok(ServerFrame::Error(e)) => Some(e.code),
        _ => None,
    }
}

/// A `redis-server` of a test's own, on a free port, in a temporary directory (no RDB, AOF
/// with `appendfsync always` when asked); killed when dropped. Bounded by `timeout` so a test
/// process that dies cannot leave it running.
pub(crate) struct RedisProcess {
    pub child: std::process::Child,
    pub port: u16,
    pub dir: std::path::PathBuf,
    aof: bool,
    /// While it is down, its port is held (a listener that answers nothing), so no other
    /// test's Redis takes it: a node probing its Redis must not reach another one.
    blocker: Option<std::net::TcpListener>,
}

impl RedisProcess {
    pub(crate) fn start(aof: bool) -> RedisProcess {
        let dir = temp_path("redis", "d");
        std::fs::create_dir_all(&dir).unwrap();
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        RedisProcess::start_on(dir, port, aof)
    }

    /// Again, on the same port and directory (after a kill: the AOF is read back).
    pub(crate) fn restart(&mut self) {
        self.kill();
        self.blocker = None;
        let new = RedisProcess::start_on(self.dir.clone(), self.port, self.aof);
        // The old one is gone: its drop would kill the new one (same port).
        std::mem::forget(std::mem::replace(self, new));
    }

    fn start_on(dir: std::path::PathBuf, port: u16, aof: bool) -> RedisProcess {
        let mut args: Vec<String> = [
            "900",
            "redis-server",
            "--port",
            &port.to_string(),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--dir",
            dir.to_str().unwrap(),
            "--daemonize",
            "no",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        if aof {
            args.extend(["--appendonly", "yes", "--appendfsync", "always"].map(String::from));
        } else {
            args.extend(["--appendonly", "no"].map(String::from));
        }
        let child = std::process::Command::new("timeout")
            .args(&args)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("redis-server runs (the test command installs it)");
        let started = std::time::Instant::now();
        loop {
            if let Ok(mut s) = std::net::TcpStream::connect(("127.0.0.1", port)) {
                use std::io::{Read, Write};
                let _ = s.set_read_timeout(Some(Duration::from_millis(500)));
                let mut buf = [0u8; 64];
                if s.write_all(b"PING\r\n").is_ok()
                    && s.read(&mut buf)
                        .is_ok_and(|n| buf[..n].starts_with(b"+PONG"))
                {
                    break;
                }
            }
            assert!(
                started.elapsed() < Duration::from_secs(10),
                "redis-server did not start"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        RedisProcess {
            child,
            port,
            dir,
            aof,
            blocker: None,
        }
    }

    pub(crate) fn url(&self) -> String {
        format!("redis://127.0.0.1:{}", self.port)
    }

    /// Runs an inline command (words without spaces), and returns Redis's first answer line.
    pub(crate) fn command(&self, words: &str) -> String {
        use std::io::{BufRead, Write};
        let mut s = std::net::TcpStream::connect(("127.0.0.1", self.port)).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
        s.write_all(format!("{words}\r\n").as_bytes()).unwrap();
        let mut line = String::new();
        std::io::BufReader::new(s).read_line(&mut line).unwrap();
        line.trim_end().to_string()
    }

    /// SIGKILL, as a crash: `timeout`'s child goes too.
    pub(crate) fn kill(&mut self) {
        let _ = std::process::Command::new("pkill")
            .args([
                "-KILL",
                "-f",
                &format!("redis-server 127.0.0.1:{}", self.port),
            ])
            .status();
        let _ = self.child.kill();
        let _ = self.child.wait();
        // The port is free once the process is gone.
        for _ in 0..100 {
            if self.blocker.is_some() {
                break;
            }
            self.blocker = std::net::TcpListener::bind(("127.0.0.1", self.port)).ok();
            if self.blocker.is_none() {
                std::thread::sleep(Duration::from_millis(20));
            }
        }
    }
}

impl Drop for RedisProcess {
    fn drop(&mut self) {
        self.kill();
    }
}

/// A TCP proxy in front of a Redis that can make the connections open through it go silent
/// (a network blip that leaves half-open connections: nothing passes, nothing is closed).
/// Connections opened after that pass again. It runs on a thread of its own (a store opens
/// its connections blocking the test's runtime).
pub(crate) struct Blip {
    pub port: u16,
    opened: std::sync::Arc<std::sync::atomic::AtomicU64>,
    silenced: std::sync::Arc<std::sync::atomic::AtomicU64>,
    stop: Option<oneshot::Sender<()>>,
}

impl Blip {
    pub(crate) fn start(to: u16) -> Blip {
        use std::sync::Arc;
        use std::sync::atomic::{AtomicU64, Ordering};
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let port = listener.local_addr().unwrap().port();
        let opened = Arc::new(AtomicU64::new(0));
        let silenced = Arc::new(AtomicU64::new(0));
        let (o, s) = (opened.clone(), silenced.clone());
        let (stop, stopped) = oneshot::channel::<()>();
        std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            runtime.block_on(async move {
                let listener = tokio::net::TcpListener::from_std(listener).unwrap();
                let accepting = async {
                    while let Ok((inbound, _)) = listener.accept().await {
                        let nth = o.fetch_add(1, Ordering::SeqCst) + 1;
                        let Ok(outbound) = TcpStream::connect(("127.0.0.1", to)).await else {
                            continue;
                        };
                        let (ri, wi) = inbound.into_split();
                        let (ro, wo) = outbound.into_split();
                        for (mut from, mut to) in [
                            (
                                Box::new(ri) as Box<dyn tokio::io::AsyncRead + Send + Unpin>,
                                Box::new(wo) as Box<dyn tokio::io::AsyncWrite + Send + Unpin>,
                            ),
                            (Box::new(ro), Box::new(wi)),
                        ] {
                            let s = s.clone();
                            tokio::spawn(async move {
                                use tokio::io::{AsyncReadExt, AsyncWriteExt};
                                let mut buf = vec![0u8; 16 * 1024];
                                loop {
                                    let n = match from.read(&mut buf).await {
                                        Ok(0) | Err(_) => {
                                            if s.load(Ordering::SeqCst) < nth {
                                                let _ = to.shutdown().await;
                                                return;
                                            }
                                            // A silenced connection is never closed either.
                                            std::future::pending::<()>().await;
                                            return;
                                        }
                                        Ok(n) => n,
                                    };
                                    if s.load(Ordering::SeqCst) >= nth {
                                        continue; // dropped on the floor
                                    }
                                    if to.write_all(&buf[..n]).await.is_err() {
                                        return;
                                    }
                                }
                            });
                        }
                    }
                };
                tokio::select! {
                    _ = accepting => {}
                    _ = stopped => {}
                }
            });
        });
        Blip {
            port,
            opened,
            silenced,
            stop: Some(stop),
        }
    }

    pub(crate) fn url(&self) -> String {
        format!("redis://127.0.0.1:{}", self.port)
    }

    /// Every connection open now goes silent, for good.
    pub(crate) fn silence(&self) {
        use std::sync::atomic::Ordering;
        self.silenced
            .store(self.opened.load(Ordering::SeqCst), Ordering::SeqCst);
    }
}

impl Drop for Blip {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}
