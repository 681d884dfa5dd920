// The demo page in a real browser: Debian's Chromium driven by playwright-core, against the
// real server binary (target/debug/convstate, built by the test command first).

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { createServer } from "node:http";
import { createHmac } from "node:crypto";
import { mkdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import path from "node:path";
import { chromium } from "playwright-core";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const BINARY = process.env.CONVSTATE_BIN || path.join(ROOT, "target/debug/convstate");
const OUTPUT = path.join(ROOT, "tests/output");
const CHROMIUM = process.env.CHROMIUM || "/usr/bin/chromium";

const WORKED_EXAMPLE = [
  ["user", "I want to build a todo app", "understanding"],
  ["assistant", "What features do you need?", "understanding"],
  ["user", "I need add, delete, and mark as complete functionality with React components", "planning"],
  ["assistant", "I'll create a React todo app component", "executing"],
  ["user", "Sounds good, go ahead", "executing"],
  ["assistant", '<artifact type="react">...</artifact>', "reviewing"],
  ["user", "Perfect! This is exactly what I needed", "completed"],
  ["user", "Now build a calculator", "understanding"],
  ["user", "bye", "idle"],
];

/** Starts `convstate serve` on port 0 and resolves with its process and base URL. */
function startServer(args = [], env = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(BINARY, ["serve", "--listen", "127.0.0.1:0", "--store", "memory:", ...args], {
      env: { ...process.env, RUST_LOG: "info", NO_COLOR: "1", ...env },
      stdio: ["ignore", "ignore", "pipe"],
    });
    let log = "";
    child.stderr.on("data", (chunk) => {
      log += chunk;
      const m = log.match(/listening address=(\S+)/);
      if (m) resolve({ child, url: `http://${m[1]}` });
    });
    child.on("exit", (code) => reject(new Error(`convstate exited (${code}):\n${log}`)));
  });
}

let browser;
before(async () => {
  mkdirSync(OUTPUT, { recursive: true });
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
      "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
});
after(async () => {
  await browser?.close();
});

const text = (page, id) => page.getByTestId(id).textContent();

async function expectText(page, id, expected) {
  const locator = page.getByTestId(id);
  await locator.filter({ hasText: expected }).waitFor({ timeout: 10_000 }).catch(async () => {
    assert.fail(`${id}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(await locator.textContent())}`);
  });
}

async function say(page, role, message) {
  await page.getByTestId("role").selectOption(role);
  await page.getByTestId("message-input").fill(message);
  await page.getByTestId("message-input").press("Enter");
}

test("the worked example through the page, a reload, and a second page in step", async () => {
  const { child, url } = await startServer();
  try {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await page.goto(`${url}/?assistant=observer`);
    await expectText(page, "connection", "connected");
    assert.equal(await text(page, "phase"), "greeting");
    let second = null;
    let boxes = null;
    for (const [i, [role, message, phase]] of WORKED_EXAMPLE.entries()) {
      const step = i + 1;
      await say(page, role, message);
      await expectText(page, "turn-count", String(step));
      for (const p of second ? [page, second] : [page]) {
        await expectText(p, "turn-count", String(step));
        assert.equal(await text(p, "phase"), phase, `step ${step}`);
        assert.match(await text(p, "summary"), new RegExp(`^Conversation Phase: ${phase}\\nTurn Count: ${step}`));
      }
      if (step === 1) {
        assert.equal(await text(page, "goal-type"), "artifact_creation");
        assert.equal(await text(page, "goal-description"), "todo app");
        assert.match(await text(page, "required-info"), /component_type.*— todo app/);
      }
      if (step === 3) {
        assert.match(await text(page, "required-info"), /React components/);
        assert.match(await text(page, "required-info"), /add, delete, and mark as complete functionality/);
        boxes = await layout(page);
      }
      if (step === 4) {
        // A reload resumes the session: same id, same state, the transcript back.
        const session = new URL(page.url()).searchParams.get("session");
        assert.ok(session, "the session id is in the address");
        await page.reload();
        await expectText(page, "connection", "connected");
        await expectText(page, "turn-count", "4");
        assert.equal(new URL(page.url()).searchParams.get("session"), session);
        assert.equal(await text(page, "phase"), "executing");
        await page.locator(".msg").nth(3).waitFor();
        assert.equal(await page.locator(".msg").count(), 4);
        // A second page on the same session stays in step from here on.
        second = await context.newPage();
        await second.goto(`${url}/?session=${session}&assistant=observer`);
        await expectText(second, "connection", "connected");
        await expectText(second, "turn-count", "4");
      }
      if (step === 7) {
        assert.equal(await text(page, "goal-type"), "none");
        assert.match(await text(page, "history"), /artifact_creation: todo app — completed \(user satisfied\)/);
        assert.deepEqual(await layout(page), boxes, "panels do not move while the state updates");
      }
      if (step === 8) {
        assert.equal(await text(page, "goal-description"), "calculator");
        assert.equal(await page.getByTestId("history").locator("li").count(), 1);
      }
    }
    const history = await text(page, "history");
    assert.match(history, /calculator — abandoned \(cancelled by user\)/);
    assert.match(await text(page, "transitions"), /understanding → idle: User cancelled/);
    assert.equal(await text(second, "phase"), "idle");
    assert.equal(await second.locator(".msg").count(), 9, "the second page shows the whole transcript");
    await page.screenshot({ path: path.join(OUTPUT, "demo-final.png"), fullPage: true });
    await context.close();
  } finally {
    child.kill();
  }
});

