//! Reads the pattern files (`patterns/*.toml`) into a [`Lexicon`] and [`Settings`], checking
//! everything and reporting every problem as `path:line: message`.
//!
//! The files are parsed into span-carrying TOML trees and walked by hand, rather than through
//! serde, so that one run reports all problems of all files (unknown keys, wrong types, empty
//! lists, invalid regexes, unknown or duplicate names) instead of stopping at the first.
//!
//! The default set is compiled into the binary, so the server runs wherever it is started;
//! `--patterns DIR` reads another set.

use std::collections::{HashMap, HashSet};
use std::ops::Range;
use std::path::PathBuf;
use std::sync::Arc;

use crate::diagnostic::{Diagnostic, Diagnostics, line_of};
use toml::de::DeTable;

use crate::conversation::lexicon::{
    ChangeMode, DescriptionMode, Extractor, GoalDef, Language, LeadGroup, Lexicon, Pattern,
    Position, Role, Settings, Signal, SignalDef, SlotDef,
};
use crate::conversation::{Classifier, Engine, GoalType};

mod files;
mod language;
use files::*;

/// The files of a pattern set, in the order they are read.
pub const FILES: [&str; 5] = [
    "settings.toml",
    "language.toml",
    "signals.toml",
    "slots.toml",
    "goals.toml",
];

const BUILTIN: [&str; 5] = [
    include_str!("../../patterns/settings.toml"),
    include_str!("../../patterns/language.toml"),
    include_str!("../../patterns/signals.toml"),
    include_str!("../../patterns/slots.toml"),
    include_str!("../../patterns/goals.toml"),
];

/// The texts of the built-in set, in [`FILES`] order.
pub fn builtin_texts() -> [&'static str; 5] {
    BUILTIN
}

/// Bounds that keep a pattern set's compiled size sane.
const MAX_PHRASE_LEN: usize = 200;
const MAX_PHRASES: usize = 50_000;
const MAX_REGEX_BYTES: usize = 4 << 20;

/// Where a pattern set comes from.
#[derive(Clone, Debug)]
pub enum PatternSource {
    /// The set compiled into the binary (the repository's `patterns/`).
    Builtin,
    Dir(PathBuf),
    /// The files' texts, in [`FILES`] order (named `patterns/FILE` in messages).
    Texts(Box<[String; 5]>),
}

impl PatternSource {
    /// `Dir` for `Some(dir)`, else the built-in set.
    pub fn from_option(dir: Option<PathBuf>) -> PatternSource {
        dir.map_or(PatternSource::Builtin, PatternSource::Dir)
    }
}

/// Reads, checks and compiles a pattern set into an engine.
pub fn load(source: &PatternSource) -> Result<Engine, Diagnostics> {
    let (lexicon, settings, hash) = read_hashed(source)?;
    let classifier = Classifier::new(&lexicon, &settings).map_err(|e| {
        Diagnostics(vec![Diagnostic {
            path: source_name(source),
            line: None,
            message: e.to_string(),
        }])
    })?;
    let engine = Engine::new(classifier, settings, hash);
    Ok(match read_flows(source)? {
        Some(flows) => engine.with_flows(Arc::new(flows)),
        None => engine,
    })
}

/// The flows of a pattern directory (`DIR/flows/*.toml`), or `None` for the shipped ones (the
/// built-in set, or a directory without `flows/`).
fn read_flows(source: &PatternSource) -> Result<Option<crate::flow::Flows>, Diagnostics> {
    let PatternSource::Dir(dir) = source else {
        return Ok(None);
    };
    let flows_dir = dir.join("flows");
    if !flows_dir.is_dir() {
        return Ok(None);
    }
    let error = |path: String, message: String| Diagnostic {
        path,
        line: None,
        message,
    };
    let entries = std::fs::read_dir(&flows_dir).map_err(|e| {
        Diagnostics(vec![error(
            flows_dir.display().to_string(),
            format!("cannot read: {e}"),
        )])
    })?;
    let mut paths: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    paths.sort();
    let mut files = Vec::new();
    let mut errors = Vec::new();
    for path in paths {
        match std::fs::read_to_string(&path) {
            Ok(text) => files.push((path.display().to_string(), text)),
            Err(e) => errors.push(error(
                path.display().to_string(),
                format!("cannot read: {e}"),
            )),
        }
    }
    if !errors.is_empty() {
        return Err(Diagnostics(errors));
    }
    crate::flow::Flows::from_texts(&files)
        .map(Some)
        .map_err(|problems| {
            Diagnostics(
                problems
                    .into_iter()
                    .map(|p| Diagnostic {
                        path: p.path,
                        line: p.line,
                        message: p.message,
                    })
                    .collect(),
            )
        })
}

