#!/usr/bin/python3
"""A minimal A2C-SMCP 0.3.0 server on python-socketio + aiohttp: a test peer
for the Go agent's 0.3 mode. It is NOT our server (which speaks 0.2): it is
written the way upstream describes 0.3 (a2c-smcp-protocol versioning.md,
events.md, data-structures.md, CHANGELOG_DPE_REMOVAL.md).

Behaviour:
  * HTTP middleware checks a2c_version before Socket.IO sees the request,
    strictly: in 0.x MAJOR.MINOR must match, so an agent sending 0.2.0 gets
    HTTP 400 + X-A2C-Error-Code: 4008 + a flat 4008 body naming 0.3.0.
  * /smcp connect: the role is NOT part of the connect auth in 0.3; an auth
    carrying "role" is refused with an ErrorPayload (CONNECT_ERROR), so a
    client that still sends it fails loudly.
  * server:join_office declares the role: {"role", "name", "office_id"};
    one agent per office.
  * server:list_room lists the office plus a virtual computer --computer
    (default "box") at a2c_version 0.3.0.
  * client:get_config: servers keyed by bundle_id, each with a display name;
    two servers share the name "docs" (names may collide in 0.3).
  * client:get_resources: routed by mcp_server = bundle_id; an unknown key
    (e.g. a display name) is a 4014 error.
  * client:get_desktop: window:// entries ("{uri}\\n\\n{body}" or "{uri}"),
    plus one entry that is not a window.
  * client:get_skills / get_skill / get_blob: the package under skills/
    (skillpeer.py); 0.3 has no tags.
  * client:get_dpe does not exist in 0.3: no handler. Every event without a
    handler lands in the catch-all, which counts it and acks empty (as the
    reference server does for events it does not route).
  * GET /stats → {"handshakes", "rejected", "events": {name: count}}.
Prints "PORT <n>" once listening; exits when stdin closes.
"""
import argparse

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
    ap.add_argument("--server-version", default="0.3.0")
    ap.add_argument("--computer", default="box")
    args = ap.parse_args()
    server_version = peerlib.parse_version(args.server_version)
    sv = ".".join(map(str, server_version))
    stats = {"handshakes": 0, "rejected": 0, "events": {}}

    a2c_version = peerlib.version_middleware(server_version, stats)

    sio = socketio.AsyncServer(async_mode="aiohttp", cors_allowed_origins="*")
    app = web.Application(middlewares=[a2c_version])
    sio.attach(app)

    async def stats_handler(_request):
        return web.json_response(stats)

    app.router.add_get("/stats", stats_handler)

    sessions = {}

    def count(event):
        stats["events"][event] = stats["events"].get(event, 0) + 1

    @sio.on("connect", namespace=NS)
    async def connect(sid, environ, auth):
        if "role" in (auth or {}):
            raise socketio.exceptions.ConnectionRefusedError(
                {"code": 400, "message": "auth.role is not part of A2C-SMCP 0.3; declare the role in server:join_office"})
        sessions[sid] = {"sid": sid, "name": "", "role": "", "office_id": None, "a2c_version": sv}

    @sio.on("disconnect", namespace=NS)
    async def disconnect(sid):
        sessions.pop(sid, None)

    @sio.on("server:join_office", namespace=NS)
    async def join_office(sid, data):
        count("server:join_office")
        office, name, role = data.get("office_id"), data.get("name"), data.get("role")
        if role not in ("agent", "computer"):
            return False, "role must be agent or computer"
        if role == "agent":
            for other in sessions.values():
                if other["sid"] != sid and other["role"] == "agent" and other["office_id"] == office:
                    return False, f"office {office} already has an agent"
        sessions[sid].update(name=name, role=role, office_id=office)
        sio.enter_room(sid, office, namespace=NS)
        return True, None

    peerlib.office_rooms(sio, NS, sessions, count=count, leave=False, extra=lambda office: [
        {"sid": "virtual-computer", "name": args.computer, "role": "computer",
         "office_id": office, "a2c_version": sv}])

    @sio.on("client:get_config", namespace=NS)
    async def get_config(sid, data):
        count("client:get_config")
        servers = {}
        for bundle, s in SERVERS.items():
            servers[bundle] = {"name": s["name"], "type": "stdio", "disabled": False,
                               "server_parameters": {"command": s["name"], "args": [], "env": {}, "cwd": None}}
        return {"inputs": [], "servers": servers, "req_id": data.get("req_id")}

    @sio.on("client:get_resources", namespace=NS)
    async def get_resources(sid, data):
        count("client:get_resources")
        key = data.get("mcp_server")
        s = SERVERS.get(key)
        if s is None:
            return {"code": 4014, "message": f"MCP server {key} not found", "mcp_server_name": key}
        return {"resources": [
            {"uri": f"dpe://{s['host']}/report", "name": f"report of {s['name']}", "mimeType": "application/json"},
            {"uri": f"window://{s['host']}/main", "name": "main window"},
        ], "req_id": data.get("req_id")}

    @sio.on("client:get_desktop", namespace=NS)
    async def get_desktop(sid, data):
        count("client:get_desktop")
        return {"desktops": [
            "window://com.example.browser/main\n\nHello from the browser",
            "window://com.example.term/1",
            "not a window",
        ], "req_id": data.get("req_id")}

    @sio.on("client:get_skills", namespace=NS)
    async def get_skills(sid, data):
        count("client:get_skills")
        return {"skills": skillpeer.refs("user", with_tags=False), "req_id": data.get("req_id")}

    @sio.on("client:get_skill", namespace=NS)
    async def get_skill(sid, data):
        count("client:get_skill")
        return skillpeer.get_skill(data)

    @sio.on("client:get_blob", namespace=NS)
    async def get_blob(sid, data):
        count("client:get_blob")
        return skillpeer.get_blob(data)

    @sio.on("*", namespace=NS)
    async def any_event(event, sid, data):
        count(event)
        return None

    peerlib.serve(app)


if __name__ == "__main__":
    main()
