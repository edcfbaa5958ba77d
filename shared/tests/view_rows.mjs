// The change view's diff reader (`ui.rows` of ../src/view/view.js) outside a browser, for the
// differential tests (shared/tests/view_rows.rs, servers/text-editor/tests/suite/views.rs):
// reads a JSON array of `{diff, old}` on stdin, prints for each `{rows, applied}`: the rows the
// view shows the diff as, and the text made by applying those rows, hunk by hunk, to `old`
// (null where a row disagrees with `old`). The page's globals are stubbed: `rows` touches none.
import fs from "node:fs";
import path from "node:path";
import vm from "node:vm";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const source = fs.readFileSync(path.join(here, "../src/view/view.js"), "utf8");
const window = { addEventListener() {}, parent: { postMessage() {} } };
const context = vm.createContext({ window, document: {}, requestAnimationFrame() {}, ResizeObserver: class {} });
vm.runInContext(source + "\nglobalThis.ui = ui;", context);

// A row's line as the file holds it: its text, and its newline unless the row says it has none.
const lineOf = (row) => row.text + (row.eol === false ? "" : "\n");

// `old`'s lines, each with its "\n" (the last without, when the text has none).
const linesOf = (text) => text.match(/[^\n]*\n|[^\n]+$/g) || [];

function apply(old, rows) {
  const lines = linesOf(old);
  const out = [];
  let at = 0;
  for (let i = 0; i < rows.length; ) {
    const hunk = /^@@ -(\d+)(?:,(\d+))? /.exec(rows[i].kind === "hunk" ? rows[i].text : "");
    if (!hunk) return null;
    // `-N,0`: the lines go after line N; otherwise the hunk starts at line N.
    const first = hunk[2] === "0" ? Number(hunk[1]) : Number(hunk[1]) - 1;
    if (first < at || first > lines.length) return null;
    out.push(...lines.slice(at, first));
    at = first;
    for (i += 1; i < rows.length && rows[i].kind !== "hunk"; i += 1) {
      const row = rows[i];
      if (row.kind === "add") out.push(lineOf(row));
      else if (row.kind === "ctx" || row.kind === "del") {
        if (lines[at] !== lineOf(row)) return null;
        if (row.kind === "ctx") out.push(lineOf(row));
        at += 1;
      } else return null;
    }
  }
  out.push(...lines.slice(at));
  return out.join("");
}

const cases = JSON.parse(fs.readFileSync(0, "utf8"));
process.stdout.write(
  JSON.stringify(
    cases.map(({ diff, old }) => {
      const rows = context.ui.rows(diff);
      return { rows, applied: typeof old === "string" ? apply(old, rows) : null };
    }),
  ),
);
