//! One pattern file read: its tables and phrase lists checked key by key, each problem with
//! its line (`Cx`).

use super::*;

pub(super) type Table<'i> = DeTable<'i>;

/// The checking context of one file.
pub(super) struct Cx<'a> {
    pub(super) path: &'a str,
    pub(super) text: &'a str,
    pub(super) errors: Vec<Diagnostic>,
}

impl Cx<'_> {
    pub(super) fn error(&mut self, span: Range<usize>, message: impl Into<String>) {
        self.errors.push(Diagnostic {
            path: self.path.to_string(),
            line: Some(line_of(self.text, span.start)),
            message: message.into(),
        });
    }

    /// Reports keys of `table` that are not in `known`.
    pub(super) fn known_keys(&mut self, table: &Table<'_>, known: &[&str], what: &str) {
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

    pub(super) fn missing(&mut self, at: Range<usize>, key: &str, what: &str) {
        self.error(at, format!("missing key `{key}` in {what}"));
    }

    pub(super) fn string(
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

    pub(super) fn optional_string(
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
    pub(super) fn phrases(
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

    pub(super) fn tables<'t, 'i>(
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

    pub(super) fn integer(
        &mut self,
        table: &Table<'_>,
        key: &str,
        min: i64,
        max: i64,
    ) -> Option<i64> {
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

    pub(super) fn regex(
        &mut self,
        pattern: &str,
        span: Range<usize>,
        vocab: &Vocab,
    ) -> Option<Pattern> {
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

    pub(super) fn settings(&mut self, doc: &Table<'_>) -> Settings {
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

    pub(super) fn signals(&mut self, doc: &Table<'_>) -> Vec<SignalDef> {
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

    pub(super) fn slots(&mut self, doc: &Table<'_>) -> Vec<(Range<usize>, SlotDef)> {
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

    pub(super) fn vocab(&mut self, doc: &Table<'_>) -> Vocab {
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

    pub(super) fn goals(
        &mut self,
        doc: &Table<'_>,
        slots: &[(Range<usize>, SlotDef)],
    ) -> Vec<GoalDef> {
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
                        "action" => Some(ChangeMode::Action),
                        "exchange" => Some(ChangeMode::Exchange),
                        _ => {
                            self.error(
                                s,
                                format!("unknown change `{m}` (expected object, phrase, result, lead, content, action or exchange)"),
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
