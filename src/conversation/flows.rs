//! Hosting a flow inside a session (the specification's `flows.md`): whether an event may be
//! applied, starting a flow, and one step of it.

use super::*;

impl Engine {
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

    pub(super) fn start_flow(
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
    pub(super) fn step_flow(
        &self,
        conv: &mut Conversation,
        input: Input<'_>,
        now: DateTime<Utc>,
    ) -> Step {
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
}
