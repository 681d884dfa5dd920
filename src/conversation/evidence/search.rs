//! Byte searches of a text that build no searcher: the few bytes they look at cost less than
//! a searcher's set-up.

/// Where the first of `marks` stands in `hay`, with the mark's length (the shortest of those
/// starting there): one pass over `hay`, however many marks. The marks start with the same
/// byte.
pub(super) fn find_first_of(hay: &str, marks: &[&str]) -> Option<(usize, usize)> {
    let h = hay.as_bytes();
    let lead = *marks.first()?.as_bytes().first()?;
    debug_assert!(marks.iter().all(|m| m.as_bytes().first() == Some(&lead)));
    let mut at = 0;
    while let Some(i) = h[at..].iter().position(|&b| b == lead) {
        let i = at + i;
        let found = marks
            .iter()
            .filter(|m| h[i..].starts_with(m.as_bytes()))
            .map(|m| m.len())
            .min();
        if let Some(n) = found {
            return Some((i, n));
        }
        at = i + 1;
    }
    None
}

/// Where `needle` first stands in `hay` (a plain byte scan: no searcher to build for the few
/// bytes it looks at).
pub(super) fn find_bytes(hay: &str, needle: &str) -> Option<usize> {
    let (h, n) = (hay.as_bytes(), needle.as_bytes());
    if n.is_empty() || h.len() < n.len() {
        return None;
    }
    (0..=h.len() - n.len()).find(|&i| h[i] == n[0] && &h[i..i + n.len()] == n)
}
