// A test host for MCP Apps views, as the spec describes one: each view's HTML read with
// resources/read from the real server, served from another origin under the spec's default CSP,
// shown in an iframe of a host page that talks to it through ext-apps's AppBridge; the view's
// tool calls go back to the real server. Used by host.mjs (every server) and by the VS Code e2e
// (the bridge's views, with a real language server behind them).
//
//   const host = await appsHost(browser, { out, check });
//   const { frame, id } = await host.render(server, "tool", args, result, "shot.png");
//
// `server`: { tools (tools/list's), request(method, params) → result, call(name, args) → result }.
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { fileURLToPath } from "node:url";

const HERE = path.dirname(fileURLToPath(import.meta.url));

/** The CSP a host must apply to a view that declares no domains (SEP-1865, "Host Behavior"). */
export const DEFAULT_CSP =
  "default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; media-src 'self' data:; connect-src 'none'; frame-src 'none'; object-src 'none'; base-uri 'self'";

function listen(handler) {
  return new Promise((resolve) => {
    const server = http.createServer(handler);
    server.listen(0, "127.0.0.1", () => resolve(server));
  });
}

export async function appsHost(browser, { out, check }) {
  fs.mkdirSync(out, { recursive: true });
  const views = new Map();
  const bridgeJs = fs.readFileSync(path.join(HERE, "bridge.js"));
  const hostHtml = fs.readFileSync(path.join(HERE, "host.html"));
  const hostServer = await listen((req, res) => {
    if (req.url === "/bridge.js") res.writeHead(200, { "content-type": "text/javascript" }).end(bridgeJs);
    else res.writeHead(200, { "content-type": "text/html" }).end(hostHtml);
  });
  const viewServer = await listen((req, res) => {
    const html = views.get(req.url);
    if (!html) return res.writeHead(404).end();
    res.writeHead(200, { "content-type": "text/html; charset=utf-8", "content-security-policy": DEFAULT_CSP }).end(html);
  });
  const HOST = `http://127.0.0.1:${hostServer.address().port}`;
  // Another origin: the same machine by another name.
  const VIEWS = `http://localhost:${viewServer.address().port}`;

  const page = await browser.newPage({ viewport: { width: 800, height: 900 } });
  const violations = [];
  page.on("console", (message) => {
    const text = message.text();
    if (/Content Security Policy|Refused to/i.test(text)) violations.push(text);
  });
  page.on("pageerror", (error) => violations.push(`page error: ${error.message}`));
  let current = null;
  await page.exposeFunction("mcpCall", async (params) => {
    const { name, arguments: args } = JSON.parse(params);
    return JSON.stringify(await current.call(name, args));
  });
  await page.goto(HOST);
  await page.waitForFunction(() => window.ready === true);

  let count = 0;
  return {
    page,
    violations,
    /** Renders `tool`'s view of a call already made (`result`), as a host does; its frame. */
    async render(server, tool, args, result, shot) {
      current = server;
      const listed = server.tools.find((t) => t.name === tool);
      const uri = listed && listed._meta && listed._meta.ui && listed._meta.ui.resourceUri;
      check(Boolean(uri), `${tool} names its view (${uri})`);
      const read = await server.request("resources/read", { uri });
      const content = read.contents[0];
      check(content.mimeType === "text/html;profile=mcp-app", `${uri} is text/html;profile=mcp-app`);
      check(content.text.length <= 150 * 1024, `${uri} weighs ${content.text.length} bytes (at most 150 KB)`);
      check(!/https?:\/\//.test(content.text), `${uri} names no outside origin`);
      const id = `view${++count}`;
      views.set(`/${id}`, content.text);
      await page.evaluate((r) => window.render(r), { id, url: `${VIEWS}/${id}`, input: args, result });
      const frame = page.frameLocator(`#${id}`);
      await frame.locator("main h1").first().waitFor({ timeout: 15000 });
      // Let the view's own checks (Undo offered or not) and its size report land.
      await page.waitForTimeout(500);
      if (shot) await page.locator(`#${id}`).screenshot({ path: path.join(out, shot) });
      return { frame, id };
    },
    /** What a script from a file's content would have set in the view (null: nothing ran). */
    async pwned(id) {
      const frame = page.frame({ url: new RegExp(`/${id}$`) });
      return frame.evaluate(() => (window.__pwned === undefined ? null : window.__pwned));
    },
    /** The texts the views told the model (ui/update-model-context). */
    async told() {
      return page.evaluate(() => window.modelContext.map((c) => c.params.content[0].text));
    },
    async close() {
      await page.close();
      hostServer.close();
      viewServer.close();
    },
  };
}
