//! A dedicated writer for the frames pushed on every change (`state`, and `welcome` from it).
//!
//! Writing the state frame was most of the server's CPU time under load, nearly all of it in
//! serde_json's byte-at-a-time string escaping and generic map machinery. This writer emits the
//! same bytes — the serde derives remain the reference, and a property test checks the two
//! agree on random conversations — with keys as literals and strings checked for escapes eight
//! bytes at a time.

use std::fmt::Write as _;
use std::ops::Range;

use chrono::{DateTime, Utc};

use crate::conversation::{Conversation, Goal, Summary, Transition};

/// A `state` frame's text, with where its parts sit in it (see [`FrameParts`]).
#[derive(Clone, Debug, PartialEq)]
pub struct FrameText {
    pub text: String,
    pub parts: FrameParts,
}

/// Where a `state` frame's `state` object and summary string sit in its text, so that the other
/// frames of the same state (a welcome, a `get_state` answer) and the HTTP API reuse the bytes
/// instead of writing the state again.
#[derive(Clone, Debug, PartialEq)]
pub struct FrameParts {
    pub seq: u64,
    /// The session id, as a JSON string.
    session_id: Range<usize>,
    /// The `state` object.
    state: Range<usize>,
    /// The summary, as a JSON string (quoted and escaped).
    summary: Range<usize>,
    /// The `completed_goals` array's contents and which finished goals they are: the next
    /// frame of the session copies the bytes of the goals it still holds (finished goals never
    /// change), instead of writing up to `history_window` goals again on every change.
    #[cfg_attr(feature = "serde-frames", allow(dead_code))]
    history: Option<History>,
}

/// A `completed_goals` array's contents in a frame's text: where, and each goal's id and where
/// its object starts, oldest first. Goals are appended once, when they finish, and ids are
/// never reused in a session (resets included), so the same id means the same bytes.
#[derive(Clone, Debug, PartialEq)]
struct History {
    range: Range<usize>,
    goals: smallvec::SmallVec<[(u32, u32); 4]>,
}

