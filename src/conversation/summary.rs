//! The state summary text, in the design documents' format, ready for an LLM's system prompt.

use std::fmt;

use super::state::{Conversation, SlotStatus};

/// Displays a conversation's summary; serialise it with `collect_str` to write it without an
/// intermediate string.
#[derive(Clone, Copy, Debug)]
pub struct Summary<'a>(pub &'a Conversation);

impl fmt::Display for Summary<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let c = self.0;
        write!(
            f,
            "Conversation Phase: {}\nTurn Count: {}",
            c.phase, c.turn_count
        )?;
        if let Some(goal) = &c.current_goal {
            write!(
                f,
                "\n\nCurrent Goal:\n  Type: {}\n  Description: {}",
                goal.goal_type,
                OneLine(&goal.description)
            )?;
            if !goal.required_info.is_empty() {
                f.write_str("\n  Required Information:")?;
                for slot in &goal.required_info {
                    match (slot.status, &slot.value) {
                        (SlotStatus::Provided, Some(value)) => write!(
                            f,
                            "\n    ✓ {}: {} — {}",
                            slot.name,
                            slot.description,
                            Cut(value, VALUE_CHARS)
                        )?,
                        (SlotStatus::Provided, None) => {
                            write!(f, "\n    ✓ {}: {}", slot.name, slot.description)?
                        }
                        (SlotStatus::Waived, _) => write!(
                            f,
                            "\n    ~ {}: {} (assistant decides)",
                            slot.name, slot.description
                        )?,
                        (SlotStatus::Unknown | SlotStatus::Asked, _) => {
                            write!(f, "\n    ? {}: {}", slot.name, slot.description)?
                        }
                    }
                }
            }
            if !goal.requested_changes.is_empty() {
                f.write_str("\n  Requested Changes:")?;
                for change in &goal.requested_changes {
                    write!(f, "\n    - {}", OneLine(change))?;
                }
            }
        }
        if !c.queued_goals.is_empty() {
            f.write_str("\n\nQueued Goals:")?;
            for q in &c.queued_goals {
                let or = if q.alternative { " (or)" } else { "" };
                write!(f, "\n  - {}: {}{or}", q.goal_type, OneLine(&q.description))?;
            }
        }
        // The totals, not the window of recent goals the state keeps.
        if c.completed_goals_total > 0 {
            let abandoned = c.abandoned_goals_total;
            let completed = c.completed_goals_total.saturating_sub(abandoned);
            write!(f, "\n\nCompleted Goals: {completed}")?;
            if abandoned > 0 {
                write!(f, "\nAbandoned Goals: {abandoned}")?;
            }
        }
        Ok(())
    }
}

/// The most characters of a slot's value the summary shows.
const VALUE_CHARS: usize = 80;

/// A value on one line, at most `.1` characters: a longer one is cut and ends with `…`.
struct Cut<'a>(&'a str, usize);

impl fmt::Display for Cut<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let one = OneLine(self.0).to_string();
        match one.char_indices().nth(self.1) {
            None => f.write_str(&one),
            Some((at, _)) => write!(f, "{}…", one[..at].trim_end()),
        }
    }
}

/// A description as one line, so a multi-line message cannot break the summary's layout.
struct OneLine<'a>(&'a str);

impl fmt::Display for OneLine<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut words = self.0.split_whitespace();
        if let Some(first) = words.next() {
            f.write_str(first)?;
            for w in words {
                write!(f, " {w}")?;
            }
        }
        Ok(())
    }
}
