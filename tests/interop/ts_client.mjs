// One TypeScript SDK client over the plan: `node ts_client.mjs sdk1|sdk2|apps plan.json`.
// `apps`: two SDK 2.x clients per server, one declaring the MCP Apps extension
// (`io.modelcontextprotocol/ui`) and one not; each call goes to both, and the text the model
// reads (and isError) must be the same, the view's data coming only in the result's `_meta`.
// Prints one line per check on stdout and exits 1 if any failed. Nothing of ours is written on
// stderr: whatever appears there came from the SDK (e.g. ajv's schema warnings) and fails the run.
import { readFileSync } from 'node:fs';

import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

import { expectations } from './expect.mjs';

const [flavour, planFile] = process.argv.slice(2);
const sdk =
    flavour === 'sdk1'
        ? {
              Client: (await import('@modelcontextprotocol/sdk/client/index.js')).Client,
              StdioClientTransport: (await import('@modelcontextprotocol/sdk/client/stdio.js')).StdioClientTransport,
          }
        : flavour === 'sdk2' || flavour === 'apps'
          ? {
                Client: (await import('@modelcontextprotocol/client')).Client,
                StdioClientTransport: (await import('@modelcontextprotocol/client/stdio')).StdioClientTransport,
            }
          : null;
if (!sdk || !planFile) {
    console.log('usage: node ts_client.mjs sdk1|sdk2|apps plan.json');
    process.exit(2);
}

const plan = JSON.parse(readFileSync(planFile, 'utf8'));

/** Why `schema` does not compile cleanly in ajv's strict mode (2020-12), or null. */
function strictProblem(schema) {
    const warnings = [];
    const note = (m) => warnings.push(String(m));
    const ajv = new Ajv2020({ strict: true, allErrors: true, logger: { log: note, warn: note, error: note } });
    addFormats(ajv);
    try {
        ajv.compile(schema);
    } catch (error) {
        return error.message;
    }
    return warnings.length === 0 ? null : warnings.join('; ');
}
let failures = 0;

function report(ok, what, detail) {
    if (!ok) failures += 1;
    console.log(`${ok ? 'ok  ' : 'FAIL'} [${flavour}] ${what}${ok ? '' : `: ${detail}`}`);
}

/** The result in the shape expect.mjs checks (the Python driver builds the same). */
function normalise(result) {
    return {
        isError: result.isError === true,
        text: (result.content ?? []).filter((b) => b.type === 'text').map((b) => b.text).join('\n'),
        structured: result.structuredContent,
    };
}

for (const server of plan) {
    const transport = new sdk.StdioClientTransport({
        command: server.command,
        args: server.args,
        cwd: server.cwd,
        env: server.env ? { ...process.env, ...server.env } : undefined,
        stderr: 'pipe',
    });
    let serverLog = '';
    transport.stderr?.on('data', (chunk) => {
        serverLog += chunk;
    });
    const appsCapabilities = { extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } } };
    const client = new sdk.Client(
        { name: `interop-${flavour}`, version: '1.0.0' },
        flavour === 'apps' ? { capabilities: appsCapabilities } : undefined,
    );
    // `apps`: the same server again, through a client that does not declare the extension.
    let plain = null;
    try {
        await client.connect(transport);
        if (flavour === 'apps') {
            plain = new sdk.Client({ name: 'interop-plain', version: '1.0.0' });
            await plain.connect(
                new sdk.StdioClientTransport({
                    command: server.command,
                    args: server.args,
                    cwd: server.cwd,
                    env: server.env ? { ...process.env, ...server.env } : undefined,
                    stderr: 'ignore',
                }),
            );
        }
        const listed = await client.listTools();
        const names = listed.tools.map((t) => t.name).sort();
        report(
            JSON.stringify(names) === JSON.stringify([...server.tools].sort()),
            `${server.name}: tools/list`,
            `expected ${server.tools}, got ${names}`,
        );
        if (flavour === 'sdk1') {
            // Beyond what the SDKs do: every schema must compile in a strict JSON Schema 2020-12
            // validator, with no warning (a stricter host than the SDKs must accept them too).
            for (const tool of listed.tools) {
                for (const key of ['inputSchema', 'outputSchema']) {
                    if (!tool[key]) continue;
                    const problem = strictProblem(tool[key]);
                    report(problem === null, `${server.name}: ${tool.name} ${key} compiles in strict ajv`, problem);
                }
            }
        }
        for (const call of server.calls) {
            const what = `${server.name}: ${call.tool} ${JSON.stringify(call.args)}`;
            let result;
            try {
                result = await client.callTool({ name: call.tool, arguments: call.args });
            } catch (error) {
                report(false, what, `the client threw instead of returning the result: ${error.message}`);
                continue;
            }
            const problems = expectations(call, normalise(result));
            report(problems.length === 0, what, problems.join('; '));
            if (plain) {
                const other = normalise(await plain.callTool({ name: call.tool, arguments: call.args }));
                const mine = normalise(result);
                report(
                    other.text === mine.text && other.isError === mine.isError,
                    `${what}: the model reads the same text with and without the extension`,
                    `with: ${JSON.stringify(mine.text)}; without: ${JSON.stringify(other.text)}`,
                );
            }
        }
    } catch (error) {
        report(false, `${server.name}: session`, `${error.message}\nserver stderr:\n${serverLog}`);
    } finally {
        await client.close().catch(() => {});
        await plain?.close().catch(() => {});
    }
}
console.log(`[${flavour}] ${failures === 0 ? 'all checks passed' : `${failures} check(s) failed`}`);
process.exit(failures === 0 ? 0 : 1);