/// A pattern with its word boundaries (`\b`, `\B`) made ASCII ones (`(?-u:\b)`): Unicode
/// boundaries keep the regex engine off its fast automaton on any text with letters beyond
/// ASCII, which made reading a 64 KiB message of such text 100 times slower (13 ms for one
/// extractor). A letter beyond ASCII then counts as a non-word character beside a boundary
/// (docs/patterns.md). Escapes are followed, so `\\b` stays a backslash and a `b`.
fn ascii_word_boundaries(pattern: &str) -> String {
    let mut out = String::with_capacity(pattern.len() + 16);
    let mut chars = pattern.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('b') => out.push_str("(?-u:\\b)"),
            Some('B') => out.push_str("(?-u:\\B)"),
            Some(next) => {
                out.push('\\');
                out.push(next);
            }
            None => out.push('\\'),
        }
    }
    out
}

/// Names the rules logs are folded with: this version of convstate, the pattern files' text,
/// the settings and the hosted flows. A store keeps it, to tell when its logs were written under other rules (a
/// session's state is its log folded by the rules of the server that loads it).
pub fn fingerprint(engine: &Engine) -> String {
    let settings = format!("{:?}", engine.settings());
    // The hosted flows too: their sessions' logs are folded with them.
    let flows = format!("{:?}", engine.flows());
    let hash = fnv1a(
        fnv1a(
            fnv1a(FNV_OFFSET, &engine.source().to_le_bytes()),
            settings.as_bytes(),
        ),
        flows.as_bytes(),
    );
    format!("{}.r{READING}-{hash:016x}", env!("CARGO_PKG_VERSION"))
}

/// How this build reads the pattern files, part of the fingerprint: raised whenever the same
/// files can read a message differently (2: ASCII word boundaries in extractors).
const READING: u32 = 2;

/// The starting value of [`fnv1a`].
const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;

