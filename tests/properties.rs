//! Properties of the engine over random conversations: no input panics it, `turn_count` counts
//! turns, and no goal is ever both current and in the history, or in the history twice.

use std::collections::HashSet;

use chrono::{DateTime, TimeDelta, Utc};
use convstate::conversation::{Conversation, Engine, Input, Phase, Role, Signal, Summary};
use convstate::protocol::ServerFrame;
use proptest::prelude::*;

/// The built-in rules with a history window of 3, so random conversations run past it.
fn engine() -> &'static Engine {
    static ENGINE: std::sync::OnceLock<Engine> = std::sync::OnceLock::new();
    ENGINE.get_or_init(|| {
        let mut engine = convstate::patterns::builtin();
        engine.settings_mut().history_window = WINDOW as u32;
        engine
    })
}

const WINDOW: usize = 3;

/// Pieces of real chat, so random messages reach goals, signals and slots, not just noise.
const PIECES: &[&str] = &[
    "I want to build a todo app",
    "Build a landing page",
    "How do I make a cake?",
    "Fix the login button so it submits on enter",
    "Show me how to use Tailwind",
    "bye",
    "Never mind",
    "Actually, build a calculator instead",
    "Sounds good, go ahead",
    "Perfect!",
    "thanks",
    "What features do you need?",
    "I'll create it now",
    "<artifact>x</artifact>",
    "Here it is",
    "with React components",
    "It should export CSV",
    "not sure",
    "no",
    "ok",
    "Great, but change the header color",
    "hmm",
    "The contact form",
    "Which part?",
    "don't",
    "I need a minute",
    ",",
    ".",
    "?",
    "!",
    "\n",
    " ",
    "’",
    "é",
    "🙂",
    "I’ll",
    "a",
    "an",
];

#[derive(Clone, Debug)]
enum Op {
    Message(Role, String, bool),
    Signal(Signal),
    Reset,
    /// Time passes, in seconds, then the sweep runs.
    Tick(i64),
}

fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => prop::collection::vec(prop::sample::select(PIECES), 0..6).prop_map(|v| v.join(" ")),
        1 => any::<String>(),
        1 => "[a-z ,.!?']{0,40}",
    ]
}

fn op() -> impl Strategy<Value = Op> {
    let role = prop_oneof![Just(Role::User), Just(Role::Assistant)];
    let signal = prop::sample::select(
        Signal::ALL
            .iter()
            .copied()
            .filter(|s| s.is_explicit())
            .collect::<Vec<_>>(),
    );
    prop_oneof![
        8 => (role, text(), any::<bool>()).prop_map(|(r, t, a)| Op::Message(r, t, a)),
        2 => signal.prop_map(Op::Signal),
        1 => Just(Op::Reset),
        2 => (0i64..2_000).prop_map(Op::Tick),
    ]
}

