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

/// The files of a pattern set, in the order they are read.
pub const FILES: [&str; 5] = [
    "settings.toml",
    "language.toml",
    "signals.toml",
    "slots.toml",
    "goals.toml",
];

const BUILTIN: [&str; 5] = [
    include_str!("../patterns/settings.toml"),
    include_str!("../patterns/language.toml"),
    include_str!("../patterns/signals.toml"),
    include_str!("../patterns/slots.toml"),
    include_str!("../patterns/goals.toml"),
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

type Table<'i> = DeTable<'i>;

/// The checking context of one file.
struct Cx<'a> {
    path: &'a str,
    text: &'a str,
    errors: Vec<Diagnostic>,
}

impl Cx<'_> {
    fn error(&mut self, span: Range<usize>, message: impl Into<String>) {
        self.errors.push(Diagnostic {
            path: self.path.to_string(),
            line: Some(line_of(self.text, span.start)),
            message: message.into(),
        });
    }

    /// Reports keys of `table` that are not in `known`.
    fn known_keys(&mut self, table: &Table<'_>, known: &[&str], what: &str) {
        for (key, _) in table.iter() {
            if !known.contains(&key.get_ref().as_ref()) {
                self.error(
                    key.span(),
                    format!(
                        "unknown key `{}` in {what} (expected one of: {})",
                        key.get_ref(),
                        known.join(", ")
                    ),
                );
            }
        }
    }

    fn missing(&mut self, at: Range<usize>, key: &str, what: &str) {
        self.error(at, format!("missing key `{key}` in {what}"));
    }

    fn string(
        &mut self,
        table: &Table<'_>,
        at: Range<usize>,
        key: &str,
        what: &str,
    ) -> Option<(String, Range<usize>)> {
        let Some(v) = table.get(key) else {
            self.missing(at, key, what);
            return None;
        };
        match v.get_ref().as_str() {
            Some(s) if s.trim().is_empty() => {
                self.error(v.span(), format!("`{key}` must not be empty"));
                None
            }
            Some(s) => Some((s.to_string(), v.span())),
            None => {
                self.error(
                    v.span(),
                    format!("`{key}` must be a string, not {}", v.get_ref().type_str()),
                );
                None
            }
        }
    }

    fn optional_string(
        &mut self,
        table: &Table<'_>,
        key: &str,
        what: &str,
    ) -> Option<(String, Range<usize>)> {
        if table.get(key).is_some() {
            self.string(table, 0..0, key, what)
        } else {
            None
        }
    }

    /// A required, non-empty list of distinct, non-empty strings (phrases are compared as the
    /// matcher sees them: lowercase, single spaces).
    fn phrases(
        &mut self,
        table: &Table<'_>,
        at: Range<usize>,
        key: &str,
        what: &str,
    ) -> Vec<(String, Range<usize>)> {
        let Some(v) = table.get(key) else {
            self.missing(at, key, what);
            return Vec::new();
        };
        let Some(items) = v.get_ref().as_array() else {
            self.error(
                v.span(),
                format!(
                    "`{key}` must be a list of strings, not {}",
                    v.get_ref().type_str()
                ),
            );
            return Vec::new();
        };
        if items.is_empty() {
            self.error(v.span(), format!("`{key}` must not be empty"));
        }
        let mut seen = HashSet::new();
        let mut out = Vec::new();
        for item in items.iter() {
            match item.get_ref().as_str() {
                None => self.error(
                    item.span(),
                    format!(
                        "`{key}` must hold strings, not {}",
                        item.get_ref().type_str()
                    ),
                ),
                Some(s) if s.trim().is_empty() => {
                    self.error(item.span(), format!("empty phrase in `{key}`"));
                }
                Some(s) if s.len() > MAX_PHRASE_LEN => self.error(
                    item.span(),
                    format!("phrase longer than {MAX_PHRASE_LEN} bytes in `{key}`"),
                ),
                Some(s) => {
                    let norm = crate::conversation::text::normalize_phrase(s);
                    if !seen.insert(norm.clone()) {
                        self.error(item.span(), format!("duplicate phrase \"{s}\" in `{key}`"));
                    } else {
                        out.push((s.to_string(), item.span()));
                    }
                }
            }
        }
        out
    }

    fn tables<'t, 'i>(
        &mut self,
        table: &'t Table<'i>,
        key: &str,
        what: &str,
    ) -> Vec<(&'t Table<'i>, Range<usize>)> {
        let Some(v) = table.get(key) else {
            self.missing(0..0, &format!("[[{key}]]"), what);
            return Vec::new();
        };
        let Some(items) = v.get_ref().as_array() else {
            self.error(
                v.span(),
                format!("`{key}` must be an array of tables ([[{key}]])"),
            );
            return Vec::new();
        };
        if items.is_empty() {
            self.error(v.span(), format!("`{key}` must not be empty"));
        }
        let mut out = Vec::new();
        for item in items.iter() {
            match item.get_ref().as_table() {
                Some(t) => out.push((t, item.span())),
                None => self.error(item.span(), format!("each `{key}` must be a table")),
            }
        }
        out
    }

    fn integer(&mut self, table: &Table<'_>, key: &str, min: i64, max: i64) -> Option<i64> {
        let Some(v) = table.get(key) else {
            self.missing(0..0, key, "the settings");
            return None;
        };
        let parsed = v
            .get_ref()
            .as_integer()
            .and_then(|i| i64::from_str_radix(i.as_str(), i.radix()).ok());
        match parsed {
            Some(n) if (min..=max).contains(&n) => Some(n),
            Some(n) => {
                self.error(
                    v.span(),
                    format!("`{key}` must be between {min} and {max}, not {n}"),
                );
                None
            }
            None => {
                self.error(v.span(), format!("`{key}` must be a whole number"));
                None
            }
        }
    }

    fn regex(&mut self, pattern: &str, span: Range<usize>, vocab: &Vocab) -> Option<Pattern> {
        let expanded = match vocab.expand(pattern) {
            Ok(p) => p,
            Err(name) => {
                self.error(span, format!("unknown vocabulary `{{:{name}}}` in pattern"));
                return None;
            }
        };
        match Pattern::new(&ascii_word_boundaries(&expanded), MAX_REGEX_BYTES) {
            Ok(re) => Some(re),
            Err(e) => {
                self.error(span, format!("invalid regex: {}", regex_error(&e)));
                None
            }
        }
    }

    // --- the files ---

    fn settings(&mut self, doc: &Table<'_>) -> Settings {
        self.known_keys(
            doc,
            &[
                "idle_timeout",
                "max_understanding_turns",
                "small_talk_tail_words",
                "typo_tolerance",
                "history_window",
                "max_description_chars",
                "max_value_chars",
            ],
            "the settings",
        );
        let mut settings = Settings::default();
        if let Some((text, span)) = self.string(doc, 0..0, "idle_timeout", "the settings") {
            match crate::config::parse_duration(&text) {
                Ok(d) => settings.idle_timeout = d,
                Err(e) => self.error(span, format!("`idle_timeout`: {e}")),
            }
        }
        if let Some(n) = self.integer(doc, "max_understanding_turns", 1, 1000) {
            settings.max_understanding_turns = n as u32;
        }
        if let Some(n) = self.integer(doc, "small_talk_tail_words", 0, 20) {
            settings.small_talk_tail_words = n as u32;
        }
        if let Some(n) = self.integer(doc, "history_window", 0, 1000) {
            settings.history_window = n as u32;
        }
        if let Some(n) = self.integer(doc, "max_description_chars", 16, 10_000) {
            settings.max_description_chars = n as u32;
        }
        if let Some(n) = self.integer(doc, "max_value_chars", 16, 10_000) {
            settings.max_value_chars = n as u32;
        }
        // Optional: on unless turned off.
        if let Some(v) = doc.get("typo_tolerance") {
            match v.get_ref().as_bool() {
                Some(b) => settings.typo_tolerance = b,
                None => self.error(v.span(), "`typo_tolerance` must be true or false"),
            }
        }
        settings
    }

    fn language(&mut self, doc: &Table<'_>) -> Language {
        const KEYS: [&str; 32] = [
            "fillers",
            "acknowledgements",
            "intents",
            "small_talk",
            "negations",
            "clause_breaks",
            "non_answers",
            "articles",
            "trailing",
            "pronouns",
            "noun_phrase_ends",
            "contrast_markers",
            "deferrals",
            "action_questions",
            "known_words",
            "problems",
            "non_subjects",
            "auxiliaries",
            "determiners",
            "modals",
            "error_markers",
            "addressee",
            "persona",
            "task_titles",
            "corrections",
            "waivers",
            "sequencers",
            "predicates",
            "verbs",
            "wishes",
            "conjunctions",
            "introducers",
        ];
        self.known_keys(doc, &KEYS, "the language file");
        let mut lists: Vec<Vec<String>> = KEYS
            .iter()
            .map(|k| {
                self.phrases(doc, 0..0, k, "the language file")
                    .into_iter()
                    .map(|(s, _)| s)
                    .collect()
            })
            .collect();
        let mut next = || std::mem::take(&mut lists.remove(0));
        Language {
            fillers: next(),
            acknowledgements: next(),
            intents: next(),
            small_talk: next(),
            negations: next(),
            clause_breaks: next(),
            non_answers: next(),
            articles: next(),
            trailing: next(),
            pronouns: next(),
            noun_phrase_ends: next(),
            contrast_markers: next(),
            deferrals: next(),
            action_questions: next(),
            known_words: next(),
            problems: next(),
            non_subjects: next(),
            auxiliaries: next(),
            determiners: next(),
            modals: next(),
            error_markers: next(),
            addressee: next(),
            persona: next(),
            task_titles: next(),
            corrections: next(),
            waivers: next(),
            sequencers: next(),
            predicates: next(),
            verbs: next(),
            wishes: next(),
            conjunctions: next(),
            introducers: next(),
        }
    }

    fn signals(&mut self, doc: &Table<'_>) -> Vec<SignalDef> {
        self.known_keys(doc, &["signal"], "the signals file");
        let mut out: Vec<SignalDef> = Vec::new();
        // Named, even if another field of the entry is wrong: not reported as undefined.
        let mut named: Vec<Signal> = Vec::new();
        for (t, span) in self.tables(doc, "signal", "the signals file") {
            self.known_keys(t, &["name", "role", "position", "phrases"], "a [[signal]]");
            let name = self.string(t, span.clone(), "name", "a [[signal]]");
            let role = self.string(t, span.clone(), "role", "a [[signal]]");
            let position = self.optional_string(t, "position", "a [[signal]]");
            let phrases = self.phrases(t, span.clone(), "phrases", "a [[signal]]");
            let signal = name.and_then(|(n, s)| match Signal::from_name(&n) {
                Some(sig) if named.contains(&sig) => {
                    self.error(s, format!("duplicate signal `{n}`"));
                    None
                }
                Some(sig) => {
                    named.push(sig);
                    Some(sig)
                }
                None => {
                    let known: Vec<_> = Signal::ALL.iter().map(|s| s.as_str()).collect();
                    self.error(
                        s,
                        format!(
                            "unknown signal `{n}` (expected one of: {})",
                            known.join(", ")
                        ),
                    );
                    None
                }
            });
            let role = role.and_then(|(r, s)| match r.as_str() {
                "user" => Some(Role::User),
                "assistant" => Some(Role::Assistant),
                _ => {
                    self.error(
                        s,
                        format!("unknown role `{r}` (expected user or assistant)"),
                    );
                    None
                }
            });
            let position = match position {
                None => Some(Position::Anywhere),
                Some((p, s)) => match p.as_str() {
                    "anywhere" => Some(Position::Anywhere),
                    "lead" => Some(Position::Lead),
                    _ => {
                        self.error(
                            s,
                            format!("unknown position `{p}` (expected anywhere or lead)"),
                        );
                        None
                    }
                },
            };
            if let (Some(signal), Some(role), Some(position)) = (signal, role, position) {
                out.push(SignalDef {
                    signal,
                    role,
                    position,
                    phrases: phrases.into_iter().map(|(p, _)| p).collect(),
                });
            }
        }
        for signal in Signal::ALL {
            if !named.contains(&signal) {
                self.error(0..0, format!("signal `{}` is not defined", signal.as_str()));
            }
        }
        out
    }

    fn slots(&mut self, doc: &Table<'_>) -> Vec<(Range<usize>, SlotDef)> {
        self.known_keys(doc, &["vocab", "slot"], "the slots file");
        let vocab = self.vocab(doc);
        let mut out: Vec<(Range<usize>, SlotDef)> = Vec::new();
        for (t, span) in self.tables(doc, "slot", "the slots file") {
            const WHAT: &str = "a [[slot]]";
            self.known_keys(
                t,
                &["name", "description", "question", "cues", "extractor"],
                WHAT,
            );
            let name = self.string(t, span.clone(), "name", WHAT);
            let description = self.string(t, span.clone(), "description", WHAT);
            let question = self.string(t, span.clone(), "question", WHAT);
            let cues = self.phrases(t, span.clone(), "cues", WHAT);
            let mut extractors = Vec::new();
            for (x, xspan) in self.tables(t, "extractor", WHAT) {
                self.known_keys(
                    x,
                    &["pattern", "unless", "fills_empty"],
                    "an [[slot.extractor]]",
                );
                let fills_empty = match x.get("fills_empty") {
                    None => false,
                    Some(v) => v.get_ref().as_bool().unwrap_or_else(|| {
                        self.error(v.span(), "`fills_empty` must be true or false");
                        false
                    }),
                };
                let pattern = self
                    .string(x, xspan.clone(), "pattern", "an [[slot.extractor]]")
                    .and_then(|(p, s)| self.regex(&p, s, &vocab));
                let unless = match self.optional_string(x, "unless", "an [[slot.extractor]]") {
                    Some((p, s)) => self.regex(&p, s, &vocab).map(Some),
                    None => Some(None),
                };
                if let (Some(pattern), Some(unless)) = (pattern, unless) {
                    let mut x = Extractor::new(pattern, unless);
                    x.fills_empty = fills_empty;
                    extractors.push(x);
                }
            }
            let Some((name, name_span)) = name else {
                continue;
            };
            if out.iter().any(|(_, s)| *s.name == *name) {
                self.error(name_span, format!("duplicate slot `{name}`"));
                continue;
            }
            let arc = |v: Option<(String, Range<usize>)>| -> Arc<str> {
                v.map(|(s, _)| s).unwrap_or_default().into()
            };
            out.push((
                name_span,
                SlotDef {
                    name: name.into(),
                    description: arc(description),
                    question: arc(question),
                    cues: cues.into_iter().map(|(c, _)| c).collect(),
                    extractors,
                },
            ));
        }
        if out.len() > crate::conversation::classify::MAX_SLOTS {
            self.error(
                0..0,
                format!(
                    "at most {} slots are allowed",
                    crate::conversation::classify::MAX_SLOTS
                ),
            );
        }
        out
    }

    fn vocab(&mut self, doc: &Table<'_>) -> Vocab {
        let mut vocab = Vocab::default();
        let Some(v) = doc.get("vocab") else {
            return vocab;
        };
        let Some(table) = v.get_ref().as_table() else {
            self.error(v.span(), "`vocab` must be a table of word lists");
            return vocab;
        };
        for (key, _) in table.iter() {
            let words = self.phrases(table, key.span(), key.get_ref(), "[vocab]");
            vocab.lists.insert(
                key.get_ref().to_string(),
                words.into_iter().map(|(w, _)| w).collect(),
            );
        }
        vocab
    }

    fn goals(&mut self, doc: &Table<'_>, slots: &[(Range<usize>, SlotDef)]) -> Vec<GoalDef> {
        self.known_keys(doc, &["goal"], "the goals file");
        let slot_index = |name: &str| slots.iter().position(|(_, s)| &*s.name == name);
        let mut out: Vec<GoalDef> = Vec::new();
        let mut named: Vec<GoalType> = Vec::new();
        for (t, span) in self.tables(doc, "goal", "the goals file") {
            const WHAT: &str = "a [[goal]]";
            self.known_keys(t, &["type", "slots", "lead"], WHAT);
            let goal_type = self
                .string(t, span.clone(), "type", WHAT)
                .and_then(|(n, s)| match GoalType::from_name(&n) {
                    Some(g) if named.contains(&g) => {
                        self.error(s, format!("duplicate goal type `{n}`"));
                        None
                    }
                    Some(g) => {
                        named.push(g);
                        Some(g)
                    }
                    None => {
                        let known: Vec<_> = GoalType::ALL.iter().map(|g| g.as_str()).collect();
                        self.error(
                            s,
                            format!(
                                "unknown goal type `{n}` (expected one of: {})",
                                known.join(", ")
                            ),
                        );
                        None
                    }
                });
            // `slots` may be empty: questions and explorations need no information.
            let mut slot_ids = Vec::new();
            match t.get("slots") {
                None => self.missing(span.clone(), "slots", WHAT),
                Some(v) => match v.get_ref().as_array() {
                    None => self.error(v.span(), "`slots` must be a list of slot names"),
                    Some(items) => {
                        for item in items.iter() {
                            match item.get_ref().as_str().map(|n| (n, slot_index(n))) {
                                Some((_, Some(i))) if slot_ids.contains(&i) => {
                                    self.error(item.span(), "duplicate slot in `slots`")
                                }
                                Some((_, Some(i))) => slot_ids.push(i),
                                Some((n, None)) => {
                                    self.error(item.span(), format!("unknown slot `{n}`"))
                                }
                                None => self.error(item.span(), "`slots` must hold slot names"),
                            }
                        }
                    }
                },
            }
            let mut leads = Vec::new();
            for (l, lspan) in self.tables(t, "lead", WHAT) {
                const LEAD: &str = "a [[goal.lead]]";
                self.known_keys(
                    l,
                    &[
                        "phrases",
                        "description",
                        "object_must_match",
                        "change",
                        "min_words",
                    ],
                    LEAD,
                );
                let phrases = self.phrases(l, lspan.clone(), "phrases", LEAD);
                let mode = match self.optional_string(l, "description", LEAD) {
                    None => Some(DescriptionMode::Object),
                    Some((m, s)) => match m.as_str() {
                        "object" => Some(DescriptionMode::Object),
                        "sentence" => Some(DescriptionMode::Sentence),
                        _ => {
                            self.error(
                                s,
                                format!("unknown description `{m}` (expected object or sentence)"),
                            );
                            None
                        }
                    },
                };
                let must = match self.optional_string(l, "object_must_match", LEAD) {
                    None => Some(None),
                    Some((n, s)) => match slot_index(&n) {
                        Some(i) => Some(Some(i)),
                        None => {
                            self.error(s, format!("unknown slot `{n}`"));
                            None
                        }
                    },
                };
                let change = match self.optional_string(l, "change", LEAD) {
                    None => Some(ChangeMode::None),
                    Some((m, s)) => match m.as_str() {
                        "object" => Some(ChangeMode::Object),
                        "phrase" => Some(ChangeMode::Phrase),
                        "result" => Some(ChangeMode::Result),
                        "lead" => Some(ChangeMode::Lead),
                        "content" => Some(ChangeMode::Content),
                        _ => {
                            self.error(
                                s,
                                format!("unknown change `{m}` (expected object, phrase, result, lead or content)"),
                            );
                            None
                        }
                    },
                };
                let min_words = match l.get("min_words") {
                    None => Some(0),
                    Some(v) => match v.get_ref().as_integer().and_then(|i| {
                        i64::from_str_radix(i.as_str(), i.radix())
                            .ok()
                            .filter(|n| (0..=20).contains(n))
                    }) {
                        Some(n) => Some(n as u32),
                        None => {
                            self.error(v.span(), "`min_words` must be a whole number, 0 to 20");
                            None
                        }
                    },
                };
                if let (Some(description), Some(object_must_match), Some(change), Some(min_words)) =
                    (mode, must, change, min_words)
                {
                    leads.push(LeadGroup {
                        phrases: phrases.into_iter().map(|(p, _)| p).collect(),
                        description,
                        object_must_match,
                        change,
                        min_words,
                    });
                }
            }
            if let Some(goal_type) = goal_type {
                out.push(GoalDef {
                    goal_type,
                    slots: slot_ids,
                    leads,
                });
            }
        }
        for goal_type in GoalType::ALL {
            if !named.contains(&goal_type) {
                self.error(0..0, format!("goal type `{goal_type}` is not defined"));
            }
        }
        out
    }
}

