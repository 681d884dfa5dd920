//! What the store holds of a session, as its clients see it: the last committed change's
//! frame.

use axum::extract::ws::Utf8Bytes;
use chrono::{DateTime, Utc};

use crate::conversation::{Conversation, Phase};
use crate::protocol::json::{FrameParts, FrameText};

/// What the store holds of a session, as clients see it.
#[derive(Debug)]
pub(super) struct View {
    /// The last committed change.
    pub(super) seq: u64,
    /// Its `state` frame and where the frame's parts are. `None` until the session's first
    /// change after it was created or loaded: the tip, which nothing has moved ahead yet, is
    /// then the committed state, and the frame is written from it when it is asked for. A
    /// session that is only watched keeps no frame.
    pub(super) text: Option<(Utf8Bytes, FrameParts)>,
    pub(super) phase: Phase,
    pub(super) last_updated: DateTime<Utc>,
}

impl View {
    pub(super) fn new(text: FrameText, phase: Phase, last_updated: DateTime<Utc>) -> View {
        View {
            seq: text.parts.seq,
            text: Some(kept(text)),
            phase,
            last_updated,
        }
    }

    /// The view of a state that is also the tip's (a new or loaded session).
    pub(super) fn of(conv: &Conversation, seq: u64) -> View {
        View {
            seq,
            text: None,
            phase: conv.phase,
            last_updated: conv.last_updated,
        }
    }

    pub(super) fn seq(&self) -> u64 {
        self.seq
    }

    /// The frame and its parts (see [`Session::written_view`]).
    pub(super) fn text(&self) -> (&str, &FrameParts) {
        match &self.text {
            Some((frame, parts)) => (frame.as_str(), parts),
            None => unreachable!("a view is written before it is read"),
        }
    }

    pub(super) fn welcome(&self, resumed: bool) -> Utf8Bytes {
        let (frame, parts) = self.text();
        parts.welcome(frame, resumed).into()
    }
}

/// A frame as a view keeps it: until the session's next change (for an idle session, hours),
/// so without the writer's spare capacity (2 KiB per session less, measured per idle
/// connection).
pub(super) fn kept(text: FrameText) -> (Utf8Bytes, FrameParts) {
    let mut frame = text.text;
    frame.shrink_to_fit();
    (Utf8Bytes::from(frame), text.parts)
}