impl FrameText {
    /// The `state` frame through serde_json instead of this writer: built with the feature
    /// `serde-frames`, for the A/B of `scripts/bench-server` (the writer stays only while it
    /// saves server CPU; docs/benchmarks.md).
    #[cfg(feature = "serde-frames")]
    pub fn state(conv: &Conversation, seq: u64, transitions: &[Transition]) -> FrameText {
        if let Some(run) = &conv.flow {
            return FrameText::flow(conv, run, seq, &[]);
        }
        fn json<T: serde::Serialize + ?Sized>(value: &T) -> String {
            serde_json::to_string(value).unwrap_or_default()
        }
        let mut out = String::with_capacity(2048);
        out.push_str(r#"{"type":"state","session_id":"#);
        let from = out.len();
        out.push_str(&json(&conv.session_id));
        let session_id = from..out.len();
        out.push_str(r#","seq":"#);
        out.push_str(&json(&seq));
        out.push_str(r#","state":"#);
        let from = out.len();
        out.push_str(&json(conv));
        let state = from..out.len();
        out.push_str(r#","transitions":"#);
        out.push_str(&json(&transitions));
        out.push_str(r#","summary":"#);
        let from = out.len();
        out.push_str(&json(&Summary(conv).to_string()));
        let summary = from..out.len();
        out.push('}');
        FrameText {
            text: out,
            parts: FrameParts {
                seq,
                session_id,
                state,
                summary,
                history: None,
            },
        }
    }

    /// This frame with the inspector's `explain` object added (see `conversation::explain`).
    pub fn with_explain(
        mut self,
        explain: &crate::conversation::explain::Explanation,
    ) -> FrameText {
        if self.text.ends_with('}') {
            self.text.pop();
            self.text.push_str(r#","explain":"#);
            self.text
                .push_str(&serde_json::to_string(explain).unwrap_or_else(|_| "null".into()));
            self.text.push('}');
        }
        self
    }

    /// The frame with the turn that made the change: `"message":{"role":...,"text":...}`
    /// (and `"artifact":true` when it delivered the work, `"partial":true` for a reply cut
    /// short), so every client of the session sees every turn, the assistant's answers included.
    pub fn with_message(
        mut self,
        role: crate::conversation::Role,
        text: &str,
        artifact: bool,
        partial: bool,
    ) -> FrameText {
        if self.text.ends_with('}') {
            self.text.pop();
            self.text.push_str(r#","message":{"role":""#);
            self.text.push_str(role.as_str());
            self.text.push_str(r#"","text":"#);
            string(&mut self.text, text);
            if artifact {
                self.text.push_str(r#","artifact":true"#);
            }
            if partial {
                self.text.push_str(r#","partial":true"#);
            }
            self.text.push_str("}}");
        }
        self
    }

    /// The `state` frame of `conv` after the change `seq`, which made `transitions` (a hosted
    /// flow's moves: [`FrameText::stepped`]).
    #[cfg(not(feature = "serde-frames"))]
    pub fn state(conv: &Conversation, seq: u64, transitions: &[Transition]) -> FrameText {
        FrameText::state_after(conv, seq, transitions, None)
    }

    /// [`FrameText::state`], taking the finished goals' bytes from `previous` (an earlier frame
    /// of the session and its parts) when its history is the same.
    #[cfg(not(feature = "serde-frames"))]
    pub fn state_after(
        conv: &Conversation,
        seq: u64,
        transitions: &[Transition],
        previous: Option<(&str, &FrameParts)>,
    ) -> FrameText {
        if let Some(run) = &conv.flow {
            return FrameText::flow(conv, run, seq, &[]);
        }
        let reuse = previous.and_then(|(frame, parts)| Some((frame, parts.history.as_ref()?)));
        // About the size of the session's last frame: a long history window (20 finished
        // goals, 13 KB) would otherwise grow the buffer three times, copying it each time.
        let size = previous.map_or(2048, |(frame, _)| frame.len() + 512);
        let mut out = String::with_capacity(size);
        out.push_str(r#"{"type":"state","session_id":"#);
        let from = out.len();
        string(&mut out, &conv.session_id);
        let session_id = from..out.len();
        out.push_str(r#","seq":"#);
        number(&mut out, seq);
        out.push_str(r#","state":"#);
        let from = out.len();
        let history = write_state_with(&mut out, conv, reuse);
        let state = from..out.len();
        out.push_str(r#","transitions":["#);
        for (i, t) in transitions.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            out.push_str(r#"{"from":""#);
            out.push_str(t.from.as_str());
            out.push_str(r#"","to":""#);
            out.push_str(t.to.as_str());
            out.push_str(r#"","reason":"#);
            string(&mut out, t.reason.as_str());
            out.push_str(r#","milestone":"#);
            out.push_str(if t.milestone { "true" } else { "false" });
            out.push('}');
        }
        out.push_str(r#"],"summary":"#);
        let from = out.len();
        summary(&mut out, conv);
        let summary = from..out.len();
        out.push('}');
        FrameText {
            text: out,
            parts: FrameParts {
                seq,
                session_id,
                state,
                summary,
                history: Some(history),
            },
        }
    }

    /// The serde_json reference writes every frame whole.
    #[cfg(feature = "serde-frames")]
    pub fn state_after(
        conv: &Conversation,
        seq: u64,
        transitions: &[Transition],
        _previous: Option<(&str, &FrameParts)>,
    ) -> FrameText {
        FrameText::state(conv, seq, transitions)
    }

    /// The `state` frame after the change `seq` that made `step`: a conversation's transitions
    /// or a hosted flow's moves.
    /// `previous` is an earlier frame of the session (see [`FrameText::state_after`]).
    pub fn stepped(
        conv: &Conversation,
        seq: u64,
        step: &crate::conversation::Step,
        previous: Option<(&str, &FrameParts)>,
    ) -> FrameText {
        match &conv.flow {
            Some(run) => FrameText::flow(conv, run, seq, &step.moves),
            None => FrameText::state_after(conv, seq, &step.transitions, previous),
        }
    }

    /// A hosted flow's `state` frame: its run as the `state` object, its moves as the
    /// `transitions`, its summary.
    pub fn flow(
        conv: &Conversation,
        run: &crate::flow::FlowRun,
        seq: u64,
        moves: &[crate::flow::Move],
    ) -> FrameText {
        let json = |v: Result<String, serde_json::Error>| v.unwrap_or_else(|_| "null".into());
        let mut out = String::with_capacity(1024);
        out.push_str(r#"{"type":"state","session_id":"#);
        let from = out.len();
        string(&mut out, &conv.session_id);
        let session_id = from..out.len();
        out.push_str(r#","seq":"#);
        number(&mut out, seq);
        out.push_str(r#","state":"#);
        let from = out.len();
        out.push_str(&json(serde_json::to_string(run)));
        let state = from..out.len();
        out.push_str(r#","transitions":"#);
        out.push_str(&json(serde_json::to_string(moves)));
        out.push_str(r#","summary":"#);
        let from = out.len();
        string(&mut out, &run.summary());
        let summary = from..out.len();
        out.push('}');
        FrameText {
            text: out,
            parts: FrameParts {
                seq,
                session_id,
                state,
                summary,
                history: None,
            },
        }
    }

    /// The `welcome` frame of the same state.
    pub fn welcome(&self, resumed: bool) -> String {
        self.parts.welcome(&self.text, resumed)
    }
}

impl FrameParts {
    /// The `state` object in `frame`, the text these parts were taken from.
    pub fn state_json<'f>(&self, frame: &'f str) -> &'f str {
        &frame[self.state.clone()]
    }

    /// The summary in `frame`, as text.
    pub fn summary_text(&self, frame: &str) -> String {
        serde_json::from_str(&frame[self.summary.clone()]).unwrap_or_default()
    }

    /// The `welcome` frame of the state in `frame`.
    pub fn welcome(&self, frame: &str, resumed: bool) -> String {
        let mut out = String::with_capacity(frame.len() + 64);
        out.push_str(r#"{"type":"welcome","session_id":"#);
        out.push_str(&frame[self.session_id.clone()]);
        out.push_str(r#","protocol":"#);
        number(&mut out, u64::from(super::PROTOCOL_VERSION));
        out.push_str(r#","seq":"#);
        number(&mut out, self.seq);
        out.push_str(r#","resumed":"#);
        out.push_str(if resumed { "true" } else { "false" });
        out.push_str(r#","state":"#);
        out.push_str(&frame[self.state.clone()]);
        out.push_str(r#","summary":"#);
        out.push_str(&frame[self.summary.clone()]);
        out.push('}');
        out
    }

    /// The `state` frame of the state in `frame` without transitions: a `get_state` answer.
    pub fn current(&self, frame: &str) -> String {
        let mut out = String::with_capacity(frame.len());
        out.push_str(r#"{"type":"state","session_id":"#);
        out.push_str(&frame[self.session_id.clone()]);
        out.push_str(r#","seq":"#);
        number(&mut out, self.seq);
        out.push_str(r#","state":"#);
        out.push_str(&frame[self.state.clone()]);
        out.push_str(r#","transitions":[],"summary":"#);
        out.push_str(&frame[self.summary.clone()]);
        out.push('}');
        out
    }
}

/// Appends the `state` object.
pub fn write_state(out: &mut String, c: &Conversation) {
    write_state_with(out, c, None);
}

/// Appends the `state` object, taking the bytes of the finished goals it shares with `previous`
/// (an earlier frame's text and its history) from there, and returns where its history is.
fn write_state_with(
    out: &mut String,
    c: &Conversation,
    previous: Option<(&str, &History)>,
) -> History {
    out.push_str(r#"{"session_id":"#);
    string(out, &c.session_id);
    out.push_str(r#","phase":""#);
    out.push_str(c.phase.as_str());
    out.push_str(r#"","turn_count":"#);
    number(out, c.turn_count);
    out.push_str(r#","phase_turns":"#);
    number(out, u64::from(c.phase_turns));
    out.push_str(r#","current_goal":"#);
    match &c.current_goal {
        Some(goal) => write_goal(out, goal),
        None => out.push_str("null"),
    }
    out.push_str(r#","queued_goals":["#);
    for (i, q) in c.queued_goals.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(r#"{"type":""#);
        out.push_str(q.goal_type.as_str());
        out.push_str(r#"","description":"#);
        string(out, &q.description);
        out.push_str(r#","statement":"#);
        string(out, &q.statement);
        out.push_str(r#","alternative":"#);
        out.push_str(if q.alternative { "true" } else { "false" });
        out.push('}');
    }
    out.push_str(r#"],"completed_goals":["#);
    let from = out.len();
    let mut goals = smallvec::SmallVec::new();
    // The previous frame's goals from this history's oldest on, when this history starts with
    // all of them (the window moved on by the goals finished since): copied in one piece.
    let shared = previous.and_then(|(frame, prev)| {
        let first = c.completed_goals.first()?.id.0;
        let k = prev.goals.iter().position(|(id, _)| *id == first)?;
        let tail = &prev.goals[k..];
        let same = tail.len() <= c.completed_goals.len()
            && tail
                .iter()
                .zip(&c.completed_goals)
                .all(|((id, _), g)| *id == g.id.0);
        if !same {
            return None;
        }
        let start = tail[0].1 as usize;
        Some((tail, frame.get(start..prev.range.end)?, start))
    });
    let mut written = 0;
    if let Some((tail, bytes, start)) = shared {
        let base = out.len();
        out.push_str(bytes);
        goals.extend(
            tail.iter()
                .map(|(id, at)| (*id, (base + (*at as usize - start)) as u32)),
        );
        written = tail.len();
    }
    for goal in &c.completed_goals[written..] {
        if out.len() > from {
            out.push(',');
        }
        goals.push((goal.id.0, out.len() as u32));
        write_goal(out, goal);
    }
    let history = History {
        range: from..out.len(),
        goals,
    };
    out.push_str(r#"],"completed_goals_total":"#);
    number(out, c.completed_goals_total);
    out.push_str(r#","abandoned_goals_total":"#);
    number(out, c.abandoned_goals_total);
    out.push_str(r#","goals_started":"#);
    number(out, u64::from(c.goals_started));
    out.push_str(r#","last_milestone":"#);
    match &c.last_milestone {
        Some(m) => {
            out.push_str(r#"{"phase":""#);
            out.push_str(m.phase.as_str());
            out.push_str(r#"","turn":"#);
            number(out, m.turn);
            out.push_str(r#","at":"#);
            time(out, &m.at);
            out.push('}');
        }
        None => out.push_str("null"),
    }
    out.push_str(r#","created_at":"#);
    time(out, &c.created_at);
    out.push_str(r#","last_user_message_at":"#);
    optional_time(out, &c.last_user_message_at);
    out.push_str(r#","last_updated":"#);
    time(out, &c.last_updated);
    out.push_str(r#","idle_deadline":"#);
    optional_time(out, &c.idle_deadline);
    out.push('}');
    history
}

/// A goal as JSON: the same bytes as serde_json writes (what the store keeps of a finished
/// goal), without serde's per-byte escaping.
pub fn goal_text(g: &Goal) -> String {
    let mut out = String::with_capacity(512);
    write_goal(&mut out, g);
    out
}

fn write_goal(out: &mut String, g: &Goal) {
    out.push_str(r#"{"id":"g-"#);
    number(out, u64::from(g.id.0));
    out.push_str(r#"","type":""#);
    out.push_str(g.goal_type.as_str());
    out.push_str(r#"","description":"#);
    string(out, &g.description);
    out.push_str(r#","status":""#);
    out.push_str(g.status.as_str());
    out.push_str(r#"","required_info":["#);
    for (i, s) in g.required_info.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(r#"{"name":"#);
        string(out, &s.name);
        out.push_str(r#","description":"#);
        string(out, &s.description);
        out.push_str(r#","question":"#);
        string(out, &s.question);
        out.push_str(r#","status":""#);
        out.push_str(s.status.as_str());
        out.push_str(r#"","value":"#);
        match &s.value {
            Some(v) => string(out, v),
            None => out.push_str("null"),
        }
        out.push('}');
    }
    out.push_str(r#"],"created_at":"#);
    time(out, &g.created_at);
    out.push_str(r#","completed_at":"#);
    optional_time(out, &g.completed_at);
    out.push_str(r#","reason":"#);
    match g.reason {
        Some(r) => string(out, r.as_str()),
        None => out.push_str("null"),
    }
    out.push_str(r#","turns":"#);
    number(out, u64::from(g.turns));
    out.push_str(r#","understanding_turns":"#);
    number(out, u64::from(g.understanding_turns));
    out.push_str(r#","requested_changes":["#);
    for (i, change) in g.requested_changes.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        string(out, change);
    }
    out.push_str("]}");
}

fn time(out: &mut String, t: &DateTime<Utc>) {
    let mut buf = [0u8; super::time::MAX_LEN];
    out.push('"');
    out.push_str(super::time::format(t, &mut buf));
    out.push('"');
}

fn optional_time(out: &mut String, t: &Option<DateTime<Utc>>) {
    match t {
        Some(t) => time(out, t),
        None => out.push_str("null"),
    }
}

#[cfg_attr(feature = "serde-frames", allow(dead_code))]
fn summary(out: &mut String, conv: &Conversation) {
    use std::cell::RefCell;
    thread_local! {
        static BUF: RefCell<String> = RefCell::new(String::with_capacity(1024));
    }
    BUF.with(|buf| match buf.try_borrow_mut() {
        Ok(mut buf) => {
            buf.clear();
            let _ = write!(buf, "{}", Summary(conv));
            string(out, &buf);
        }
        // Not reached (nothing here comes back), but never panic.
        Err(_) => string(out, &Summary(conv).to_string()),
    });
}

/// Appends a decimal number.
fn number(out: &mut String, n: u64) {
    let mut buf = [0u8; 20];
    let at = super::decimal::at_end(n, &mut buf);
    // Only ASCII digits were written.
    out.extend(buf[at..].iter().map(|b| char::from(*b)));
}

/// Appends `s` as a JSON string, escaped exactly as serde_json escapes: `"`, `\` and control
/// characters (with the short forms `\b \f \n \r \t`, others as `\u00xx`).
pub fn string(out: &mut String, s: &str) {
    out.push('"');
    let bytes = s.as_bytes();
    let mut start = 0;
    let mut i = 0;
    while i < bytes.len() {
        // Eight bytes at a time while none needs escaping.
        if i + 8 <= bytes.len() {
            let mut word = [0u8; 8];
            word.copy_from_slice(&bytes[i..i + 8]);
            if !needs_escape(u64::from_le_bytes(word)) {
                i += 8;
                continue;
            }
        }
        let b = bytes[i];
        // Every byte that needs escaping is ASCII, so `start..i` always ends on a character
        // boundary.
        let escape = match b {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            b'\n' => "\\n",
            b'\r' => "\\r",
            b'\t' => "\\t",
            0x08 => "\\b",
            0x0c => "\\f",
            0x00..=0x1f => {
                out.push_str(&s[start..i]);
                const HEX: &[u8; 16] = b"0123456789abcdef";
                out.push_str("\\u00");
                out.push(char::from(HEX[(b >> 4) as usize]));
                out.push(char::from(HEX[(b & 0xf) as usize]));
                i += 1;
                start = i;
                continue;
            }
            _ => {
                i += 1;
                continue;
            }
        };
        out.push_str(&s[start..i]);
        out.push_str(escape);
        i += 1;
        start = i;
    }
    out.push_str(&s[start..]);
    out.push('"');
}

/// Whether any byte of the word is `"`, `\` or below 0x20.
fn needs_escape(w: u64) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let has_zero = |x: u64| x.wrapping_sub(ONES) & !x & HIGH;
    // A byte below 0x20: subtracting 0x20 borrows into its high bit (bytes >= 0x80 are
    // excluded by `!w`).
    let control = w.wrapping_sub(ONES * 0x20) & !w & HIGH;
    control | has_zero(w ^ (ONES * u64::from(b'"'))) | has_zero(w ^ (ONES * u64::from(b'\\'))) != 0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn serde_string(s: &str) -> String {
        serde_json::to_string(s).unwrap()
    }

    #[test]
    fn strings_are_escaped_like_serde_json() {
        let mut all = String::new();
        for c in (0u32..0x80).filter_map(char::from_u32) {
            all.push(c);
        }
        for s in [
            "",
            "plain ascii text that is long enough",
            "quote \" and backslash \\",
            "line\nbreak",
            "tab\tand\rreturn",
            "\u{0}\u{1}\u{1f}\u{7f}",
            "é ü 🙂 漢字",
            &all,
            "12345678\"",
            "1234567\\",
            "aaaaaaa\n",
            "\u{8}\u{c}",
        ] {
            let mut out = String::new();
            string(&mut out, s);
            assert_eq!(out, serde_string(s), "{s:?}");
        }
    }

    #[test]
    fn every_byte_position_of_an_escape_is_found() {
        for special in ['"', '\\', '\n', '\u{1}', '\u{1f}'] {
            for at in 0..20 {
                let mut s: String = "x".repeat(20);
                s.replace_range(at..at + 1, &special.to_string());
                let mut out = String::new();
                string(&mut out, &s);
                assert_eq!(out, serde_string(&s), "{s:?}");
            }
        }
    }

    #[test]
    fn numbers_are_decimal() {
        for n in [0, 7, 10, 99, 12345, u64::MAX] {
            let mut out = String::new();
            number(&mut out, n);
            assert_eq!(out, n.to_string());
        }
    }
}
