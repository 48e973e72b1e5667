#!/usr/bin/python3
"""A minimal A2C-SMCP 0.4.0 server on python-socketio + aiohttp, written from
the upstream spec (a2c-smcp-protocol versioning.md §最近发布：v0.4.0,
blob-transfer.md §3, skill.md §6, data-structures.md), not from our Go code:
a test peer for the agent's 0.4 mode. With --server-version 0.5.0 it follows
migrations/v0.5.0-single-computer-room.md instead.

What 0.4 adds over the 0.3 peer (smcp_peer_03.py):
  * skills carry tags (frontmatter tags, protocol#50);
  * client:get_tools: tools with bundle_id and Tool._meta.a2c_tool_meta;
  * client:put_blob: chunked upload (first chunk declares total_size and
    sha256, in-order chunk_offset, eof), landing_path on the last ack;
    4019 with details.reason on any violation;
  * every client:* error is a flat ErrorPayload, including a request for a
    computer that is not in the office (404).
0.5.0 mode: join failures are a flat ErrorPayload (4101 with details
{office_id, role}); at most one agent and one computer per office (the
virtual computer holds the computer seat).
Shared with the 0.3 peer: version middleware, one virtual computer, two
servers named "docs", resources, desktop, the skill package (skillpeer.py).
Prints "PORT <n>"; exits when stdin closes.
"""
import argparse
import base64
import hashlib
import os
import tempfile

import socketio
from aiohttp import web

import peerlib
import skillpeer

