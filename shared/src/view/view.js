// The host client every view shares (MCP Apps: JSON-RPC over postMessage with the host), and
// DOM helpers that only ever put text in the page: file contents are shown, never run.
"use strict";
const ui = (() => {
  const DATA_KEY = "mcp-suite/view";
  let nextId = 1;
  const pending = new Map();
  const handlers = {};
  let toolInput = {};

  function send(message) {
    window.parent.postMessage(Object.assign({ jsonrpc: "2.0" }, message), "*");
  }

  window.addEventListener("message", (event) => {
    if (event.source !== window.parent) return;
    const m = event.data;
    if (!m || m.jsonrpc !== "2.0") return;
    if (m.method === undefined && m.id !== undefined) {
      const waiting = pending.get(m.id);
      if (!waiting) return;
      pending.delete(m.id);
      if (m.error) waiting.reject(new Error(m.error.message || "the host refused the request"));
      else waiting.resolve(m.result);
      return;
    }
    if (typeof m.method !== "string") return;
    if (m.id !== undefined) {
      // A request from the host (ping, ui/resource-teardown): nothing to keep, answer at once.
      send({ id: m.id, result: {} });
      return;
    }
    const handler = handlers[m.method];
    if (handler) handler(m.params || {});
  });

  function request(method, params) {
    const id = nextId++;
    return new Promise((resolve, reject) => {
      pending.set(id, { resolve, reject });
      send({ id, method, params });
    });
  }

  function notify(method, params) {
    send({ method, params });
  }

  function applyContext(context) {
    const root = document.documentElement;
    if (context.theme === "light" || context.theme === "dark") root.dataset.theme = context.theme;
    const variables = (context.styles && context.styles.variables) || {};
    for (const [name, value] of Object.entries(variables)) {
      if (typeof value === "string" && name.startsWith("--")) root.style.setProperty(name, value);
    }
  }

  let lastSize = "";
  function measure() {
    const width = Math.ceil(document.documentElement.scrollWidth);
    const height = Math.ceil(document.body.getBoundingClientRect().height + 2);
    const size = width + "x" + height;
    if (size === lastSize) return;
    lastSize = size;
    notify("ui/notifications/size-changed", { width, height });
  }

  function reportSize() {
    new ResizeObserver(measure).observe(document.body);
  }

  // Starts the view: `render(result, data, input)` runs for each tool result the host sends
  // (`data`: what the server put in the result's `_meta` for this view).
  async function start(render) {
    handlers["ui/notifications/tool-input"] = (params) => { toolInput = params.arguments || {}; };
    handlers["ui/notifications/tool-result"] = (result) => {
      const data = (result && result._meta && result._meta[DATA_KEY]) || null;
      try {
        render(result, data, toolInput);
      } catch (error) {
        show(el("p", { class: "error" }, "This view could not show the result: " + error.message));
      }
      requestAnimationFrame(measure);
    };
    handlers["ui/notifications/host-context-changed"] = applyContext;
    reportSize();
    try {
      const answer = await request("ui/initialize", {
        appCapabilities: { availableDisplayModes: ["inline"] },
        appInfo: { name: document.title, version: "1" },
        protocolVersion: "2026-01-26",
      });
      applyContext((answer && answer.hostContext) || {});
    } finally {
      notify("ui/notifications/initialized", {});
      lastSize = "";
      measure();
    }
  }

  // An element: `props` become attributes (`on*` functions become listeners), children strings
  // become text nodes. Never HTML.
  function el(tag, props, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(props || {})) {
      if (value === undefined || value === null || value === false) continue;
      if (key.startsWith("on") && typeof value === "function") node.addEventListener(key.slice(2), value);
      else node.setAttribute(key, value === true ? "" : String(value));
    }
    for (const child of children.flat()) {
      if (child === undefined || child === null || child === false) continue;
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  }

  function show(...nodes) {
    const root = document.getElementById("app") || document.body;
    root.replaceChildren(...nodes);
  }

  // A tool call through the host; a refusal (an `isError` result) is thrown with its text.
  async function call(name, args) {
    const result = await request("tools/call", { name, arguments: args });
    if (result && result.isError) {
      const text = (result.content || []).filter((b) => b.type === "text").map((b) => b.text).join("\n");
      throw new Error(text || "the tool refused");
    }
    return result;
  }

  // Tells the model what the user did here (it reads it on its next turn).
  function tell(text) {
    return request("ui/update-model-context", { content: [{ type: "text", text }] }).catch(() =>
      request("ui/message", { role: "user", content: { type: "text", text } }).catch(() => undefined),
    );
  }

  // Text with its carriage returns made visible (a CRLF line ends in a small "CR").
  function visible(text) {
    const parts = String(text).split("\r");
    const out = [];
    parts.forEach((part, i) => {
      if (i > 0) out.push(el("span", { class: "cr", title: "carriage return (\\r)" }, "CR"));
      if (part) out.push(part);
    });
    return out;
  }

  // A unified diff as a table: old and new line numbers, + and - marked.
  function diff(text) {
    const rows = [];
    let oldLine = 0;
    let newLine = 0;
    for (const line of String(text).split("\n")) {
      if (line === "" || line.startsWith("--- ") || line.startsWith("+++ ")) continue;
      const hunk = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/.exec(line);
      if (hunk) {
        oldLine = Number(hunk[1]);
        newLine = Number(hunk[2]);
        rows.push(el("tr", { class: "hunk" }, el("td", { colspan: 4 }, line)));
        continue;
      }
      const mark = line[0];
      const body = line.slice(1);
      if (mark === "+") rows.push(el("tr", { class: "add" }, el("td", { class: "n" }), el("td", { class: "n" }, newLine++), el("td", { class: "m", "aria-label": "added" }, "+"), el("td", {}, visible(body))));
      else if (mark === "-") rows.push(el("tr", { class: "del" }, el("td", { class: "n" }, oldLine++), el("td", { class: "n" }), el("td", { class: "m", "aria-label": "removed" }, "-"), el("td", {}, visible(body))));
      else if (mark === " ") rows.push(el("tr", {}, el("td", { class: "n" }, oldLine++), el("td", { class: "n" }, newLine++), el("td", { class: "m" }, " "), el("td", {}, visible(body))));
      else rows.push(el("tr", { class: "hunk" }, el("td", { colspan: 4 }, line)));
    }
    return el("div", { class: "diff", tabindex: 0, role: "region", "aria-label": "changes" }, el("table", {}, rows));
  }

  // Asks the host to open a link in the user's browser (a view may not navigate itself).
  function openLink(url) {
    return request("ui/open-link", { url }).catch(() => undefined);
  }

  // The text blocks of a result, joined.
  function text(result) {
    return ((result && result.content) || []).filter((b) => b.type === "text").map((b) => b.text).join("\n");
  }

  return { start, el, show, call, tell, diff, text, visible, openLink };
})();
