// The convstate demo widget: a chat pane and the live state of its session.
//
// mount(container, options) renders it into `container`. options:
//   server  base URL of the convstate server (default: this page's origin)
//   session a session id to join (default: the last one used here; the demo page also reads
//           its own ?session=, an embedded widget never takes one from the host page's URL)
//   token   a token, when the server has authentication on (the demo page reads #token=...)
//   page    true when the widget is the whole page: the session id goes into the address bar
//   explain true to show the inspector's notes from the start (the demo page reads ?explain=1);
//           its checkbox turns them on and off
//   assistant who answers as the assistant: "guide" (the server's built-in guide answers every
//           user turn), "llm" (a model answers, its reply shown as it is written, with a stop
//           button) or "observer" (nobody does: type both sides); the demo page reads
//           ?assistant= and defaults to the guide, an embedded widget keeps the server's choice
//           unless given one. Its selector changes it for the session.
//   flow    a hosted flow to run instead of a conversation ("moderator", "conductor-ui"...; the
//           demo page reads ?flow=); its selector starts a new session of any flow. A flow's
//           state, counters and values are shown, and the events its state allows as buttons
//           (with a small form for events that carry data).
//
// It speaks the wire protocol: `welcome` then `state` frames over /ws, turns and signals sent
// as frames; the transcript comes from /api/sessions/{id}/events.

const PHASES = ["greeting", "understanding", "planning", "executing", "reviewing", "completed", "idle"];
const MILESTONES = new Set(["understanding", "executing", "completed"]);
const SIGNALS = ["approve", "start_work", "work_done", "satisfied", "change_request", "cancel"];
const STORE_KEY = "convstate.session";
// The most events GET /api/sessions/{id}/events returns at once.
const PAGE = 1000;
// The most messages the chat pane keeps.
const SHOWN = 500;

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") node.className = v;
    else if (k === "text") node.textContent = v;
    else node.setAttribute(k, v);
  }
  for (const c of children) node.append(c);
  return node;
}

