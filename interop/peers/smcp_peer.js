#!/usr/bin/env node
// A minimal A2C-SMCP server on Node socket.io 4.8, used only as a test peer
// for the Go agent's interop tests. Same behaviour as smcp_peer.py:
//   * an HTTP 'request' pre-handler checks a2c_version before engine.io sees
//     the request (versioning.md): missing/invalid → 400, incompatible → 400 +
//     4008 body + X-A2C-Error-Code: 4008; with --api-key a wrong x-api-key → 401.
//     The websocket 'upgrade' path gets the same check.
//   * /smcp: server:join_office → ack(true, null) / ack(false, "office X
//     already has an agent"); server:leave_office; server:list_room. With
//     --refuse-connect every namespace connect is refused (CONNECT_ERROR).
//   * routes exactly one event: client:get_config → a canned answer.
//   * client:get_resources → an EMPTY ack, except mcp_server "drop-connection",
//     which closes the transport without acking.
//   * client:get_dpe → never acked (a dropped request).
//   * GET /stats → {"handshakes": n, "rejected": n}.
// Prints "PORT <n>" on stdout once listening; exits when stdin closes.
// Run with NODE_PATH=<repo>/interop/node_modules.
"use strict";
const http = require("http");
const { Server } = require("socket.io");

const NS = "/smcp";
const PATH = "/socket.io/";

function arg(name, def) {
  const i = process.argv.indexOf(name);
  return i >= 0 && i + 1 < process.argv.length ? process.argv[i + 1] : def;
}
const serverVersion = parseVersion(arg("--server-version", "0.2.0"));
const apiKey = arg("--api-key", "");
const computer = arg("--computer", "");
const notifyOnJoin = process.argv.includes("--notify-on-join");
const refuseConnect = process.argv.includes("--refuse-connect");
const stats = { handshakes: 0, rejected: 0 };

function parseVersion(s) {
  const parts = String(s).split(".");
  if (parts.length !== 3 || !parts.every((p) => /^\d+$/.test(p))) {
    throw new Error("want MAJOR.MINOR.PATCH");
  }
  return parts.map(Number);
}

function compatible(server, client) {
  if (server[0] !== client[0]) return false;
  return server[0] !== 0 || server[1] === client[1];
}

// check returns null when the request may pass, else [status, body, headers].
function check(req) {
  const url = new URL(req.url, "http://x");
  if (!url.pathname.startsWith(PATH)) return null;
  if (!url.searchParams.has("sid")) stats.handshakes++;
  const v = url.searchParams.get("a2c_version");
  let res = null;
  if (!v) {
    res = [400, { code: 400, message: "Missing a2c_version query parameter" }, {}];
  } else {
    let cv;
    try {
      cv = parseVersion(v);
    } catch (e) {
      res = [400, { code: 400, message: "Invalid a2c_version: " + e.message }, {}];
    }
    if (!res && !compatible(serverVersion, cv)) {
      const [ma, mi] = serverVersion;
      res = [400, {
        code: 4008, message: "Protocol version mismatch",
        server_version: serverVersion.join("."), client_version: v,
        min_supported: `${ma}.${mi}.0`, max_supported: `${ma}.${mi}.999`,
      }, { "X-A2C-Error-Code": "4008" }];
    }
    if (!res && apiKey && req.headers["x-api-key"] !== apiKey) {
      res = [401, { code: 401, message: "Invalid API key" }, {}];
    }
  }
  if (res) stats.rejected++;
  return res;
}

function send(res, status, body, headers) {
  const b = JSON.stringify(body);
  res.writeHead(status, { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(b), ...headers });
  res.end(b);
}

const httpServer = http.createServer();
const io = new Server({ path: PATH, perMessageDeflate: false, cors: { origin: "*" } });

