//! The conversation engine: pure, synchronous, no I/O and no clock reads (`now` is an
//! argument). It implements `conversation.md` of the project's spec.
//!
//! - [`state`]: the state a session keeps, serialised as the wire contract's `state` object;
//! - [`lexicon`]: the vocabulary, filled from `patterns/` by `crate::patterns`;
//! - [`classify`]: reads a message into signals, a goal lead, asked slots and slot values;
//! - [`machine`]: the transition rules as one ordered decision;
//! - [`summary`]: the text summary for an LLM's system prompt;
//! - this module: [`Engine::step`], which puts them together for one input.

pub mod classify;
mod evidence;
pub mod explain;
pub mod lexicon;
pub mod machine;
pub(crate) mod names;
pub(crate) mod reading;
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

    /// Whether `input` may be applied to `conv`: a hosted flow's event must be one its state
    /// takes (with its data and guards); a conversation takes no events, a flow no turns. The
    /// refusal lists what the state allows. Nothing is changed.
    pub fn check(
        &self,
        conv: &Conversation,
        input: &Input<'_>,
        now: DateTime<Utc>,
    ) -> Result<(), crate::flow::Invalid> {
        let invalid =
            |message: String, allowed: Vec<String>| crate::flow::Invalid { message, allowed };
        match (&conv.flow, input) {
            (Some(_), Input::Tick) | (None, Input::Message { .. } | Input::Signal(_) | Input::Reset | Input::Tick) => Ok(()),
            (Some(run), Input::Event { name, data }) => {
                let Some(flow) = self.flows.get(&run.flow) else {
                    return Err(invalid(format!("flow {} is not loaded on this server", run.flow), Vec::new()));
                };
                let mut trial = run.as_ref().clone();
                trial.apply(flow, name, data, now).map(|_| ())
            }
            (Some(run), Input::Message { .. } | Input::Signal(_) | Input::Reset) => Err(invalid(
                format!("this session runs flow {}: it takes events (\"type\":\"event\"), not messages, signals or resets", run.flow),
                run.allowed_events.clone(),
            )),
            (Some(run), Input::Start { .. }) => Err(invalid(
                format!("this session already runs flow {}", run.flow),
                run.allowed_events.clone(),
            )),
            (None, Input::Event { .. }) => Err(invalid(
                "this session is a conversation: it takes messages and signals; open a flow's session with ?flow=NAME".to_string(),
                Vec::new(),
            )),
            (None, Input::Start { flow, settings, restore }) => {
                if conv.turn_count > 0 || conv.phase != Phase::Greeting || !conv.completed_goals.is_empty() {
                    return Err(invalid("a flow starts a new session only".to_string(), Vec::new()));
                }
                self.start_flow(flow, settings, *restore, conv.created_at).map(|_| ()).map_err(|m| invalid(m, Vec::new()))
            }
        }
    }

    fn start_flow(
        &self,
        name: &str,
        settings: &std::collections::BTreeMap<String, String>,
        restore: Option<&crate::flow::Restore>,
        now: DateTime<Utc>,
    ) -> Result<crate::flow::FlowRun, String> {
        let Some(flow) = self.flows.get(name) else {
            let names: Vec<&str> = self.flows.names().collect();
            return Err(format!(
                "no flow \"{name}\" (the flows here: conversation, {})",
                names.join(", ")
            ));
        };
        let mut run = crate::flow::FlowRun::start(flow, settings, now)?;
        if let Some(r) = restore {
            run.restore(
                flow,
                &r.state,
                r.previous_state.as_deref(),
                &r.counters,
                &r.values,
            )?;
        }
        Ok(run)
    }

    /// A hosted flow's step (see [`Engine::check`], which refusals go through first).
    fn step_flow(&self, conv: &mut Conversation, input: Input<'_>, now: DateTime<Utc>) -> Step {
        let mut step = Step::default();
        match (&mut conv.flow, input) {
            (
                None,
                Input::Start {
                    flow,
                    settings,
                    restore,
                },
            ) => match self.start_flow(flow, settings, restore, now) {
                Ok(run) => {
                    conv.flow = Some(Box::new(run));
                    step.changed = true;
                }
                Err(_) => return step,
            },
            (Some(run), Input::Event { name, data }) => {
                let Some(flow) = self.flows.get(&run.flow) else {
                    return step;
                };
                match run.apply(flow, name, data, now) {
                    Ok(moves) => {
                        step.moves = moves;
                        step.changed = true;
                    }
                    Err(_) => return step,
                }
            }
            (Some(run), Input::Tick) => {
                let Some(flow) = self.flows.get(&run.flow) else {
                    return step;
                };
                let before = run.clone();
                step.moves = run.tick(flow, now);
                step.changed = **run != *before;
            }
            _ => return step,
        }
        if !step.changed {
            return step;
        }
        if let Some(run) = &conv.flow {
            // An ended flow, or one in a state it may end in, counts as finished (retention
            // deletes it a while after its last change); one still running is kept.
            let last = self
                .flows
                .get(&run.flow)
                .and_then(|f| f.state(&run.state))
                .is_some_and(|s| s.last);
            conv.phase = if run.ended || last {
                Phase::Completed
            } else {
                Phase::Executing
            };
            conv.idle_deadline = run.next_timer;
            conv.last_updated = now;
        }
        step
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
                        let parts: Vec<&str> = d
                            .spans
                            .iter()
                            .map(|s| said.original_text(s.clone()))
                            .collect();
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
        let stated = reading
            .goal
            .as_ref()
            .filter(|g| g.by_lead() || goal.is_none())
            .filter(|g| !(reviewing && task(g)));
        // A problem word, or a request of the thing itself, about the current work.
        let reported = stated.is_none()
            && (reading.problem
                || reading.goal.as_ref().is_some_and(|g| {
                    g.rule == reading::Found::Request || (reviewing && task(g) && g.by_lead())
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
            complaint: reading.complaint || (reported && conv.phase == Phase::Reviewing),
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
                    // Rule 15: the change request's words, for the assistant.
                    let words = self.classifier.answer_span(&said.text);
                    let change = capped(said.original_text(words), self.settings.max_value_chars);
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

    /// Queues the message's further goals (rule 14), at most `MAX_QUEUED_GOALS` in all.
    fn queue(&self, conv: &mut Conversation, said: &Said<'_>, reading: &Reading) {
        for g in &reading.more {
            if conv.queued_goals.len() >= state::MAX_QUEUED_GOALS {
                break;
            }
            let description = said.original_text(g.description.clone());
            // Its lead and object: an alternative sharing the first goal's lead ("build a login
            // form or a signup wizard") is read again as "build" + "signup wizard".
            let statement = if g.description.start >= g.lead.start && !reading.alternatives {
                said.original_text(g.lead.start..g.description.end)
                    .to_string()
            } else {
                format!("{} {description}", said.original_text(g.lead.clone()))
            };
            conv.queued_goals.push(QueuedGoal {
                goal_type: self.classifier.goals()[g.goal].goal_type,
                description: capped(description, self.settings.max_description_chars).into_owned(),
                statement: capped(&statement, self.settings.max_value_chars).into_owned(),
                alternative: reading.alternatives,
            });
        }
    }

    /// Starts a queued goal in `understanding`: its statement is read again for its slots.
    fn start_queued(
        &self,
        conv: &mut Conversation,
        q: QueuedGoal,
        now: DateTime<Utc>,
        out: &mut Transitions,
        reason: TransitionReason,
    ) {
        let said = if self.settings.typo_tolerance {
            self.classifier.spell(&q.statement)
        } else {
            Said::as_written(&q.statement)
        };
        let reading = self.classifier.read(&said.text, Role::User);
        let Some(lead) = reading.goal else {
            return;
        };
        self.start_goal(conv, &said, &lead, said.text.len(), now);
        if let Some(goal) = &mut conv.current_goal {
            goal.goal_type = q.goal_type;
            goal.description = q.description;
        }
        enter_understanding(conv, reason, out);
    }

    /// The current goal stays: it takes this turn's slot values, asked slots and counters.
    fn keep(
        &self,
        conv: &mut Conversation,
        said: &Said<'_>,
        reading: &Reading,
        fills: &Fills,
        understanding_turns: u32,
    ) {
        let in_understanding = conv.phase == Phase::Understanding;
        let gathering = matches!(conv.phase, Phase::Understanding | Phase::Planning);
        let Some(goal) = &mut conv.current_goal else {
            return;
        };
        if in_understanding {
            goal.understanding_turns = understanding_turns;
        }
        for (i, fill) in fills {
            let slot = &mut goal.required_info[*i];
            let value = match fill {
                Fill::Waived => {
                    slot.status = SlotStatus::Waived;
                    slot.value = None;
                    continue;
                }
                Fill::Span(span) => said.original_text(span.clone()),
                Fill::Text(text) => {
                    // A correction: the description follows when it named the replaced value.
                    if let Some(old) = slot.value.as_deref()
                        && !old.is_empty()
                    {
                        // Whole words only ("app" is not replaced inside "happy").
                        let replaced = replace_words(&goal.description, old, text);
                        if replaced != *text {
                            goal.description =
                                capped(&replaced, self.settings.max_description_chars).into_owned();
                        }
                    }
                    text.as_str()
                }
            };
            slot.status = SlotStatus::Provided;
            set_value(
                &mut slot.value,
                &capped(value, self.settings.max_value_chars),
            );
        }
        if reading.asks != 0 {
            for slot in &mut goal.required_info {
                let index = self.slot_index(&slot.name);
                let asked = index.is_some_and(|i| reading.asks & (1 << i) != 0);
                let asked_again = index.is_some_and(|i| {
                    let mask = if in_understanding {
                        reading.asks
                    } else {
                        reading.asks_in_question
                    };
                    mask & (1 << i) != 0
                });
                // Asked again before the work starts (`understanding`; in `planning`, by a
                // question), a provided slot is open to a new answer (the assistant wants more
                // than it has).
                let open = slot.status == SlotStatus::Unknown
                    || (gathering && asked_again && slot.status == SlotStatus::Provided);
                if asked && open {
                    slot.status = SlotStatus::Asked;
                }
            }
        }
    }

    /// The values a user message gives for the goal's slots. Every extractor match counts,
    /// except while a slot is asked for: a reply that the asked slot's extractors do not match is
    /// read as the answer ("A signup form and a pricing table" answers "What features?"), so it
    /// replaces no value already provided, and fills the asked slot with itself when no missing
    /// slot matched. A reply that is a non-answer, a signal or a goal answers nothing; one that
    /// leaves it to the assistant waives the asked slot (rule 13). A short correction replaces
    /// the value it competes with and fills nothing else (rule 12).
    fn read_slots(&self, goal: &Goal, said: &Said<'_>, reading: &Reading) -> Fills {
        let text = &*said.text;
        let mut fills = Fills::new();
        let asked = goal
            .required_info
            .iter()
            .position(|s| s.status == SlotStatus::Asked);
        let plain = !reading.question
            && !reading.waiver
            && !reading.non_answer
            && reading.signals.without(Signal::ChangeRequest).is_empty();
        if reading.goal.as_ref().is_none_or(|g| !g.by_lead())
            && plain
            && let Some(fill) = self.correction(goal, said, reading)
        {
            fills.push(fill);
            return fills;
        }
        for (i, slot) in goal.required_info.iter().enumerate() {
            if let Some(span) = self.slot_index(&slot.name).and_then(|s| {
                self.classifier
                    .extract_replacing(text, s, slot.status == SlotStatus::Provided)
            }) {
                fills.push((i, Fill::Span(span)));
            }
        }
        let Some(asked) = asked else {
            return fills;
        };
        // What blocks an answer is what a rule of `understanding` acts on: approval, a cancel, a
        // switch (a new goal replaces the current one only with a switch or cancel marker).
        // Words that are signals or leads elsewhere ("add, delete ...") do not; nor does a
        // question answer by its position ("What would you suggest?").
        let acted_on = [Signal::Approve, Signal::Cancel, Signal::Switch];
        let blocked = reading.question || acted_on.iter().any(|s| reading.signals.has(*s));
        // "whatever you think makes sense" leaves it to the assistant: the approval in a
        // waiver's words is the waiver.
        let blocked_waiver = reading.question
            || [Signal::Cancel, Signal::Switch]
                .iter()
                .any(|s| reading.signals.has(*s));
        // (An extractor's match that overlaps the waiver's words is the waiver: "go with
        // whatever is standard".)
        let overlaps_waiver = |f: &(usize, Fill)| {
            matches!(&f.1, Fill::Span(s) if reading
                .waiver_at
                .as_ref()
                .is_some_and(|w| s.start < w.end && w.start < s.end))
        };
        if reading.waiver
            && !blocked_waiver
            && !fills.iter().any(|f| f.0 == asked && !overlaps_waiver(f))
        {
            fills.retain(|f| f.0 != asked);
            fills.push((asked, Fill::Waived));
            return fills;
        }
        let answers = !reading.non_answer && !blocked;
        if !answers {
            return fills;
        }
        // The answer to a question is the reply: when the asked slot's extractors read only a
        // small part of it ("my socials" of a list of parts) or not its beginning in a reply
        // that is a list ("photos" of "recipe cards with photos, a timer"; not "I need ..."),
        // the whole reply is its value.
        let whole = self.classifier.answer_span(text);
        if let Some(k) = fills.iter().position(|f| f.0 == asked) {
            if let Fill::Span(span) = &fills[k].1
                && !whole.is_empty()
                && (span.len() * 2 < whole.len()
                    || (span.start > whole.start
                        && !self
                            .classifier
                            .has_subject_word(&text[whole.start..span.start])))
            {
                fills[k].1 = Fill::Span(whole);
            }
            return fills;
        }
        fills.retain(|f| goal.required_info[f.0].status != SlotStatus::Provided);
        if fills.is_empty() && !whole.is_empty() {
            fills.push((asked, Fill::Span(whole)));
        }
        fills
    }

    /// Rule 12: a short reply correcting a value ("no, I meant Vue", "not the header, the
    /// footer"). It competes with the slot whose value holds the word it replaces, else with
    /// the goal's first slot (the kind or the target); in that value it replaces the word of
    /// the same sort (a technology a technology) or, failing that, the whole value.
    fn correction(&self, goal: &Goal, said: &Said<'_>, reading: &Reading) -> Option<(usize, Fill)> {
        let (new, old) = reading.correction.clone()?;
        let new = said.original_text(new).to_string();
        let old = old.map(|o| said.original_text(o).to_string());
        let holds = |value: &str, word: &str| {
            let v = value.to_lowercase();
            let w = word.to_lowercase();
            v.split(|c: char| !c.is_alphanumeric() && c != '.')
                .any(|x| x == w)
                || v == w
        };
        fn provided(s: &Slot) -> Option<&str> {
            s.value.as_deref().filter(|_| s.status.is_settled())
        }
        // The slot the correction competes with: the one holding the replaced words, else
        // the one whose value is of the new value's sort (read as that slot when stated as
        // one, "use Vue"; a number for a number), else the goal's first.
        let digits = |t: &str| t.chars().any(|c| c.is_ascii_digit());
        let score = |(i, s): (usize, &Slot)| {
            let Some(v) = provided(s) else {
                return (0, usize::MAX - i);
            };
            let mut n = 0;
            if old
                .as_ref()
                .is_some_and(|o| holds(v, o) || v.to_lowercase().contains(&o.to_lowercase()))
            {
                n += 8;
            }
            if self.slot_index(&s.name).is_some_and(|k| {
                self.classifier
                    .extract_replacing(&format!("use {new}"), k, true)
                    .is_some()
            }) {
                n += 4;
            }
            if digits(&new) && digits(v) {
                n += 3;
            }
            n += new
                .split_whitespace()
                .filter(|w| w.len() > 2 && holds(v, w))
                .count();
            // A value as long as the replaced one ("sunday" for "saturday").
            let words = |t: &str| t.split_whitespace().count();
            if words(&new) <= 2 && words(&new) == words(v) {
                n += 2;
            }
            (n, usize::MAX - i)
        };
        // Nothing of its sort: the first slot still open takes it ("sorry, I meant 6:30" for
        // an alarm whose time was not given), else the goal's first.
        let open = goal
            .required_info
            .iter()
            .position(|s| !s.status.is_settled());
        let slot = goal
            .required_info
            .iter()
            .enumerate()
            .max_by_key(|x| score(*x))
            .filter(|x| score(*x).0 >= 2 || open.is_none())
            .filter(|x| score(*x).0 > 0)
            .map(|(i, _)| i)
            .or(open)
            .unwrap_or(0);
        let current = goal.required_info.get(slot)?;
        let value = match (provided(current), &old) {
            (Some(v), Some(o)) if v.to_lowercase().contains(&o.to_lowercase()) => {
                replace_words(v, o, &new)
            }
            (Some(v), None) => {
                // The word of the old value that reads as the new one's sort ("React" in
                // "React dashboard" for "Vue").
                let sort = |w: &str| {
                    self.slot_index(&current.name).is_some_and(|i| {
                        self.classifier
                            .extract_replacing(&format!("use {w}"), i, true)
                            .is_some()
                    })
                };
                match v.split_whitespace().find(|w| sort(w)) {
                    Some(w) if sort(&new) && !v.eq_ignore_ascii_case(w) => {
                        replace_words(v, w, &new)
                    }
                    _ => new.clone(),
                }
            }
            _ => new.clone(),
        };
        Some((slot, Fill::Text(value)))
    }

    fn start_goal(
        &self,
        conv: &mut Conversation,
        said: &Said<'_>,
        lead: &reading::GoalLead,
        until: usize,
        now: DateTime<Utc>,
    ) {
        let def = &self.classifier.goals()[lead.goal];
        let slots = self.classifier.slots();
        conv.goals_started += 1;
        let mut goal = Goal {
            id: GoalId(conv.goals_started),
            goal_type: def.goal_type,
            description: capped(
                said.original_text(lead.description.clone()),
                self.settings.max_description_chars,
            )
            .into_owned(),
            status: GoalStatus::Active,
            required_info: def
                .slots
                .iter()
                .map(|&s| Slot {
                    name: slots[s].name.clone(),
                    description: slots[s].description.clone(),
                    question: slots[s].question.clone(),
                    status: SlotStatus::Unknown,
                    value: None,
                })
                .collect(),
            created_at: now,
            completed_at: None,
            reason: None,
            turns: 1,
            understanding_turns: 0,
            requested_changes: Vec::new(),
        };
        // The statement's own details first (rule 10), then the extractors for the rest.
        for d in &lead.details {
            let Some(slot) = goal.required_info.get_mut(d.slot) else {
                continue;
            };
            let mut value = d.prefix.to_string();
            for (k, span) in d.spans.iter().enumerate() {
                if k > 0 {
                    value.push_str(", ");
                }
                value.push_str(said.original_text(span.clone()));
            }
            slot.status = SlotStatus::Provided;
            slot.value = Some(capped(&value, self.settings.max_value_chars).into_owned());
        }
        for (i, &s) in def.slots.iter().enumerate() {
            if goal.required_info[i].status == SlotStatus::Provided {
                continue;
            }
            let own = said.text.get(..until).unwrap_or(&said.text);
            if let Some(span) = self.classifier.extract(own, s) {
                goal.required_info[i].status = SlotStatus::Provided;
                goal.required_info[i].value = Some(
                    capped(said.original_text(span), self.settings.max_value_chars).into_owned(),
                );
            }
        }
        conv.current_goal = Some(goal);
    }

    /// Moves the current goal, if any, to the history: the end of `completed_goals`, which
    /// keeps the most recent `history_window` goals, and the totals. The goal is also reported
    /// in `finished`, for the store's whole history.
    fn finish_goal(
        &self,
        conv: &mut Conversation,
        reason: GoalReason,
        at: DateTime<Utc>,
        finished: &mut Vec<Goal>,
    ) {
        let Some(mut goal) = conv.current_goal.take() else {
            return;
        };
        goal.status = reason.status();
        goal.reason = Some(reason);
        // The change requests are for the assistant while it works on the goal: a finished
        // goal, kept in the history every frame carries, does not keep them.
        goal.requested_changes.clear();
        goal.completed_at = Some(at);
        conv.completed_goals_total += 1;
        if goal.status == GoalStatus::Abandoned {
            conv.abandoned_goals_total += 1;
        }
        let window = self.settings.history_window as usize;
        if window > 0 {
            if conv.completed_goals.len() >= window {
                let over = conv.completed_goals.len() + 1 - window;
                conv.completed_goals.drain(..over);
            }
            conv.completed_goals.push(goal.clone());
        } else {
            conv.completed_goals.clear();
        }
        finished.push(goal);
    }

    fn slot_index(&self, name: &str) -> Option<usize> {
        self.classifier
            .slots()
            .iter()
            .position(|s| &*s.name == name)
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

/// The alternative a message names: the one with the most of its description's words in the
/// message (none on a tie).
fn chosen(queue: &[QueuedGoal], text: &str) -> Option<usize> {
    if !queue.iter().any(|q| q.alternative) {
        return None;
    }
    let said: Vec<String> = text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.len() > 2)
        .map(str::to_lowercase)
        .collect();
    let score = |q: &QueuedGoal| {
        q.description
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| w.len() > 2 && said.iter().any(|s| s.eq_ignore_ascii_case(w)))
            .count()
    };
    let mut best: Option<(usize, usize)> = None;
    let mut tie = false;
    for (k, q) in queue.iter().enumerate().filter(|(_, q)| q.alternative) {
        let n = score(q);
        match best {
            Some((_, b)) if n == b => tie = true,
            Some((_, b)) if n < b => {}
            _ if n > 0 => {
                best = Some((k, n));
                tie = false;
            }
            _ => {}
        }
    }
    best.filter(|_| !tie).map(|(k, _)| k)
}

/// `value` with the first whole-word `old` (ASCII case aside) replaced by `new`; `new` alone
/// when `value` does not hold it. ASCII lowercasing keeps every byte where it was, so the
/// positions found are positions of `value`.
fn replace_words(value: &str, old: &str, new: &str) -> String {
    if old.is_empty() {
        return new.to_string();
    }
    let lower = value.to_ascii_lowercase();
    let o = old.to_ascii_lowercase();
    for (at, _) in lower.match_indices(&o) {
        let end = at + o.len();
        let before = value[..at]
            .chars()
            .next_back()
            .is_none_or(|c| !c.is_alphanumeric());
        let after = value[end..]
            .chars()
            .next()
            .is_none_or(|c| !c.is_alphanumeric());
        if before && after {
            return format!("{}{new}{}", &value[..at], &value[end..]);
        }
    }
    new.to_string()
}

/// Sets a slot value, reusing the old value's buffer.
fn set_value(value: &mut Option<String>, new: &str) {
    match value {
        Some(old) => {
            old.clear();
            old.push_str(new);
        }
        None => *value = Some(new.to_string()),
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
