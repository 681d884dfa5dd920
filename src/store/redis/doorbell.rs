//! The doorbell: the changes other nodes store, heard on Redis's pub/sub channel.

use super::*;

/// Listens to the doorbell channel for as long as the store lives, reconnecting (and then
/// ringing `("", 0)`: doorbells may have been missed meanwhile).
pub(super) async fn listen(
    client: redis::Client,
    channel: String,
    bells: tokio::sync::broadcast::Sender<(Arc<str>, u64)>,
    reads: Reads,
    url: String,
) {
    use futures_util::StreamExt as _;
    let mut first = true;
    loop {
        let subscribed = async {
            let mut pubsub = client.get_async_pubsub().await?;
            pubsub.subscribe(&channel).await?;
            Ok::<_, redis::RedisError>(pubsub)
        };
        match tokio::time::timeout(RESPONSE_TIMEOUT, subscribed).await {
            Ok(Ok(pubsub)) => {
                // Doorbells rung before this subscription (at start-up, or during an outage)
                // were missed: every held session is checked.
                if !first {
                    tracing::info!(store = url, "listening to the doorbell again");
                    // The reads' connection went through the same outage, and may have gone
                    // silent too: the sessions checked now read through a new one.
                    *reads.lock().await = None;
                }
                let _ = bells.send((Arc::from(""), 0));
                let (mut sink, mut messages) = pubsub.split();
                // A connection that went silent (a half-open TCP connection after a network
                // blip) is found by a ping every few seconds, and replaced.
                let mut heartbeat = tokio::time::interval(HEARTBEAT_EVERY);
                heartbeat.tick().await;
                loop {
                    tokio::select! {
                        message = messages.next() => {
                            let Some(message) = message else { break };
                            let Ok(text) = message.get_payload::<String>() else {
                                continue;
                            };
                            if let Some((id, seq)) = text.rsplit_once(' ')
                                && let Ok(seq) = seq.parse::<u64>()
                            {
                                let _ = bells.send((Arc::from(id), seq));
                            }
                        }
                        _ = heartbeat.tick() => {
                            let pong = tokio::time::timeout(
                                RESPONSE_TIMEOUT,
                                sink.ping::<redis::Value>(),
                            )
                            .await;
                            if !matches!(pong, Ok(Ok(_))) {
                                tracing::warn!(store = url, "the doorbell's connection does not answer: connecting again");
                                break;
                            }
                        }
                    }
                }
            }
            Ok(Err(e)) => tracing::debug!(store = url, "doorbell: {e}"),
            Err(_) => {}
        }
        first = false;
        tokio::time::sleep(PROBE_EVERY).await;
    }
}