// Our listeners run before engine.io's: attach socket.io first, then move
// its listeners behind ours.
io.attach(httpServer);
for (const ev of ["request", "upgrade"]) {
  const theirs = httpServer.listeners(ev).slice();
  httpServer.removeAllListeners(ev);
  httpServer.on(ev, (req, resOrSocket, head) => {
    if (ev === "request" && new URL(req.url, "http://x").pathname === "/stats") {
      return send(resOrSocket, 200, stats, {});
    }
    const bad = check(req);
    if (bad) {
      const [status, body, headers] = bad;
      if (ev === "request") return send(resOrSocket, status, body, headers);
      const b = JSON.stringify(body);
      const extra = Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join("");
      resOrSocket.end(`HTTP/1.1 ${status} Bad Request\r\nContent-Type: application/json\r\n${extra}Content-Length: ${Buffer.byteLength(b)}\r\nConnection: close\r\n\r\n${b}`);
      return;
    }
    for (const l of theirs) l.call(httpServer, req, resOrSocket, head);
  });
}

const nsp = io.of(NS);
nsp.use((socket, next) => {
  if (refuseConnect) {
    const err = new Error("agents are not allowed here");
    err.data = { code: 403, message: "agents are not allowed here" };
    return next(err);
  }
  const role = (socket.handshake.auth || {}).role;
  if (role !== "agent" && role !== "computer") {
    const err = new Error("auth.role must be agent or computer");
    err.data = { code: 400, message: "auth.role must be agent or computer" };
    return next(err);
  }
  socket.data.role = role;
  socket.data.version = socket.handshake.query.a2c_version || "";
  next();
});

nsp.on("connection", (socket) => {
  socket.on("server:join_office", (data, ack) => {
    const office = data.office_id;
    if (data.role === "agent") {
      for (const [, other] of nsp.sockets) {
        if (other.id !== socket.id && other.data.role === "agent" && other.data.office === office) {
          return ack(false, `office ${office} already has an agent`);
        }
      }
    }
    socket.data.name = data.name;
    socket.data.role = data.role;
    socket.data.office = office;
    socket.join(office);
    if (notifyOnJoin && computer) {
      socket.emit("notify:enter_office", { office_id: office, computer });
    }
    ack(true, null);
  });
  socket.on("server:leave_office", (data, ack) => {
    if (socket.data.office) socket.leave(socket.data.office);
    socket.data.office = null;
    if (typeof ack === "function") ack(true, null);
  });
  socket.on("server:list_room", (data, ack) => {
    const sessions = [];
    for (const [, s] of nsp.sockets) {
      if (s.data.office === data.office_id) {
        sessions.push({ sid: s.id, name: s.data.name, role: s.data.role, office_id: s.data.office, a2c_version: s.data.version });
      }
    }
    if (computer) {
      sessions.push({ sid: "virtual-computer", name: computer, role: "computer", office_id: data.office_id, a2c_version: "0.2.0" });
    }
    ack({ sessions, req_id: data.req_id });
  });
  socket.on("client:get_config", (data, ack) => {
    ack({
      inputs: [{ id: "token", description: "API token", type: "promptString", password: true }],
      servers: {
        library: { name: "library", type: "stdio", disabled: false, server_parameters: { command: "library", args: [], env: {}, cwd: null } },
        old: { name: "old", type: "sse", disabled: true, server_parameters: { url: "http://127.0.0.1:1/sse", headers: {} } },
      },
      req_id: data.req_id,
    });
  });
  socket.on("client:get_resources", (data, ack) => {
    if (data.mcp_server === "drop-connection") {
      socket.conn.close(); // transport close: the client reconnects
      return;
    }
    ack(); // empty ack: this peer does not route get_resources
  });
  socket.on("client:get_dpe", () => {
    // never acked: a dropped request
  });
});

httpServer.listen(0, "127.0.0.1", () => {
  process.stdout.write(`PORT ${httpServer.address().port}\n`);
});
process.stdin.on("end", () => process.exit(0));
process.stdin.on("close", () => process.exit(0));
process.stdin.resume();
