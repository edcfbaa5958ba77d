// The TypeScript peer of the HTTP benchmark: the official MCP TypeScript SDK (1.x) serving
// Streamable HTTP on node:http, one transport per session (the SDK's documented stateful
// setup), with the same trivial tool as mcp-server-sample-tool's `hoge` (calc: x + y).
//
//   node ts_server.mjs PORT
import { createServer } from "node:http";
import { randomUUID } from "node:crypto";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";

const port = Number(process.argv[2]);
const transports = new Map();

function newServer() {
  const server = new McpServer({ name: "ts-sdk-peer", version: "1.0.0" });
  server.registerTool(
    "hoge",
    {
      description: 'The sample tool: {"action": "calc", "args": {"x": 1, "y": 2}} -> {"value": 3}.',
      inputSchema: { action: z.string(), args: z.object({ x: z.number(), y: z.number() }) },
    },
    async ({ action, args }) => {
      if (action !== "calc") return { isError: true, content: [{ type: "text", text: `unknown action ${action}` }] };
      const value = args.x + args.y;
      return { content: [{ type: "text", text: JSON.stringify({ value }) }], structuredContent: { value } };
    },
  );
  return server;
}

function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => resolve(chunks.length ? JSON.parse(Buffer.concat(chunks).toString("utf8")) : undefined));
    req.on("error", reject);
  });
}

createServer(async (req, res) => {
  try {
    const sessionId = req.headers["mcp-session-id"];
    const body = req.method === "POST" ? await readBody(req) : undefined;
    let transport = sessionId ? transports.get(sessionId) : undefined;
    if (!transport && req.method === "POST" && isInitializeRequest(body)) {
      transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => transports.set(id, transport),
      });
      transport.onclose = () => transport.sessionId && transports.delete(transport.sessionId);
      await newServer().connect(transport);
    }
    if (!transport) {
      res.writeHead(400, { "content-type": "application/json" }).end(
        JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message: "no valid session" }, id: null }),
      );
      return;
    }
    await transport.handleRequest(req, res, body);
  } catch (e) {
    if (!res.headersSent) res.writeHead(500).end(String(e));
  }
}).listen(port, "127.0.0.1");
