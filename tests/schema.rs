//! The JSON Schema in `docs/protocol.schema.json`: generated from the Rust types, committed up
//! to date, and describing the frames the server really sends.

mod common;

use std::path::Path;
use std::process::Command;

use common::{Client, TestServer, WORKED_EXAMPLE};
use convstate::protocol::ServerFrame;
use serde_json::{Value, json};

fn schema() -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/protocol.schema.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn the_protocol_schema_in_docs_is_up_to_date() {
    let out = Command::new(env!("CARGO_BIN_EXE_convstate"))
        .arg("schema")
        .output()
        .unwrap();
    assert!(out.status.success());
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/protocol.schema.json");
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == String::from_utf8_lossy(&out.stdout),
        "docs/protocol.schema.json is out of date: run `cargo run -- schema > docs/protocol.schema.json`"
    );
}

/// Checks `value` against `schema` for the keywords the generated schema uses: `$ref`, `type`,
/// `properties`, `required`, `additionalProperties: false`, `items`, `enum`, `const`, `oneOf`,
/// `anyOf`. Returns what does not fit, with a path.
fn check(defs: &Value, schema: &Value, value: &Value, path: &str, out: &mut Vec<String>) {
    if let Some(r) = schema.get("$ref").and_then(Value::as_str) {
        let name = r.trim_start_matches("#/$defs/");
        return check(defs, &defs[name], value, path, out);
    }
    for key in ["oneOf", "anyOf"] {
        if let Some(options) = schema.get(key).and_then(Value::as_array) {
            let fits = options.iter().filter(|o| {
                let mut errors = Vec::new();
                check(defs, o, value, path, &mut errors);
                errors.is_empty()
            });
            let n = fits.count();
            if n == 0 || (key == "oneOf" && n > 1) {
                out.push(format!("{path}: {n} options of {key} fit {value}"));
            }
        }
    }
    if let Some(c) = schema.get("const")
        && c != value
    {
        out.push(format!("{path}: {value} is not {c}"));
    }
    if let Some(e) = schema.get("enum").and_then(Value::as_array)
        && !e.contains(value)
    {
        out.push(format!("{path}: {value} not in {e:?}"));
    }
    if let Some(t) = schema.get("type") {
        let types: Vec<&str> = match t {
            Value::String(s) => vec![s.as_str()],
            Value::Array(a) => a.iter().filter_map(Value::as_str).collect(),
            _ => vec![],
        };
        let actual = match value {
            Value::Null => "null",
            Value::Bool(_) => "boolean",
            Value::Number(n) if n.is_u64() || n.is_i64() => "integer",
            Value::Number(_) => "number",
            Value::String(_) => "string",
            Value::Array(_) => "array",
            Value::Object(_) => "object",
        };
        let fits = types.contains(&actual) || (actual == "integer" && types.contains(&"number"));
        if !fits {
            out.push(format!("{path}: {actual} is not {types:?}"));
        }
    }
    if let (Some(props), Some(obj)) = (
        schema.get("properties").and_then(Value::as_object),
        value.as_object(),
    ) {
        for req in schema
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if !obj.contains_key(req.as_str().unwrap()) {
                out.push(format!("{path}: missing {req}"));
            }
        }
        for (k, v) in obj {
            match props.get(k) {
                Some(s) => check(defs, s, v, &format!("{path}.{k}"), out),
                None if schema.get("additionalProperties") == Some(&Value::Bool(false)) => {
                    out.push(format!("{path}: unexpected {k}"))
                }
                None => out.push(format!("{path}: {k} is not in the schema")),
            }
        }
    }
    if let (Some(items), Some(arr)) = (schema.get("items"), value.as_array()) {
        for (i, v) in arr.iter().enumerate() {
            check(defs, items, v, &format!("{path}[{i}]"), out);
        }
    }
}

/// A frame's text as it came, as JSON: what the schema describes.
fn raw(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("not JSON: {e}: {text}"))
}

/// `Client::connect`, keeping the `welcome` frame's text as it came.
async fn connect_raw(url: &str) -> (Client, String) {
    let (ws, _) = tokio_tungstenite::connect_async(url)
        .await
        .expect("connects");
    let mut client = Client {
        ws,
        session_id: String::new(),
    };
    let text = client.recv_text().await;
    let ServerFrame::Welcome(welcome) = ServerFrame::parse(&text).unwrap_or_else(|e| panic!("{e}"))
    else {
        panic!("the first frame is not a welcome: {text}");
    };
    assert_eq!(welcome.protocol, 1);
    client.session_id = welcome.session_id.into_owned();
    (client, text)
}

/// `Client::turn`, keeping the texts of the `state` frame and the `ack` as they came.
async fn turn_raw(client: &mut Client, role: &str, text: &str, id: &str) -> (String, String) {
    client
        .send(json!({"type": "message", "role": role, "text": text, "id": id}))
        .await;
    let state = client.recv_text().await;
    let ack = client.recv_text().await;
    let ServerFrame::State(s) = ServerFrame::parse(&state).unwrap_or_else(|e| panic!("{e}")) else {
        panic!("expected a state frame, got {state}");
    };
    let ServerFrame::Ack(a) = ServerFrame::parse(&ack).unwrap_or_else(|e| panic!("{e}")) else {
        panic!("expected the ack of {id}, got {ack}");
    };
    assert_eq!(a.id, id);
    assert_eq!(a.seq, s.seq);
    (state, ack)
}

#[tokio::test]
async fn real_frames_fit_the_schema() {
    let schema = schema();
    let defs = &schema["$defs"];
    let server = TestServer::default().await;
    let (mut client, welcome) = connect_raw(&server.ws_url("")).await;
    let mut frames = vec![raw(&welcome)];
    for (i, (role, text, _)) in WORKED_EXAMPLE.iter().enumerate() {
        let (state, ack) = turn_raw(&mut client, role, text, &format!("c-{i}")).await;
        frames.push(raw(&state));
        frames.push(raw(&ack));
    }
    client.send(json!({"type": "dance"})).await;
    frames.push(raw(&client.recv_text().await));
    let mut errors = Vec::new();
    for frame in &frames {
        check(defs, &defs["ServerFrame"], frame, "frame", &mut errors);
    }
    assert!(errors.is_empty(), "{}", errors.join("\n"));

    // The client frames of the protocol fit too; a wrong one does not.
    for good in [
        json!({"type":"message","role":"user","text":"hi","id":"c-1"}),
        json!({"type":"signal","signal":"approve"}),
        json!({"type":"get_state"}),
        json!({"type":"reset"}),
    ] {
        let mut e = Vec::new();
        check(defs, &defs["ClientFrame"], &good, "client", &mut e);
        assert!(e.is_empty(), "{good}: {e:?}");
    }
    let mut e = Vec::new();
    check(
        defs,
        &defs["ClientFrame"],
        &json!({"type":"message","role":"robot","text":"x"}),
        "client",
        &mut e,
    );
    assert!(!e.is_empty(), "the checker must be able to fail");
    server.stop().await;
}
