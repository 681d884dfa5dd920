//! The writer task: each queued write, in order, as one script (several in one round trip),
//! waiting for Redis's fsync where it offers one, settling each write, and probing an
//! unreachable Redis.

use super::*;

/// The writer: each queued write, in order, as one script; settles it once Redis answered.
pub(super) async fn writer(
    client: redis::Client,
    keys: Keys,
    url: String,
    shared: Arc<Shared>,
    mut rx: tokio::sync::mpsc::UnboundedReceiver<Queued>,
) {
    let config = manager_config();
    let mut conn: Option<redis::aio::ConnectionManager> = None;
    // Whether each pipeline ends with a WAITAOF (asked of each new connection).
    let mut wait_aof = false;
    let scripts = [CREATE, APPEND, HISTORY, DELETE].map(Script::new);
    let mut batch: Vec<Queued> = Vec::with_capacity(BATCH);
    while let Some(first) = rx.recv().await {
        // What else is queued goes along, in order.
        batch.push(first);
        while batch.len() < BATCH {
            match rx.try_recv() {
                Ok(next) => batch.push(next),
                Err(_) => break,
            }
        }
        if conn.is_none() {
            match redis::aio::ConnectionManager::new_with_config(client.clone(), config.clone())
                .await
            {
                Ok(mut c) => {
                    wait_aof = aof_to_wait_for(&mut c, &url).await;
                    conn = Some(c);
                }
                Err(e) => {
                    let err = unreachable(&url, &e);
                    shared.health.set_failing(err.clone());
                    for (ticket, _, receipt) in batch.drain(..) {
                        settle(&shared, ticket, receipt, Err(err.clone()));
                    }
                    probe(&client, &shared, &url, &mut rx).await;
                    continue;
                }
            }
        }
        let Some(c) = conn.as_mut() else { continue };
        // One pipeline: the scripts loaded (a no-op once they are), then one script per write.
        // Each script runs whole or not at all, in the order sent.
        let mut pipe = redis::pipe();
        for script in [CREATE, APPEND, HISTORY, DELETE] {
            pipe.cmd("SCRIPT").arg("LOAD").arg(script).ignore();
        }
        for (_, write, _) in &batch {
            pipe.add_command(command(&keys, &scripts, write));
        }
        if wait_aof {
            // Answered once the writes before it are in the append-only file on disk.
            pipe.cmd("WAITAOF")
                .arg(1)
                .arg(0)
                .arg(WAITAOF_TIMEOUT.as_millis() as u64);
        }
        let answers = pipe.query_async::<Vec<redis::Value>>(c).await;
        let expected = batch.len() + usize::from(wait_aof);
        match answers {
            Ok(mut values) if values.len() == expected => {
                let synced = if wait_aof {
                    values.pop().map_or(Ok(()), |v| fsynced(&url, &v))
                } else {
                    Ok(())
                };
                for ((ticket, _, receipt), value) in batch.drain(..).zip(values) {
                    let result = outcome(&url, &value).and_then(|()| synced.clone());
                    settle(&shared, ticket, receipt, result);
                }
            }
            Ok(values) => {
                let err = StoreError::new(
                    ErrorKind::Io,
                    format!("{url}: {} answers to {} writes", values.len(), batch.len()),
                );
                for (ticket, _, receipt) in batch.drain(..) {
                    settle(&shared, ticket, receipt, Err(err.clone()));
                }
            }
            Err(e) => {
                // Unreachable, or Redis refused the whole pipeline (out of memory): none of
                // these is known to be stored (retrying with the same id is safe).
                let err = error_of(&url, &e);
                for (ticket, _, receipt) in batch.drain(..) {
                    settle(&shared, ticket, receipt, Err(err.clone()));
                }
                if err.kind == ErrorKind::Io {
                    // A fresh connection after the outage (a timed-out one may be half-open).
                    conn = None;
                    shared.health.set_failing(err);
                    probe(&client, &shared, &url, &mut rx).await;
                }
            }
        }
    }
}

