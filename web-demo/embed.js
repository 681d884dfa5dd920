// Adds the convstate widget to any page:
//
//   <div id="convstate"></div>
//   <script src="https://chat.example/embed.js" data-target="#convstate"></script>
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
    import(`${server}/demo/app.js`).then((m) => m.mount(mountPoint, { server }));
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