/** The boxes of the state panels, to check that updates do not move them. */
async function layout(page) {
  return page.evaluate(() =>
    [...document.querySelectorAll(".cs section, .cs .chat")].map((s) => {
      const r = s.getBoundingClientRect();
      return [Math.round(r.x), Math.round(r.y), Math.round(r.width), Math.round(r.height)];
    }));
}

test("signal buttons, the idle countdown and the idle transition", async () => {
  const { child, url } = await startServer(["--idle-timeout", "3s"]);
  try {
    const page = await browser.newPage();
    await page.goto(`${url}/demo?assistant=observer`);
    await expectText(page, "connection", "connected");
    await say(page, "user", "Build a landing page");
    await expectText(page, "phase", "understanding");
    assert.match(await text(page, "idle-countdown"), /^[0-3] s$/);
    await page.getByTestId("signal-approve").click();
    await expectText(page, "phase", "planning");
    await page.getByTestId("signal-start_work").click();
    await expectText(page, "phase", "executing");
    // Nothing more: the sweeper idles the session and the page shows it.
    await expectText(page, "phase", "idle");
    assert.match(await text(page, "history"), /abandoned \(idle timeout\)/);
    assert.equal(await text(page, "idle-countdown"), "–");
    // Reset starts a new conversation in the same session: the transcript shows only what
    // follows it, on this page, on a second one, and after a reload.
    const second = await browser.newPage();
    await second.goto(page.url());
    await expectText(second, "connection", "connected");
    await second.locator(".msg").first().waitFor();
    await page.getByTestId("reset").click();
    await expectText(page, "turn-count", "0");
    await say(page, "user", "What is a closure?");
    await expectText(page, "phase", "understanding");
    for (const p of [page, second]) {
      await expectText(p, "turn-count", "1");
      await p.locator(".msg", { hasText: "What is a closure?" }).waitFor();
      assert.equal(await p.locator(".msg").count(), 1);
    }
    await page.reload();
    await page.locator(".msg", { hasText: "What is a closure?" }).waitFor();
    assert.equal(await page.locator(".msg").count(), 1);
    await second.close();
    await page.close();
  } finally {
    child.kill();
  }
});

test("readable on a phone-sized screen", async () => {
  const { child, url } = await startServer();
  try {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true });
    const page = await context.newPage();
    await page.goto(`${url}/?assistant=observer`);
    await expectText(page, "connection", "connected");
    await say(page, "user", "Fix the login button so it submits on enter");
    await expectText(page, "phase", "planning");
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, `no sideways scrolling (${overflow}px too wide)`);
    await page.screenshot({ path: path.join(OUTPUT, "demo-phone.png"), fullPage: true });
    await context.close();
  } finally {
    child.kill();
  }
});

