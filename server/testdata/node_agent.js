// Node socket.io-client 4.8 as an SMCP agent against the Go server
// (a real Socket.IO client, not ours). Run by TestNodeAgent_*; prints one
// JSON object with every result on stdout and exits 0, or prints
// {"error": ...} and exits 1.
//
// env: SMCP_URL (http://127.0.0.1:port), SMCP_PATH (/socket.io/),
//      SMCP_OFFICE, SMCP_COMPUTER, SMCP_VERSION (a2c_version to send),
//      SMCP_MODE ("agent" | "version")
"use strict";
const { io } = require("socket.io-client");

const url = process.env.SMCP_URL;
const path = process.env.SMCP_PATH || "/socket.io/";
const office = process.env.SMCP_OFFICE || "interop";
const computer = process.env.SMCP_COMPUTER || "comp";
const version = process.env.SMCP_VERSION || "0.2.0";
const mode = process.env.SMCP_MODE || "agent";

function done(result, code) {
  process.stdout.write(JSON.stringify(result) + "\n");
  process.exit(code);
}
const guard = setTimeout(() => done({ error: "timed out" }, 1), 20000);

const socket = io(url + "/smcp", {
  path,
  query: { a2c_version: version },
  auth: { role: "agent" },
  reconnection: false,
  timeout: 10000,
  // default transports: polling first, then the websocket upgrade, so both
  // pass through the server's version middleware
});

if (mode === "version") {
  socket.on("connect", () => done({ error: "connected with an incompatible version" }, 1));
  socket.on("connect_error", (err) => {
    const ctx = err.context || {};
    clearTimeout(guard);
    socket.close();
    done({ message: err.message, status: err.description, body: ctx.responseText || null }, 0);
  });
} else {
  socket.on("connect_error", (err) => done({ error: "connect_error: " + err.message }, 1));
  socket.on("connect", async () => {
    try {
      const result = { sid: socket.id, transport: socket.io.engine.transport.name };
      // Every ack argument, not only the first (emitWithAck keeps one).
      const call = (ev, payload) => new Promise((resolve, reject) => {
        socket.timeout(5000).emit(ev, payload, (err, ...args) => (err ? reject(err) : resolve(args)));
      });
      result.join = await call("server:join_office", { role: "agent", name: "node-agent", office_id: office });
      result.list = await call("server:list_room", { agent: "node-agent", req_id: "node-list", office_id: office });
      result.config = await call("client:get_config", { agent: "node-agent", req_id: "node-cfg", computer });
      result.missing = await call("client:get_config", { agent: "node-agent", req_id: "node-404", computer: "nobody" });
      clearTimeout(guard);
      socket.close();
      done(result, 0);
    } catch (err) {
      done({ error: String(err && err.message || err) }, 1);
    }
  });
}
