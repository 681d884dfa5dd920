//! A data message left unfinished (a first fragment and never the last) is closed with 1008
//! across two pings, even by a client that answers every ping; a slow but finished message is
//! not.

use std::time::{Duration, Instant};

use crate::common::{Client, StoreKind, TestServer};
use convstate::config::ServerConfig;
use futures_util::{SinkExt, StreamExt};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::protocol::frame::Frame;
use tokio_tungstenite::tungstenite::protocol::frame::coding::{Data, OpCode};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unfinished_fragmented_message_is_closed_and_a_finished_one_is_read() {
    let config = ServerConfig {
        ping_interval: Duration::from_millis(700),
        ..ServerConfig::default()
    };
    let server = TestServer::start(config, None, StoreKind::Memory).await;
    // A message in two fragments, the second after a ping has gone by: read as one.
    let (mut patient, _) = Client::connect(&server.ws_url("")).await;
    let head = r#"{"type":"message","role":"user","#;
    let tail = r#""text":"Build a landing page","id":"f-1"}"#;
    let first = Frame::message(head.as_bytes().to_vec(), OpCode::Data(Data::Text), false);
    patient.ws.send(Message::Frame(first)).await.unwrap();
    tokio::time::sleep(Duration::from_millis(900)).await;
    let rest = Frame::message(tail.as_bytes().to_vec(), OpCode::Data(Data::Continue), true);
    patient.ws.send(Message::Frame(rest)).await.unwrap();
    patient.recv_state().await;
    patient.expect_ack("f-1").await;
    // Half a megabyte of a message that never ends, from a client that answers every ping.
    let (mut holder, _) = Client::connect(&server.ws_url("")).await;
    let fragment = Frame::message(vec![b'a'; 512 * 1024], OpCode::Data(Data::Text), false);
    holder.ws.send(Message::Frame(fragment)).await.unwrap();
    let started = Instant::now();
    let code = loop {
        match tokio::time::timeout(Duration::from_secs(10), holder.ws.next()).await {
            Err(_) => panic!("still open after {:?}", started.elapsed()),
            Ok(Some(Ok(Message::Close(frame)))) => break frame.map(|f| u16::from(f.code)),
            Ok(Some(Ok(_))) => continue,
            Ok(Some(Err(e))) => panic!("{e}"),
            Ok(None) => break None,
        }
    };
    assert_eq!(code, Some(1008));
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    // The server goes on (a new client: the patient one did not read meanwhile, and was
    // dropped as silent).
    let id = patient.session_id.clone();
    let (mut again, _) = Client::connect(&server.ws_url(&format!("?session_id={id}"))).await;
    again.turn("user", "Add a menu", "f-2").await;
    server.stop().await;
}