test("the widget embeds in another site with one script tag, if the site is allowed", async () => {
  // 127.0.0.2 and 127.0.0.3 are loopback addresses, but other sites to the server (not
  // "localhost"): the first is on its allowlist, the second is not.
  let server = null;
  const snippet = () => `<!doctype html><html><body>
    <h1>A shop</h1>
    <div id="convstate"></div>
    <script src="${server.url}/embed.js" data-target="#convstate"></script>
  </body></html>`;
  const page = (host) => new Promise((resolve) => {
    const s = createServer((_, res) => {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      res.end(snippet());
    });
    s.listen(0, host, () => resolve({ server: s, url: `http://${host}:${s.address().port}` }));
  });
  const allowed = await page("127.0.0.2");
  const refused = await page("127.0.0.3");
  server = await startServer(["--allowed-origins", allowed.url]);
  try {
    const shop = await browser.newPage();
    await shop.goto(`${allowed.url}/`);
    await expectText(shop, "connection", "connected");
    await say(shop, "user", "How do I make a cake?");
    await expectText(shop, "phase", "understanding");
    assert.equal(await text(shop, "goal-type"), "question_answer");
    await shop.locator(".msg").first().waitFor();
    await shop.screenshot({ path: path.join(OUTPUT, "embed-allowed.png"), fullPage: true });
    const mine = await text(shop, "session");

    // A crafted link to the host page names someone's session: the widget ignores it.
    const victim = await browser.newPage();
    await victim.goto(`${server.url}/?assistant=observer`);
    await expectText(victim, "connection", "connected");
    await say(victim, "user", "I want to build a todo app");
    await expectText(victim, "phase", "understanding");
    const victimSession = (await text(victim, "session")).replace("session ", "");
    const visitor = await browser.newContext();
    const lured = await visitor.newPage();
    await lured.goto(`${allowed.url}/?session=${victimSession}`);
    await expectText(lured, "connection", "connected");
    await expectText(lured, "phase", "greeting");
    assert.notEqual(await text(lured, "session"), `session ${victimSession}`);
    assert.ok(mine);
    await visitor.close();
    await victim.close();

    // A site not on the allowlist gets neither the widget nor a connection, and is told so.
    const other = await browser.newPage();
    await other.goto(`${refused.url}/`);
    await expectText(other, "connection", "not allowed to connect");
    assert.equal(await other.getByTestId("phase").count(), 0, "a site not allowed sees no state");
    await other.close();
    await shop.close();
  } finally {
    server.child.kill();
    allowed.server.close();
    refused.server.close();
  }
});

/** An HS256 JWT, minted here with node's crypto (independently of the server's library). */
function mint(secret, claims) {
  const part = (o) => Buffer.from(JSON.stringify(o)).toString("base64url");
  const body = `${part({ alg: "HS256", typ: "JWT" })}.${part({ exp: Math.floor(Date.now() / 1000) + 600, ...claims })}`;
  return `${body}.${createHmac("sha256", secret).update(body).digest("base64url")}`;
}

test("with authentication on, the page takes a token, shows its own transcript, and never someone else's session", async () => {
  const SECRET = "browser-secret-browser-secret-browser";
  const server = await startServer([], { CONVSTATE_JWT_SECRET: SECRET });
  try {
    const context = await browser.newContext();
    const alice = await context.newPage();
    await alice.goto(`${server.url}/?assistant=observer#token=${mint(SECRET, { sub: "alice" })}`);
    await expectText(alice, "connection", "connected");
    await say(alice, "user", "I want to build a todo app");
    await expectText(alice, "phase", "understanding");
    // The transcript comes from the session's log, which its owner's token reads.
    await alice.locator(".msg").first().waitFor();
    await alice.reload();
    await expectText(alice, "connection", "connected");
    await expectText(alice, "turn-count", "1");
    await alice.locator(".msg").first().waitFor();
    assert.equal(await alice.locator(".msg").count(), 1);
    const session = new URL(alice.url()).searchParams.get("session");
    assert.ok(session);

    // Bob follows a link to Alice's session: refused, he gets a session of his own.
    const other = await browser.newContext();
    const bob = await other.newPage();
    await bob.goto(`${server.url}/?session=${session}&assistant=observer#token=${mint(SECRET, { sub: "bob" })}`);
    await expectText(bob, "connection", "connected");
    await expectText(bob, "transitions", "belongs to someone else");
    assert.notEqual(new URL(bob.url()).searchParams.get("session"), session);
    assert.equal(await text(bob, "phase"), "greeting");
    assert.equal(await bob.locator(".msg").count(), 0, "none of Alice's messages");

    // A token the server refuses: said once, no retry loop.
    const stranger = await (await browser.newContext()).newPage();
    await stranger.goto(`${server.url}/?assistant=observer#token=${mint("another-secret-another-secret-another", { sub: "eve" })}`);
    await expectText(stranger, "connection", "the token was refused");
    await alice.screenshot({ path: path.join(OUTPUT, "demo-with-token.png"), fullPage: true });
    await other.close();
    await context.close();
  } finally {
    server.child.kill();
  }
});

