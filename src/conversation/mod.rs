//! The conversation engine: pure, synchronous, no I/O and no clock reads (`now` is an
//! argument). It implements `conversation.md` of the project's spec.
//!
//! - [`state`]: the state a session keeps, serialised as the wire contract's `state` object;
//! - [`lexicon`]: the vocabulary, filled from `patterns/` by `crate::patterns`;
//! - [`classify`]: reads a message into signals, a goal lead, asked slots and slot values;
//! - [`machine`]: the transition rules as one ordered decision;
//! - [`summary`]: the text summary for an LLM's system prompt;
//! - `extraction`: the span of a message that gives a slot its value;
//! - `slots`: the values a message gives the goal's slots (answers, waivers, corrections);
//! - `goals`: a goal started, queued, finished;
//! - `flows`: a hosted flow checked, started and stepped;
//! - this module: [`Engine::step`], which puts them together for one input.

pub mod classify;
mod dictionary;
mod evidence;
pub mod explain;
mod extraction;
mod flows;
mod goals;
mod instructions;
mod leads;
pub mod lexicon;
pub mod machine;
pub(crate) mod names;
mod pattern;
pub(crate) mod reading;
mod said;
mod slots;
mod split;
pub mod state;
pub mod summary;
pub mod text;
pub mod typos;
mod view;
mod words;

use std::ops::Range;

use chrono::{DateTime, Utc};
use smallvec::SmallVec;

pub use classify::Classifier;
pub use lexicon::{Lexicon, Role, Settings, Signal};
pub use machine::{Facts, Outcome};
pub use reading::{Reading, Signals};
pub use state::{
    Conversation, Goal, GoalId, GoalReason, GoalStatus, GoalType, Milestone, Phase, QueuedGoal,
    Slot, SlotStatus, Transition, TransitionReason,
};
pub use summary::Summary;
pub use typos::Said;

use goals::chosen;

/// One input to a session.
#[derive(Clone, Copy, Debug)]
pub enum Input<'a> {
    /// A turn. `artifact` is set when the message carries an artifact outside its text.
    Message {
        role: Role,
        text: &'a str,
        artifact: bool,
    },
    /// An explicit signal (a button press): not a turn.
    Signal(Signal),
    /// Start over from `greeting` with an empty history.
    Reset,
    /// Time passes: the idle rule runs (a flow's timers), nothing else.
    Tick,
    /// Starts a hosted flow in a new session (its first change).
    Start {
        flow: &'a str,
        settings: &'a std::collections::BTreeMap<String, String>,
        restore: Option<&'a crate::flow::Restore>,
    },
    /// A hosted flow's event, with its data.
    Event {
        name: &'a str,
        data: &'a serde_json::Map<String, serde_json::Value>,
    },
}

/// The phase moves of one step: usually none or one, two when a step moves twice.
pub type Transitions = SmallVec<[Transition; 2]>;

/// What a step did.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Step {
    pub transitions: Transitions,
    /// False only for a tick that found nothing to do: such a step is not a change.
    pub changed: bool,
    /// Goals this step completed or abandoned, in order (at most one in practice). They are in
    /// `completed_goals` too unless the history window is 0.
    pub finished: Vec<Goal>,
    /// A hosted flow's moves (its `transitions`).
    pub moves: Vec<crate::flow::Move>,
}

/// The compiled patterns and thresholds: everything a step needs besides the state.
#[derive(Clone, Debug)]
pub struct Engine {
    classifier: Classifier,
    settings: Settings,
    /// Names what the classifier was compiled from (the pattern loader's hash of the files'
    /// text), for the rules' fingerprint.
    source: u64,
    /// The hosted flows sessions may run.
    flows: std::sync::Arc<crate::flow::Flows>,
}

/// Slot values read from one message: (position in the goal's `required_info`, what it gets).
type Fills = SmallVec<[(usize, Fill); 4]>;

/// What one slot gets from a message.
#[derive(Clone, Debug)]
enum Fill {
    /// Words of the message (of the text as read).
    Span(Range<usize>),
    /// A value built by the reader (a detail, a correction), in the words as written.
    Text(String),
    /// Left to the assistant (rule 13).
    Waived,
}

impl Engine {
    /// `source` names what the classifier was compiled from (see `crate::patterns`).
    pub fn new(classifier: Classifier, settings: Settings, source: u64) -> Engine {
        Engine {
            classifier,
            settings,
            source,
            flows: crate::flow::Flows::shipped(),
        }
    }

    /// These flows instead of the shipped ones.
    pub fn with_flows(mut self, flows: std::sync::Arc<crate::flow::Flows>) -> Engine {
        self.flows = flows;
        self
    }

