//! The built-in guide: an assistant that answers every user turn from the conversation state
//! alone, with no network and no model. It greets; while a goal's information is gathered it
//! asks for the first missing slot (again in other words when an answer did not fill it); it
//! proposes a plan that restates the goal and what was gathered; on approval it announces the
//! start and delivers the gathered specification as an artifact; it asks whether the result is
//! right, asks what to change after a change request, and closes. It does not answer questions.
//!
//! Pure, like the engine: a reply is a function of the state after the user's turn, that turn's
//! transitions and the phrases of `patterns/assistant.toml`. Every phrase is checked when it is
//! loaded by reading it as the engine would ([`Guide::new`]).

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::Deserialize;

use super::template::fill;
use crate::conversation::{
    Conversation, Engine, Goal, GoalType, Phase, Role, Signal, SlotStatus, Transition,
};
use crate::diagnostic::{Diagnostic, Diagnostics, KeyLines, line_of};
use crate::patterns::PatternSource;

/// The built-in phrases.
pub const BUILTIN: &str = include_str!("../../patterns/assistant.toml");

/// The file a pattern directory may hold (the built-in phrases otherwise).
pub const FILE: &str = "assistant.toml";

/// Other wordings of a slot's question (for asking again), at most.
const MAX_REASKS: usize = 2;

/// The longest phrase, in bytes.
const MAX_PHRASE: usize = 1000;

/// `patterns/assistant.toml`, as written.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Phrases {
    greeting: String,
    not_answering: String,
    plan: String,
    plan_line: String,
    plan_line_open: String,
    start: String,
    delivered: String,
    review: String,
    what_to_change: String,
    closing: String,
    farewell: String,
    // "Reading real messages": optional, so an older assistant.toml still loads (the
    // built-in words then).
    #[serde(default = "defaults::no_goal")]
    no_goal: String,
    #[serde(default = "defaults::examples")]
    examples: Vec<String>,
    #[serde(default = "defaults::which_first")]
    which_first: String,
    #[serde(default = "defaults::change_noted")]
    change_noted: String,
    #[serde(default = "defaults::plan_line_waived")]
    plan_line_waived: String,
    #[serde(default = "defaults::waived")]
    waived: BTreeMap<String, String>,
    specification: Specification,
    types: BTreeMap<String, String>,
    ask: BTreeMap<String, Vec<String>>,
    llm: super::prompt::LlmPhrases,
}

/// The built-in words of the phrases an older `assistant.toml` may lack.
mod defaults {
    use std::collections::BTreeMap;

    use serde::Deserialize;

    #[derive(Deserialize)]
    struct Builtin {
        no_goal: String,
        examples: Vec<String>,
        which_first: String,
        change_noted: String,
        plan_line_waived: String,
        waived: BTreeMap<String, String>,
    }

    fn builtin() -> Builtin {
        #[derive(Deserialize)]
        struct Lenient {
            #[serde(flatten)]
            b: Builtin,
            #[serde(flatten)]
            _rest: BTreeMap<String, toml::Value>,
        }
        toml::from_str::<Lenient>(super::BUILTIN)
            .map(|l| l.b)
            .expect("the built-in assistant.toml holds every phrase")
    }

    pub(super) fn no_goal() -> String {
        builtin().no_goal
    }
    pub(super) fn examples() -> Vec<String> {
        builtin().examples
    }
    pub(super) fn which_first() -> String {
        builtin().which_first
    }
    pub(super) fn change_noted() -> String {
        builtin().change_noted
    }
    pub(super) fn plan_line_waived() -> String {
        builtin().plan_line_waived
    }
    pub(super) fn waived() -> BTreeMap<String, String> {
        builtin().waived
    }
}

/// The most examples the guide offers.
const MAX_EXAMPLES: usize = 10;

/// `[specification]`: the lines of the artifact.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Specification {
    #[serde(rename = "type")]
    kind: String,
    slot: String,
    open: String,
    plan: String,
    step: String,
    open_step: String,
    check: String,
}

/// One assistant turn the guide takes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reply {
    pub text: String,
    /// The turn delivers the work (the specification).
    pub artifact: bool,
}

impl Reply {
    fn say(text: String) -> Reply {
        Reply {
            text,
            artifact: false,
        }
    }
}

/// The checked phrases.
#[derive(Clone, Debug)]
pub struct Guide {
    phrases: Phrases,
    /// Per slot index of the engine, its wordings: its question (slots.toml), then the other
    /// words of `[ask]`.
    asks: Vec<Vec<String>>,
    types: BTreeMap<GoalType, String>,
}

