//! Guards and actions of a flow: a small language, parsed once when the flow is loaded.
//!
//! A guard is one or more comparisons joined by `and`: `failures >= threshold`,
//! `errors / actions >= max_error_rate and actions > 0`. An operand is a number, a quoted
//! string, `true`/`false`/`null`, a name (a counter, a value or a setting of the flow),
//! `data.NAME` (the event's data) or `$state`; it may be combined with one other by `+`, `-`, `*`
//! or `/`. A division by zero makes its comparison false (never an error, never infinite).
//!
//! An action is `set NAME EXPR`, `add NAME EXPR` (counters) or `reset NAME` (to its initial
//! value). A quoted string may name values in braces: `'Plan generated with {total_phases}
//! phase(s)'`.

use std::collections::BTreeMap;

use serde_json::Value;

/// An operand.
#[derive(Clone, Debug, PartialEq)]
pub enum Atom {
    Num(f64),
    Str(String),
    Bool(bool),
    Null,
    /// A counter, value or setting.
    Name(String),
    /// `data.NAME`.
    Data(String),
    /// `$state`: the current state's name.
    State,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Add,
    Sub,
    Mul,
    Div,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    pub left: Atom,
    pub op: Option<(Op, Atom)>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cmp {
    Ge,
    Le,
    Gt,
    Lt,
    Eq,
    Ne,
}

impl Cmp {
    fn as_str(self) -> &'static str {
        match self {
            Cmp::Ge => ">=",
            Cmp::Le => "<=",
            Cmp::Gt => ">",
            Cmp::Lt => "<",
            Cmp::Eq => "==",
            Cmp::Ne => "!=",
        }
    }
}

/// Comparisons that must all hold.
#[derive(Clone, Debug, PartialEq)]
pub struct Guard {
    pub text: String,
    pub all: Vec<(Expr, Cmp, Expr)>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Action {
    Set(String, Expr),
    Add(String, Expr),
    Reset(String),
}

impl Action {
    /// The counter or value it changes.
    pub fn target(&self) -> &str {
        match self {
            Action::Set(n, _) | Action::Add(n, _) | Action::Reset(n) => n,
        }
    }
}

/// What expressions read: names resolve to counters, values and settings.
pub trait Scope {
    fn name(&self, name: &str) -> Option<Value>;
    fn data(&self, name: &str) -> Option<Value>;
    fn state(&self) -> &str;
}

fn tokens(text: &str) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if c.is_whitespace() {
            continue;
        }
        if c == '\'' || c == '"' {
            let mut s = String::from(c);
            let mut closed = false;
            for (_, d) in chars.by_ref() {
                s.push(d);
                if d == c {
                    closed = true;
                    break;
                }
            }
            if !closed {
                return Err(format!("a string not closed (from column {})", i + 1));
            }
            out.push(s);
            continue;
        }
        if "<>=!".contains(c) {
            let mut s = String::from(c);
            if let Some((_, '=')) = chars.peek() {
                s.push('=');
                chars.next();
            }
            out.push(s);
            continue;
        }
        if "+-*/".contains(c)
            && !(c == '-' && chars.peek().is_some_and(|(_, d)| d.is_ascii_digit()) && {
                // A minus sign of a number where an operand is expected.
                out.last().is_none_or(|t: &String| {
                    matches!(
                        t.as_str(),
                        "+" | "-" | "*" | "/" | ">=" | "<=" | ">" | "<" | "==" | "!=" | "and"
                    )
                })
            })
        {
            out.push(c.to_string());
            continue;
        }
        let mut s = String::from(c);
        while let Some((_, d)) = chars.peek() {
            if d.is_whitespace() || "<>=!+*/'\"".contains(*d) || (*d == '-' && !s.is_empty()) {
                break;
            }
            s.push(*d);
            chars.next();
        }
        out.push(s);
    }
    Ok(out)
}