    pub fn flows(&self) -> &crate::flow::Flows {
        &self.flows
    }

    /// What the classifier was compiled from, as given to [`Engine::new`].
    pub fn source(&self) -> u64 {
        self.source
    }

    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// For overrides from the command line (`--idle-timeout`).
    pub fn settings_mut(&mut self) -> &mut Settings {
        &mut self.settings
    }

    pub fn classifier(&self) -> &Classifier {
        &self.classifier
    }

    /// A new session in `greeting`, created at `now`, with its idle deadline set.
    pub fn start(&self, session_id: impl Into<String>, now: DateTime<Utc>) -> Conversation {
        let mut conv = Conversation::new(session_id, now);
        self.settle(&mut conv, &Transitions::new(), false, now);
        conv
    }

    /// Brings a state kept under other settings (a snapshot) to these: the history window
    /// keeps the most recent goals, and totals missing from an older state are counted from the
    /// goals it holds.
    pub fn fit(&self, conv: &mut Conversation) {
        let held = conv.completed_goals.len() as u64;
        if conv.completed_goals_total < held {
            conv.completed_goals_total = held;
            conv.abandoned_goals_total = conv
                .completed_goals
                .iter()
                .filter(|g| g.status == GoalStatus::Abandoned)
                .count() as u64;
        }
        let over = conv
            .completed_goals
            .len()
            .saturating_sub(self.settings.history_window as usize);
        conv.completed_goals.drain(..over);
    }

    /// The idle check the sweeper calls at a session's deadline: `step` with [`Input::Tick`].
    pub fn tick(&self, conv: &mut Conversation, now: DateTime<Utc>) -> Step {
        self.step(conv, Input::Tick, now)
    }

    /// Applies one input at `now`.
    pub fn step(&self, conv: &mut Conversation, input: Input<'_>, now: DateTime<Utc>) -> Step {
        self.step_noting(conv, input, now, None)
    }

    /// [`Engine::step`], and why it went so: every phrase found and whether it counted, the
    /// words read as others, the goal lead, the rule that decided. Costs what `step` costs when
    /// not asked for: the notes are taken only here.
    pub fn step_explained(
        &self,
        conv: &mut Conversation,
        input: Input<'_>,
        now: DateTime<Utc>,
    ) -> (Step, explain::Explanation) {
        let mut explanation = explain::Explanation::default();
        let step = self.step_noting(conv, input, now, Some(&mut explanation));
        (step, explanation)
    }

