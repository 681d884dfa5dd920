//! `convstate replay`: runs a JSON Lines transcript through the engine offline and writes, for
//! each line, the `state` frame a connected client would receive for that step.

use std::io::{BufRead, Write};

use chrono::{DateTime, TimeDelta, Utc};
use serde::Deserialize;

use crate::conversation::{Conversation, Engine, Role, Signal};
use crate::store::Change;

/// The time of a first line without `at`.
pub(crate) const DEFAULT_START: &str = "2026-01-01T00:00:00Z";

/// One line of a transcript. Fields are optional here and checked together in [`Entry::from`],
/// so that a wrong combination gets a message saying what is wrong.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Line {
    role: Option<Role>,
    text: Option<String>,
    /// An artifact carried by an assistant message outside its text; any value but `null` and
    /// `false` counts.
    artifact: Option<serde_json::Value>,
    signal: Option<String>,
    tick: Option<DateTime<Utc>>,
    reset: Option<bool>,
    at: Option<DateTime<Utc>>,
}

/// A checked transcript line.
#[derive(Debug)]
enum Entry {
    Message {
        role: Role,
        text: String,
        artifact: bool,
        at: Option<DateTime<Utc>>,
    },
    Signal(Signal, Option<DateTime<Utc>>),
    Reset(Option<DateTime<Utc>>),
    Tick(DateTime<Utc>),
}

impl Entry {
    /// A step from its line; a line that is not JSON of a step says where in the line.
    fn parse_at(line: &str) -> Result<Entry, ReplayError> {
        match serde_json::from_str::<Line>(line) {
            Ok(_) => Entry::parse(line).map_err(|m| ReplayError::Line(0, m)),
            Err(e) => {
                // serde_json's message without its own "at line 1 column N" (the transcript's
                // line is said by the caller).
                let text = e.to_string();
                let suffix = format!(" at line {} column {}", e.line(), e.column());
                let message = text.strip_suffix(&suffix).unwrap_or(&text);
                Err(ReplayError::At(
                    0,
                    e.column(),
                    format!("invalid step: {message}"),
                ))
            }
        }
    }

    fn parse(line: &str) -> Result<Entry, String> {
        let l: Line = serde_json::from_str(line).map_err(|e| format!("invalid step: {e}"))?;
        let artifact = match &l.artifact {
            None | Some(serde_json::Value::Null) | Some(serde_json::Value::Bool(false)) => false,
            Some(_) => true,
        };
        let kinds = [
            l.role.is_some() || l.text.is_some(),
            l.signal.is_some(),
            l.tick.is_some(),
            l.reset.is_some(),
        ];
        match kinds.iter().filter(|k| **k).count() {
            0 => return Err("a step needs `role` and `text`, `signal`, `tick` or `reset`".into()),
            1 => {}
            _ => {
                return Err(
                    "a step is one of a message (`role`, `text`), a `signal`, a `tick` or a `reset`"
                        .into(),
                );
            }
        }
        if l.artifact.is_some() && l.role.is_none() {
            return Err("`artifact` belongs to a message".into());
        }
        if let Some(tick) = l.tick {
            if l.at.is_some() {
                return Err("a `tick` is its own time; it takes no `at`".into());
            }
            return Ok(Entry::Tick(tick));
        }
        if let Some(name) = l.signal {
            return match Signal::from_name(&name) {
                Some(s) if s.is_explicit() => Ok(Entry::Signal(s, l.at)),
                _ => Err(format!(
                    "unknown signal \"{name}\" (expected approve, start_work, work_done, satisfied, change_request or cancel)"
                )),
            };
        }
        if let Some(reset) = l.reset {
            return if reset {
                Ok(Entry::Reset(l.at))
            } else {
                Err("`reset` must be true".into())
            };
        }
        match (l.role, l.text) {
            (Some(role), Some(text)) => Ok(Entry::Message {
                role,
                text,
                artifact,
                at: l.at,
            }),
            (None, _) => Err("a message needs a `role` (user or assistant)".into()),
            (_, None) => Err("a message needs a `text`".into()),
        }
    }

