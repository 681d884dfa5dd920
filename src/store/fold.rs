//! Folding a stored session's log into its state: the snapshot (or a fresh start), then each
//! event at its time.

use super::*;

/// What one step of a fold did, for [`fold_with`]'s callback.
#[derive(Debug)]
pub struct Stepped<'a> {
    pub transitions: &'a [crate::conversation::Transition],
    /// A hosted flow's moves.
    pub moves: &'a [crate::flow::Move],
    /// The inspector's notes, when the fold was asked for them.
    pub explanation: Option<&'a crate::conversation::explain::Explanation>,
}

/// A state folded from a log.
#[derive(Clone, Debug, PartialEq)]
pub struct Folded {
    pub conv: Conversation,
    /// The subject that created the session (see [`Write::Create`]).
    pub owner: Option<String>,
    pub seq: u64,
    /// The last client ids with their `seq`, oldest first, for idempotent retries.
    pub recent_ids: Vec<(String, u64)>,
    /// The goals the folded events finished, in order.
    pub finished: Vec<Goal>,
}

/// Folds a stored session: the snapshot (or a fresh start), then each event at its time.
pub fn fold(engine: &Engine, stored: &Stored) -> Result<Folded, StoreError> {
    fold_with(engine, stored, false, |_, _, _| {})
}

/// [`fold`], calling `each` with every event, the state after it and the step's transitions.
/// With `explain`, each step's [`Step`](crate::conversation::Step) is taken with the inspector's
/// notes, and `each` gets them.
pub fn fold_with(
    engine: &Engine,
    stored: &Stored,
    explain: bool,
    mut each: impl FnMut(&Event, &Conversation, &Stepped<'_>),
) -> Result<Folded, StoreError> {
    let (mut conv, mut seq) = match &stored.snapshot {
        Some((seq, conv)) => {
            let mut conv = conv.clone();
            engine.fit(&mut conv);
            (conv, *seq)
        }
        None => (
            engine.start(stored.session_id.as_str(), stored.created_at),
            0,
        ),
    };
    // The store gives the last ids as of its snapshot (SQLite) or of its whole log; events past
    // the last of them add theirs.
    let mut recent_ids = stored.recent_ids.clone();
    let indexed = recent_ids.last().map_or(0, |(_, seq)| *seq);
    let mut finished = Vec::new();
    for event in &stored.events {
        if event.seq != seq + 1 {
            return Err(StoreError::new(
                ErrorKind::Corrupt,
                format!(
                    "session {}: event {} follows {seq}: the log has a gap",
                    stored.session_id, event.seq
                ),
            ));
        }
        let (step, explanation) = if explain {
            let (step, e) = engine.step_explained(&mut conv, event.change.input(), event.at);
            (step, Some(e))
        } else {
            (engine.step(&mut conv, event.change.input(), event.at), None)
        };
        // A flow's start or event is logged only when its flow took it: one refused now means
        // the flow files changed under the log (another node, another version of the flow).
        if !step.changed && matches!(event.change, Change::Start { .. } | Change::Event { .. }) {
            return Err(StoreError::new(
                ErrorKind::Corrupt,
                format!(
                    "session {}: event {} is refused by its flow as loaded now: were the flow files changed?",
                    stored.session_id, event.seq
                ),
            ));
        }
        seq = event.seq;
        each(
            event,
            &conv,
            &Stepped {
                transitions: &step.transitions,
                moves: &step.moves,
                explanation: explanation.as_ref(),
            },
        );
        finished.extend(step.finished);
        if let Some(id) = &event.id
            && seq > indexed
        {
            recent_ids.push((id.clone(), seq));
        }
    }
    let skip = recent_ids.len().saturating_sub(RECENT_IDS);
    recent_ids.drain(..skip);
    Ok(Folded {
        conv,
        owner: stored.owner.clone(),
        seq,
        recent_ids,
        finished,
    })
}
