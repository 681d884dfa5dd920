//! A session's log, as the store keeps it and the events API sends it (`GET
//! /api/sessions/{id}/events`): one [`Event`] per change, in order. Part of the wire contract
//! (docs/protocol.md), so it lives with the frames; the store re-exports it.

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::conversation::{Input, Role, Signal};

/// One change of a session, as the log keeps it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Event {
    /// The session's `seq` after this change (1 for the first).
    pub seq: u64,
    pub at: DateTime<Utc>,
    #[serde(flatten)]
    pub change: Change,
    /// The client's id of the frame, for idempotent retries across restarts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
}

/// What changed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Change {
    Message {
        role: Role,
        text: String,
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        artifact: bool,
        /// An assistant's reply cut short, stored as far as it was delivered.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        partial: bool,
    },
    Signal {
        signal: Signal,
    },
    Reset,
    /// The sweeper found the session idle (a flow: its timers fell due).
    Idle,
    /// A hosted flow started (a flow session's first change).
    Start {
        flow: String,
        #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
        settings: BTreeMap<String, String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        restore: Option<crate::flow::Restore>,
    },
    /// A hosted flow's event.
    Event {
        name: String,
        #[serde(default, skip_serializing_if = "serde_json::Map::is_empty")]
        data: serde_json::Map<String, serde_json::Value>,
    },
}

impl Change {
    pub fn from_input(input: &Input<'_>) -> Change {
        match *input {
            Input::Message {
                role,
                text,
                artifact,
            } => Change::Message {
                role,
                text: text.to_string(),
                artifact,
                partial: false,
            },
            Input::Signal(signal) => Change::Signal { signal },
            Input::Reset => Change::Reset,
            Input::Tick => Change::Idle,
            Input::Start {
                flow,
                settings,
                restore,
            } => Change::Start {
                flow: flow.to_string(),
                settings: settings.clone(),
                restore: restore.cloned(),
            },
            Input::Event { name, data } => Change::Event {
                name: name.to_string(),
                data: data.clone(),
            },
        }
    }

    pub fn input(&self) -> Input<'_> {
        match self {
            Change::Message {
                role,
                text,
                artifact,
                ..
            } => Input::Message {
                role: *role,
                text,
                artifact: *artifact,
            },
            Change::Signal { signal } => Input::Signal(*signal),
            Change::Reset => Input::Reset,
            Change::Idle => Input::Tick,
            Change::Start {
                flow,
                settings,
                restore,
            } => Input::Start {
                flow,
                settings,
                restore: restore.as_ref(),
            },
            Change::Event { name, data } => Input::Event { name, data },
        }
    }
}
