//! Counters for `GET /metrics`, in the Prometheus text format. Plain atomics: recording is a
//! handful of relaxed additions on the hot path, rendering happens on scrape.

use std::fmt::Write;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::time::Duration;

use smallvec::SmallVec;

use super::edge::OverCap;
use crate::conversation::{GoalReason, GoalType, Input, Phase, Role, Step, Transitions};
use crate::protocol::ErrorCode;

/// The outcomes of the `llm` assistant's replies: indices into `Metrics::llm_replies`.
pub(crate) const REPLY_DONE: usize = 0;
pub(crate) const REPLY_STOPPED: usize = 1;
pub(crate) const REPLY_FAILED: usize = 2;
pub(crate) const REPLY_REFUSED: usize = 3;
/// The outcomes of replies, as `/metrics` names them.
pub(crate) const REPLY_OUTCOMES: [&str; 4] = ["done", "stopped", "failed", "refused"];

#[derive(Debug, Default)]
pub(crate) struct Counter(AtomicU64);

impl Counter {
    pub(crate) fn inc(&self) {
        self.0.fetch_add(1, Ordering::Relaxed);
    }
    pub(crate) fn get(&self) -> u64 {
        self.0.load(Ordering::Relaxed)
    }
    pub(crate) fn add(&self, n: u64) {
        self.0.fetch_add(n, Ordering::Relaxed);
    }
}

#[derive(Debug, Default)]
pub(crate) struct Gauge(AtomicI64);

impl Gauge {
    pub(crate) fn inc(&self) {
        self.0.fetch_add(1, Ordering::Relaxed);
    }
    pub(crate) fn dec(&self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
    pub(crate) fn get(&self) -> i64 {
        self.0.load(Ordering::Relaxed)
    }
}

/// Upper bounds of the turn latency buckets, in seconds.
const BUCKETS: [f64; 12] = [
    0.000_025, 0.000_05, 0.000_1, 0.000_25, 0.000_5, 0.001, 0.002_5, 0.005, 0.01, 0.025, 0.1, 1.0,
];

#[derive(Debug, Default)]
pub(crate) struct Histogram {
    buckets: [AtomicU64; BUCKETS.len()],
    count: AtomicU64,
    sum_nanos: AtomicU64,
}

impl Histogram {
    pub(crate) fn observe(&self, d: Duration) {
        let secs = d.as_secs_f64();
        if let Some(i) = BUCKETS.iter().position(|b| secs <= *b) {
            self.buckets[i].fetch_add(1, Ordering::Relaxed);
        }
        self.count.fetch_add(1, Ordering::Relaxed);
        self.sum_nanos
            .fetch_add(d.as_nanos().min(u64::MAX as u128) as u64, Ordering::Relaxed);
    }
}

const REASONS: [GoalReason; 5] = [
    GoalReason::Satisfied,
    GoalReason::MovedOn,
    GoalReason::Cancelled,
    GoalReason::Superseded,
    GoalReason::IdleTimeout,
];

/// What the metrics count of a step, kept until its change is committed (only committed
/// changes are counted).
#[derive(Debug)]
pub(crate) struct StepRecord {
    /// `Some(role)` for a turn, `None` for a signal; resets and ticks are neither.
    turn: Option<Option<Role>>,
    transitions: Transitions,
    finished: SmallVec<[(GoalType, GoalReason); 1]>,
    /// When its frame arrived, for the latency histogram.
    received: Option<std::time::Instant>,
}

impl StepRecord {
    pub(crate) fn new(
        input: &Input<'_>,
        step: &Step,
        received: Option<std::time::Instant>,
    ) -> Self {
        StepRecord {
            turn: match input {
                Input::Message { role, .. } => Some(Some(*role)),
                Input::Signal(_) => Some(None),
                Input::Reset | Input::Tick | Input::Start { .. } | Input::Event { .. } => None,
            },
            transitions: step.transitions.clone(),
            finished: step
                .finished
                .iter()
                .filter_map(|g| g.reason.map(|r| (g.goal_type, r)))
                .collect(),
            received,
        }
    }
}

/// Clients that joined with `last_seq`: resumed from it, or given the current state.
#[derive(Debug, Default)]
pub(crate) struct Resumes {
    resumed: Counter,
    full_state: Counter,
}

impl Resumes {
    pub(crate) fn record(&self, asked: bool, resumed: bool) {
        match (asked, resumed) {
            (true, true) => self.resumed.inc(),
            (true, false) => self.full_state.inc(),
            _ => {}
        }
    }
}

#[derive(Debug, Default)]
pub(crate) struct Metrics {
    /// Clients caught up from the log after falling behind their session's channel.
    pub catch_ups: Counter,
    pub resumes: Resumes,
    pub connections: Gauge,
    pub connections_total: Counter,
    /// Clients closed because a write to them took longer than the write timeout.
    pub slow_clients_closed: Counter,
    /// Connections refused at accept: over the node's cap, over the address's cap.
    refused: [Counter; 2],
    pub sessions_created: Counter,
    pub sessions_evicted: Counter,
    /// Sessions whose log could not be read (a bad row, a flow the server does not have):
    /// skipped at start-up, refused when asked for.
    pub sessions_unreadable: Counter,
    /// By role: user, assistant.
    turns: [Counter; 2],
    signals: Counter,
    /// `[from][to]`, in `Phase::ALL` order.
    transitions: [[Counter; 7]; 7],
    /// `[goal type][reason]`, in `GoalType::ALL` and `REASONS` order.
    goals_finished: [[Counter; 5]; 4],
    errors: [Counter; ErrorCode::ALL.len()],
    pub turn_latency: Histogram,
    /// Replies of the `llm` assistant, by outcome (`REPLY_OUTCOMES`).
    pub llm_replies: [Counter; 4],
    /// Tokens the model reported (or was estimated) to use.
    pub llm_tokens: Counter,
}

fn phase_index(p: Phase) -> usize {
    Phase::ALL.iter().position(|x| *x == p).unwrap_or(0)
}

impl Metrics {
    /// Records one committed step.
    pub(crate) fn record_step(&self, step: &StepRecord) {
        match step.turn {
            Some(Some(role)) => self.turns[(role == Role::Assistant) as usize].inc(),
            Some(None) => self.signals.inc(),
            None => {}
        }
        for t in &step.transitions {
            self.transitions[phase_index(t.from)][phase_index(t.to)].inc();
        }
        for (goal_type, reason) in &step.finished {
            let t = GoalType::ALL
                .iter()
                .position(|x| x == goal_type)
                .unwrap_or(0);
            let r = REASONS.iter().position(|x| x == reason).unwrap_or(0);
            self.goals_finished[t][r].inc();
        }
        if let Some(received) = step.received {
            self.turn_latency.observe(received.elapsed());
        }
    }

