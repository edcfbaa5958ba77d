// The change view's diff reader (`ui.rows` of ../src/view/view.js) outside a browser, for the
// differential test in view_rows.rs: reads a JSON array of unified diffs on stdin, prints the
// rows each one is shown as (a JSON array of arrays). The page's globals are stubbed: `rows`
// touches none of them.
import fs from "node:fs";
import path from "node:path";
import vm from "node:vm";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const source = fs.readFileSync(path.join(here, "../src/view/view.js"), "utf8");
const window = { addEventListener() {}, parent: { postMessage() {} } };
const context = vm.createContext({ window, document: {}, requestAnimationFrame() {}, ResizeObserver: class {} });
vm.runInContext(source + "\nglobalThis.ui = ui;", context);
const diffs = JSON.parse(fs.readFileSync(0, "utf8"));
process.stdout.write(JSON.stringify(diffs.map((d) => context.ui.rows(d))));