fn atom(token: &str) -> Result<Atom, String> {
    if let Some(inner) = token
        .strip_prefix('\'')
        .and_then(|t| t.strip_suffix('\''))
        .or_else(|| token.strip_prefix('"').and_then(|t| t.strip_suffix('"')))
    {
        return Ok(Atom::Str(inner.to_string()));
    }
    match token {
        "true" => return Ok(Atom::Bool(true)),
        "false" => return Ok(Atom::Bool(false)),
        "null" => return Ok(Atom::Null),
        "$state" => return Ok(Atom::State),
        _ => {}
    }
    if let Ok(n) = token.parse::<f64>()
        && n.is_finite()
    {
        return Ok(Atom::Num(n));
    }
    let ident = |s: &str| {
        !s.is_empty()
            && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            && !s.starts_with(|c: char| c.is_ascii_digit())
    };
    if let Some(name) = token.strip_prefix("data.")
        && ident(name)
    {
        return Ok(Atom::Data(name.to_string()));
    }
    if ident(token) {
        return Ok(Atom::Name(token.to_string()));
    }
    Err(format!("\"{token}\" is not a number, a string or a name"))
}

fn expr(tokens: &[String]) -> Result<Expr, String> {
    // A leading minus sign belongs to the number after it.
    if let [minus, n, rest @ ..] = tokens
        && minus == "-"
        && n.starts_with(|c: char| c.is_ascii_digit())
    {
        let mut joined = vec![format!("-{n}")];
        joined.extend(rest.iter().cloned());
        return expr(&joined);
    }
    match tokens {
        [a] => Ok(Expr {
            left: atom(a)?,
            op: None,
        }),
        [a, op, b] => {
            let op = match op.as_str() {
                "+" => Op::Add,
                "-" => Op::Sub,
                "*" => Op::Mul,
                "/" => Op::Div,
                other => return Err(format!("\"{other}\" is not one of + - * /")),
            };
            Ok(Expr {
                left: atom(a)?,
                op: Some((op, atom(b)?)),
            })
        }
        [] => Err("an operand is missing".into()),
        _ => Err(format!(
            "\"{}\": an operand, or two joined by one of + - * /",
            tokens.join(" ")
        )),
    }
}

/// Parses a guard.
pub fn guard(text: &str) -> Result<Guard, String> {
    let toks = tokens(text)?;
    let mut all = Vec::new();
    for part in toks.split(|t| t == "and") {
        let at = part
            .iter()
            .position(|t| matches!(t.as_str(), ">=" | "<=" | ">" | "<" | "==" | "!="))
            .ok_or_else(|| {
                format!(
                    "\"{}\" compares nothing (use one of >= <= > < == !=)",
                    part.join(" ")
                )
            })?;
        let cmp = match part[at].as_str() {
            ">=" => Cmp::Ge,
            "<=" => Cmp::Le,
            ">" => Cmp::Gt,
            "<" => Cmp::Lt,
            "==" => Cmp::Eq,
            _ => Cmp::Ne,
        };
        all.push((expr(&part[..at])?, cmp, expr(&part[at + 1..])?));
    }
    Ok(Guard {
        text: text.to_string(),
        all,
    })
}

/// Parses an action.
pub fn action(text: &str) -> Result<Action, String> {
    let toks = tokens(text)?;
    match toks.first().map(String::as_str) {
        Some("set") if toks.len() >= 3 => Ok(Action::Set(name(&toks[1])?, expr(&toks[2..])?)),
        Some("add") if toks.len() >= 3 => Ok(Action::Add(name(&toks[1])?, expr(&toks[2..])?)),
        Some("reset") if toks.len() == 2 => Ok(Action::Reset(name(&toks[1])?)),
        _ => Err(format!(
            "\"{text}\": an action is `set NAME EXPR`, `add NAME EXPR` or `reset NAME`"
        )),
    }
}

fn name(token: &str) -> Result<String, String> {
    match atom(token)? {
        Atom::Name(n) => Ok(n),
        _ => Err(format!("\"{token}\" is not a counter or value name")),
    }
}

impl Expr {
    /// Every name it reads (not `data.` ones).
    pub fn names(&self) -> impl Iterator<Item = &str> {
        std::iter::once(&self.left)
            .chain(self.op.as_ref().map(|(_, b)| b))
            .filter_map(|a| match a {
                Atom::Name(n) => Some(n.as_str()),
                _ => None,
            })
    }