fn run(ops: &[Op], gaps: &[i64]) -> Result<(), TestCaseError> {
    let start: DateTime<Utc> = "2026-11-21T10:00:00Z".parse().unwrap();
    let mut now = start;
    let mut conv = engine().start("s-prop", now);
    let mut turns_since_reset = 0u64;
    let mut history_total = 0u64;
    let mut last_ids: Vec<convstate::conversation::GoalId> = Vec::new();
    let mut previous: Option<convstate::protocol::json::FrameText> = None;
    for (i, op) in ops.iter().enumerate() {
        now += TimeDelta::seconds(gaps[i % gaps.len()]);
        let before_phase = conv.phase;
        let input = match op {
            Op::Message(role, text, artifact) => Input::Message {
                role: *role,
                text,
                artifact: *artifact,
            },
            Op::Signal(s) => Input::Signal(*s),
            Op::Reset => Input::Reset,
            Op::Tick(secs) => {
                now += TimeDelta::seconds(*secs);
                Input::Tick
            }
        };
        let step = engine().step(&mut conv, input, now);
        match op {
            Op::Message(..) => turns_since_reset += 1,
            Op::Reset => {
                turns_since_reset = 0;
                history_total = 0;
                last_ids.clear();
            }
            _ => {}
        }
        prop_assert_eq!(conv.turn_count, turns_since_reset);

        // The history only grows, by the goals the step reports finished: at most one per
        // step (a late turn idles its goal, and a new one starts from idle without a second).
        // The state keeps the most recent ones, up to the window, in the order they finished.
        prop_assert!(step.finished.len() <= 1);
        prop_assert_eq!(
            conv.completed_goals_total,
            history_total + step.finished.len() as u64
        );
        history_total = conv.completed_goals_total;
        prop_assert_eq!(
            conv.completed_goals.len() as u64,
            history_total.min(WINDOW as u64)
        );
        prop_assert!(conv.abandoned_goals_total <= conv.completed_goals_total);
        last_ids.extend(step.finished.iter().map(|g| g.id));
        let window: Vec<_> = conv.completed_goals.iter().map(|g| g.id).collect();
        prop_assert_eq!(&last_ids[last_ids.len() - window.len()..], &window[..]);

        let mut ids = HashSet::new();
        for g in &conv.completed_goals {
            prop_assert!(ids.insert(g.id), "goal {} in the history twice", g.id);
            prop_assert!(g.completed_at.is_some() && g.reason.is_some());
        }
        if let Some(g) = &conv.current_goal {
            prop_assert!(
                !ids.contains(&g.id),
                "goal {} current and in the history",
                g.id
            );
            prop_assert!(g.reason.is_none() && g.completed_at.is_none());
        }

        // Transitions chain from the phase before the step to the phase after it.
        if let Some(first) = step.transitions.first() {
            prop_assert_eq!(first.from, before_phase);
            prop_assert_eq!(step.transitions.last().unwrap().to, conv.phase);
            for pair in step.transitions.windows(2) {
                prop_assert_eq!(pair[0].to, pair[1].from);
            }
        } else {
            prop_assert_eq!(before_phase, conv.phase);
        }
        // A phase past greeting that works on a goal has one.
        if matches!(
            conv.phase,
            Phase::Understanding | Phase::Planning | Phase::Executing | Phase::Reviewing
        ) {
            prop_assert!(
                conv.current_goal.is_some(),
                "{:?} without a goal",
                conv.phase
            );
        }
        if matches!(conv.phase, Phase::Greeting | Phase::Completed | Phase::Idle) {
            prop_assert!(conv.current_goal.is_none(), "{:?} with a goal", conv.phase);
        }
        prop_assert_eq!(conv.idle_deadline.is_none(), conv.phase == Phase::Idle);

        // The dedicated frame writer writes exactly what the serde derives write.
        let fast = convstate::protocol::state_frame_text(&conv, i as u64, &step.transitions);
        let reference = ServerFrame::state(&conv, i as u64, &step.transitions).to_text();
        prop_assert_eq!(&fast, &reference);
        prop_assert_eq!(
            ServerFrame::parse(&fast).unwrap(),
            ServerFrame::state(&conv, i as u64, &step.transitions)
        );
        // Finished goals as the store keeps them: the writer's bytes are serde's.
        for g in &step.finished {
            prop_assert_eq!(
                convstate::protocol::json::goal_text(g),
                serde_json::to_string(g).unwrap()
            );
        }
        // A frame that takes its finished goals from the session's previous frame is the same.
        let after = convstate::protocol::json::FrameText::state_after(
            &conv,
            i as u64,
            &step.transitions,
            previous.as_ref().map(|f| (f.text.as_str(), &f.parts)),
        );
        prop_assert_eq!(&after.text, &reference);
        previous = Some(after);
        let resumed = i % 2 == 0;
        let fast = convstate::protocol::welcome_frame_text(&conv, i as u64, resumed);
        let reference = ServerFrame::welcome(&conv, i as u64, resumed).to_text();
        prop_assert_eq!(&fast, &reference);
        let text = convstate::protocol::json::FrameText::state(&conv, i as u64, &[]);
        prop_assert_eq!(
            text.parts.current(&text.text),
            ServerFrame::state(&conv, i as u64, &[]).to_text()
        );

        // The summary renders and the state round-trips through its JSON.
        let _ = Summary(&conv).to_string();
        let json = serde_json::to_string(&conv).unwrap();
        let back: Conversation = serde_json::from_str(&json).unwrap();
        prop_assert_eq!(&back, &conv);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn random_conversations_keep_the_invariants(
        ops in prop::collection::vec(op(), 1..40),
        gaps in prop::collection::vec(0i64..400, 1..5),
    ) {
        run(&ops, &gaps)?;
    }

    #[test]
    fn no_text_panics_the_classifier(text in any::<String>(), user in any::<bool>()) {
        let role = if user { Role::User } else { Role::Assistant };
        let reading = engine().classifier().read(&text, role);
        if let Some(lead) = reading.goal {
            prop_assert!(text.get(lead.description).is_some());
        }
        for slot in 0..engine().classifier().slots().len() {
            if let Some(span) = engine().classifier().extract(&text, slot) {
                prop_assert!(text.get(span).is_some());
            }
        }
    }
}
