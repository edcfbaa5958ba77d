// The MCP Apps views of the servers, rendered as a host renders them and driven as a person
// would: each view's HTML read with resources/read from the real binary, served from another
// origin under the spec's default CSP, shown in headless Chromium through ext-apps's AppBridge,
// its buttons clicked; then the disk, the messages to the model, the absence of any CSP
// violation and of any script from a file's content are checked, and a screenshot is kept.
//
//   node host.mjs            (run.sh installs the dependencies and bundles the bridge first)
//
// MCP_BIN_DIR: the directory of the binaries (default: target/debug). APPS_OUT: where the
// screenshots go (default: target/apps).
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";
import { appsHost } from "./apps-host.mjs";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, "../..");
const BIN = process.env.MCP_BIN_DIR || path.join(ROOT, "target/debug");
const OUT = process.env.APPS_OUT || path.join(ROOT, "target/apps");
const EXT = ".exe".repeat(process.platform === "win32" ? 1 : 0);

let failures = 0;
function check(ok, what) {
  console.log(`${ok ? "ok  " : "FAIL"} ${what}`);
  if (!ok) failures += 1;
}

// A stdio MCP client: JSON-RPC lines to and from the real binary.
class Server {
  constructor(binary, args, { extension = true } = {}) {
    this.child = spawn(path.join(BIN, binary + EXT), args, { stdio: ["pipe", "pipe", "inherit"] });
    this.extension = extension;
    this.next = 1;
    this.waiting = new Map();
    let buffer = "";
    this.child.stdout.on("data", (chunk) => {
      buffer += chunk;
      let nl;
      while ((nl = buffer.indexOf("\n")) >= 0) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        if (!line.trim()) continue;
        const message = JSON.parse(line);
        const waiting = this.waiting.get(message.id);
        if (waiting && message.method === undefined) {
          this.waiting.delete(message.id);
          message.error ? waiting.reject(new Error(JSON.stringify(message.error))) : waiting.resolve(message.result);
        } else if (message.method === "roots/list" && message.id !== undefined) {
          this.send({ jsonrpc: "2.0", id: message.id, result: { roots: [] } });
        }
      }
    });
  }
  send(message) {
    this.child.stdin.write(JSON.stringify(message) + "\n");
  }
  request(method, params) {
    const id = this.next++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${method}: no answer in 30 s`)), 30000);
      this.waiting.set(id, {
        resolve: (v) => { clearTimeout(timer); resolve(v); },
        reject: (e) => { clearTimeout(timer); reject(e); },
      });
      this.send({ jsonrpc: "2.0", id, method, params });
    });
  }
  async start() {
    const capabilities = this.extension
      ? { extensions: { "io.modelcontextprotocol/ui": { mimeTypes: ["text/html;profile=mcp-app"] } } }
      : {};
    this.info = await this.request("initialize", {
      protocolVersion: "2025-11-25",
      capabilities,
      clientInfo: { name: "apps-test-host", version: "1.0.0" },
    });
    this.send({ jsonrpc: "2.0", method: "notifications/initialized" });
    this.tools = (await this.request("tools/list", {})).tools;
    return this;
  }
  call(name, args) {
    return this.request("tools/call", { name, arguments: args });
  }
  stop() {
    this.child.kill();
  }
}

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu"],
});
const host = await appsHost(browser, { out: OUT, check });
const { page, violations } = host;
const render = (...a) => host.render(...a);
const pwned = (id) => host.pwned(id);

// ---- text-editor: the change view --------------------------------------------------------
{
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "apps-te-"));
  const editor = await new Server("mcp-server-text-editor", ["--root", root]).start();
  const ext = editor.info.capabilities.extensions || {};
  check("io.modelcontextprotocol/ui" in ext, "text-editor declares the MCP Apps extension");

  // A file whose text is markup: shown as text, run never.
  const hostile = '<script>window.__pwned = "script"</script>\n<img src=x onerror="window.__pwned = \'onerror\'">\n';
  let args = { command: "create", path: `${root}/hostile.html`, file_text: hostile };
  let result = await editor.call("text_editor", args);
  let view = await render(editor, "text_editor", args, result, "text-editor-create.png");
  const shown = await view.frame.locator(".diff").innerText();
  check(shown.includes("<script>window.__pwned") && shown.includes("onerror="), "a file's markup is shown as text");
  check((await pwned(view.id)) === null, "no script from a file's content ran");

  // str_replace on a CRLF file; its Undo reverts it on disk and tells the model.
  fs.writeFileSync(path.join(root, "notes.txt"), "first line\r\nsecond line\r\nthird line\r\n");
  args = { command: "str_replace", path: `${root}/notes.txt`, old_str: "second line", new_str: "2nd line" };
  result = await editor.call("text_editor", args);
  view = await render(editor, "text_editor", args, result, "text-editor-change.png");
  check((await view.frame.locator(".diff .cr").count()) === 4, "CRLF line endings are shown as the file has them");
  const undo = view.frame.getByRole("button", { name: "Undo" });
  await undo.waitFor();
  check(await undo.isEnabled(), "Undo is offered while the change is the file's latest");
  await undo.click();
  await view.frame.getByRole("button", { name: "Undone" }).waitFor({ timeout: 10000 });
  check(
    fs.readFileSync(path.join(root, "notes.txt"), "utf8") === "first line\r\nsecond line\r\nthird line\r\n",
    "Undo reverted the file on disk",
  );
  const told = await page.evaluate(() => window.modelContext.map((c) => c.params.content[0].text));
  check(told.some((t) => t.includes("clicked Undo") && t.includes("notes.txt")), "the model is told the user undid the change");

  // A change that is no longer the latest: Undo is not offered, and says why.
  const first = { command: "str_replace", path: `${root}/notes.txt`, old_str: "first line", new_str: "1st line" };
  const firstResult = await editor.call("text_editor", first);
  await editor.call("text_editor", { command: "str_replace", path: `${root}/notes.txt`, old_str: "third line", new_str: "3rd line" });
  view = await render(editor, "text_editor", first, firstResult, null);
  const stale = view.frame.getByRole("button", { name: "Undo" });
  check(await stale.isDisabled(), "Undo is disabled once a later change was made");
  check((await view.frame.locator("[role=status]").innerText()).includes("no longer the latest change"), "and the view says why");

  // Undo is pinned to its change, not to the file's content: alpha -> beta (view 1), beta ->
  // gamma, gamma -> beta. The file holds view 1's result again, but Undo there is not offered
  // (it would undo another change).
  fs.writeFileSync(path.join(root, "g.txt"), "alpha\n");
  const one = { command: "str_replace", path: `${root}/g.txt`, old_str: "alpha", new_str: "beta" };
  const oneResult = await editor.call("text_editor", one);
  await editor.call("text_editor", { command: "str_replace", path: `${root}/g.txt`, old_str: "beta", new_str: "gamma" });
  await editor.call("text_editor", { command: "str_replace", path: `${root}/g.txt`, old_str: "gamma", new_str: "beta" });
  view = await render(editor, "text_editor", one, oneResult, null);
  const pinned = view.frame.getByRole("button", { name: "Undo" });
  await view.frame.locator("[role=status]", { hasText: "not offered" }).waitFor({ timeout: 10000 });
  check(await pinned.isDisabled(), "Undo of a change that is no longer the latest is not offered, even when the content came back");
  check(fs.readFileSync(path.join(root, "g.txt"), "utf8") === "beta\n", "and nothing was undone");

  // The diff table shows every line Apply writes: a removed `-- keep backups` and an added
  // `++ DROP TABLE t;` are rows (they start like `--- ` and `+++ ` headers).
  fs.writeFileSync(path.join(root, "q.sql"), "SELECT 1;\n-- keep backups\nSELECT 2;\n");
  args = { path: `${root}/q.sql`, edits: [{ old_str: "-- keep backups", new_str: "++ DROP TABLE t;" }], dry_run: true };
  result = await editor.call("edit_file", args);
  view = await render(editor, "edit_file", args, result, "text-editor-sql.png");
  const removed = await view.frame.locator(".diff tr.del").allInnerTexts();
  const added = await view.frame.locator(".diff tr.add").allInnerTexts();
  check(removed.length === 1 && removed[0].includes("-- keep backups"), "a removed `-- ` line is shown removed");
  check(added.length === 1 && added[0].includes("++ DROP TABLE t;"), "an added `++ ` line is shown added");
  const numbers = await view.frame.locator(".diff tr:not(.hunk) td:first-child").allInnerTexts();
  check(JSON.stringify(numbers) === JSON.stringify(["1", "2", "", "3"]), `the old line numbers stay true (${numbers})`);

  // A file name with a newline and a bidi override is shown escaped: no forged line.
  const odd = "x\n+ rm -rf ~\u202e.txt";
  args = { command: "create", path: `${root}/${odd}`, file_text: "hi\n" };
  result = await editor.call("text_editor", args);
  view = await render(editor, "text_editor", args, result, null);
  const title = await view.frame.locator("h1").innerText();
  check(title.includes("x\\n+ rm -rf ~\\u{202e}.txt") && !title.includes("\u202e"), `a name's newline and bidi override are escaped (${JSON.stringify(title)})`);
  const headers = await view.frame.locator(".diff").innerText();
  check(!headers.split("\n").some((l) => l.trim().startsWith("+ rm -rf")), "the diff has no forged line");

  // A dry run too large to show offers no Apply.
  fs.writeFileSync(path.join(root, "big.txt"), "head\n" + "x\n".repeat(2_200_000));
  args = { path: `${root}/big.txt`, edits: [{ old_str: "head", new_str: "HEAD" }], dry_run: true };
  result = await editor.call("edit_file", args);
  view = await render(editor, "edit_file", args, result, null);
  await view.frame.locator("[role=status]", { hasText: "Apply is not offered" }).waitFor({ timeout: 10000 });
  check((await view.frame.getByRole("button", { name: "Apply" }).count()) === 0, "a change too large to show has no Apply");

  // edit_file's dry run: Apply writes exactly the previewed edits.
  fs.writeFileSync(path.join(root, "app.py"), "def main():\n    print('hi')\n\nmain()\n");
  args = { path: `${root}/app.py`, edits: [{ old_str: "print('hi')", new_str: "print('hello')" }, { old_str: "main()\n", new_str: "if __name__ == '__main__':\n    main()\n", replace_all: false }], dry_run: true };
  result = await editor.call("edit_file", args);
  check(fs.readFileSync(path.join(root, "app.py"), "utf8").includes("print('hi')"), "the dry run wrote nothing");
  view = await render(editor, "edit_file", args, result, "text-editor-preview.png");
  await view.frame.getByRole("button", { name: "Apply" }).click();
  await view.frame.getByRole("button", { name: "Applied" }).waitFor({ timeout: 10000 });
  check(
    fs.readFileSync(path.join(root, "app.py"), "utf8") === "def main():\n    print('hello')\n\nif __name__ == '__main__':\n    main()\n",
    "Apply wrote exactly the previewed edits",
  );

  // Apply after the file changed on disk: refused by if_sha256, nothing written.
  fs.writeFileSync(path.join(root, "b.txt"), "alpha\nbeta\n");
  args = { path: `${root}/b.txt`, edits: [{ old_str: "alpha", new_str: "ALPHA" }], dry_run: true };
  result = await editor.call("edit_file", args);
  view = await render(editor, "edit_file", args, result, null);
  fs.writeFileSync(path.join(root, "b.txt"), "alpha\nbeta\ngamma\n");
  await view.frame.getByRole("button", { name: "Apply" }).click();
  await view.frame.getByText("Not applied").waitFor({ timeout: 10000 });
  check(fs.readFileSync(path.join(root, "b.txt"), "utf8") === "alpha\nbeta\ngamma\n", "a stale preview's Apply wrote nothing (if_sha256)");

  // move_file and delete_file say what they did; delete's Undo brings the file back.
  fs.writeFileSync(path.join(root, "old.txt"), "moving\n");
  args = { source: `${root}/old.txt`, destination: `${root}/sub/new.txt` };
  result = await editor.call("move_file", args);
  view = await render(editor, "move_file", args, result, "text-editor-move.png");
  check((await view.frame.locator("h1").innerText()).startsWith("Moved"), "a move is said plainly");
  args = { path: `${root}/sub/new.txt` };
  result = await editor.call("delete_file", args);
  view = await render(editor, "delete_file", args, result, "text-editor-delete.png");
  await view.frame.getByRole("button", { name: "Undo" }).click();
  await view.frame.getByRole("button", { name: "Undone" }).waitFor({ timeout: 10000 });
  check(fs.readFileSync(path.join(root, "sub/new.txt"), "utf8") === "moving\n", "delete's Undo restored the file");
  editor.stop();
}

