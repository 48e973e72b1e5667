// A third-party MCP client for the interop tests: the official Node MCP
// SDK's Client over StdioClientTransport. It starts the server given as
// its arguments, lists every resource (following cursors), calls the tool
// find with the query in $FIND_QUERY (again until the index is complete), and prints one JSON object:
//   {"server": {...}, "resources": [uri...], "tools": [name...], "find": CallToolResult}
// Errors go to stderr with exit code 1.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [command, ...args] = process.argv.slice(2);
if (!command) {
  console.error("usage: mcp_client.mjs COMMAND [ARGS...]");
  process.exit(2);
}
const query = process.env.FIND_QUERY || "";

const transport = new StdioClientTransport({ command, args, stderr: "inherit" });
const client = new Client({ name: "dpe-tui-interop", version: "1.0.0" });
const timer = setTimeout(() => {
  console.error("mcp_client: no answer within 60s");
  process.exit(1);
}, 60000);
try {
  await client.connect(transport);
  const resources = [];
  let cursor;
  for (let i = 0; i < 1000; i++) {
    const page = await client.listResources(cursor ? { cursor } : {});
    for (const r of page.resources) resources.push(r.uri);
    cursor = page.nextCursor;
    if (!cursor) break;
  }
  const tools = (await client.listTools()).tools.map((t) => t.name);
  // The index builds in the background: ask again (bounded) until the
  // answer says it covers every document.
  let find;
  for (let i = 0; i < 100; i++) {
    find = await client.callTool({ name: "find", arguments: { query, limit: 5 } });
    if (find.isError || find.structuredContent?.indexed?.complete) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  process.stdout.write(JSON.stringify({ server: client.getServerVersion(), resources, tools, find }) + "\n");
  await client.close();
  clearTimeout(timer);
} catch (err) {
  console.error("mcp_client:", err && err.stack ? err.stack : err);
  process.exit(1);
}
