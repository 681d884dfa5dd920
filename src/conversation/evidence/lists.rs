//! Rule 3's lists: a short list of things before the place they go is one change ("put eggs,
//! oat milk and AA batteries on the shopping list").

use super::*;

impl View<'_> {
    /// Where a list that a comma at `comma` continues ends, when it is one: short items
    /// joined by commas, the last after "and" or "or", then a place named with a determiner
    /// ("eggs, oat milk and AA batteries on the shopping list"): the next comma after the
    /// place, else `end`.
    pub(super) fn list_through(&self, comma: usize, end: usize) -> Option<usize> {
        let cls = self.cls;
        let mut at = comma + 1;
        // (At most five items are looked at.)
        for _ in 0..5 {
            let next = self.text[at..end].find(',').map_or(end, |c| at + c);
            let item: SmallVec<[Range<usize>; 12]> = words(self.text, at..next).take(12).collect();
            let joined = item.iter().position(|w| {
                ["and", "or"]
                    .iter()
                    .any(|c| self.text[w.clone()].eq_ignore_ascii_case(c))
            });
            if let Some(j) = joined {
                // The last item, then its place (not "of", which joins the item's own nouns:
                // "a bag of spinach").
                let place = (j + 1..item.len().saturating_sub(1)).find(|&k| {
                    let t = &self.text[item[k].clone()];
                    !t.eq_ignore_ascii_case("of")
                        && PLACES.iter().any(|p| t.eq_ignore_ascii_case(p))
                        && cls.lower_in(&cls.words.determiners, &self.text[item[k + 1].clone()])
                })?;
                // (A short aside in parentheses may follow it: "coffee filters (the #4 ones)".)
                return (j <= 3 && place - j <= 7).then_some(next);
            }
            // (An item is a few words, no verb of the vocabulary nor a determiner's clause.)
            if item.is_empty()
                || item.len() > 4
                || item.iter().any(|w| {
                    let t = &self.text[w.clone()];
                    cls.lower_in(&cls.words.verbs, t) || cls.lower_in(&cls.words.auxiliaries, t)
                })
                || next >= end
            {
                return None;
            }
            at = next + 1;
        }
        None
    }
}