    /// The names a string template reads (`{name}`).
    pub fn template_names(&self) -> Vec<&str> {
        let mut out = Vec::new();
        for a in std::iter::once(&self.left).chain(self.op.as_ref().map(|(_, b)| b)) {
            if let Atom::Str(s) = a {
                let mut rest = s.as_str();
                while let Some(open) = rest.find('{') {
                    let Some(close) = rest[open..].find('}') else {
                        break;
                    };
                    out.push(&rest[open + 1..open + close]);
                    rest = &rest[open + close + 1..];
                }
            }
        }
        out
    }

    pub fn data_names(&self) -> impl Iterator<Item = &str> {
        std::iter::once(&self.left)
            .chain(self.op.as_ref().map(|(_, b)| b))
            .filter_map(|a| match a {
                Atom::Data(n) => Some(n.as_str()),
                _ => None,
            })
    }

    /// Its value; `None` for a division by zero or arithmetic on what is not a number.
    pub fn eval(&self, scope: &dyn Scope) -> Option<Value> {
        let left = value(&self.left, scope);
        let Some((op, right)) = &self.op else {
            return Some(left);
        };
        let right = value(right, scope);
        if let (Op::Add, Value::String(a)) = (op, &left) {
            return Some(Value::String(format!("{a}{}", plain(&right))));
        }
        let (a, b) = (left.as_f64()?, right.as_f64()?);
        let n = match op {
            Op::Add => a + b,
            Op::Sub => a - b,
            Op::Mul => a * b,
            Op::Div if b == 0.0 => return None,
            Op::Div => a / b,
        };
        number(n)
    }
}

fn number(n: f64) -> Option<Value> {
    if !n.is_finite() {
        return None;
    }
    if n.fract() == 0.0 && n.abs() < 9.0e15 {
        Some(Value::from(n as i64))
    } else {
        serde_json::Number::from_f64(n).map(Value::Number)
    }
}

/// A value as text in a template.
pub fn plain(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

fn value(atom: &Atom, scope: &dyn Scope) -> Value {
    match atom {
        Atom::Num(n) => number(*n).unwrap_or(Value::Null),
        Atom::Str(s) => Value::String(template(s, scope)),
        Atom::Bool(b) => Value::Bool(*b),
        Atom::Null => Value::Null,
        Atom::Name(n) => scope.name(n).unwrap_or(Value::Null),
        Atom::Data(n) => scope.data(n).unwrap_or(Value::Null),
        Atom::State => Value::String(scope.state().to_string()),
    }
}

fn template(s: &str, scope: &dyn Scope) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(open) = rest.find('{') {
        let Some(close) = rest[open..].find('}') else {
            break;
        };
        out.push_str(&rest[..open]);
        let name = &rest[open + 1..open + close];
        let v = if let Some(d) = name.strip_prefix("data.") {
            scope.data(d)
        } else if name == "$state" {
            Some(Value::String(scope.state().to_string()))
        } else {
            scope.name(name)
        };
        out.push_str(&v.as_ref().map(plain).unwrap_or_default());
        rest = &rest[open + close + 1..];
    }
    out.push_str(rest);
    out
}

impl Guard {
    /// Whether every comparison holds; the first that does not, as text, otherwise.
    pub fn check(&self, scope: &dyn Scope) -> Result<(), String> {
        for (a, cmp, b) in &self.all {
            let (x, y) = (a.eval(scope), b.eval(scope));
            let holds = match (&x, &y) {
                (Some(x), Some(y)) => compare(x, *cmp, y),
                _ => false,
            };
            if !holds {
                let shown =
                    |v: &Option<Value>| v.as_ref().map_or("undefined".into(), |v| v.to_string());
                return Err(format!(
                    "{} {} {} ({} {} {})",
                    a.show(),
                    cmp.as_str(),
                    b.show(),
                    shown(&x),
                    cmp.as_str(),
                    shown(&y)
                ));
            }
        }
        Ok(())
    }
}