NS = "/smcp"
SERVERS = {
    "com.example.docs.v1": {"name": "docs", "host": "com.example.docs"},
    "org.other.docs": {"name": "docs", "host": "org.other.docs"},
    "com.example.browser": {"name": "browser", "host": "com.example.browser"},
}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--server-version", default="0.4.0")
    ap.add_argument("--computer", default="box")
    args = ap.parse_args()
    server_version = peerlib.parse_version(args.server_version)
    sv = ".".join(map(str, server_version))
    v05 = server_version[1] >= 5
    stats = {"handshakes": 0, "rejected": 0, "events": {}}
    landing = tempfile.mkdtemp(prefix="smcp04-landing-")
    uploads = {}

    sio = socketio.AsyncServer(async_mode="aiohttp", cors_allowed_origins="*")
    app = web.Application(middlewares=[peerlib.version_middleware(server_version, stats)])
    sio.attach(app)

    async def stats_handler(_request):
        return web.json_response(stats)

    app.router.add_get("/stats", stats_handler)
    sessions = {}

    def count(event):
        stats["events"][event] = stats["events"].get(event, 0) + 1

    def refuse(office, role, msg):
        if v05:
            return {"code": 4101, "message": "Room Full", "details": {"office_id": office, "role": role}}
        return False, msg

    @sio.on("connect", namespace=NS)
    async def connect(sid, environ, auth):
        if "role" in (auth or {}):
            raise socketio.exceptions.ConnectionRefusedError(
                {"code": 400, "message": "auth.role is not part of A2C-SMCP 0.4; declare the role in server:join_office"})
        sessions[sid] = {"sid": sid, "name": "", "role": "", "office_id": None, "a2c_version": sv}

    @sio.on("disconnect", namespace=NS)
    async def disconnect(sid):
        sessions.pop(sid, None)

    @sio.on("server:join_office", namespace=NS)
    async def join_office(sid, data):
        count("server:join_office")
        office, name, role = data.get("office_id"), data.get("name"), data.get("role")
        if role not in ("agent", "computer"):
            if v05:
                return {"code": 400, "message": "role must be agent or computer"}
            return False, "role must be agent or computer"
        if role == "computer" and v05:
            return refuse(office, "computer", "")  # the virtual computer holds the seat
        for other in sessions.values():
            if other["sid"] != sid and other["role"] == "agent" == role and other["office_id"] == office:
                return refuse(office, "agent", f"office {office} already has an agent")
        sessions[sid].update(name=name, role=role, office_id=office)
        sio.enter_room(sid, office, namespace=NS)
        return True, None

    peerlib.office_rooms(sio, NS, sessions, count=count, leave=False, extra=lambda office: [
        {"sid": "virtual-computer", "name": args.computer, "role": "computer",
         "office_id": office, "a2c_version": sv}])

    def routed(event):
        """A client:* handler: a flat 404 for a computer not in the office."""
        def wrap(fn):
            @sio.on(event, namespace=NS)
            async def handler(sid, data):
                count(event)
                if (data or {}).get("computer") != args.computer:
                    c = (data or {}).get("computer")
                    return {"code": 404, "message": f"computer {c} is not in the office"}
                return fn(data)
            return handler
        return wrap

    @routed("client:get_config")
    def get_config(data):
        servers = {b: {"name": s["name"], "bundle_id": b, "type": "stdio", "disabled": False,
                       "server_parameters": {"command": s["name"], "args": [], "env": {}, "cwd": None}}
                   for b, s in SERVERS.items()}
        inputs = [{"id": "region", "type": "pickString", "description": "Region",
                   "options": [{"label": "Europe", "value": "eu"}, {"label": "United States", "value": "us"}]}]
        return {"inputs": inputs, "servers": servers, "req_id": data.get("req_id")}

    @routed("client:get_resources")
    def get_resources(data):
        key = data.get("mcp_server")
        s = SERVERS.get(key)
        if s is None:
            return {"code": 4014, "message": f"MCP server {key} not found", "mcp_server_name": key}
        return {"resources": [
            {"uri": f"dpe://{s['host']}/report", "name": f"report of {s['name']}", "mimeType": "application/json"},
            {"uri": f"window://{s['host']}/main", "name": "main window"},
        ], "req_id": data.get("req_id")}

    @routed("client:get_tools")
    def get_tools(data):
        return {"tools": [{"name": "com.example.docs.v1__search", "bundle_id": "com.example.docs.v1",
                           "description": "search the docs", "params_schema": {"type": "object"}, "return_schema": None,
                           "meta": {"a2c_tool_meta": {"tags": ["search", "docs"], "auto_apply": False}}}],
                "req_id": data.get("req_id")}

    @routed("client:get_desktop")
    def get_desktop(data):
        return {"desktops": ["window://com.example.browser/main\n\nHello from the browser", "window://com.example.term/1"],
                "req_id": data.get("req_id")}

    @routed("client:get_skills")
    def get_skills(data):
        return {"skills": skillpeer.refs("user", with_tags=True), "req_id": data.get("req_id")}

    @routed("client:get_skill")
    def get_skill(data):
        return skillpeer.get_skill(data)

    @routed("client:get_blob")
    def get_blob(data):
        return skillpeer.get_blob(data)

    def w4019(reason):
        return {"code": 4019, "message": "Blob Write Failed", "details": {"reason": reason}}

    @routed("client:put_blob")
    def put_blob(data):
        uid, off = data.get("upload_id"), data.get("chunk_offset", 0)
        try:
            chunk = base64.b64decode(data.get("blob", ""), validate=True)
        except Exception:
            return w4019("invalid_declaration")
        if not uid:
            size, sha = data.get("total_size"), data.get("sha256")
            if off != 0 or not isinstance(size, int) or size < 1 or not sha:
                return w4019("invalid_declaration")
            if size > 1 << 20:
                return w4019("too_large")
            uid = f"up{len(uploads) + 1}"
            uploads[uid] = {"size": size, "sha": sha, "buf": bytearray(), "hint": data.get("name_hint") or "blob"}
        elif uid not in uploads:
            return w4019("invalid_upload")
        elif any(k in data for k in ("total_size", "sha256", "name_hint")):
            return w4019("invalid_declaration")
        up = uploads[uid]
        if off != len(up["buf"]) or off + len(chunk) > up["size"]:
            return w4019("range")
        up["buf"] += chunk
        ret = {"upload_id": uid, "chunk_offset": off, "req_id": data.get("req_id")}
        if data.get("eof"):
            if len(up["buf"]) != up["size"]:
                return w4019("range")
            got = hashlib.sha256(up["buf"]).hexdigest()
            if got != up["sha"]:
                del uploads[uid]
                return w4019("integrity")
            path = os.path.join(landing, uid + "-" + os.path.basename(up["hint"]))
            with open(path, "wb") as f:
                f.write(up["buf"])
            del uploads[uid]
            ret.update(landing_path=path, total_size=len(up["buf"]), sha256=got)
        return ret

    @sio.on("*", namespace=NS)
    async def any_event(event, sid, data):
        count(event)
        if event.startswith("client:"):
            return {"code": 404, "message": f"{event} is not routed by this peer"}
        return None

    peerlib.serve(app)


if __name__ == "__main__":
    main()
