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

  // Characters that would hide or reorder what is shown (controls, bidirectional overrides,
  // line separators), as the servers' own escaping names them.
  const HIDDEN = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029\ufeff]/;
  const ESCAPES = { "\n": "\\n", "\r": "\\r", "\t": "\\t", "\u0000": "\\0" };
  function escapeOf(c) {
    return ESCAPES[c] || "\\u{" + c.codePointAt(0).toString(16).padStart(4, "0") + "}";
  }

  // A name (a path, a title) on one line, its hidden characters written as escapes (`\n`,
  // `\u{202e}`): it can neither start a line nor reorder the text around it.
  function name(text) {
    let out = "";
    for (const c of String(text)) out += HIDDEN.test(c) ? escapeOf(c) : c;
    return out;
  }

  // A file's line as text, its hidden characters made visible: a carriage return as a small
  // "CR" (a CRLF line ends in one), a tab kept, any other control or bidirectional character
  // as a small mark with its escape.
  function visible(text) {
    const out = [];
    let run = "";
    for (const c of String(text)) {
      if (c === "\t" || !HIDDEN.test(c)) {
        run += c;
        continue;
      }
      if (run) out.push(run);
      run = "";
      if (c === "\r") out.push(el("span", { class: "cr", title: "carriage return (\\r)" }, "CR"));
      else out.push(el("span", { class: "cr hidden", title: "hidden character " + escapeOf(c) }, escapeOf(c)));
    }
    if (run) out.push(run);
    return out;
  }

  // The rows of a unified diff, read as `patch` reads it: a hunk header's counts say how many
  // lines follow, so a removed `-- x` or an added `++ y` is a line of the hunk, never a file
  // header; `--- ` / `+++ ` headers are only read between hunks. Each row: `{kind, old, new,
  // text, eol}` (`kind`: hunk, ctx, add, del or note; `eol`: false for a last line without
  // `\n`).
  function rows(diffText) {
    const out = [];
    let oldLine = 0;
    let newLine = 0;
    let oldLeft = 0;
    let newLeft = 0;
    for (const line of String(diffText).split("\n")) {
      const inHunk = oldLeft > 0 || newLeft > 0;
      if (!inHunk) {
        if (line === "" || line.startsWith("--- ") || line.startsWith("+++ ")) continue;
        const hunk = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/.exec(line);
        if (hunk) {
          oldLine = Number(hunk[1]);
          newLine = Number(hunk[3]);
          oldLeft = hunk[2] === undefined ? 1 : Number(hunk[2]);
          newLeft = hunk[4] === undefined ? 1 : Number(hunk[4]);
          // `-0,0`: the lines are added before line 1.
          if (oldLeft === 0) oldLine += 1;
          if (newLeft === 0) newLine += 1;
          out.push({ kind: "hunk", text: line });
          continue;
        }
      }
      if (line.startsWith("\\")) {
        const last = out[out.length - 1];
        if (last && last.kind !== "hunk" && last.kind !== "note") last.eol = false;
        else out.push({ kind: "note", text: line });
        continue;
      }
      // A context line whose space was stripped (by a mailer, an editor) is still one.
      const mark = line === "" ? " " : line[0];
      const body = line.slice(1);
      if (inHunk && mark === "+" && newLeft > 0) {
        out.push({ kind: "add", new: newLine++, text: body, eol: true });
        newLeft--;
      } else if (inHunk && mark === "-" && oldLeft > 0) {
        out.push({ kind: "del", old: oldLine++, text: body, eol: true });
        oldLeft--;
      } else if (inHunk && mark === " " && oldLeft > 0 && newLeft > 0) {
        out.push({ kind: "ctx", old: oldLine++, new: newLine++, text: body, eol: true });
        oldLeft--;
        newLeft--;
      } else {
        // Not a line of the hunk (a note that the diff was cut): shown as a note, and the hunk
        // ends there.
        oldLeft = 0;
        newLeft = 0;
        if (line !== "") out.push({ kind: "note", text: line });
      }
    }
    return out;
  }

  // A unified diff as a table: old and new line numbers, + and - marked.
  function diff(diffText) {
    const cells = {
      add: (r) => [el("td", { class: "n" }), el("td", { class: "n" }, r.new), el("td", { class: "m", "aria-label": "added" }, "+")],
      del: (r) => [el("td", { class: "n" }, r.old), el("td", { class: "n" }), el("td", { class: "m", "aria-label": "removed" }, "-")],
      ctx: (r) => [el("td", { class: "n" }, r.old), el("td", { class: "n" }, r.new), el("td", { class: "m" }, " ")],
    };
    const table = rows(diffText).map((r) => {
      if (!cells[r.kind]) return el("tr", { class: "hunk" }, el("td", { colspan: 4 }, visible(r.text)));
      const end = r.eol ? [] : [el("span", { class: "cr", title: "no newline at the end of the file" }, "no newline")];
      return el("tr", { class: r.kind === "ctx" ? undefined : r.kind }, cells[r.kind](r), el("td", {}, visible(r.text), end));
    });
    return el("div", { class: "diff", tabindex: 0, role: "region", "aria-label": "changes" }, el("table", {}, table));
  }

  // Asks the host to open a link in the user's browser (a view may not navigate itself).
  function openLink(url) {
    return request("ui/open-link", { url }).catch(() => undefined);
  }

  // The text blocks of a result, joined.
  function text(result) {
    return ((result && result.content) || []).filter((b) => b.type === "text").map((b) => b.text).join("\n");
  }

  return { start, el, show, call, tell, diff, rows, name, text, visible, openLink };
})();