export function mount(container, options = {}) {
  const server = (options.server || location.origin).replace(/\/$/, "");
  const params = new URLSearchParams(location.search);
  // A crafted link must not put a visitor of a host page into someone else's session: only the
  // demo page, the server's own, reads the address bar.
  const fromUrl = options.page ? params.get("session") : null;
  let session = options.session || fromUrl || localStorage.getItem(STORE_KEY) || null;
  // In the fragment: not sent with the page's own request. It travels as ?token= on the
  // WebSocket (browsers cannot set its headers) and as a bearer header to the API.
  const token = options.token || (options.page ? new URLSearchParams(location.hash.slice(1)).get("token") : null);
  let seq = 0;
  let state = null;
  let socket = null;
  let welcomed = false;
  let retry = 0;
  let nextId = 1;
  let shownEvents = 0;
  const reached = new Set();
  let flowName = options.flow || (options.page ? params.get("flow") : null) || "conversation";
  let flowDefs = {};

  // --- the layout: built once, then only texts and lists change ---
  const connection = el("span", { class: "connection", "data-testid": "connection", "data-state": "connecting", text: "connecting…", role: "status" });
  const sessionLabel = el("span", { class: "session", "data-testid": "session" });
  const messages = el("div", { class: "messages", "data-testid": "messages", "aria-live": "polite" });
  const input = el("input", { type: "text", "data-testid": "message-input", placeholder: "Type a message, Enter sends", "aria-label": "Message" });
  const role = el("select", { "data-testid": "role", "aria-label": "Speak as" },
    el("option", { value: "user", text: "user" }), el("option", { value: "assistant", text: "assistant" }));
  const send = el("button", { class: "primary", "data-testid": "send", type: "button", text: "Send" });
  const signals = el("div", { class: "signals" });
  for (const s of SIGNALS) {
    signals.append(el("button", { type: "button", "data-testid": `signal-${s}`, "data-signal": s, text: s.replace("_", " ") }));
  }
  signals.append(el("button", { type: "button", "data-testid": "reset", text: "reset" }));

  const timeline = el("ol", { class: "timeline", "aria-label": "Phases" });
  const phaseItems = Object.fromEntries(PHASES.map((p) => [p, el("li", { "data-phase": p, text: p })]));
  timeline.append(...Object.values(phaseItems));
  const phase = el("strong", { "data-testid": "phase" });
  const turns = el("strong", { class: "num", "data-testid": "turn-count", text: "0" });
  const countdown = el("strong", { class: "num", "data-testid": "idle-countdown", text: "–" });
  const goalType = el("dd", { "data-testid": "goal-type" });
  const goalDescription = el("dd", { "data-testid": "goal-description" });
  const slots = el("ul", { class: "slots", "data-testid": "required-info" });
  // What the goal carries beside its slots: the change requests, and the goals waiting.
  const notes = el("ul", { class: "notes", "data-testid": "goal-notes" });
  const historyList = el("ul", { class: "history", "data-testid": "history" });
  const log = el("ul", { class: "log", "data-testid": "transitions" });
  const summary = el("pre", { class: "summary", "data-testid": "summary" });
  // The inspector: why the last change went as it did (the server's `explain` object).
  let explainOn = options.explain || (options.page && params.get("explain") === "1");
  const explainToggle = el("input", { type: "checkbox", "data-testid": "explain-toggle", "aria-label": "Explain each change" });
  explainToggle.checked = !!explainOn;
  const inspector = el("ul", { class: "log inspector", "data-testid": "inspector" });
  // Who answers: sent as a `configure` frame once connected, and whenever it is changed.
  let wanted = options.assistant || (options.page ? params.get("assistant") || "guide" : null);
  const assistantMode = el("select", { "data-testid": "assistant-mode", "aria-label": "Who answers" },
    el("option", { value: "", text: "the server's choice" }),
    el("option", { value: "guide", text: "the guide answers" }),
    el("option", { value: "llm", text: "a model answers (llm)" }),
    el("option", { value: "observer", text: "nobody answers: type both sides" }));
  assistantMode.value = wanted || "";
  // The llm assistant's reply as it is written: one bubble, filled piece by piece, replaced by
  // the stored turn when it comes; and a button that stops it.
  let writing = null; // { id, text, node }
  const stop = el("button", { type: "button", "data-testid": "stop", text: "stop", hidden: "" });
  const busy = el("span", { class: "busy", "data-testid": "assistant-status", role: "status" });

  // A hosted flow: which one, its state, and its allowed events as buttons.
  const flowSelect = el("select", { "data-testid": "flow", "aria-label": "Session of" },
    el("option", { value: "conversation", text: "a conversation" }));
  const flowCurrent = el("strong", { "data-testid": "flow-current" });
  const flowValues = el("table", { class: "values", "data-testid": "flow-values" });
  const flowEvents = el("div", { class: "signals", "data-testid": "flow-events" });
  const flowForm = el("form", { class: "event-form", "data-testid": "event-form", hidden: "" });
  const flowPane = el("div", { class: "state flow", hidden: "" },
    el("section", { class: "wide" }, el("h2", { text: "Flow" }),
      el("div", { class: "now" }, "State: ", flowCurrent),
      el("h3", { text: "Allowed events" }), flowEvents, flowForm),
    el("section", { class: "wide" }, el("h2", { text: "Counters and values" }), flowValues));
  const flowLog = el("ul", { class: "log", "data-testid": "flow-transitions" });
  const flowSummary = el("pre", { class: "summary", "data-testid": "flow-summary" });
  flowPane.append(
    el("section", {}, el("h2", { text: "Transitions" }), flowLog),
    el("section", {}, el("h2", { text: "Summary for the LLM" }), flowSummary));

  const chatPane = el("div", { class: "chat" },
      el("h2", { text: "Chat" }), messages,
      el("div", { class: "compose" }, role, input, send), signals,
      el("label", { class: "mode" }, "Assistant: ", assistantMode), busy, stop);
  const statePane = el("div", { class: "state" },
      el("section", { class: "wide" }, el("h2", { text: "Phase" }), timeline,
        el("div", { class: "now" }, "Now: ", phase, " · turns: ", turns, " · idle in: ", countdown)),
      el("section", { class: "wide" }, el("h2", { text: "Current goal" }),
        el("dl", {}, el("dt", { text: "Type" }), goalType, el("dt", { text: "Description" }), goalDescription),
        slots, notes),
      el("section", {}, el("h2", { text: "Finished goals" }), historyList),
      el("section", {}, el("h2", { text: "Transitions" }), log),
      el("section", { class: "wide" },
        el("h2", {}, "Inspector ", el("label", { class: "toggle" }, explainToggle, " explain each change")),
        inspector),
      el("section", { class: "wide" }, el("h2", { text: "Summary for the LLM" }), summary));
  const root = el("div", { class: "cs" },
    el("header", {}, el("h1", { text: "convstate" }), el("label", { class: "mode" }, "Session of ", flowSelect), sessionLabel, connection),
    chatPane, statePane, flowPane);
  container.replaceChildren(root);

  // --- talking to the server ---
  function setConnection(what, text) {
    connection.dataset.state = what;
    connection.textContent = text;
  }

  function connect() {
    const url = new URL(server.replace(/^http/, "ws") + "/ws");
    if (session) {
      url.searchParams.set("session_id", session);
      url.searchParams.set("last_seq", String(seq));
      if (writing) {
        // Mid-reply: only the rest of it.
        url.searchParams.set("reply_id", writing.id);
        url.searchParams.set("reply_offset", String(new TextEncoder().encode(writing.text).length));
      }
    }
    else if (flowName && flowName !== "conversation") url.searchParams.set("flow", flowName);
    if (token) url.searchParams.set("token", token);
    if (explainOn) url.searchParams.set("explain", "1");
    socket = new WebSocket(url);
    welcomed = false;
    socket.onmessage = (event) => receive(JSON.parse(event.data));
    socket.onclose = async () => {
      socket = null;
      // Refused before it opened, with a token: a browser does not see why, so ask the API.
      if (!welcomed && token) {
        const why = await refusal();
        if (why === 401) {
          setConnection("refused", "the token was refused: reload the page with a new one");
          return;
        }
        if (why === 403 && session) {
          // Someone else's session (a shared browser, a crafted link): start one of our own.
          log.prepend(el("li", { text: `session ${session} belongs to someone else: starting a new one` }));
          setSession(null);
          messages.replaceChildren();
          shownEvents = 0;
          connect();
          return;
        }
      }
      const wait = Math.min(5000, 250 * 2 ** retry++);
      setConnection("reconnecting", `reconnecting in ${Math.ceil(wait / 1000)} s…`);
      setTimeout(connect, wait);
    };
  }

  // The status the API answers this token for the current session: 401 (the token is
  // refused) or 403 (not this token's session); null when it does not say.
  async function refusal() {
    try {
      const id = encodeURIComponent(session || "s-none");
      const response = await fetch(`${server}/api/sessions/${id}`, { headers: { Authorization: `Bearer ${token}` } });
      if (response.status === 401 || response.status === 403) return response.status;
    } catch (_) {
      // Not reachable: retry as for any closed connection.
    }
    return null;
  }

  function receive(frame) {
    if (frame.type === "welcome") {
      welcomed = true;
      retry = 0;
      setSession(frame.session_id);
      setConnection("connected", "connected");
      render(frame.state, frame.seq, frame.summary, []);
      if (frame.state.flow) return;
      loadTranscript();
      if (wanted) socket.send(JSON.stringify({ type: "configure", assistant: wanted }));
    } else if (frame.type === "assistant_delta") {
      showDelta(frame);
    } else if (frame.type === "assistant_status") {
      const replying = frame.status === "replying";
      busy.textContent = replying ? "the assistant is writing…" : frame.status === "unavailable" ? `the assistant is unavailable${frame.reason ? `: ${frame.reason}` : ""}` : "";
      busy.dataset.status = frame.status;
      stop.hidden = !replying;
    } else if (frame.type === "state") {
      if (frame.message && frame.message.role === "assistant" && writing) {
        // The reply is stored: the transcript shows it from the log.
        writing.node.remove();
        writing = null;
      }
      render(frame.state, frame.seq, frame.summary, frame.transitions);
      if (frame.state.flow) return;
      if (frame.explain) renderExplain(frame.explain);
      loadTranscript();
    } else if (frame.type === "error") {
      if (frame.code === "unknown_session" || frame.code === "session_deleted") {
        // Start a new conversation rather than retrying a session that is gone.
        setSession(null);
        messages.replaceChildren();
        shownEvents = 0;
        log.replaceChildren();
      }
      (state && state.flow ? flowLog : log).prepend(el("li", { class: "error", text: `error ${frame.code}: ${frame.message}` }));
    }
  }

  function setSession(id) {
    session = id;
    sessionLabel.textContent = id ? `session ${id}` : "";
    if (id) localStorage.setItem(STORE_KEY, id);
    else localStorage.removeItem(STORE_KEY);
    if (options.page) {
      const url = new URL(location.href);
      if (id) url.searchParams.set("session", id);
      else url.searchParams.delete("session");
      window.history.replaceState(null, "", url);
    }
  }

  function sendFrame(frame) {
    if (socket && socket.readyState === WebSocket.OPEN) {
      socket.send(JSON.stringify({ ...frame, id: `w-${Date.now()}-${nextId++}` }));
      return true;
    }
    return false;
  }

  function sendMessage() {
    const text = input.value.trim();
    if (!text) return;
    if (sendFrame({ type: "message", role: role.value, text })) input.value = "";
  }

  // The transcript is the session's event log: the same for every page of the session. Each
  // change fetches only the events after the last one shown.
  let loading = false;
  let again = false;
  let shownSession = null;
  async function loadTranscript() {
    if (!session) return;
    if (loading) { again = true; return; }
    loading = true;
    try {
      if (session !== shownSession) { messages.replaceChildren(); shownEvents = 0; shownSession = session; }
      const from = session;
      // The log comes in pages of at most 1,000 events: fetch until a page is short.
      for (;;) {
        const headers = token ? { Authorization: `Bearer ${token}` } : {};
        const response = await fetch(`${server}/api/sessions/${encodeURIComponent(from)}/events?after=${shownEvents}`, { headers });
        if (!response.ok || from !== shownSession) break;
        const events = await response.json();
        for (const e of events) {
          if (e.seq <= shownEvents) continue;
          // A reset starts a new conversation: the pane shows what came after it.
          if (e.type === "reset") messages.replaceChildren();
          if (e.type === "message") {
            messages.append(el("div", { class: `msg ${e.role}` }, el("span", { class: "who", text: e.role }), e.text));
          }
          shownEvents = e.seq;
        }
        // The pane keeps the last SHOWN messages; earlier ones stay in the event log.
        while (messages.childElementCount > SHOWN) messages.firstElementChild.remove();
        if (events.length) messages.scrollTop = messages.scrollHeight;
        if (events.length < PAGE) break;
      }
    } catch (_) {
      // The live state still updates; the transcript catches up on the next change.
    } finally {
      loading = false;
      if (again) { again = false; loadTranscript(); }
    }
  }

  function showDelta(d) {
    if (!writing || writing.id !== d.reply_id) {
      if (writing) writing.node.remove();
      const body = el("span", { class: "text" });
      const node = el("div", { class: "msg assistant writing", "data-testid": "writing" }, el("span", { class: "who", text: "assistant" }), body);
      writing = { id: d.reply_id, text: "", node, body };
      messages.append(node);
    }
    // Pieces come in order, each from where the last one ended (bytes of UTF-8).
    if (new TextEncoder().encode(writing.text).length === d.offset) {
      writing.text += d.text;
      writing.body.textContent = writing.text;
      messages.scrollTop = messages.scrollHeight;
    }
  }

  stop.addEventListener("click", () => {
    if (socket && socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify({ type: "stop" }));
  });

  assistantMode.addEventListener("change", () => {
    wanted = assistantMode.value || null;
    if (wanted && socket && socket.readyState === WebSocket.OPEN) {
      socket.send(JSON.stringify({ type: "configure", assistant: wanted }));
    }
  });
  explainToggle.addEventListener("change", () => {
    explainOn = explainToggle.checked;
    if (!explainOn) inspector.replaceChildren();
    // Session options carry no id: they are not changes of the conversation.
    if (socket && socket.readyState === WebSocket.OPEN) {
      socket.send(JSON.stringify({ type: "configure", explain: explainOn }));
    }
  });

  // One line per reading decision: corrections, phrases (counted ✓ or dropped ✗ and why), the
  // goal lead, the rule that fired.
  function renderExplain(e) {
    const lines = [];
    for (const c of e.corrections || []) lines.push(["typo", `typo: “${c.written}” read as “${c.read}”`]);
    for (const p of e.phrases) {
      const verdict = p.dropped_by ? `✗ dropped by the ${p.dropped_by} rule` : "✓ counts";
      lines.push([p.dropped_by ? "dropped" : "counted", `${p.class} “${p.text}” (${p.role}, ${p.start}–${p.end}) ${verdict}`]);
    }
    if (e.goal) {
      const wrapper = e.goal.wrapper ? ` after “${e.goal.wrapper}”` : "";
      const found = e.goal.found ? ` (${e.goal.found})` : "";
      lines.push(["goal", `goal: ${e.goal.goal_type}, lead “${e.goal.lead}”${wrapper}: ${e.goal.description}${found}`]);
      for (const d of e.goal.details || []) lines.push(["goal", `detail: ${d}`]);
      for (const q of e.goal.queued || []) lines.push(["goal", `queued: ${q}`]);
    }
    lines.push(["rule", `rule: ${e.rule}`]);
    inspector.replaceChildren(...lines.map(([kind, text]) => el("li", { class: kind, text })));
  }

  // --- rendering ---
  function render(next, nextSeq, text, transitions) {
    const isFlow = !!next.flow;
    chatPane.hidden = isFlow;
    statePane.hidden = isFlow;
    flowPane.hidden = !isFlow;
    if (isFlow) {
      state = next;
      seq = nextSeq;
      renderFlow(next, text, transitions);
      return;
    }
    state = next;
    seq = nextSeq;
    for (const t of transitions) {
      if (t.milestone) reached.add(t.to);
      log.prepend(el("li", { text: `${t.from} → ${t.to}: ${t.reason}${t.milestone ? " ★" : ""}` }));
    }
    if (state.last_milestone) reached.add(state.last_milestone.phase);
    for (const p of PHASES) {
      phaseItems[p].classList.toggle("current", p === state.phase);
      phaseItems[p].classList.toggle("milestone", MILESTONES.has(p) && reached.has(p));
    }
    phase.textContent = state.phase;
    turns.textContent = String(state.turn_count);
    const goal = state.current_goal;
    goalType.textContent = goal ? goal.type : "none";
    goalDescription.textContent = goal ? goal.description : "";
    goalDescription.title = goalDescription.textContent;
    slots.replaceChildren(...(goal ? goal.required_info : []).map((s) =>
      el("li", { class: s.status, "data-slot": s.name, title: `${s.name}: ${s.value || s.description}` }, `${s.name}: ${s.description}`,
        s.value ? el("span", { class: "value", text: ` — ${s.value}` }) : "")));
    notes.replaceChildren(
      ...(goal && goal.requested_changes ? goal.requested_changes : []).map((c) =>
        el("li", { class: "change", title: c, text: `change asked: ${c}` })),
      ...(state.queued_goals || []).map((q) =>
        el("li", { class: "queued", title: q.statement, text: `${q.alternative ? "or" : "then"}: ${q.type}: ${q.description}` })));
    historyList.replaceChildren(...state.completed_goals.slice().reverse().map((g) =>
      el("li", { class: g.status, text: `${g.type}: ${g.description} — ${g.status} (${g.reason})` })));
    if (!state.completed_goals.length) historyList.append(el("li", { class: "empty", text: "none yet" }));
    // The state carries the most recent finished goals; the rest are in the session's history.
    const earlier = (state.completed_goals_total || 0) - state.completed_goals.length;
    if (earlier > 0) historyList.append(el("li", { class: "empty", text: `and ${earlier} earlier` }));
    summary.textContent = text;
    tick();
  }

  function renderFlow(run, text, transitions) {
    if (flowSelect.value !== run.flow && [...flowSelect.options].some((o) => o.value === run.flow)) flowSelect.value = run.flow;
    flowName = run.flow;
    for (const t of transitions) {
      flowLog.prepend(el("li", { text: `${t.from} → ${t.to}: ${t.reason}${t.event ? ` (${t.event})` : ""}` }));
    }
    flowCurrent.textContent = run.ended ? `${run.state} (ended)` : run.state;
    flowCurrent.dataset.state = run.state;
    const rows = [];
    for (const [k, v] of Object.entries(run.counters)) rows.push([k, String(v)]);
    for (const [k, v] of Object.entries(run.values)) rows.push([k, v === null || v === "" ? "–" : String(v)]);
    if (run.previous_state) rows.push(["previous_state", run.previous_state]);
    flowValues.replaceChildren(...rows.map(([k, v]) => el("tr", { "data-name": k }, el("th", { text: k }), el("td", { text: v }))));
    flowEvents.replaceChildren(...run.allowed_events.map((name) =>
      el("button", { type: "button", "data-testid": `event-${name}`, "data-event": name, text: name.replaceAll("_", " ") })));
    if (!run.allowed_events.length) flowEvents.append(el("span", { class: "empty", text: "none: the flow has ended" }));
    flowForm.hidden = true;
    flowSummary.textContent = text;
  }

  // An event's data, asked for in a small form when it has any (typed as the flow declares).
  function askData(name) {
    const def = (flowDefs[flowName] || { events: [] }).events.find((e) => e.name === name);
    const fields = def ? Object.entries(def.data) : [];
    if (!fields.length) { sendFrame({ type: "event", name }); return; }
    // A type ending with ? is optional: left empty, it is not sent.
    const inputs = fields.map(([field, declared]) => {
      const type = declared.replace(/\?$/, "");
      const box = type === "bool"
        ? el("input", { type: "checkbox", "data-testid": `field-${field}`, "data-type": type })
        : el("input", { type: type === "string" ? "text" : "number", step: type === "int" || type === "count" ? "1" : "any", min: type === "count" ? "0" : "", "data-testid": `field-${field}`, "data-type": type, placeholder: declared });
      return [field, type, box];
    });
    flowForm.replaceChildren(
      el("strong", { text: name.replaceAll("_", " ") }),
      ...inputs.map(([field, , box]) => el("label", {}, `${field} `, box)),
      el("button", { type: "submit", class: "primary", "data-testid": "send-event", text: "send" }));
    flowForm.onsubmit = (e) => {
      e.preventDefault();
      const data = {};
      for (const [field, type, box] of inputs) {
        if (type === "bool") data[field] = box.checked;
        else if (box.value === "") continue;
        else data[field] = type === "string" ? box.value : Number(box.value);
      }
      sendFrame({ type: "event", name, data });
      flowForm.hidden = true;
    };
    flowForm.hidden = false;
    inputs[0][2].focus();
  }

  flowEvents.addEventListener("click", (e) => {
    const button = e.target.closest("button");
    if (button && button.dataset.event) askData(button.dataset.event);
  });

  // Another kind of session: a new one, of the flow chosen.
  flowSelect.addEventListener("change", () => {
    flowName = flowSelect.value;
    if (options.page) {
      const url = new URL(location.href);
      if (flowName === "conversation") url.searchParams.delete("flow");
      else url.searchParams.set("flow", flowName);
      window.history.replaceState(null, "", url);
    }
    setSession(null);
    seq = 0;
    state = null;
    messages.replaceChildren();
    shownEvents = 0;
    log.replaceChildren();
    flowLog.replaceChildren();
    reached.clear();
    if (socket) { socket.onclose = null; socket.close(); socket = null; }
    connect();
  });

  async function loadFlows() {
    try {
      const response = await fetch(`${server}/api/flows`);
      if (!response.ok) return;
      for (const f of await response.json()) {
        flowDefs[f.name] = f;
        flowSelect.append(el("option", { value: f.name, text: `flow: ${f.name}` }));
      }
      flowSelect.value = flowDefs[flowName] ? flowName : "conversation";
    } catch (_) {
      // Flows stay unlisted; conversations work as before.
    }
  }

  function tick() {
    if (!state || !state.idle_deadline) { countdown.textContent = "–"; return; }
    const left = Math.max(0, Date.parse(state.idle_deadline) - Date.now());
    const s = Math.ceil(left / 1000);
    countdown.textContent = s >= 60 ? `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, "0")} s` : `${s} s`;
  }
  setInterval(tick, 250);

  // --- input ---
  send.addEventListener("click", sendMessage);
  input.addEventListener("keydown", (e) => {
    if (e.key === "Enter" && !e.shiftKey) { e.preventDefault(); sendMessage(); }
  });
  signals.addEventListener("click", (e) => {
    const button = e.target.closest("button");
    if (!button) return;
    if (button.dataset.signal) sendFrame({ type: "signal", signal: button.dataset.signal });
    else { sendFrame({ type: "reset" }); log.replaceChildren(); reached.clear(); }
  });

  loadFlows().then(connect);
  return { get session() { return session; } };
}