    /// The change this step makes (a tick: the idle sweep).
    fn into_change(self) -> Change {
        match self {
            Entry::Message {
                role,
                text,
                artifact,
                ..
            } => Change::Message {
                role,
                text,
                artifact,
                partial: false,
            },
            Entry::Signal(signal, _) => Change::Signal { signal },
            Entry::Reset(_) => Change::Reset,
            Entry::Tick(_) => Change::Idle,
        }
    }

    fn at(&self) -> Option<DateTime<Utc>> {
        match self {
            Entry::Message { at, .. } | Entry::Signal(_, at) | Entry::Reset(at) => *at,
            Entry::Tick(at) => Some(*at),
        }
    }
}

/// A failed replay: the line (1-based) and what is wrong, or an I/O error.
#[derive(Debug)]
pub(crate) enum ReplayError {
    Line(usize, String),
    /// A line, a column in it (1-based), what is wrong there.
    At(usize, usize, String),
    Io(std::io::Error),
}

impl std::fmt::Display for ReplayError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReplayError::Line(n, m) => write!(f, "line {n}: {m}"),
            ReplayError::At(n, c, m) => write!(f, "line {n}, column {c}: {m}"),
            ReplayError::Io(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for ReplayError {}

impl From<std::io::Error> for ReplayError {
    fn from(e: std::io::Error) -> Self {
        ReplayError::Io(e)
    }
}

/// What `replay` writes per step.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum Format {
    /// The `state` frame a connected client would receive (JSON, one per line).
    #[default]
    Frames,
    /// One line for a person: seq, phase, the transitions, the current goal.
    Brief,
    /// The brief line, then why: the phrases found, the words read as others, the goal lead,
    /// the rule that decided.
    Explain,
}

/// The steps of a transcript, parsed and timed, with their line numbers: messages, signals
/// and resets as store changes, ticks as [`Change::Idle`] at their instant. Blank lines are
/// skipped; an error ends the steps.
fn steps(
    input: impl BufRead,
) -> impl Iterator<Item = Result<(usize, DateTime<Utc>, Change), ReplayError>> {
    let mut clock = None;
    input
        .lines()
        .enumerate()
        .filter(|(_, line)| line.as_ref().map_or(true, |l| !l.trim().is_empty()))
        .map(move |(i, line)| {
            let n = i + 1;
            let step = Entry::parse_at(&line?).map_err(|e| match e {
                ReplayError::At(_, c, m) => ReplayError::At(n, c, m),
                ReplayError::Line(_, m) => ReplayError::Line(n, m),
                other => other,
            })?;
            let now = step_time(step.at(), clock).map_err(|m| ReplayError::Line(n, m))?;
            clock = Some(now);
            Ok((n, now, step.into_change()))
        })
}

/// The steps of a transcript with their times, for recording scripts.
pub(crate) fn read_transcript(
    input: impl BufRead,
) -> Result<Vec<(DateTime<Utc>, Change)>, ReplayError> {
    steps(input)
        .map(|s| s.map(|(_, at, change)| (at, change)))
        .collect()
}

/// A step's time: its own, or a second after the previous one (the first: the default start).
fn step_time(
    at: Option<DateTime<Utc>>,
    previous: Option<DateTime<Utc>>,
) -> Result<DateTime<Utc>, String> {
    match (at, previous) {
        (Some(at), Some(prev)) if at < prev => {
            Err(format!("time goes backwards: {at} is before {prev}"))
        }
        (Some(at), _) => Ok(at),
        (None, Some(prev)) => Ok(prev + TimeDelta::seconds(1)),
        (None, None) => Ok(DEFAULT_START.parse().expect("a valid constant time")),
    }
}

