//! A goal's life in the engine: started from a lead with the details its statement gives,
//! further goals queued (rule 14) and started in turn, finished into the history.

use super::*;

impl Engine {
    /// Queues the message's further goals (rule 14), at most `MAX_QUEUED_GOALS` in all.
    pub(super) fn queue(&self, conv: &mut Conversation, said: &Said<'_>, reading: &Reading) {
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
    pub(super) fn start_queued(
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

    pub(super) fn start_goal(
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
                value.push_str(&said.value_text(span.clone()));
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
                    capped(&said.value_text(span), self.settings.max_value_chars).into_owned(),
                );
            }
        }
        conv.current_goal = Some(goal);
    }

    /// Moves the current goal, if any, to the history: the end of `completed_goals`, which
    /// keeps the most recent `history_window` goals, and the totals. The goal is also reported
    /// in `finished`, for the store's whole history.
    pub(super) fn finish_goal(
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
}

/// The alternative a message names: the one with the most of its description's words in the
/// message (none on a tie).
pub(super) fn chosen(queue: &[QueuedGoal], text: &str) -> Option<usize> {
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