// ---- text-editor: the Changes view ---------------------------------------------------------
{
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "apps-tc-"));
  fs.writeFileSync(path.join(root, "a.txt"), "alpha\nbeta\n");
  fs.writeFileSync(path.join(root, "b.txt"), "one\r\ntwo\r\n");
  fs.writeFileSync(path.join(root, "gone.txt"), "kept bytes\n");
  const before = () => ["a.txt", "b.txt", "gone.txt", "new.txt"].map((f) => fs.existsSync(path.join(root, f)) ? fs.readFileSync(path.join(root, f), "utf8") : null);
  const original = JSON.stringify(before());
  const editor = await new Server("mcp-server-text-editor", ["--root", root]).start();
  await editor.call("text_editor", { command: "str_replace", path: `${root}/a.txt`, old_str: "beta", new_str: "BETA" });
  await editor.call("text_editor", { command: "insert", path: `${root}/b.txt`, insert_line: 1, new_str: "<b>inserted</b>" });
  await editor.call("text_editor", { command: "create", path: `${root}/new.txt`, file_text: "fresh\n" });
  await editor.call("delete_file", { path: "gone.txt" });
  let args = {};
  let result = await editor.call("list_changes", args);
  let view = await render(editor, "list_changes", args, result, "text-editor-changes.png");
  check((await view.frame.locator("section.file").count()) === 4, "the Changes view shows each changed file");
  check((await view.frame.locator(".diff").first().innerText()).includes("BETA"), "with its diff");
  check((await view.frame.getByText("<b>inserted</b>").count()) >= 1, "a file's markup is shown as text");
  check((await pwned(view.id)) === null, "no script from a file's content ran");
  // Revert this file: only b.txt goes back.
  await view.frame.locator("section.file", { hasText: "b.txt" }).getByRole("button", { name: "Revert this file" }).click();
  await view.frame.getByRole("button", { name: "Reverted" }).waitFor({ timeout: 10000 });
  check(fs.readFileSync(path.join(root, "b.txt"), "utf8") === "one\r\ntwo\r\n" && fs.readFileSync(path.join(root, "a.txt"), "utf8") === "alpha\nBETA\n", "Revert this file reverted that file alone");
  // The same view's Revert all is now stale (a revert was made since): refused, nothing changed.
  result = await editor.call("list_changes", args);
  view = await render(editor, "list_changes", args, result, "text-editor-changes-all.png");
  fs.writeFileSync(path.join(root, "a.txt"), "changed by someone else\n");
  await view.frame.getByRole("button", { name: "Revert all" }).click();
  await view.frame.getByText("Not reverted").waitFor({ timeout: 10000 });
  check(fs.existsSync(path.join(root, "new.txt")), "Revert all of files changed since the view was made reverted nothing");
  fs.writeFileSync(path.join(root, "a.txt"), "alpha\nBETA\n");
  result = await editor.call("list_changes", args);
  view = await render(editor, "list_changes", args, result, "text-editor-changes-all.png");
  await view.frame.getByRole("button", { name: "Revert all" }).click();
  await view.frame.getByRole("button", { name: "Reverted" }).waitFor({ timeout: 10000 });
  check(JSON.stringify(before()) === original, "Revert all restored every file (the deleted one back, the created one gone)");
  const told = await page.evaluate(() => window.modelContext.map((c) => c.params.content[0].text));
  check(told.some((t) => t.includes("Revert all") && t.includes("revert_changes")), "the model is told the user reverted them");
  editor.stop();
}