test("the embedded widget with a data-token shows its visitor's transcript from another site", async () => {
  const SECRET = "browser-secret-browser-secret-browser";
  let server = null;
  let token = "";
  const host = await new Promise((resolve) => {
    const s = createServer((_, res) => {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      res.end(`<!doctype html><html><body><div id="convstate"></div>
        <script src="${server.url}/embed.js" data-target="#convstate" data-token="${token}"></script></body></html>`);
    });
    s.listen(0, "127.0.0.2", () => resolve({ server: s, url: `http://127.0.0.2:${s.address().port}` }));
  });
  server = await startServer(["--allowed-origins", host.url], { CONVSTATE_JWT_SECRET: SECRET });
  try {
    token = mint(SECRET, { sub: "visitor-1" });
    const shop = await (await browser.newContext()).newPage();
    await shop.goto(`${host.url}/`);
    await expectText(shop, "connection", "connected");
    await say(shop, "user", "I want to build a todo app");
    await expectText(shop, "phase", "understanding");
    // The transcript is read from the API across origins, with the token (a preflight).
    await shop.locator(".msg").first().waitFor({ timeout: 10_000 });
    assert.equal(await shop.locator(".msg").count(), 1);
    // A token the server refuses: the widget says so instead of retrying for ever.
    token = mint("another-secret-another-secret-another", { sub: "visitor-2" });
    const refused = await (await browser.newContext()).newPage();
    await refused.goto(`${host.url}/`);
    await expectText(refused, "connection", "the token was refused");
  } finally {
    server.child.kill();
    host.server.close();
  }
});

test("the inspector shows why a change went as it did", async () => {
  const { child, url } = await startServer();
  try {
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 1000 } })).newPage();
    await page.goto(`${url}/?assistant=observer`);
    await expectText(page, "connection", "connected");
    // Off by default: nothing explained.
    await say(page, "user", "I want to build a todo app with add and delete features using React");
    await expectText(page, "phase", "planning");
    assert.equal(await page.getByTestId("inspector").locator("li").count(), 0);
    // Turned on with its checkbox: the next change explains itself.
    await page.getByTestId("explain-toggle").check();
    await say(page, "assistant", "I'll create it now");
    await expectText(page, "phase", "executing");
    await expectText(page, "inspector", "start_work “I'll create” (assistant, 0–11) ✓ counts");
    await say(page, "assistant", "<artifact>...</artifact>");
    await expectText(page, "phase", "reviewing");
    await say(page, "user", "Looks good but the header is off");
    await expectText(page, "phase", "understanding");
    await expectText(page, "inspector", "satisfied “Looks good” (user, 0–10) ✗ dropped by the contrast rule");
    await expectText(page, "inspector", "rule: 4 reviewing: a change request");
    await page.screenshot({ path: path.join(OUTPUT, "demo-inspector.png"), fullPage: true });
    // Reloaded with ?explain=1, it asks for notes from the start; a typo is shown as read.
    const session = new URL(page.url()).searchParams.get("session");
    await page.goto(`${url}/?session=${session}&explain=1&assistant=observer`);
    await expectText(page, "connection", "connected");
    assert.equal(await page.getByTestId("explain-toggle").isChecked(), true);
    await say(page, "user", "thnaks, that is what I wanted");
    await expectText(page, "inspector", "typo: “thnaks” read as “thanks”");
  } finally {
    child.kill();
  }
});