/// FNV-1a, 64 bits: a hash that is the same on every machine and in every build (unlike the
/// standard library's), for fingerprints that are stored.
fn fnv1a(mut hash: u64, bytes: &[u8]) -> u64 {
    for &b in bytes {
        hash ^= u64::from(b);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    hash
}

/// The built-in engine. The built-in set is checked by the test suite, so this cannot fail in
/// a tested build.
pub fn builtin() -> Engine {
    match load(&PatternSource::Builtin) {
        Ok(engine) => engine,
        Err(e) => panic!("the built-in patterns are invalid:\n{e}"),
    }
}

fn source_name(source: &PatternSource) -> String {
    match source {
        PatternSource::Builtin => "patterns (built in)".to_string(),
        PatternSource::Texts(_) => "patterns".to_string(),
        PatternSource::Dir(dir) => dir.display().to_string(),
    }
}

/// Reads and checks a pattern set without compiling the automaton.
pub fn read(source: &PatternSource) -> Result<(Lexicon, Settings), Diagnostics> {
    read_hashed(source).map(|(lexicon, settings, _)| (lexicon, settings))
}

/// [`read`], and a hash of the files' text (in their fixed order), for the engine's fingerprint.
fn read_hashed(source: &PatternSource) -> Result<(Lexicon, Settings, u64), Diagnostics> {
    // A directory that is not there is said once, not once per file it should hold.
    if let PatternSource::Dir(dir) = source
        && !dir.is_dir()
    {
        let message = if dir.exists() {
            "is not a directory (--patterns takes a directory holding the pattern files)"
        } else {
            "no such directory (--patterns takes a directory holding the pattern files; without \
             it the built-in set is used)"
        };
        return Err(Diagnostics(vec![Diagnostic {
            path: dir.display().to_string(),
            line: None,
            message: message.to_string(),
        }]));
    }
    let mut errors = Vec::new();
    let mut texts: Vec<(String, String)> = Vec::new();
    for (i, file) in FILES.iter().enumerate() {
        match source {
            PatternSource::Builtin => {
                texts.push((format!("patterns/{file}"), BUILTIN[i].to_string()));
            }
            PatternSource::Texts(given) => {
                texts.push((format!("patterns/{file}"), given[i].clone()));
            }
            PatternSource::Dir(dir) => {
                let path = dir.join(file);
                let name = path.display().to_string();
                match std::fs::read_to_string(&path) {
                    Ok(text) => texts.push((name, text)),
                    Err(e) => {
                        errors.push(Diagnostic {
                            path: name,
                            line: None,
                            message: format!("cannot read: {e}"),
                        });
                        texts.push((path.display().to_string(), String::new()));
                    }
                }
            }
        }
    }
    if !errors.is_empty() {
        return Err(Diagnostics(errors));
    }
    let mut docs = Vec::new();
    for (path, text) in &texts {
        let (table, parse_errors) = DeTable::parse_recoverable(text);
        // After a syntax error the parser's recovery cascades (an unclosed `[` swallows the
        // lines after it): only the first error of a file is reliable.
        for e in parse_errors.into_iter().take(1) {
            let line = e.span().map(|s| line_of(text, s.start));
            errors.push(Diagnostic {
                path: path.clone(),
                line,
                message: e.message().trim().to_lowercase(),
            });
        }
        docs.push(table);
    }
    if !errors.is_empty() {
        return Err(Diagnostics(errors));
    }
    let cx = |i: usize| Cx {
        path: &texts[i].0,
        text: &texts[i].1,
        errors: Vec::new(),
    };
    let mut settings_cx = cx(0);
    let settings = settings_cx.settings(docs[0].get_ref());
    let mut language_cx = cx(1);
    let language = language_cx.language(docs[1].get_ref());
    let mut signals_cx = cx(2);
    let signals = signals_cx.signals(docs[2].get_ref());
    let mut slots_cx = cx(3);
    let slots = slots_cx.slots(docs[3].get_ref());
    let mut goals_cx = cx(4);
    let goals = goals_cx.goals(docs[4].get_ref(), &slots);
    for c in [settings_cx, language_cx, signals_cx, slots_cx, goals_cx] {
        errors.extend(c.errors);
    }
    let lexicon = Lexicon {
        goals,
        slots: slots.into_iter().map(|(_, s)| s).collect(),
        signals,
        language,
    };
    let phrases = count_phrases(&lexicon);
    if phrases > MAX_PHRASES {
        errors.push(Diagnostic {
            path: source_name(source),
            line: None,
            message: format!("{phrases} phrases in all; at most {MAX_PHRASES} are allowed"),
        });
    }
    if errors.is_empty() {
        let hash = texts.iter().fold(FNV_OFFSET, |h, (_, text)| {
            fnv1a(fnv1a(h, text.as_bytes()), &[0])
        });
        Ok((lexicon, settings, hash))
    } else {
        Err(Diagnostics(errors))
    }
}

fn count_phrases(lx: &Lexicon) -> usize {
    let l = &lx.language;
    [
        &l.fillers,
        &l.acknowledgements,
        &l.intents,
        &l.small_talk,
        &l.negations,
        &l.clause_breaks,
        &l.non_answers,
        &l.contrast_markers,
        &l.deferrals,
        &l.action_questions,
        &l.known_words,
        &l.problems,
        &l.non_subjects,
        &l.auxiliaries,
        &l.determiners,
        &l.modals,
        &l.error_markers,
        &l.addressee,
        &l.persona,
        &l.task_titles,
        &l.corrections,
        &l.waivers,
        &l.sequencers,
        &l.predicates,
        &l.verbs,
        &l.wishes,
        &l.conjunctions,
        &l.introducers,
        &l.breakers,
    ]
    .iter()
    .map(|v| v.len())
    .sum::<usize>()
        + lx.signals.iter().map(|s| s.phrases.len()).sum::<usize>()
        + lx.slots.iter().map(|s| s.cues.len()).sum::<usize>()
        + lx.goals
            .iter()
            .flat_map(|g| &g.leads)
            .map(|l| l.phrases.len())
            .sum::<usize>()
}

/// Named word lists that extractor patterns reference as `{:name}`.
#[derive(Default)]
pub(super) struct Vocab {
    pub(super) lists: HashMap<String, Vec<String>>,
}

impl Vocab {
    /// The pattern with each `{:name}` replaced by an alternation of the list's words (spaces
    /// match any white space). Errs with the unknown name.
    pub(super) fn expand(&self, pattern: &str) -> Result<String, String> {
        let mut out = String::with_capacity(pattern.len());
        let mut rest = pattern;
        while let Some(at) = rest.find("{:") {
            out.push_str(&rest[..at]);
            let after = &rest[at + 2..];
            let Some(close) = after.find('}') else {
                out.push_str(&rest[at..]);
                return Ok(out);
            };
            let name = &after[..close];
            let words = self.lists.get(name).ok_or_else(|| name.to_string())?;
            let mut trie = Trie::default();
            for w in words {
                trie.insert(w);
            }
            out.push_str("(?:");
            trie.write(&mut out);
            out.push(')');
            rest = &after[close + 1..];
        }
        out.push_str(rest);
        Ok(out)
    }
}

/// A word list as a trie of its lower-cased characters (a run of white space is one step that
/// matches any white space). Written out as nested alternations, it matches what the plain
/// alternation of the words, longest first, matches, with the same preference (a longer word
/// before its prefix: "landing page" before "landing"), and a regex engine tries one branch
/// per character instead of one per word: the lists have hundreds of words, and an extractor's
/// captures ran through all of them at every word of a message.
#[derive(Default)]
struct Trie {
    /// The steps out of this node, in the order first met (two never start with the same
    /// character, so at most one of them matches).
    next: Vec<(TrieStep, Trie)>,
    /// Whether a word ends here.
    end: bool,
}

#[derive(PartialEq)]
enum TrieStep {
    Char(char),
    Space,
}

impl Trie {
    fn insert(&mut self, word: &str) {
        let mut node = self;
        let mut steps = Vec::new();
        for (i, part) in word.split_whitespace().enumerate() {
            if i > 0 {
                steps.push(TrieStep::Space);
            }
            steps.extend(
                part.chars()
                    .flat_map(char::to_lowercase)
                    .map(TrieStep::Char),
            );
        }
        if steps.is_empty() {
            return;
        }
        for step in steps {
            let at = match node.next.iter().position(|(s, _)| *s == step) {
                Some(at) => at,
                None => {
                    node.next.push((step, Trie::default()));
                    node.next.len() - 1
                }
            };
            node = &mut node.next[at].1;
        }
        node.end = true;
    }

    /// The alternation of the words below this node (the node's own end excluded).
    fn write(&self, out: &mut String) {
        for (i, (step, child)) in self.next.iter().enumerate() {
            if i > 0 {
                out.push('|');
            }
            match step {
                TrieStep::Char(c) => out.push_str(&regex::escape(c.encode_utf8(&mut [0; 4]))),
                TrieStep::Space => out.push_str(r"\s+"),
            }
            match (child.next.len(), child.end) {
                (0, _) => {}
                // One way on and no word ending here: no group needed.
                (1, false) => child.write(out),
                (_, end) => {
                    out.push_str("(?:");
                    child.write(out);
                    out.push_str(if end { ")?" } else { ")" });
                }
            }
        }
    }
}

/// The regex crate's error without its multi-line drawing: the line that says what is wrong.
pub(super) fn regex_error(e: &regex::Error) -> String {
    let text = e.to_string();
    text.lines()
        .find_map(|l| l.trim().strip_prefix("error: "))
        .unwrap_or_else(|| text.lines().last().unwrap_or(""))
        .trim()
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn word_boundaries_become_ascii_ones_and_escapes_are_kept() {
        assert_eq!(
            ascii_word_boundaries(r"\bwith\s+\B\\b"),
            r"(?-u:\b)with\s+(?-u:\B)\\b"
        );
        assert_eq!(ascii_word_boundaries(r"a\"), r"a\");
    }

    #[test]
    fn builtin_patterns_load() {
        let (lexicon, settings) = read(&PatternSource::Builtin).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(lexicon.goals.len(), 4);
        assert_eq!(lexicon.signals.len(), Signal::ALL.len());
        assert_eq!(settings, Settings::default());
        load(&PatternSource::Builtin).unwrap_or_else(|e| panic!("{e}"));
    }

    #[test]
    fn vocab_expands_to_a_trie_and_rejects_unknown_names() {
        let mut v = Vocab::default();
        v.lists.insert(
            "kind".into(),
            vec!["page".into(), "landing page".into(), "c++".into()],
        );
        assert_eq!(
            v.expand(r"\b{:kind}\b").unwrap(),
            r"\b(?:page|landing\s+page|c\+\+)\b"
        );
        v.lists.insert(
            "tech".into(),
            vec![
                "React".into(),
                "react native".into(),
                "rest".into(),
                "go".into(),
            ],
        );
        assert_eq!(
            v.expand("{:tech}").unwrap(),
            r"(?:re(?:act(?:\s+native)?|st)|go)"
        );
        assert_eq!(v.expand("{:nope}"), Err("nope".to_string()));
        assert_eq!(v.expand("a{0,3}").unwrap(), "a{0,3}");
    }

    #[test]
    fn lines_are_counted_from_one() {
        assert_eq!(line_of("a\nb\nc", 0), 1);
        assert_eq!(line_of("a\nb\nc", 2), 2);
        assert_eq!(line_of("a\nb\nc", 4), 3);
    }
}