/// How long a pipeline's WAITAOF waits for the fsync of its writes (`appendfsync everysec`
/// fsyncs every second).
pub(super) const WAITAOF_TIMEOUT: Duration = Duration::from_secs(2);

/// Whether acknowledgements wait for WAITAOF on this connection: Redis has the command (7.2
/// and later; Debian 12's 7.0 has not) and an append-only file. With `appendfsync always`
/// it answers at once (the writes were fsynced before their answers); with `everysec` it makes
/// an ack wait for the next fsync, so an ack is as durable as with `always`.
pub(super) async fn aof_to_wait_for(c: &mut redis::aio::ConnectionManager, url: &str) -> bool {
    let info = redis::cmd("COMMAND")
        .arg("INFO")
        .arg("WAITAOF")
        .query_async::<redis::Value>(c)
        .await;
    let has = matches!(&info, Ok(redis::Value::Array(v))
        if v.first().is_some_and(|c| !matches!(c, redis::Value::Nil)));
    if !has {
        return false;
    }
    let aof = redis::cmd("CONFIG")
        .arg("GET")
        .arg("appendonly")
        .query_async::<Vec<String>>(c)
        .await
        .ok()
        .and_then(|v| v.get(1).cloned());
    let wait = aof.as_deref() == Some("yes");
    if wait {
        tracing::info!(
            store = url,
            "acknowledgements wait for WAITAOF (the append-only file fsynced)"
        );
    }
    wait
}

/// WAITAOF's answer: `[local, replicas]`; the writes before it are durable when `local` ≥ 1.
pub(super) fn fsynced(url: &str, value: &redis::Value) -> Result<(), StoreError> {
    match value {
        redis::Value::Array(counts) if matches!(counts.first(), Some(redis::Value::Int(n)) if *n >= 1) => {
            Ok(())
        }
        other => Err(StoreError::new(
            ErrorKind::Io,
            format!(
                "{url}: the writes were not fsynced within {} s (WAITAOF answered {other:?})",
                WAITAOF_TIMEOUT.as_secs()
            ),
        )),
    }
}

/// A script's answer: `{1, n}` taken, `{0, why}` refused (a conflict).
pub(super) fn outcome(url: &str, value: &redis::Value) -> Result<(), StoreError> {
    let text = |v: &redis::Value| match v {
        redis::Value::BulkString(b) => String::from_utf8_lossy(b).to_string(),
        redis::Value::SimpleString(s) => s.clone(),
        other => format!("{other:?}"),
    };
    match value {
        redis::Value::Array(items) if items.len() == 2 => match &items[0] {
            redis::Value::Int(1) => Ok(()),
            redis::Value::Int(0) => Err(StoreError::new(
                ErrorKind::Conflict,
                format!("{url}: {}", text(&items[1])),
            )),
            other => Err(StoreError::new(
                ErrorKind::Io,
                format!("{url}: an unexpected answer {other:?}"),
            )),
        },
        redis::Value::ServerError(e) => Err(StoreError::new(
            ErrorKind::Io,
            format!("{url}: {}", e.details().unwrap_or("a script failed")),
        )),
        other => Err(StoreError::new(
            ErrorKind::Io,
            format!("{url}: an unexpected answer {other:?}"),
        )),
    }
}

pub(super) fn settle(
    shared: &Shared,
    ticket: u64,
    receipt: Option<Receipt>,
    outcome: Result<(), StoreError>,
) {
    let failures = match &outcome {
        Ok(()) => Vec::new(),
        Err(e) => vec![(ticket, e.clone())],
    };
    if let Some(receipt) = receipt {
        receipt(outcome);
    }
    shared.waiters.settle(ticket, failures);
}