test("messages as people write them: a bug report, two goals to choose from, a change asked in review", async () => {
  const { child, url } = await startServer();
  try {
    let page = await (await browser.newContext({ viewport: { width: 1280, height: 1000 } })).newPage();
    // Nobody answers at first, so the inspector shows the user's message.
    await page.goto(`${url}/?explain=1&assistant=observer`);
    await expectText(page, "connection", "connected");
    const answer = (words) => page.locator(".msg.assistant", { hasText: words }).waitFor({ timeout: 10_000 });
    // A bug report without a verb: a task with both slots, planned at once.
    await say(page, "user", "the signup form doesn't work on mobile, the submit button is hidden behind the keyboard");
    await expectText(page, "goal-type", "task_execution");
    await expectText(page, "phase", "planning");
    await expectText(page, "required-info", "target: What to change — submit button");
    await expectText(page, "required-info", "fix: hidden behind the keyboard");
    await expectText(page, "inspector", "(problem report (rule 1))");
    // Two goals joined by "or", in a new session with the guide: none is current, both wait,
    // the guide asks which.
    await page.close();
    page = await (await browser.newContext({ viewport: { width: 1280, height: 1000 } })).newPage();
    await page.goto(`${url}/?explain=1`);
    await expectText(page, "connection", "connected");
    await say(page, "user", "Can you build a login form or fix the header?");
    await answer("Which should I take first: login form or header?");
    await expectText(page, "goal-type", "none");
    await expectText(page, "goal-notes", "or: artifact_creation: login form");
    await expectText(page, "goal-notes", "or: task_execution: header");
    await say(page, "user", "the login form");
    await expectText(page, "goal-type", "artifact_creation");
    await expectText(page, "phase", "understanding");
    // Left to the guide, then reviewed: the change asked is kept and acknowledged.
    await say(page, "user", "you decide");
    await answer("you left this to me");
    await expectText(page, "summary", "~ requirements: What it must do (assistant decides)");
    await say(page, "user", "go ahead");
    await expectText(page, "phase", "reviewing");
    await say(page, "user", "hmm the colors are a bit dull, make them warmer");
    await answer("Noted: colors are a bit dull, make them warmer.");
    await expectText(page, "goal-notes", "change asked: colors are a bit dull, make them warmer");
    await expectText(page, "summary", "Requested Changes:");
    await page.screenshot({ path: path.join(OUTPUT, "demo-reading.png"), fullPage: true });
    await page.close();
  } finally {
    child.kill();
  }
});

test("with the guide (the demo page's default), a user who types only their side is led to completed", async () => {
  const { child, url } = await startServer();
  try {
    const page = await browser.newPage();
    await page.goto(`${url}/`);
    await expectText(page, "connection", "connected");
    assert.equal(await page.getByTestId("assistant-mode").inputValue(), "guide");
    const answer = (words) => page.locator(".msg.assistant", { hasText: words }).waitFor({ timeout: 10_000 });
    // An artifact request.
    await say(page, "user", "I want to build a todo app");
    await answer("Which features do you need?");
    await expectText(page, "phase", "understanding");
    await say(page, "user", "Add, delete, mark complete with React components");
    await answer("Should I go ahead?");
    await expectText(page, "phase", "planning");
    await say(page, "user", "Sounds good, go ahead");
    await answer("<artifact type=\"specification\">");
    await expectText(page, "phase", "reviewing");
    await say(page, "user", "Perfect! This is exactly what I needed");
    await answer("Glad it helps!");
    await expectText(page, "phase", "completed");
    // A task request, in the same session.
    await say(page, "user", "Fix the login button");
    await answer("What should be different afterwards?");
    await expectText(page, "phase", "understanding");
    await say(page, "user", "It should submit on enter");
    await expectText(page, "phase", "planning");
    await say(page, "user", "yes");
    await expectText(page, "phase", "reviewing");
    await say(page, "user", "That works, thank you");
    await expectText(page, "phase", "completed");
    assert.match(await text(page, "history"), /completed.*completed/s);
    // Every turn on the page was the user's or the guide's, in order.
    const who = await page.locator(".msg .who").allTextContents();
    assert.equal(who.filter((w) => w === "user").length, 8);
    assert.ok(who.filter((w) => w === "assistant").length >= 8, who.join(","));
    await page.screenshot({ path: path.join(OUTPUT, "demo-guide.png"), fullPage: true });
    // Switched to observing, nobody answers the next turn.
    await page.getByTestId("assistant-mode").selectOption("observer");
    const before = await page.locator(".msg.assistant").count();
    await say(page, "user", "Build a calculator");
    await expectText(page, "phase", "understanding");
    await page.waitForTimeout(500);
    assert.equal(await page.locator(".msg.assistant").count(), before);
    await page.close();
  } finally {
    child.kill();
  }
});

/** A local OpenAI-compatible server: each call streams `pieces` (SSE), `gap` ms apart; with
 * `hang`, it then stays open. Resolves with its base URL and the calls it got. */
function startModel(pieces, gap, hang = false) {
  return new Promise((resolve) => {
    const calls = [];
    const server = createServer((req, res) => {
      let body = "";
      req.on("data", (c) => (body += c));
      req.on("end", async () => {
        calls.push(JSON.parse(body));
        res.writeHead(200, { "content-type": "text/event-stream" });
        for (const p of pieces) {
          if (res.destroyed) return;
          res.write(`data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: p } }] })}\n\n`);
          await new Promise((r) => setTimeout(r, gap));
        }
        if (!hang) res.end("data: [DONE]\n\n");
      });
    });
    server.listen(0, "127.0.0.1", () => resolve({ server, calls, url: `http://127.0.0.1:${server.address().port}/v1` }));
  });
}