    fn step_noting(
        &self,
        conv: &mut Conversation,
        input: Input<'_>,
        now: DateTime<Utc>,
        mut explain: Option<&mut explain::Explanation>,
    ) -> Step {
        if conv.flow.is_some() || matches!(input, Input::Start { .. } | Input::Event { .. }) {
            return self.step_flow(conv, input, now);
        }
        let mut out = Transitions::new();
        let mut finished = Vec::new();
        if let Input::Reset = input {
            let from = conv.phase;
            let goals_started = conv.goals_started;
            *conv = Conversation::new(std::mem::take(&mut conv.session_id), now);
            conv.goals_started = goals_started;
            if from != Phase::Greeting {
                out.push(Transition::new(
                    from,
                    Phase::Greeting,
                    TransitionReason::Reset,
                ));
            }
            self.settle(conv, &out, false, now);
            if let Some(e) = explain {
                e.rule = "reset: start over from greeting".to_string();
            }
            return Step {
                transitions: out,
                changed: true,
                finished,
                moves: Vec::new(),
            };
        }
        // Rule 1: the idle timeout, applied first, so a late turn is then read from `idle`.
        // A deadline past the calendar's end (a time near chrono's maximum) never comes.
        let deadline = conv
            .last_activity()
            .checked_add_signed(self.settings.idle_timeout);
        let timed_out = conv.phase != Phase::Idle && deadline.is_some_and(|d| now >= d);
        if let Some(deadline) = deadline.filter(|_| timed_out) {
            self.finish_goal(conv, GoalReason::IdleTimeout, deadline, &mut finished);
            conv.queued_goals.retain(|q| !q.alternative);
            move_to(conv, Phase::Idle, TransitionReason::IdleTimeout, &mut out);
        }
        let idle_rule = "1 idle timeout: no user message for the idle timeout";
        let turn = match input {
            Input::Reset | Input::Start { .. } | Input::Event { .. } => {
                unreachable!("handled above")
            }
            Input::Tick => {
                let changed = !out.is_empty();
                if changed {
                    self.settle(conv, &out, false, now);
                }
                if let Some(e) = explain {
                    e.rule = if timed_out {
                        idle_rule
                    } else {
                        "1 idle timeout: not due"
                    }
                    .to_string();
                }
                return Step {
                    transitions: out,
                    changed,
                    finished,
                    moves: Vec::new(),
                };
            }
            Input::Signal(signal) => {
                let reading = Reading {
                    signals: Signals::of(signal),
                    ..Reading::default()
                };
                let nothing = Said::as_written("");
                let rule = self.apply(conv, &nothing, None, &reading, now, &mut out, &mut finished);
                if let Some(e) = explain.as_deref_mut() {
                    e.rule = rule.to_string();
                }
                false
            }
            Input::Message {
                role,
                text,
                artifact,
            } => {
                let text = text::normalize(text);
                // A user's misspelt words are read as the vocabulary words they are one edit
                // from; descriptions and values keep what was written.
                let said = if role == Role::User && self.settings.typo_tolerance {
                    self.classifier.spell(&text)
                } else {
                    Said::as_written(&text)
                };
                let mut notes = explain.as_ref().map(|_| Vec::new());
                let mut reading = self.classifier.read_explained(
                    &said.text,
                    role,
                    conv.current_goal.is_some(),
                    notes.as_mut(),
                );
                if artifact && role == Role::Assistant {
                    reading.signals.insert(Signal::WorkDone);
                }
                conv.turn_count += 1;
                if role == Role::User {
                    conv.last_user_message_at = Some(now);
                }
                if let Some(goal) = &mut conv.current_goal {
                    goal.turns += 1;
                }
                let rule = self.apply(
                    conv,
                    &said,
                    Some(role),
                    &reading,
                    now,
                    &mut out,
                    &mut finished,
                );
                if let Some(e) = explain {
                    self.note(e, &said, notes.unwrap_or_default(), &reading, rule);
                    if timed_out {
                        e.rule = format!("{idle_rule}; then {}", e.rule);
                    }
                }
                true
            }
        };
        self.settle(conv, &out, turn, now);
        Step {
            transitions: out,
            changed: true,
            finished,
            moves: Vec::new(),
        }
    }

    /// What a step's reading notes become: spans and words of the message as written.
    fn note(
        &self,
        e: &mut explain::Explanation,
        said: &Said<'_>,
        mut phrases: Vec<explain::PhraseNote>,
        reading: &Reading,
        rule: &str,
    ) {
        for p in &mut phrases {
            let span = said.original_span(p.start..p.end);
            p.text = said.original[span.clone()].to_string();
            (p.start, p.end) = (span.start, span.end);
        }
        phrases.sort_by_key(|p| (p.start, p.end));
        e.phrases_omitted = phrases.len().saturating_sub(explain::MAX_PHRASES);
        phrases.truncate(explain::MAX_PHRASES);
        e.phrases = phrases;
        e.corrections = said
            .corrections
            .iter()
            .map(|c| explain::CorrectionNote {
                written: said.original[c.original.clone()].to_string(),
                read: said.text[c.read.clone()].to_string(),
                start: c.original.start,
                end: c.original.end,
            })
            .collect();
        let slots = self.classifier.slots();
        let queued: Vec<String> = reading
            .more
            .iter()
            .map(|m| {
                format!(
                    "{}: {}{}",
                    self.classifier.goals()[m.goal].goal_type,
                    said.original_text(m.description.clone()),
                    if reading.alternatives { " (or)" } else { "" }
                )
            })
            .collect();
        e.goal = reading.goal.as_ref().or(reading.more.first()).map(|g| {
            Box::new(explain::GoalNote {
                goal_type: self.classifier.goals()[g.goal].goal_type,
                lead: said.original_text(g.lead.clone()).to_string(),
                wrapper: (!g.wrapper.is_empty())
                    .then(|| said.original_text(g.wrapper.clone()).to_string()),
                description: said.original_text(g.description.clone()).to_string(),
                found: g.rule.as_str().to_string(),
                details: g
                    .details
                    .iter()
                    .filter_map(|d| {
                        let def = &self.classifier.goals()[g.goal];
                        let name = &slots[*def.slots.get(d.slot)?].name;
                        let parts: Vec<std::borrow::Cow<'_, str>> =
                            d.spans.iter().map(|s| said.value_text(s.clone())).collect();
                        Some(format!("{name}: {}{}", d.prefix, parts.join(", ")))
                    })
                    .collect(),
                queued: queued.clone(),
            })
        });
        e.rule = rule.to_string();
    }

