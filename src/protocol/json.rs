//! A dedicated writer for the frames pushed on every change (`state` and `welcome`).
//!
//! Writing the state frame was most of the server's CPU time under load, nearly all of it in
//! serde_json's byte-at-a-time string escaping and generic map machinery. This writer emits the
//! same bytes — the serde derives remain the reference, and a property test checks the two
//! agree on random conversations — with keys as literals and strings checked for escapes eight
//! bytes at a time.

use std::fmt::Write as _;

use chrono::{DateTime, Utc};

use crate::conversation::{Conversation, Goal, Summary, Transition};

/// Appends the `state` frame of `conv` to `out`.
pub fn write_state_frame(
    out: &mut Vec<u8>,
    conv: &Conversation,
    seq: u64,
    transitions: &[Transition],
) {
    out.extend_from_slice(br#"{"type":"state","session_id":"#);
    string(out, &conv.session_id);
    out.extend_from_slice(br#","seq":"#);
    number(out, seq);
    out.extend_from_slice(br#","state":"#);
    write_state(out, conv);
    out.extend_from_slice(br#","transitions":["#);
    for (i, t) in transitions.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_slice(br#"{"from":""#);
        out.extend_from_slice(t.from.as_str().as_bytes());
        out.extend_from_slice(br#"","to":""#);
        out.extend_from_slice(t.to.as_str().as_bytes());
        out.extend_from_slice(br#"","reason":"#);
        string(out, t.reason.as_str());
        out.extend_from_slice(br#","milestone":"#);
        out.extend_from_slice(if t.milestone { b"true" } else { b"false" });
        out.push(b'}');
    }
    out.extend_from_slice(br#"],"summary":"#);
    summary(out, conv);
    out.push(b'}');
}

/// Appends the `welcome` frame of `conv` to `out`.
pub fn write_welcome_frame(out: &mut Vec<u8>, conv: &Conversation, seq: u64) {
    out.extend_from_slice(br#"{"type":"welcome","session_id":"#);
    string(out, &conv.session_id);
    out.extend_from_slice(br#","protocol":"#);
    number(out, u64::from(super::PROTOCOL_VERSION));
    out.extend_from_slice(br#","seq":"#);
    number(out, seq);
    out.extend_from_slice(br#","state":"#);
    write_state(out, conv);
    out.extend_from_slice(br#","summary":"#);
    summary(out, conv);
    out.push(b'}');
}

/// Appends the `state` object.
pub fn write_state(out: &mut Vec<u8>, c: &Conversation) {
    out.extend_from_slice(br#"{"session_id":"#);
    string(out, &c.session_id);
    out.extend_from_slice(br#","phase":""#);
    out.extend_from_slice(c.phase.as_str().as_bytes());
    out.extend_from_slice(br#"","turn_count":"#);
    number(out, c.turn_count);
    out.extend_from_slice(br#","phase_turns":"#);
    number(out, u64::from(c.phase_turns));
    out.extend_from_slice(br#","current_goal":"#);
    match &c.current_goal {
        Some(goal) => write_goal(out, goal),
        None => out.extend_from_slice(b"null"),
    }
    out.extend_from_slice(br#","completed_goals":["#);
    for (i, goal) in c.completed_goals.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        write_goal(out, goal);
    }
    out.extend_from_slice(br#"],"goals_started":"#);
    number(out, u64::from(c.goals_started));
    out.extend_from_slice(br#","last_milestone":"#);
    match &c.last_milestone {
        Some(m) => {
            out.extend_from_slice(br#"{"phase":""#);
            out.extend_from_slice(m.phase.as_str().as_bytes());
            out.extend_from_slice(br#"","turn":"#);
            number(out, m.turn);
            out.extend_from_slice(br#","at":"#);
            time(out, &m.at);
            out.push(b'}');
        }
        None => out.extend_from_slice(b"null"),
    }
    out.extend_from_slice(br#","created_at":"#);
    time(out, &c.created_at);
    out.extend_from_slice(br#","last_user_message_at":"#);
    optional_time(out, &c.last_user_message_at);
    out.extend_from_slice(br#","last_updated":"#);
    time(out, &c.last_updated);
    out.extend_from_slice(br#","idle_deadline":"#);
    optional_time(out, &c.idle_deadline);
    out.push(b'}');
}

fn write_goal(out: &mut Vec<u8>, g: &Goal) {
    out.extend_from_slice(br#"{"id":"g-"#);
    number(out, u64::from(g.id.0));
    out.extend_from_slice(br#"","type":""#);
    out.extend_from_slice(g.goal_type.as_str().as_bytes());
    out.extend_from_slice(br#"","description":"#);
    string(out, &g.description);
    out.extend_from_slice(br#","status":""#);
    out.extend_from_slice(match g.status {
        crate::conversation::GoalStatus::Active => b"active".as_slice(),
        crate::conversation::GoalStatus::Completed => b"completed",
        crate::conversation::GoalStatus::Abandoned => b"abandoned",
    });
    out.extend_from_slice(br#"","required_info":["#);
    for (i, s) in g.required_info.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_slice(br#"{"name":"#);
        string(out, &s.name);
        out.extend_from_slice(br#","description":"#);
        string(out, &s.description);
        out.extend_from_slice(br#","question":"#);
        string(out, &s.question);
        out.extend_from_slice(br#","status":""#);
        out.extend_from_slice(match s.status {
            crate::conversation::SlotStatus::Unknown => b"unknown".as_slice(),
            crate::conversation::SlotStatus::Asked => b"asked",
            crate::conversation::SlotStatus::Provided => b"provided",
        });
        out.extend_from_slice(br#"","value":"#);
        match &s.value {
            Some(v) => string(out, v),
            None => out.extend_from_slice(b"null"),
        }
        out.push(b'}');
    }
    out.extend_from_slice(br#"],"created_at":"#);
    time(out, &g.created_at);
    out.extend_from_slice(br#","completed_at":"#);
    optional_time(out, &g.completed_at);
    out.extend_from_slice(br#","reason":"#);
    match g.reason {
        Some(r) => string(out, goal_reason(r)),
        None => out.extend_from_slice(b"null"),
    }
    out.extend_from_slice(br#","turns":"#);
    number(out, u64::from(g.turns));
    out.extend_from_slice(br#","understanding_turns":"#);
    number(out, u64::from(g.understanding_turns));
    out.push(b'}');
}

fn goal_reason(r: crate::conversation::GoalReason) -> &'static str {
    use crate::conversation::GoalReason as R;
    match r {
        R::Satisfied => "user satisfied",
        R::MovedOn => "user moved on",
        R::Cancelled => "cancelled by user",
        R::Superseded => "superseded",
        R::IdleTimeout => "idle timeout",
    }
}

fn time(out: &mut Vec<u8>, t: &DateTime<Utc>) {
    let mut buf = [0u8; crate::conversation::time::MAX_LEN];
    out.push(b'"');
    out.extend_from_slice(crate::conversation::time::format(t, &mut buf).as_bytes());
    out.push(b'"');
}

fn optional_time(out: &mut Vec<u8>, t: &Option<DateTime<Utc>>) {
    match t {
        Some(t) => time(out, t),
        None => out.extend_from_slice(b"null"),
    }
}

fn summary(out: &mut Vec<u8>, conv: &Conversation) {
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
fn number(out: &mut Vec<u8>, mut n: u64) {
    let mut buf = [0u8; 20];
    let mut at = buf.len();
    loop {
        at -= 1;
        buf[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend_from_slice(&buf[at..]);
}

/// Appends `s` as a JSON string, escaped exactly as serde_json escapes: `"`, `\` and control
/// characters (with the short forms `\b \f \n \r \t`, others as `\u00xx`).
pub fn string(out: &mut Vec<u8>, s: &str) {
    out.push(b'"');
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
        let escape: &[u8] = match b {
            b'"' => b"\\\"",
            b'\\' => b"\\\\",
            b'\n' => b"\\n",
            b'\r' => b"\\r",
            b'\t' => b"\\t",
            0x08 => b"\\b",
            0x0c => b"\\f",
            0x00..=0x1f => {
                out.extend_from_slice(&bytes[start..i]);
                const HEX: &[u8; 16] = b"0123456789abcdef";
                out.extend_from_slice(b"\\u00");
                out.push(HEX[(b >> 4) as usize]);
                out.push(HEX[(b & 0xf) as usize]);
                i += 1;
                start = i;
                continue;
            }
            _ => {
                i += 1;
                continue;
            }
        };
        out.extend_from_slice(&bytes[start..i]);
        out.extend_from_slice(escape);
        i += 1;
        start = i;
    }
    out.extend_from_slice(&bytes[start..]);
    out.push(b'"');
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

    fn serde_string(s: &str) -> Vec<u8> {
        serde_json::to_vec(s).unwrap()
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
            let mut out = Vec::new();
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
                let mut out = Vec::new();
                string(&mut out, &s);
                assert_eq!(out, serde_string(&s), "{s:?}");
            }
        }
    }

    #[test]
    fn numbers_are_decimal() {
        for n in [0, 7, 10, 99, 12345, u64::MAX] {
            let mut out = Vec::new();
            number(&mut out, n);
            assert_eq!(String::from_utf8(out).unwrap(), n.to_string());
        }
    }
}