// ---- draft-post: the article preview and the list -----------------------------------------
{
  const repo = fs.mkdtempSync(path.join(os.tmpdir(), "apps-dp-repo-"));
  const drafts = fs.mkdtempSync(path.join(os.tmpdir(), "apps-dp-src-"));
  fs.mkdirSync(path.join(drafts, "img"));
  // A 2x2 red PNG.
  const png = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAFklEQVR4nGP8z8DAwMDAxMDAwMDAAAANHQEDK+mmyAAAAABJRU5ErkJggg==", "base64");
  fs.writeFileSync(path.join(drafts, "img/fig.png"), png);
  fs.writeFileSync(
    path.join(drafts, "hello.md"),
    "---\ntitle: Hello, views\ndate: 2026-11-29\ntags: [mcp, rust]\nstatus: draft\n---\n\n## A heading\n\nSome *text* and a figure:\n\n![a red square](img/fig.png)\n\n<script>window.__pwned = 'manuscript'</script>\n<img src=x onerror=\"window.__pwned = 'onerror'\">\n\n| a | b |\n|---|---|\n| 1 | 2 |\n",
  );
  const blog = await new Server("mcp-server-draft-post", ["--repo", repo, "--source-root", drafts]).start();
  let args = { source: path.join(drafts, "hello.md"), project: "2026-11", dry_run: true };
  let result = await blog.call("draft_post", args);
  check(!fs.existsSync(path.join(repo, "projects")), "the dry run wrote nothing");
  let view = await render(blog, "draft_post", args, result, "draft-post-preview.png");
  check((await view.frame.locator("article h2", { hasText: "A heading" }).count()) === 1, "the preview renders the manuscript's headings");
  check((await view.frame.locator("article table td").count()) === 2, "and its tables");
  const image = view.frame.locator("article img[alt='a red square']");
  check((await image.getAttribute("src") || "").startsWith("data:image/png;base64,"), "the image beside the article is inlined");
  check((await image.evaluate((img) => img.naturalWidth)) === 2, "and shown");
  check((await pwned(view.id)) === null, "no script from the manuscript ran");
  check((await view.frame.locator(".meta").innerText()).includes("2026-11-29"), "the front matter is the header");
  // The manuscript changed after the preview: Save draft files nothing, and says why.
  const original = fs.readFileSync(path.join(drafts, "hello.md"), "utf8");
  fs.writeFileSync(path.join(drafts, "hello.md"), original + "\nA paragraph nobody saw.\n");
  await view.frame.getByRole("button", { name: "Save draft" }).click();
  await view.frame.getByText("Not saved").waitFor({ timeout: 10000 });
  check(!fs.existsSync(path.join(repo, "projects")), "Save draft of a manuscript changed since its preview filed nothing");
  check((await view.frame.locator("[role=status]").innerText()).includes("changed since the preview"), "and the view says why");
  fs.writeFileSync(path.join(drafts, "hello.md"), original);
  await view.frame.getByRole("button", { name: "Save draft" }).click();
  await view.frame.getByRole("button", { name: "Saved" }).waitFor({ timeout: 10000 });
  const article = path.join(repo, "projects/2026-11/01-hello-views/article.md");
  check(fs.existsSync(article) && fs.existsSync(path.join(repo, "projects/2026-11/01-hello-views/img/fig.png")), "Save draft filed the article and its image");
  const told = await page.evaluate(() => window.modelContext.map((c) => c.params.content[0].text));
  check(told.some((t) => t.includes("Save draft") && t.includes("01-hello-views")), "the model is told the user saved it");

  // An update shows the diff against the previous version.
  fs.appendFileSync(path.join(drafts, "hello.md"), "\nA new closing line.\n");
  args = { source: path.join(drafts, "hello.md") };
  result = await blog.call("draft_post", args);
  view = await render(blog, "draft_post", args, result, "draft-post-update.png");
  check((await view.frame.locator(".diff").innerText()).includes("A new closing line."), "an update shows its diff");

  args = {};
  result = await blog.call("list_posts", args);
  view = await render(blog, "list_posts", args, result, "draft-post-list.png");
  check((await view.frame.locator("table.list tbody tr").count()) === 1, "list_posts shows a table of the articles");
  const table = await view.frame.locator("table.list").innerText();
  check(table.includes("Hello, views") && table.includes("draft") && table.includes("2026-11-29"), "with their titles, statuses and dates");
  blog.stop();
}

// ---- sample-tool: hoge ----------------------------------------------------------------------
{
  const sample = await new Server("mcp-server-sample-tool", []).start();
  const args = { action: "calc", args: { x: 1, y: 2 } };
  const result = await sample.call("hoge", args);
  const view = await render(sample, "hoge", args, result, "sample-tool-hoge.png");
  check((await view.frame.locator(".sum").innerText()) === "1 + 2 = 3", "hoge's view shows 1 + 2 = 3");
  sample.stop();
}

check(violations.length === 0, `no CSP violation and no page error (${violations.join(" | ")})`);
await host.close();
await browser.close();
console.log(failures ? `${failures} check(s) failed` : "all MCP Apps view checks passed");
process.exit(failures ? 1 : 0);