    /// Rules 2 to 4 for one classified input; the rule that decided.
    #[allow(clippy::too_many_arguments)]
    fn apply(
        &self,
        conv: &mut Conversation,
        said: &Said<'_>,
        role: Option<Role>,
        reading: &Reading,
        now: DateTime<Utc>,
        out: &mut Transitions,
        finished: &mut Vec<Goal>,
    ) -> &'static str {
        // Rule 14: with goals joined by "or" waiting and none active, a message naming one of
        // them starts it.
        if role == Some(Role::User)
            && conv.current_goal.is_none()
            && reading.goal.is_none()
            && let Some(k) = chosen(&conv.queued_goals, &said.text)
        {
            let q = conv.queued_goals.remove(k);
            conv.queued_goals.retain(|q| !q.alternative);
            self.start_queued(conv, q, now, out, TransitionReason::Chose);
            return "14 two goals: the user named one of the goals joined by \"or\"";
        }
        let fills = match (&conv.current_goal, role) {
            (Some(goal), Some(Role::User)) => self.read_slots(goal, said, reading),
            _ => Fills::new(),
        };
        let goal = conv.current_goal.as_ref();
        let in_understanding = conv.phase == Phase::Understanding && role == Some(Role::User);
        // A goal read from evidence (a problem report, a request of the thing itself) starts a
        // goal only when none is active; while reviewing it asks for a change.
        // While reviewing, a task (a fix, a change of the work) or a problem is a change
        // request of the current goal, unless a switch marker says it replaces it.
        let reviewing = conv.phase == Phase::Reviewing
            && !reading.signals.has(Signal::Switch)
            && !reading.signals.has(Signal::Cancel);
        let task = |g: &reading::GoalLead| {
            self.classifier.goals()[g.goal].goal_type == GoalType::TaskExecution
        };
        // (An answer has nothing a new request changes: after a question's or an
        // exploration's answer, a goal stated with a lead is the next one, even after a
        // contrast, "oh nice. could you also remind me to call the vet tomorrow at 10",
        // "perfect. totally unrelated but can you draft a short email to my landlord".)
        let answered = goal.is_some_and(|g| {
            matches!(
                g.goal_type,
                GoalType::QuestionAnswer | GoalType::Exploration
            )
        });
        let stated = reading
            .goal
            .as_ref()
            .filter(|g| g.by_lead() || goal.is_none() || reading.announced)
            .filter(|g| !(reviewing && task(g) && !answered));
        // A problem word, or a request of the thing itself, about the current work.
        let reported = stated.is_none()
            && (reading.problem
                || reading.goal.as_ref().is_some_and(|g| {
                    g.rule == reading::Found::Request
                        || (reviewing && task(g) && g.by_lead() && !answered)
                }));
        let facts = Facts {
            message: role,
            signals: reading.signals,
            goal: stated.is_some(),
            slots_complete: goal.is_some_and(|g| {
                g.has_required_info()
                    && g.required_info
                        .iter()
                        .enumerate()
                        .all(|(i, s)| s.status.is_settled() || fills.iter().any(|f| f.0 == i))
            }),
            understanding_turns: goal.map_or(0, |g| g.understanding_turns)
                + u32::from(in_understanding),
            complaint: (reading.complaint && !(answered && stated.is_some()))
                || (reported && conv.phase == Phase::Reviewing),
        };
        let (outcome, rule) = machine::decide_with_rule(conv.phase, &facts, goal, &self.settings);
        self.follow(
            conv, said, reading, &fills, &facts, outcome, now, out, finished,
        );
        rule
    }

    /// Carries out what the rules decided.
    #[allow(clippy::too_many_arguments)]
    fn follow(
        &self,
        conv: &mut Conversation,
        said: &Said<'_>,
        reading: &Reading,
        fills: &Fills,
        facts: &Facts,
        outcome: Outcome,
        now: DateTime<Utc>,
        out: &mut Transitions,
        finished: &mut Vec<Goal>,
    ) {
        match outcome {
            Outcome::Stay => {
                self.keep(conv, said, reading, fills, facts.understanding_turns);
                if conv.current_goal.is_none() && reading.alternatives {
                    conv.queued_goals.retain(|q| !q.alternative);
                    self.queue(conv, said, reading);
                }
            }
            Outcome::Move(to, reason) => {
                // A change request keeps its words for the assistant (rule 15): they describe a
                // change of the result, not the goal's information, so they fill no slot.
                let fills = if reason == TransitionReason::ChangesRequested {
                    &Fills::new()
                } else {
                    fills
                };
                self.keep(conv, said, reading, fills, facts.understanding_turns);
                if reason == TransitionReason::ChangesRequested
                    && let Some(goal) = &mut conv.current_goal
                {
                    // Rule 15: the change request's words, for the assistant (after the
                    // contrast that took a satisfaction back: "looks fine but ...").
                    let from = reading
                        .change_from
                        .filter(|f| *f < said.text.len())
                        .unwrap_or(0);
                    let words = self.classifier.answer_span(&said.text[from..]);
                    let words = words.start + from..words.end + from;
                    let value = said.value_text(words);
                    let change = capped(&value, self.settings.max_value_chars);
                    if !change.is_empty() {
                        if goal.requested_changes.len() >= state::MAX_REQUESTED_CHANGES {
                            goal.requested_changes.remove(0);
                        }
                        goal.requested_changes.push(change.into_owned());
                    }
                }
                if to == Phase::Understanding
                    && let Some(goal) = &mut conv.current_goal
                {
                    goal.understanding_turns = 0;
                }
                move_to(conv, to, reason, out);
            }
            Outcome::Finish(to, reason, goal_reason) => {
                self.finish_goal(conv, goal_reason, now, finished);
                move_to(conv, to, reason, out);
                // Rule 14: the next queued goal starts when the current one completes. A cancel
                // or a farewell goes to `idle` as rule 2 says (the queue waits); alternatives
                // waiting for a choice leave then.
                if to == Phase::Idle {
                    conv.queued_goals.retain(|q| !q.alternative);
                } else if goal_reason.status() == GoalStatus::Completed
                    && let Some(k) = conv.queued_goals.iter().position(|q| !q.alternative)
                {
                    let q = conv.queued_goals.remove(k);
                    self.start_queued(conv, q, now, out, TransitionReason::QueuedGoal);
                }
            }
            Outcome::Start(reason, previous) => {
                let Some(lead) = &reading.goal else {
                    return; // `decide` starts goals only for inputs with a lead
                };
                if let Some(why) = previous {
                    self.finish_goal(conv, why, now, finished);
                }
                // (The extractors read the goal's own part, not a further goal's: "fix the 404
                // on the about page, then add a link to it from the footer".)
                let until = reading
                    .more
                    .iter()
                    .map(|g| g.lead.start.min(g.description.start))
                    .filter(|&at| at > lead.lead.end)
                    .min()
                    .unwrap_or(said.text.len());
                self.start_goal(conv, said, lead, until, now);
                conv.queued_goals.retain(|q| !q.alternative);
                self.queue(conv, said, reading);
                enter_understanding(conv, reason, out);
            }
        }
    }

    /// Book-keeping after a step: times, the phase's turn counter, milestones, the deadline.
    fn settle(&self, conv: &mut Conversation, out: &Transitions, turn: bool, now: DateTime<Utc>) {
        conv.last_updated = now;
        if !out.is_empty() {
            conv.phase_turns = 0;
        } else if turn {
            conv.phase_turns += 1;
        }
        if let Some(t) = out.iter().rev().find(|t| t.milestone) {
            conv.last_milestone = Some(Milestone {
                phase: t.to,
                turn: conv.turn_count,
                at: now,
            });
        }
        conv.idle_deadline = (conv.phase != Phase::Idle)
            .then(|| {
                conv.last_activity()
                    .checked_add_signed(self.settings.idle_timeout)
            })
            .flatten();
    }
}

/// A new goal enters `understanding`; one whose statement already settled every slot goes on
/// to `planning` in the same step.
fn enter_understanding(conv: &mut Conversation, reason: TransitionReason, out: &mut Transitions) {
    move_to(conv, Phase::Understanding, reason, out);
    if conv
        .current_goal
        .as_ref()
        .is_some_and(|g| g.has_required_info() && g.all_provided())
    {
        move_to(conv, Phase::Planning, TransitionReason::Gathered, out);
    }
}

fn move_to(conv: &mut Conversation, to: Phase, reason: TransitionReason, out: &mut Transitions) {
    out.push(Transition::new(conv.phase, to, reason));
    conv.phase = to;
}

/// `text` as the state keeps it: at most `max` characters; a longer one is cut at a character
/// boundary and marked with `…`. The state (and every frame carrying it) is bounded whatever
/// a user writes.
fn capped(text: &str, max: u32) -> std::borrow::Cow<'_, str> {
    match text.char_indices().nth(max as usize) {
        None => std::borrow::Cow::Borrowed(text),
        Some((cut, _)) => {
            let keep = text[..cut].trim_end();
            std::borrow::Cow::Owned(format!("{keep}…"))
        }
    }
}