    pub(crate) fn refused(&self, refusal: OverCap) {
        self.refused[refusal as usize].inc();
    }

    pub(crate) fn error(&self, code: ErrorCode) {
        if let Some(i) = ErrorCode::ALL.iter().position(|c| *c == code) {
            self.errors[i].inc();
        }
    }

    /// The Prometheus text exposition. `phases` are the phases of the live sessions.
    pub(crate) fn render(
        &self,
        phases: &[Phase],
        breaker: Option<crate::assistant::llm::BreakerState>,
    ) -> String {
        let mut out = String::with_capacity(8192);
        fn family(out: &mut String, name: &str, kind: &str, help: &str) {
            let _ = writeln!(
                out,
                "# HELP convstate_{name} {help}\n# TYPE convstate_{name} {kind}"
            );
        }
        family(
            &mut out,
            "connections",
            "gauge",
            "Open WebSocket connections.",
        );
        let _ = writeln!(out, "convstate_connections {}", self.connections.get());
        family(
            &mut out,
            "connections_total",
            "counter",
            "WebSocket connections accepted.",
        );
        let _ = writeln!(
            out,
            "convstate_connections_total {}",
            self.connections_total.get()
        );
        family(
            &mut out,
            "connections_refused_total",
            "counter",
            "Connections refused when accepted, by the cap they were over.",
        );
        for (i, cap) in ["node", "address"].iter().enumerate() {
            let _ = writeln!(
                out,
                "convstate_connections_refused_total{{cap=\"{cap}\"}} {}",
                self.refused[i].get()
            );
        }
        family(
            &mut out,
            "slow_clients_closed_total",
            "counter",
            "Clients closed because a write to them took longer than the write timeout.",
        );
        let _ = writeln!(
            out,
            "convstate_slow_clients_closed_total {}",
            self.slow_clients_closed.get()
        );
        family(&mut out, "sessions", "gauge", "Live sessions by phase.");
        for p in Phase::ALL {
            let n = phases.iter().filter(|x| **x == p).count();
            let _ = writeln!(out, "convstate_sessions{{phase=\"{p}\"}} {n}");
        }
        family(
            &mut out,
            "sessions_created_total",
            "counter",
            "Sessions created.",
        );
        let _ = writeln!(
            out,
            "convstate_sessions_created_total {}",
            self.sessions_created.get()
        );
        family(
            &mut out,
            "sessions_unreadable_total",
            "counter",
            "Sessions whose log could not be read, skipped at start-up.",
        );
        let _ = writeln!(
            out,
            "convstate_sessions_unreadable_total {}",
            self.sessions_unreadable.get()
        );
        family(
            &mut out,
            "sessions_evicted_total",
            "counter",
            "Sessions evicted from memory after the retention period.",
        );
        let _ = writeln!(
            out,
            "convstate_sessions_evicted_total {}",
            self.sessions_evicted.get()
        );
        family(
            &mut out,
            "turns_total",
            "counter",
            "Turns applied, by role.",
        );
        for (i, role) in ["user", "assistant"].iter().enumerate() {
            let _ = writeln!(
                out,
                "convstate_turns_total{{role=\"{role}\"}} {}",
                self.turns[i].get()
            );
        }
        family(
            &mut out,
            "signals_total",
            "counter",
            "Explicit signals applied.",
        );
        let _ = writeln!(out, "convstate_signals_total {}", self.signals.get());
        family(
            &mut out,
            "transitions_total",
            "counter",
            "Phase transitions, by from and to.",
        );
        for (f, from) in Phase::ALL.iter().enumerate() {
            for (t, to) in Phase::ALL.iter().enumerate() {
                let n = self.transitions[f][t].get();
                if n > 0 {
                    let _ = writeln!(
                        out,
                        "convstate_transitions_total{{from=\"{from}\",to=\"{to}\"}} {n}"
                    );
                }
            }
        }
        family(
            &mut out,
            "goals_finished_total",
            "counter",
            "Goals completed or abandoned, by type, status and reason.",
        );
        for (t, goal_type) in GoalType::ALL.iter().enumerate() {
            for (r, reason) in REASONS.iter().enumerate() {
                let _ = writeln!(
                    out,
                    "convstate_goals_finished_total{{type=\"{goal_type}\",status=\"{}\",reason=\"{}\"}} {}",
                    reason.status().as_str(),
                    reason.as_str(),
                    self.goals_finished[t][r].get()
                );
            }
        }
        family(
            &mut out,
            "errors_total",
            "counter",
            "Error frames sent, by code.",
        );
        for (i, code) in ErrorCode::ALL.iter().enumerate() {
            let _ = writeln!(
                out,
                "convstate_errors_total{{code=\"{}\"}} {}",
                code.as_str(),
                self.errors[i].get()
            );
        }
        family(
            &mut out,
            "catch_ups_total",
            "counter",
            "Clients caught up from the log after falling behind their session's live frames.",
        );
        let _ = writeln!(out, "convstate_catch_ups_total {}", self.catch_ups.get());
        family(
            &mut out,
            "resumes_total",
            "counter",
            "Clients that joined with last_seq, by whether they got the frames they missed or the current state.",
        );
        let _ = writeln!(
            out,
            "convstate_resumes_total{{result=\"resumed\"}} {}",
            self.resumes.resumed.get()
        );
        let _ = writeln!(
            out,
            "convstate_resumes_total{{result=\"full_state\"}} {}",
            self.resumes.full_state.get()
        );
        family(
            &mut out,
            "turn_latency_seconds",
            "histogram",
            "Time from receiving a frame to publishing its committed state.",
        );
        let mut cumulative = 0;
        for (i, bound) in BUCKETS.iter().enumerate() {
            cumulative += self.turn_latency.buckets[i].load(Ordering::Relaxed);
            let _ = writeln!(
                out,
                "convstate_turn_latency_seconds_bucket{{le=\"{bound}\"}} {cumulative}"
            );
        }
        let count = self.turn_latency.count.load(Ordering::Relaxed);
        let _ = writeln!(
            out,
            "convstate_turn_latency_seconds_bucket{{le=\"+Inf\"}} {count}"
        );
        let sum = self.turn_latency.sum_nanos.load(Ordering::Relaxed) as f64 / 1e9;
        let _ = writeln!(out, "convstate_turn_latency_seconds_sum {sum}");
        let _ = writeln!(out, "convstate_turn_latency_seconds_count {count}");
        family(
            &mut out,
            "llm_replies_total",
            "counter",
            "Replies of the llm assistant, by outcome.",
        );
        for (i, outcome) in REPLY_OUTCOMES.iter().enumerate() {
            let _ = writeln!(
                out,
                "convstate_llm_replies_total{{outcome=\"{outcome}\"}} {}",
                self.llm_replies[i].get()
            );
        }
        family(
            &mut out,
            "llm_tokens_total",
            "counter",
            "Tokens the llm assistant's model used (prompts and replies).",
        );
        let _ = writeln!(out, "convstate_llm_tokens_total {}", self.llm_tokens.get());
        if let Some(state) = breaker {
            family(
                &mut out,
                "llm_breaker",
                "gauge",
                "The llm assistant's circuit breaker: 1 for its current state.",
            );
            for s in [
                crate::assistant::llm::BreakerState::Closed,
                crate::assistant::llm::BreakerState::Open,
                crate::assistant::llm::BreakerState::HalfOpen,
            ] {
                let _ = writeln!(
                    out,
                    "convstate_llm_breaker{{state=\"{}\"}} {}",
                    s.as_str(),
                    u8::from(s == state)
                );
            }
        }
        out
    }
}