impl Guide {
    /// The guide of a pattern source: its directory's `assistant.toml` if it has one, the
    /// built-in phrases otherwise; checked against `engine`.
    pub fn load(source: &PatternSource, engine: &Engine) -> Result<Guide, Diagnostics> {
        let (path, text) = match source {
            PatternSource::Dir(dir) if dir.join(FILE).exists() => {
                let path = dir.join(FILE);
                let text = std::fs::read_to_string(&path).map_err(|e| {
                    Diagnostics(vec![Diagnostic {
                        path: path.display().to_string(),
                        line: None,
                        message: format!("cannot read: {e}"),
                    }])
                })?;
                (path.display().to_string(), text)
            }
            _ => (format!("patterns/{FILE}"), BUILTIN.to_string()),
        };
        Guide::new(&path, &text, engine)
    }

    /// The guide of the built-in phrases (which a test keeps valid).
    pub fn builtin(engine: &Engine) -> Guide {
        match Guide::new(&format!("patterns/{FILE}"), BUILTIN, engine) {
            Ok(guide) => guide,
            Err(e) => panic!("the built-in assistant phrases do not load: {e}"),
        }
    }

    /// Reads and checks `text` (from `path`, for the errors): every key known and present,
    /// placeholders known, every slot of the engine asked for by its wordings, and no phrase
    /// that moves the conversation unless that is its purpose.
    pub fn new(path: &str, text: &str, engine: &Engine) -> Result<Guide, Diagnostics> {
        let error = |line: Option<usize>, message: String| Diagnostic {
            path: path.to_string(),
            line,
            message,
        };
        let phrases: Phrases = toml::from_str(text).map_err(|e| {
            let line = e.span().map(|s| line_of(text, s.start));
            Diagnostics(vec![error(line, e.message().trim().to_lowercase())])
        })?;
        // Each problem on the line of the key it is about.
        let keys = KeyLines::new(text);
        let errors = std::cell::RefCell::new(Vec::new());
        let classifier = engine.classifier();
        let check = |key: &str, phrase: &str, allowed: &[&str], purpose: Purpose| {
            let line = keys.line(key);
            if phrase.trim().is_empty() || phrase.len() > MAX_PHRASE {
                errors.borrow_mut().push(error(
                    line,
                    format!("{key}: a phrase of 1 to {MAX_PHRASE} bytes is expected"),
                ));
                return;
            }
            if let Err(name) = fill(
                phrase,
                &allowed.iter().map(|a| (*a, "x")).collect::<Vec<_>>(),
            ) {
                errors.borrow_mut().push(error(
                    line,
                    format!(
                        "{key}: unknown placeholder {{{name}}}; this phrase may use {}",
                        if allowed.is_empty() {
                            "none".to_string()
                        } else {
                            allowed
                                .iter()
                                .map(|a| format!("{{{a}}}"))
                                .collect::<Vec<_>>()
                                .join(", ")
                        }
                    ),
                ));
                return;
            }
            let reading = classifier.read(phrase, Role::Assistant);
            let starts = reading.signals.has(Signal::StartWork);
            let done = reading.signals.has(Signal::WorkDone);
            match purpose {
                Purpose::Start if !starts => errors.borrow_mut().push(error(
                    line,
                    format!("{key}: must start the work (say a start_work phrase of signals.toml)"),
                )),
                Purpose::Start => {}
                Purpose::Say if starts || done => errors.borrow_mut().push(error(
                    line,
                    format!(
                        "{key}: must not say that the work {} (a {} phrase of signals.toml)",
                        if starts { "starts" } else { "is done" },
                        if starts { "start_work" } else { "work_done" },
                    ),
                )),
                Purpose::Say | Purpose::Deliver | Purpose::Instruct => {}
                Purpose::Ask(slot) => {
                    if starts || done {
                        errors.borrow_mut().push(error(
                            line,
                            format!("{key}: a question must not say the work starts or is done"),
                        ));
                    } else if reading.asks & (1 << slot) == 0 {
                        errors.borrow_mut().push(error(
                            line,
                            format!(
                                "{key}: does not ask for the slot (it must match one of its cues in slots.toml)"
                            ),
                        ));
                    }
                }
            }
        };
        let p = &phrases;
        let goal = &["goal", "type"][..];
        check("greeting", &p.greeting, &[], Purpose::Say);
        check("not_answering", &p.not_answering, goal, Purpose::Say);
        check("plan", &p.plan, &["goal", "type", "lines"], Purpose::Say);
        check(
            "plan_line",
            &p.plan_line,
            &["description", "value"],
            Purpose::Say,
        );
        check(
            "plan_line_open",
            &p.plan_line_open,
            &["description"],
            Purpose::Say,
        );
        check("start", &p.start, goal, Purpose::Start);
        check("delivered", &p.delivered, goal, Purpose::Deliver);
        check("review", &p.review, goal, Purpose::Say);
        check("what_to_change", &p.what_to_change, goal, Purpose::Say);
        check("closing", &p.closing, goal, Purpose::Say);
        check("farewell", &p.farewell, &[], Purpose::Say);
        check("no_goal", &p.no_goal, &["example"], Purpose::Say);
        check(
            "which_first",
            &p.which_first,
            &["first", "second"],
            Purpose::Say,
        );
        check(
            "change_noted",
            &p.change_noted,
            &["goal", "type", "change"],
            Purpose::Say,
        );
        check(
            "plan_line_waived",
            &p.plan_line_waived,
            &["description", "value"],
            Purpose::Say,
        );
        // Each example must state a goal as the engine reads a user's message.
        if p.examples.is_empty() || p.examples.len() > MAX_EXAMPLES {
            errors.borrow_mut().push(error(
                keys.line("examples"),
                format!("examples: 1 to {MAX_EXAMPLES} examples are expected"),
            ));
        }
        for (k, example) in p.examples.iter().enumerate() {
            if classifier.read(example, Role::User).goal.is_none() {
                errors.borrow_mut().push(error(
                    keys.line(&format!("examples[{}]", k + 1)),
                    format!("examples[{}]: states no goal as the engine reads it", k + 1),
                ));
            }
        }
        for (name, words) in &p.waived {
            if !classifier.slots().iter().any(|s| &*s.name == name.as_str()) {
                errors.borrow_mut().push(error(
                    keys.line(&format!("waived.{name}")),
                    format!("waived.{name}: no such slot in slots.toml"),
                ));
            }
            check(&format!("waived.{name}"), words, &[], Purpose::Say);
        }
        let sp = &p.specification;
        for (key, phrase, allowed) in [
            ("specification.type", &sp.kind, goal),
            (
                "specification.slot",
                &sp.slot,
                &["goal", "type", "description", "name", "value"][..],
            ),
            ("specification.open", &sp.open, goal),
            ("specification.plan", &sp.plan, goal),
            (
                "specification.step",
                &sp.step,
                &["goal", "type", "n", "description", "value"][..],
            ),
            ("specification.open_step", &sp.open_step, goal),
            ("specification.check", &sp.check, &["goal", "type", "n"][..]),
        ] {
            check(key, phrase, allowed, Purpose::Instruct);
        }
        for (key, phrase, allowed) in p.llm.phrases() {
            check(&format!("llm.{key}"), phrase, allowed, Purpose::Instruct);
        }
        let slots = classifier.slots();
        // Each slot's own question first: it must ask for the slot too.
        let mut asks: Vec<Vec<String>> =
            slots.iter().map(|s| vec![s.question.to_string()]).collect();
        for (i, slot) in slots.iter().enumerate() {
            let reading = classifier.read(&slot.question, Role::Assistant);
            if reading.asks & (1 << i) == 0 {
                errors.borrow_mut().push(error(
                    None,
                    format!(
                        "the question of the slot {} in slots.toml does not ask for it (it must match one of its cues): the guide asks it",
                        slot.name
                    ),
                ));
            }
        }
        for (name, wordings) in &p.ask {
            let Some(i) = slots.iter().position(|s| &*s.name == name.as_str()) else {
                errors.borrow_mut().push(error(
                    keys.line(&format!("ask.{name}")),
                    format!(
                        "ask.{name}: no such slot in slots.toml (slots: {})",
                        slots
                            .iter()
                            .map(|s| &*s.name)
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                ));
                continue;
            };
            if wordings.len() > MAX_REASKS {
                errors.borrow_mut().push(error(
                    keys.line(&format!("ask.{name}")),
                    format!("ask.{name}: at most {MAX_REASKS} other wordings"),
                ));
            }
            for (k, wording) in wordings.iter().enumerate() {
                check(
                    &format!("ask.{name}[{}]", k + 1),
                    wording,
                    goal,
                    Purpose::Ask(i),
                );
            }
            asks[i].extend(wordings.iter().cloned());
        }
        let mut types = BTreeMap::new();
        for (name, words) in &p.types {
            match GoalType::from_name(name) {
                Some(t) => {
                    types.insert(t, words.clone());
                }
                None => errors.borrow_mut().push(error(
                    keys.line(&format!("types.{name}")),
                    format!(
                        "types.{name}: no such goal type (types: {})",
                        GoalType::NAMES.join(", ")
                    ),
                )),
            }
        }
        for t in GoalType::ALL {
            if !types.contains_key(&t) && !p.types.contains_key(t.as_str()) {
                errors.borrow_mut().push(error(
                    keys.line("types"),
                    format!("types: no words for {t}"),
                ));
            }
        }
        let errors = errors.into_inner();
        if errors.is_empty() {
            Ok(Guide {
                phrases,
                asks,
                types,
            })
        } else {
            Err(Diagnostics(errors))
        }
    }

    /// What the guide says after a user's turn that left the conversation in `conv`, having
    /// made `transitions`: one turn, or two (the start of the work, then its delivery).
    pub fn replies(
        &self,
        engine: &Engine,
        conv: &Conversation,
        transitions: &[Transition],
    ) -> Vec<Reply> {
        let p = &self.phrases;
        let entered = |phase: Phase| transitions.iter().any(|t| t.to == phase);
        let Some(goal) = &conv.current_goal else {
            let mut choices = conv.queued_goals.iter().filter(|q| q.alternative);
            if let (Some(a), Some(b)) = (choices.next(), choices.next()) {
                let text = fill(
                    &p.which_first,
                    &[("first", &a.description), ("second", &b.description)],
                );
                return vec![Reply::say(text.unwrap_or_default())];
            }
            return match conv.phase {
                Phase::Completed if entered(Phase::Completed) => {
                    vec![Reply::say(
                        self.about(&p.closing, conv.completed_goals.last()),
                    )]
                }
                Phase::Idle if entered(Phase::Idle) => vec![Reply::say(p.farewell.clone())],
                Phase::Idle => Vec::new(),
                // The greeting once; after a turn that stated no goal, what the guide can do,
                // with an example that changes from one turn to the next.
                _ if conv.turn_count > 1 && !entered(Phase::Greeting) && !p.examples.is_empty() => {
                    let k = (conv.turn_count as usize / 2) % p.examples.len();
                    let text = fill(&p.no_goal, &[("example", &p.examples[k])]);
                    vec![Reply::say(text.unwrap_or_default())]
                }
                _ => vec![Reply::say(p.greeting.clone())],
            };
        };
        let about = |phrase: &str| self.about(phrase, Some(goal));
        match conv.phase {
            Phase::Understanding if !goal.has_required_info() => {
                vec![Reply::say(about(&p.not_answering))]
            }
            Phase::Understanding => {
                let changing = transitions
                    .iter()
                    .any(|t| t.from == Phase::Reviewing && t.to == Phase::Understanding);
                match goal
                    .required_info
                    .iter()
                    .enumerate()
                    .find(|(_, s)| !s.status.is_settled())
                {
                    Some((_, slot)) if !changing => {
                        let wordings = engine
                            .classifier()
                            .slots()
                            .iter()
                            .position(|s| s.name == slot.name)
                            .map(|i| &self.asks[i][..])
                            .unwrap_or_default();
                        // A slot still asked for was not answered: other words, as many times as
                        // the turn limit lets the user answer (the question again without them).
                        let n = wordings.len();
                        let k = if slot.status == SlotStatus::Asked && n > 1 {
                            (goal.understanding_turns as usize).clamp(1, n - 1)
                        } else {
                            0
                        };
                        let wording = wordings.get(k).map_or(&*slot.question, String::as_str);
                        vec![Reply::say(about(wording))]
                    }
                    // A change request that said what to change: acknowledged, not asked again.
                    _ if changing && let Some(change) = goal.requested_changes.last() => {
                        let text = fill(
                            &p.change_noted,
                            &[
                                ("goal", &goal.description),
                                ("type", self.type_words(goal.goal_type)),
                                ("change", change),
                            ],
                        );
                        vec![Reply::say(text.unwrap_or_default())]
                    }
                    _ => vec![Reply::say(about(&p.what_to_change))],
                }
            }
            Phase::Planning => vec![Reply::say(self.plan(engine, goal))],
            Phase::Executing => vec![
                Reply::say(about(&p.start)),
                Reply {
                    text: format!("{}\n\n{}", self.specification(goal), about(&p.delivered)),
                    artifact: true,
                },
            ],
            Phase::Reviewing => vec![Reply::say(about(&p.review))],
            // Not reached: a current goal is never completed or idle.
            Phase::Greeting | Phase::Completed | Phase::Idle => {
                vec![Reply::say(p.greeting.clone())]
            }
        }
    }

    /// `phrase` with the goal's placeholders filled.
    fn about(&self, phrase: &str, goal: Option<&Goal>) -> String {
        let (description, kind) = goal.map_or(("", ""), |g| {
            (g.description.as_str(), self.type_words(g.goal_type))
        });
        fill(phrase, &[("goal", description), ("type", kind)]).unwrap_or_else(|_| phrase.into())
    }

    /// What the guide decides for a slot the user left to it.
    fn decided(&self, slot: &str) -> &str {
        self.phrases
            .waived
            .get(slot)
            .map_or("a simple, common choice", String::as_str)
    }

    /// The `llm` assistant's instructions.
    pub fn llm(&self) -> &super::prompt::LlmPhrases {
        &self.phrases.llm
    }

    fn type_words(&self, t: GoalType) -> &str {
        self.types.get(&t).map_or(t.as_str(), String::as_str)
    }

    /// The plan: the goal and every slot's value. Values are the user's words; should they make
    /// the plan read as the start of the work ("starting now"), they are left out of it.
    fn plan(&self, engine: &Engine, goal: &Goal) -> String {
        let p = &self.phrases;
        let render = |with_values: bool| {
            let lines: Vec<String> = goal
                .required_info
                .iter()
                .map(|s| match (&s.value, with_values) {
                    _ if s.status == SlotStatus::Waived => fill(
                        &p.plan_line_waived,
                        &[
                            ("description", &s.description),
                            ("value", self.decided(&s.name)),
                        ],
                    ),
                    (Some(value), true) => fill(
                        &p.plan_line,
                        &[("description", &s.description), ("value", value)],
                    ),
                    _ => fill(&p.plan_line_open, &[("description", &s.description)]),
                })
                .map(|line| line.unwrap_or_default())
                .collect();
            fill(
                &p.plan,
                &[
                    ("goal", &goal.description),
                    ("type", self.type_words(goal.goal_type)),
                    ("lines", &lines.join("\n")),
                ],
            )
            .unwrap_or_default()
        };
        let plan = render(true);
        let reading = engine.classifier().read(&plan, Role::Assistant);
        if reading.signals.has(Signal::StartWork) {
            render(false)
        } else {
            plan
        }
    }

    /// The gathered specification, as an artifact: the goal, its type, every slot with its
    /// value, and a plan (a step per slot, then a check), in the words of `[specification]`.
    fn specification(&self, goal: &Goal) -> String {
        let sp = &self.phrases.specification;
        let kind = self.type_words(goal.goal_type);
        let with = |template: &str, more: &[(&str, &str)]| {
            let mut values = vec![("goal", goal.description.as_str()), ("type", kind)];
            values.extend_from_slice(more);
            fill(template, &values).unwrap_or_default()
        };
        let mut out = String::new();
        let _ = writeln!(out, "<artifact type=\"specification\">");
        let _ = writeln!(out, "# {}", goal.description);
        let _ = writeln!(out);
        let _ = writeln!(out, "{}", with(&sp.kind, &[]));
        let open = with(&sp.open, &[]);
        for slot in &goal.required_info {
            let value = match slot.status {
                SlotStatus::Waived => self.decided(&slot.name),
                _ => slot.value.as_deref().unwrap_or(&open),
            };
            let line = with(
                &sp.slot,
                &[
                    ("description", &slot.description),
                    ("name", &slot.name),
                    ("value", value),
                ],
            );
            let _ = writeln!(out, "{line}");
        }
        let _ = writeln!(out);
        let _ = writeln!(out, "{}", with(&sp.plan, &[]));
        let _ = writeln!(out);
        let open_step = with(&sp.open_step, &[]);
        let mut n = 0;
        for slot in &goal.required_info {
            n += 1;
            let value = match slot.status {
                SlotStatus::Waived => self.decided(&slot.name),
                _ => slot.value.as_deref().unwrap_or(&open_step),
            };
            let number = n.to_string();
            let line = with(
                &sp.step,
                &[
                    ("n", &number),
                    ("description", &slot.description),
                    ("value", value),
                ],
            );
            let _ = writeln!(out, "{line}");
        }
        let number = (n + 1).to_string();
        let _ = writeln!(out, "{}", with(&sp.check, &[("n", &number)]));
        out.push_str("</artifact>");
        out
    }
}

#[derive(Clone, Copy, Debug)]
enum Purpose {
    /// Says something without moving the work.
    Say,
    /// Announces the start of the work.
    Start,
    /// Delivers the work (sent with an artifact).
    Deliver,
    /// Asks for the slot of this index.
    Ask(usize),
    /// Tells a model what to do (never read as a turn).
    Instruct,
}

#[cfg(test)]
#[path = "guide_tests.rs"]
mod tests;