/// Replays `input` into `output`, one line per non-blank input line. Stops at the first
/// malformed line, after writing the lines of the steps before it.
pub(crate) fn replay(
    engine: &Engine,
    session_id: &str,
    format: Format,
    input: impl BufRead,
    mut output: impl Write,
) -> Result<(), ReplayError> {
    let mut conv: Option<Conversation> = None;
    let mut seq = 0u64;
    let mut buf = String::with_capacity(4096);
    for step in steps(input) {
        let (n, now, change) = step?;
        let conv = conv.get_or_insert_with(|| engine.start(session_id, now));
        let input = change.input();
        let (result, explanation) = match format {
            Format::Explain => {
                let (step, e) = engine.step_explained(conv, input, now);
                (step, Some(e))
            }
            _ => (engine.step(conv, input, now), None),
        };
        if result.changed {
            seq += 1;
        }
        buf.clear();
        match format {
            Format::Frames => buf.push_str(&crate::protocol::state_frame_text(
                conv,
                seq,
                &result.transitions,
            )),
            Format::Brief => brief(&mut buf, seq, conv, &result.transitions)
                .map_err(|e| ReplayError::Line(n, format!("cannot write the step: {e}")))?,
            Format::Explain => brief(&mut buf, seq, conv, &result.transitions)
                .and_then(|()| explain(&mut buf, explanation.as_ref()))
                .map_err(|e| ReplayError::Line(n, format!("cannot write the step: {e}")))?,
        }
        buf.push('\n');
        output.write_all(buf.as_bytes())?;
    }
    output.flush()?;
    Ok(())
}

/// The inspector's lines under a step's brief line: every phrase found (counted, or dropped
/// and why), every word read as another, the goal lead, the rule that decided.
fn explain(
    out: &mut String,
    e: Option<&crate::conversation::explain::Explanation>,
) -> std::fmt::Result {
    use std::fmt::Write as _;
    let Some(e) = e else { return Ok(()) };
    for c in &e.corrections {
        if c.read.is_empty() {
            write!(
                out,
                "\n       skipped  {:?} (a hesitation or a restated value, {}..{})",
                c.written, c.start, c.end
            )?;
        } else {
            write!(
                out,
                "\n       typo     {:?} read as {:?} ({}..{})",
                c.written, c.read, c.start, c.end
            )?;
        }
    }
    for p in &e.phrases {
        let verdict = match p.dropped_by {
            None => "counts".to_string(),
            Some(rule) => format!("dropped by the {rule} rule"),
        };
        write!(
            out,
            "\n       phrase   {} {:?} ({}, {}..{}): {verdict}",
            p.class, p.text, p.role, p.start, p.end
        )?;
    }
    if e.phrases_omitted > 0 {
        write!(
            out,
            "\n       phrase   {} more, not listed",
            e.phrases_omitted
        )?;
    }
    if let Some(g) = &e.goal {
        write!(out, "\n       goal     {} lead {:?}", g.goal_type, g.lead)?;
        if let Some(w) = &g.wrapper {
            write!(out, " after {w:?}")?;
        }
        write!(out, ", description {:?}", g.description)?;
        if !g.found.is_empty() {
            write!(out, "\n       found    {}", g.found)?;
        }
        for d in &g.details {
            write!(out, "\n       detail   {d}")?;
        }
        for q in &g.queued {
            write!(out, "\n       queued   {q}")?;
        }
    }
    write!(out, "\n       rule     {}", e.rule)
}

/// `  3  planning       understanding -> planning (Gathered sufficient information) | artifact_creation: todo app`
fn brief(
    out: &mut String,
    seq: u64,
    conv: &Conversation,
    transitions: &[crate::conversation::Transition],
) -> std::fmt::Result {
    use std::fmt::Write as _;
    write!(out, "{seq:>3}  {:<13}", conv.phase.as_str())?;
    for (i, t) in transitions.iter().enumerate() {
        let sep = if i == 0 { "  " } else { "; " };
        let milestone = if t.milestone { ", milestone" } else { "" };
        write!(out, "{sep}{} -> {} ({}{milestone})", t.from, t.to, t.reason)?;
    }
    if let Some(goal) = &conv.current_goal {
        write!(out, "  | {}: {}", goal.goal_type, goal.description)?;
    }
    Ok(())
}
