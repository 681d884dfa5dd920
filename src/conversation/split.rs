//! A named group found without a capture search. For a pattern `P(?P<value>V)A` whose `A` only
//! asserts (word boundaries, ends), the group of a match starts where `P`, run anchored at the
//! match's start, ends; and it holds when `VA`, run anchored from there, ends where the match
//! ends. Two anchored runs of the lazy DFA cost a few instructions a byte whatever the
//! alternations inside (the vocabulary lists), where the captures' backtracker tries every
//! branch at every position it reaches.
//!
//! Why it finds the group the capture search finds: both follow the same preference order.
//! The first way `P` can end (what the anchored run of `P` alone finds) is the first the
//! capture search tries; when `VA` can match from there, the capture search keeps that way,
//! and `VA`'s first match from there is the one it takes, ending where the match ends. When
//! `VA` ends elsewhere, or not at all, `P` had to give something back: the caller then runs
//! the capture search (`lexicon.rs`), and a test compares the two on the whole corpus.

use std::ops::Range;

use regex_automata::util::syntax;
use regex_automata::{Anchored, Input, meta};
use regex_syntax::hir::{Hir, HirKind};

#[derive(Clone, Debug)]
pub(super) struct Split {
    group: Box<str>,
    /// `P`: what comes before the group.
    before: meta::Regex,
    /// `VA`: the group and the assertions after it.
    from: meta::Regex,
}

impl Split {
    /// For `source` compiled as the ASCII twins are (bytes, case-insensitive, no Unicode), when
    /// `group` is one of its top-level parts and only assertions follow it.
    pub(super) fn new(source: &str, group: &str, size_limit: usize) -> Option<Split> {
        let config = syntax::Config::new()
            .case_insensitive(true)
            .unicode(false)
            .utf8(false);
        let hir = syntax::parse_with(source, &config).ok()?;
        let HirKind::Concat(parts) = hir.kind() else {
            return None;
        };
        let at = parts.iter().position(
            |p| matches!(p.kind(), HirKind::Capture(c) if c.name.as_deref() == Some(group)),
        )?;
        if !parts[at + 1..]
            .iter()
            .all(|p| matches!(p.kind(), HirKind::Look(_)))
        {
            return None;
        }
        let build = |hir: Hir| {
            meta::Builder::new()
                .configure(
                    meta::Config::new()
                        .nfa_size_limit(Some(size_limit))
                        .utf8_empty(false),
                )
                .build_from_hir(&hir)
                .ok()
        };
        Some(Split {
            group: group.into(),
            before: build(Hir::concat(parts[..at].to_vec()))?,
            from: build(Hir::concat(parts[at..].to_vec()))?,
        })
    }

    pub(super) fn group_name(&self) -> &str {
        &self.group
    }

    /// The group of the match `whole` of `text`; `None` when the two runs cannot tell it.
    pub(super) fn group(&self, text: &[u8], whole: Range<usize>) -> Option<Range<usize>> {
        let from = |start: usize| {
            Input::new(text)
                .span(start..whole.end)
                .anchored(Anchored::Yes)
        };
        let start = self.before.search_half(&from(whole.start))?.offset();
        let end = self.from.search_half(&from(start))?.offset();
        (end == whole.end).then_some(start..end)
    }
}
