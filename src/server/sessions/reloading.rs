//! Bringing a session back in line with its log: after a failed write, and on a store shared
//! with other nodes, their changes.

use super::*;

impl Sessions {
    /// Brings a stale session's tip back to what the log holds (blocks on the store). Does
    /// nothing while its failed writes are still settling, or if it is not stale.
    pub(crate) fn reload(&self, session: &Session) -> Result<(), StoreError> {
        // The log does not change while the session is stale and has nothing in flight (its
        // changes are refused meanwhile), but it may have between the fold and the lock: a
        // fold that no longer matches what is committed is done again.
        for _ in 0..3 {
            let seen = session.view().seq();
            let Some(folded) = self.fold_latest(&session.id)? else {
                // Deleted meanwhile, or its creation was never committed: then it starts over
                // as new (its clients saw no change of it: none was committed).
                let mut tip = session.tip();
                if !tip.deleted
                    && session.stale.load(Ordering::SeqCst)
                    && session.in_flight.load(Ordering::SeqCst) == 0
                {
                    let created_at = tip.conv.created_at;
                    tip.conv = self.engine.start(&*session.id, created_at);
                    tip.seq = 0;
                    tip.recent = RecentIds::default();
                    tip.unstored = true;
                    *session.view() = View::of(&tip.conv, 0);
                    session.stale.store(false, Ordering::SeqCst);
                }
                return Ok(());
            };
            let mut tip = session.tip();
            if !session.stale.load(Ordering::SeqCst) || session.in_flight.load(Ordering::SeqCst) > 0
            {
                return Ok(());
            }
            // Changes another node stored meanwhile (a shared store): their frames, rebuilt
            // from the log, go to this node's clients, in order, as the view moves past them.
            let missed = if folded.seq > seen && self.store.shared() {
                drop(tip);
                let rebuilt = match self.frames_between(&session.id, seen, folded.seq) {
                    Ok(rebuilt) => rebuilt,
                    Err(e) => {
                        session.span().in_scope(|| tracing::warn!("the frames of changes stored by another node cannot be read: clients here get the current state instead: {e}"));
                        None
                    }
                };
                tip = session.tip();
                rebuilt.map(|r| r.frames)
            } else {
                Some(Vec::new())
            };
            if !session.stale.load(Ordering::SeqCst) || session.in_flight.load(Ordering::SeqCst) > 0
            {
                return Ok(());
            }
            let mut view = session.view();
            if folded.seq < view.seq() {
                continue;
            }
            if view.seq() != folded.seq {
                *view = View::of(&folded.conv, folded.seq);
                if view.seq() > seen {
                    match missed {
                        Some(frames) => {
                            for (seq, frame) in frames {
                                session.send(Push::Frame { seq, frame });
                            }
                        }
                        // Not rebuilt (the log could not be read, or too far back): the
                        // current state, as its seq; a client further behind catches up from
                        // the log itself, or takes it.
                        None => {
                            let (frame, parts) =
                                kept(FrameText::state(&folded.conv, folded.seq, &[]));
                            session.send(Push::Frame {
                                seq: folded.seq,
                                frame: frame.clone(),
                            });
                            view.text = Some((frame, parts));
                        }
                    }
                }
            }
            drop(view);
            tip.conv = folded.conv;
            tip.seq = folded.seq;
            tip.recent = RecentIds::from_log(folded.recent_ids);
            tip.scheduled = None;
            self.schedule(session, &mut tip);
            session.stale.store(false, Ordering::SeqCst);
            session.span().in_scope(|| {
                tracing::info!(
                    seq = tip.seq,
                    "session reloaded from the log after a failed write"
                )
            });
            return Ok(());
        }
        Err(StoreError::new(
            store::ErrorKind::Busy,
            format!(
                "session {}: the log kept moving while it was reloaded",
                session.id
            ),
        ))
    }

    /// Brings a session this node holds up to a change another node stored (a doorbell of a
    /// shared store: `upto`, or `u64::MAX` to check): its missing events are read from the log,
    /// stepped on the tip, and their `state` frames published to its clients here, in order.
    /// Blocks on the store. Nothing to do for a session not held, already there, or with
    /// changes of its own in flight (they will conflict, and the session is reloaded).
    pub(crate) fn follow(&self, id: &str, upto: u64) -> Result<(), StoreError> {
        let Some(session) = self.get(id) else {
            return Ok(());
        };
        if upto == 0 {
            // Another node deleted it (or its retention ended there): so here too.
            if self.store.load(id, 0, 0)?.is_none() && !session.tip().unstored {
                self.forget(&session);
            }
            return Ok(());
        }
        if session.in_flight.load(Ordering::SeqCst) > 0 && session.tip().seq < upto {
            // Its own changes in flight may land before or after the other node's: once they
            // have settled, the log says which.
            self.deadlines.push(
                Utc::now() + TimeDelta::milliseconds(50),
                Due::Follow,
                session.id.clone(),
            );
            return Ok(());
        }
        let quiet = |tip: &Tip| {
            !tip.deleted
                && !tip.unstored
                && !session.stale.load(Ordering::SeqCst)
                && session.in_flight.load(Ordering::SeqCst) == 0
        };
        let after = {
            let tip = session.tip();
            if tip.seq >= upto || !quiet(&tip) {
                return Ok(());
            }
            tip.seq
        };
        let Some(events) = self.store.events(id, after, RESUME_LIMIT as usize)? else {
            return Ok(());
        };
        if events.is_empty() {
            return Ok(());
        }
        let mut tip = session.tip();
        if tip.seq != after || !quiet(&tip) {
            return Ok(());
        }
        let mut view = session.view();
        if view.seq() != after {
            return Ok(());
        }
        let explain = session.explain.load(Ordering::Relaxed);
        for event in &events {
            if event.seq != tip.seq + 1 {
                break;
            }
            let input = event.change.input();
            let (step, explanation) = if explain {
                let (step, e) = self.engine.step_explained(&mut tip.conv, input, event.at);
                (step, Some(e))
            } else {
                (self.engine.step(&mut tip.conv, input, event.at), None)
            };
            let frame = logged_frame(
                &tip.conv,
                event,
                &step.transitions,
                &step.moves,
                explanation.as_ref(),
            );
            tip.seq = event.seq;
            if let Some(client_id) = &event.id {
                tip.recent.insert(client_id, event.seq, 0);
            }
            let (bytes, parts) = kept(frame);
            *view = View {
                seq: event.seq,
                text: Some((bytes.clone(), parts)),
                phase: tip.conv.phase,
                last_updated: tip.conv.last_updated,
            };
            session.send(Push::Frame {
                seq: event.seq,
                frame: bytes,
            });
        }
        drop(view);
        tip.scheduled = None;
        self.schedule(&session, &mut tip);
        Ok(())
    }
}
