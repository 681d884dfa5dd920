//! Rule 6 for a computation asked with its quantity ("convert 30 celsius to fahrenheit",
//! "calculate 15% of 80"): a question whose answer is a number, no work on a thing.

use super::*;

impl View<'_> {
    /// The question a lead of `computations` asks when a quantity follows it, in the sentence
    /// ending at `end`.
    pub(super) fn computation(&self, g: &GoalLead, end: usize) -> Option<GoalLead> {
        let cls = self.cls;
        let lead = self.text[g.lead.clone()].to_ascii_lowercase();
        if !cls.words.computations.contains(lead.as_str()) {
            return None;
        }
        let next = words(self.text, g.lead.end..end).next()?;
        let t = &self.text[next];
        let quantity = t.starts_with(|c: char| c.is_ascii_digit() || c == '$')
            || requests::NUMBER_WORDS
                .iter()
                .any(|n| t.eq_ignore_ascii_case(n))
            || ["a", "an", "half"]
                .iter()
                .any(|n| t.eq_ignore_ascii_case(n))
                && words(self.text, g.lead.end..end)
                    .nth(1)
                    .is_some_and(|u| cls.lower_in(&cls.words.quantities, &self.text[u]));
        // (A count of the user's things is work on them: "convert 3 of the class components
        // to hooks", "convert 200 png files in this folder to webp".)
        let counted_things = words(self.text, g.lead.end..end)
            .take(8)
            .enumerate()
            .any(|(i, w)| {
                let t = &self.text[w];
                // ("three and a half cups": a fraction of the quantity, no determiner.)
                cls.lower_in(&cls.words.determiners, t)
                    && !["a", "an", "half"]
                        .iter()
                        .any(|x| t.eq_ignore_ascii_case(x))
                    || i == 1 && t.eq_ignore_ascii_case("of")
                    || [
                        "file",
                        "files",
                        "images",
                        "components",
                        "endpoints",
                        "pages",
                    ]
                    .iter()
                    .any(|x| t.eq_ignore_ascii_case(x))
            });
        if !quantity || counted_things {
            return None;
        }
        let question = cls.goal_index(GoalType::QuestionAnswer)?;
        Some(GoalLead {
            goal: question,
            description: cls.clean(self.text, g.lead.start..end, false),
            lead: g.lead.clone(),
            wrapper: g.wrapper.clone(),
            rule: Found::Lead,
            details: SmallVec::new(),
        })
    }
}
