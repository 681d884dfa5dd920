// Adds the convstate widget to any page:
//
//   <div id="convstate"></div>
//   <script src="https://chat.example/embed.js" data-target="#convstate"></script>
//
// Optional attributes: data-session (a session to join), data-token (a token, when the
// server has authentication on) and data-assistant ("guide" or "observer": who answers as the
// assistant; the server's choice otherwise). The widget never takes a session id from the
// page's URL.
//
// The widget runs in a shadow root inside the target element and connects from the host page's
// origin, so the server's origin allowlist (--allowed-origins) decides which sites may use it.
(function () {
  const script = document.currentScript;
  const server = new URL(script.src).origin;
  const selector = script.dataset.target || "#convstate";
  function start() {
    const host = document.querySelector(selector);
    if (!host) {
      console.error(`convstate: no element matches ${selector}`);
      return;
    }
    const shadow = host.attachShadow({ mode: "open" });
    const style = document.createElement("link");
    style.rel = "stylesheet";
    style.href = `${server}/demo/style.css`;
    const mountPoint = document.createElement("div");
    shadow.append(style, mountPoint);
    import(`${server}/demo/app.js`)
      .then((m) => m.mount(mountPoint, {
        server,
        session: script.dataset.session || undefined,
        token: script.dataset.token || undefined,
        assistant: script.dataset.assistant || undefined,
      }))
      .catch(() => {
        // The server grants its module only to allowed origins (CORS), as it grants its
        // WebSocket: say so in the widget's place rather than leaving it blank.
        const note = document.createElement("p");
        note.className = "connection";
        note.dataset.testid = "connection";
        note.dataset.state = "refused";
        note.textContent = `convstate: this site (${location.origin}) is not allowed to connect to ${server}`;
        mountPoint.append(note);
      });
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