/// Pings an unreachable Redis until it answers, then takes writes again.
/// Meanwhile the writes still queued (taken before the store refused) fail at once, rather
/// than land when Redis is back, long after their clients were told.
pub(super) async fn probe(
    client: &redis::Client,
    shared: &Shared,
    url: &str,
    rx: &mut tokio::sync::mpsc::UnboundedReceiver<Queued>,
) {
    loop {
        tokio::time::sleep(PROBE_EVERY).await;
        while let Ok((ticket, _, receipt)) = rx.try_recv() {
            let cause = match shared.health.get() {
                Health::Failing { cause, .. } => cause,
                Health::Ready => StoreError::new(ErrorKind::Io, format!("{url}: unreachable")),
            };
            settle(shared, ticket, receipt, Err(cause));
        }
        let answer = tokio::time::timeout(RESPONSE_TIMEOUT, async {
            let mut c = client.get_multiplexed_async_connection().await?;
            redis::cmd("PING").query_async::<String>(&mut c).await
        })
        .await;
        match answer {
            Ok(Ok(_)) => {
                tracing::info!(store = url, "redis answers again: writes are taken");
                shared.health.set_ready();
                return;
            }
            Ok(Err(e)) => shared.health.set_failing(unreachable(url, &e)),
            Err(_) => {}
        }
    }
}

/// The `EVALSHA` of a write's script.
pub(super) fn command(keys: &Keys, scripts: &[Script; 4], write: &Write) -> redis::Cmd {
    let [create, append, history, delete] = scripts;
    let mut c = redis::cmd("EVALSHA");
    match write {
        Write::Create {
            session,
            created_at,
            idle_deadline,
            owner,
        } => {
            // The creation time whole (RFC 3339, to the nanosecond): the state carries it.
            c.arg(create.get_hash())
                .arg(3)
                .arg(keys.session(session, "meta"))
                .arg(keys.deadlines())
                .arg(keys.sessions())
                .arg(&**session)
                .arg(created_at.to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true))
                .arg(owner.as_deref().unwrap_or(""))
                .arg(idle_deadline.map_or(String::new(), |d| millis(&d).to_string()))
                .arg(millis(created_at));
        }
        Write::Append(a) => {
            let Append {
                session,
                event,
                phase,
                idle_deadline,
                snapshot,
                finished,
                goals_total,
            } = &**a;
            let json = serde_json::to_string(event).unwrap_or_default();
            let reset = matches!(event.change, crate::store::Change::Reset);
            c.arg(append.get_hash()).arg(7);
            for k in keys.all(session) {
                c.arg(k);
            }
            c.arg(keys.deadlines())
                .arg(keys.finished())
                .arg(&**session)
                .arg(event.seq)
                .arg(json)
                .arg(phase.as_str())
                .arg(idle_deadline.map_or(String::new(), |d| millis(&d).to_string()))
                .arg(snapshot.as_deref().unwrap_or(""))
                .arg(event.id.as_deref().unwrap_or(""))
                .arg(if reset { "1" } else { "0" })
                .arg(goals_total)
                .arg(millis(&event.at))
                .arg(event.seq.saturating_sub(SNAPSHOT_EVERY * SNAPSHOTS_KEPT))
                .arg(RECENT_IDS)
                .arg(keys.changed())
                .arg(finished.len());
            for g in finished {
                c.arg(g);
            }
        }
        Write::History {
            session,
            first,
            goals,
        } => {
            c.arg(history.get_hash())
                .arg(2)
                .arg(keys.session(session, "meta"))
                .arg(keys.session(session, "goals"))
                .arg(first);
            for g in goals {
                c.arg(g);
            }
        }
        Write::Delete { session } => {
            c.arg(delete.get_hash()).arg(8);
            for k in keys.all(session) {
                c.arg(k);
            }
            c.arg(keys.deadlines())
                .arg(keys.finished())
                .arg(keys.sessions())
                .arg(&**session)
                .arg(keys.changed());
        }
    }
    c
}
