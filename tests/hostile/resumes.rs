//! Resume storms: joins from one address are limited as new sessions are (429 past the rate,
//! a bystander served throughout), and rebuilding missed frames reads at most 1 MiB of
//! messages again (a resume that would read more gets the current state).

use crate::common::{Client, StoreKind, TestServer, upgrade};
use convstate::config::ServerConfig;

fn config() -> ServerConfig {
    ServerConfig {
        rate_limit: 100_000,
        rate_burst: 100_000,
        ip_session_rate: 60,
        ip_session_burst: 10,
        ..ServerConfig::default()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn joins_from_one_address_are_rate_limited_and_a_bystander_is_served() {
    let server = TestServer::start(config(), None, StoreKind::Sqlite).await;
    let (mut bystander, _) = Client::connect(&server.ws_url("")).await;
    bystander.turn("user", "Build a landing page", "b-1").await;
    let id = bystander.session_id.clone();
    let mut statuses = Vec::new();
    for _ in 0..30 {
        let (status, body) = upgrade(server.addr, &format!("?session_id={id}&last_seq=0")).await;
        if status == 429 {
            assert!(body.contains("resumes per minute"), "{body}");
        }
        statuses.push(status);
    }
    let joined = statuses.iter().filter(|s| **s == 101).count();
    let limited = statuses.iter().filter(|s| **s == 429).count();
    assert!(joined <= 11, "{statuses:?}");
    assert!(limited >= 19, "{statuses:?}");
    bystander.turn("user", "Add a contact form", "b-2").await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_resume_that_would_read_megabytes_again_gets_the_current_state() {
    let server = TestServer::start(config(), None, StoreKind::Sqlite).await;
    // Small turns: a resume five changes back is rebuilt.
    let (mut small, _) = Client::connect(&server.ws_url("")).await;
    for k in 0..60 {
        small
            .turn("user", &format!("Add field {k}"), &format!("s-{k}"))
            .await;
    }
    let url = server.ws_url(&format!("?session_id={}&last_seq=55", small.session_id));
    let (_, welcome) = Client::connect(&url).await;
    assert!(welcome.resumed, "small turns are rebuilt");
    // Turns of 30 KB: the same resume would read 1.8 MB of messages again (from the session's
    // start: no snapshot yet), though it sends only five of them.
    let (mut large, _) = Client::connect(&server.ws_url("")).await;
    let words = "the quick brown fox jumps over the lazy dog ".repeat(30 * 1024 / 44);
    for k in 0..60 {
        large
            .turn("user", &format!("{k} {words}"), &format!("l-{k}"))
            .await;
    }
    let url = server.ws_url(&format!("?session_id={}&last_seq=55", large.session_id));
    let (_, welcome) = Client::connect(&url).await;
    assert!(!welcome.resumed, "the current state instead");
    assert_eq!(welcome.seq, 60);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn clients_resuming_from_the_same_change_share_one_rebuild_and_a_session_has_a_rebuild_rate()
{
    // Loopback exempt from the per-address caps: only the session's own bounds hold here.
    let config = ServerConfig {
        exempt_loopback: true,
        ..config()
    };
    let server = TestServer::start(config, None, StoreKind::Sqlite).await;
    let (mut writer, _) = Client::connect(&server.ws_url("")).await;
    for k in 0..60 {
        writer
            .turn("user", &format!("Add field {k}"), &format!("w-{k}"))
            .await;
    }
    let id = writer.session_id.clone();
    // Forty clients back from the same change (a reconnect after a blip): one rebuild, shared.
    for _ in 0..40 {
        let url = server.ws_url(&format!("?session_id={id}&last_seq=50"));
        let (_, welcome) = Client::connect(&url).await;
        assert!(welcome.resumed);
    }
    // Forty from forty different changes at once: past the session's burst of rebuilds (20),
    // the current state.
    let mut resumed = 0;
    for back in 0..40 {
        let url = server.ws_url(&format!("?session_id={id}&last_seq={}", 10 + back));
        let (_, welcome) = Client::connect(&url).await;
        resumed += usize::from(welcome.resumed);
    }
    assert!((19..=25).contains(&resumed), "{resumed} of 40 rebuilt");
    server.stop().await;
}