/// Named word lists that extractor patterns reference as `{:name}`.
#[derive(Default)]
struct Vocab {
    lists: HashMap<String, Vec<String>>,
}

impl Vocab {
    /// The pattern with each `{:name}` replaced by an alternation of the list's words (spaces
    /// match any white space). Errs with the unknown name.
    fn expand(&self, pattern: &str) -> Result<String, String> {
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
            let mut words: Vec<&String> = words.iter().collect();
            // Longest first, so "landing page" is tried before "page".
            words.sort_by_key(|w| std::cmp::Reverse(w.len()));
            out.push_str("(?:");
            for (i, w) in words.iter().enumerate() {
                if i > 0 {
                    out.push('|');
                }
                let escaped: Vec<String> = w.split_whitespace().map(regex::escape).collect();
                out.push_str(&escaped.join(r"\s+"));
            }
            out.push(')');
            rest = &after[close + 1..];
        }
        out.push_str(rest);
        Ok(out)
    }
}

/// The regex crate's error without its multi-line drawing: the line that says what is wrong.
fn regex_error(e: &regex::Error) -> String {
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
    fn vocab_expands_longest_first_and_rejects_unknown_names() {
        let mut v = Vocab::default();
        v.lists.insert(
            "kind".into(),
            vec!["page".into(), "landing page".into(), "c++".into()],
        );
        assert_eq!(
            v.expand(r"\b{:kind}\b").unwrap(),
            r"\b(?:landing\s+page|page|c\+\+)\b"
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