impl Expr {
    fn show(&self) -> String {
        let a = |x: &Atom| match x {
            Atom::Num(n) => n.to_string(),
            Atom::Str(s) => format!("'{s}'"),
            Atom::Bool(b) => b.to_string(),
            Atom::Null => "null".into(),
            Atom::Name(n) => n.clone(),
            Atom::Data(n) => format!("data.{n}"),
            Atom::State => "$state".into(),
        };
        match &self.op {
            None => a(&self.left),
            Some((op, b)) => {
                let o = match op {
                    Op::Add => "+",
                    Op::Sub => "-",
                    Op::Mul => "*",
                    Op::Div => "/",
                };
                format!("{} {o} {}", a(&self.left), a(b))
            }
        }
    }
}

fn compare(x: &Value, cmp: Cmp, y: &Value) -> bool {
    if let (Some(a), Some(b)) = (x.as_f64(), y.as_f64()) {
        return match cmp {
            Cmp::Ge => a >= b,
            Cmp::Le => a <= b,
            Cmp::Gt => a > b,
            Cmp::Lt => a < b,
            Cmp::Eq => a == b,
            Cmp::Ne => a != b,
        };
    }
    match cmp {
        Cmp::Eq => x == y,
        Cmp::Ne => x != y,
        _ => false,
    }
}

/// A scope over maps, for tests and tools.
#[derive(Debug)]
pub struct MapScope<'a> {
    pub names: &'a BTreeMap<String, Value>,
    pub data: &'a BTreeMap<String, Value>,
    pub state: &'a str,
}

impl Scope for MapScope<'_> {
    fn name(&self, name: &str) -> Option<Value> {
        self.names.get(name).cloned()
    }
    fn data(&self, name: &str) -> Option<Value> {
        self.data.get(name).cloned()
    }
    fn state(&self) -> &str {
        self.state
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn scope<'a>(
        names: &'a BTreeMap<String, Value>,
        data: &'a BTreeMap<String, Value>,
    ) -> MapScope<'a> {
        MapScope {
            names,
            data,
            state: "closed",
        }
    }

    #[test]
    fn guards_compare_and_never_divide_by_zero() {
        let names: BTreeMap<String, Value> = [
            ("failures".to_string(), json!(3)),
            ("threshold".to_string(), json!(3)),
            ("errors".to_string(), json!(0)),
            ("actions".to_string(), json!(0)),
        ]
        .into();
        let data = BTreeMap::new();
        let s = scope(&names, &data);
        assert!(guard("failures >= threshold").unwrap().check(&s).is_ok());
        assert!(guard("failures > threshold").unwrap().check(&s).is_err());
        let rate = guard("errors / actions >= 0.2").unwrap();
        let why = rate.check(&s).unwrap_err();
        assert!(why.contains("undefined"), "{why}");
        assert!(
            guard("$state == 'closed' and failures - 1 < threshold")
                .unwrap()
                .check(&s)
                .is_ok()
        );
        assert!(guard("failures").is_err());
        assert!(guard("a >= b c").is_err());
    }

    #[test]
    fn actions_and_templates() {
        let names: BTreeMap<String, Value> = [("total_phases".to_string(), json!(5))].into();
        let data: BTreeMap<String, Value> = [("tokens".to_string(), json!(250))].into();
        let s = scope(&names, &data);
        let Action::Set(n, e) =
            action("set activity 'Plan generated with {total_phases} phase(s). Ready!'").unwrap()
        else {
            panic!()
        };
        assert_eq!(n, "activity");
        assert_eq!(
            e.eval(&s),
            Some(json!("Plan generated with 5 phase(s). Ready!"))
        );
        let Action::Add(_, e) = action("add tokens_used data.tokens").unwrap() else {
            panic!()
        };
        assert_eq!(e.eval(&s), Some(json!(250)));
        assert!(action("add x").is_err());
        assert!(action("set 3 4").is_err());
        assert_eq!(
            action("set x -1").unwrap(),
            Action::Set(
                "x".into(),
                Expr {
                    left: Atom::Num(-1.0),
                    op: None
                }
            )
        );
    }
}