test("with a model, the reply shows as it is written, and stop keeps what was written", async () => {
  const model = await startModel(["Which ", "features ", "do ", "you ", "need?"], 150);
  const stalled = await startModel(["Thinking about ", "it "], 50, true);
  const { child, url } = await startServer(["--llm-url", model.url, "--llm-model", "test"]);
  const second = await startServer(["--llm-url", stalled.url, "--llm-model", "test"]);
  try {
    const page = await browser.newPage();
    await page.goto(`${url}/?assistant=llm`);
    await expectText(page, "connection", "connected");
    await say(page, "user", "I want to build a todo app");
    // Written piece by piece: the bubble shows part of the reply before the whole.
    await page.getByTestId("writing").filter({ hasText: "Which features" }).waitFor({ timeout: 10_000 });
    await expectText(page, "assistant-status", "writing");
    await page.locator(".msg.assistant:not(.writing)", { hasText: "Which features do you need?" }).waitFor({ timeout: 10_000 });
    assert.equal(await page.getByTestId("writing").count(), 0);
    await page.locator('[data-slot="requirements"].asked').waitFor({ timeout: 10_000 });
    assert.match(model.calls[0].messages.at(-1).content, /Conversation Phase: understanding/);
    // A model that stalls: stop keeps what it wrote.
    const other = await browser.newPage();
    await other.goto(`${second.url}/?assistant=llm`);
    await expectText(other, "connection", "connected");
    await say(other, "user", "Build a landing page");
    await other.getByTestId("writing").filter({ hasText: "Thinking about it" }).waitFor({ timeout: 10_000 });
    await other.getByTestId("stop").click();
    await other.locator(".msg.assistant:not(.writing)", { hasText: "Thinking about it" }).waitFor({ timeout: 10_000 });
    await page.close();
    await other.close();
  } finally {
    child.kill();
    second.child.kill();
    model.server.close();
    stalled.server.closeAllConnections();
    stalled.server.close();
  }
});

test("a hosted flow on the demo page: its state, values and allowed events as buttons", async () => {
  const { child, url } = await startServer();
  try {
    const page = await browser.newPage();
    await page.goto(`${url}/demo?flow=circuit-breaker`);
    await expectText(page, "connection", "connected");
    await expectText(page, "flow-current", "closed");
    assert.equal(await page.getByTestId("message-input").isVisible(), false);
    for (let i = 0; i < 3; i++) await page.getByTestId("event-failure").click();
    await expectText(page, "flow-current", "open");
    assert.match(await text(page, "flow-transitions"), /closed → open: Failures >= threshold/);
    assert.match(await text(page, "flow-values"), /failures3/);
    // Only what the state takes: no success button while open.
    assert.equal(await page.getByTestId("event-success").count(), 0);
    await page.getByTestId("event-intervene").click();
    await expectText(page, "flow-current", "half_open");
    await page.getByTestId("event-success").click();
    await expectText(page, "flow-current", "closed");
    // Another flow from the selector: an event with data gets a form.
    await page.getByTestId("flow").selectOption("conductor-ui");
    await expectText(page, "flow-current", "reset");
    await page.getByTestId("event-configure").click();
    await page.getByTestId("field-project_name").fill("Atlas");
    await page.getByTestId("send-event").click();
    await expectText(page, "flow-current", "configured");
    assert.match(await text(page, "flow-values"), /project_nameAtlas/);
    assert.match(await text(page, "flow-summary"), /^Flow conductor-ui, state: configured/);
    await page.getByTestId("event-generate_plan").click();
    await page.getByTestId("send-event").click();
    await expectText(page, "flow-current", "planning");
    // A plan with no phases: refused by the flow's guard, the state stays.
    await page.getByTestId("event-plan_complete").click();
    await page.getByTestId("field-total_phases").fill("0");
    await page.getByTestId("field-phase_name").fill("Setup");
    await page.getByTestId("send-event").click();
    await page.locator("[data-testid=flow-transitions] li.error", { hasText: "invalid_transition" }).waitFor();
    assert.equal(await text(page, "flow-current"), "planning");
    // A reload comes back to the same flow session.
    await page.reload();
    await expectText(page, "flow-current", "planning");
    assert.equal(await page.getByTestId("flow").inputValue(), "conductor-ui");
    await page.screenshot({ path: path.join(OUTPUT, "demo-flow.png"), fullPage: true });
    await page.close();
  } finally {
    child.kill();
  }
});
