#!/usr/bin/python3
"""A minimal A2C-SMCP server on python-socketio + aiohttp, used only as a test
peer for the Go agent's interop tests. It is NOT our server: it is
written the way the reference Python SDK server works, so the agent is tested
against another Socket.IO implementation.

Behaviour:
  * HTTP middleware checks a2c_version before Socket.IO sees the request
    (versioning.md): missing/invalid → 400, incompatible → 400 + 4008 body +
    X-A2C-Error-Code: 4008. With --api-key, a wrong x-api-key → 401.
  * /smcp: server:join_office → (True, None) or (False, "office X already has
    an agent"); server:leave_office; server:list_room. With --refuse-connect
    every namespace connect is refused with an ErrorPayload (CONNECT_ERROR).
  * It routes exactly one event: client:get_config → a canned answer.
  * client:get_resources → an EMPTY ack (handler returns None), except
    mcp_server == "drop-connection", which closes the transport without acking.
  * client:get_dpe has no handler → never acked (a dropped request).
  * GET /stats → {"handshakes": n, "rejected": n} (engine.io handshakes seen).
Prints the chosen port on stdout ("PORT <n>") once listening.
"""
import argparse
import asyncio

import socketio
from aiohttp import web

import peerlib

NS = "/smcp"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--server-version", default="0.2.0")
    ap.add_argument("--api-key", default="")
    ap.add_argument("--computer", default="", help="a virtual computer listed by list_room")
    ap.add_argument("--refuse-connect", action="store_true",
                    help="refuse every namespace connect with an ErrorPayload (CONNECT_ERROR)")
    ap.add_argument("--notify-on-join", action="store_true",
                    help="send notify:enter_office for --computer to an agent that joins")
    args = ap.parse_args()
    server_version = peerlib.parse_version(args.server_version)
    stats = {"handshakes": 0, "rejected": 0}

    a2c_version = peerlib.version_middleware(server_version, stats, args.api_key)

    sio = socketio.AsyncServer(async_mode="aiohttp", cors_allowed_origins="*")
    app = web.Application(middlewares=[a2c_version])
    sio.attach(app)

    async def stats_handler(_request):
        return web.json_response(stats)

    app.router.add_get("/stats", stats_handler)

    sessions = {}  # sid -> {name, role, office_id, a2c_version}

    @sio.on("connect", namespace=NS)
    async def connect(sid, environ, auth):
        if args.refuse_connect:
            raise socketio.exceptions.ConnectionRefusedError(
                "agents are not allowed here", {"code": 403, "message": "agents are not allowed here"})
        role = (auth or {}).get("role")
        if role not in ("agent", "computer"):
            raise socketio.exceptions.ConnectionRefusedError({"code": 400, "message": "auth.role must be agent or computer"})
        qs = environ.get("QUERY_STRING", "")
        ver = dict(p.split("=", 1) for p in qs.split("&") if "=" in p).get("a2c_version", "")
        sessions[sid] = {"sid": sid, "name": "", "role": role, "office_id": None, "a2c_version": ver}

    @sio.on("disconnect", namespace=NS)
    async def disconnect(sid):
        sessions.pop(sid, None)

    @sio.on("server:join_office", namespace=NS)
    async def join_office(sid, data):
        office, name, role = data.get("office_id"), data.get("name"), data.get("role")
        if role == "agent":
            for other in sessions.values():
                if other["sid"] != sid and other["role"] == "agent" and other["office_id"] == office:
                    return False, f"office {office} already has an agent"
        s = sessions[sid]
        s.update(name=name, role=role, office_id=office)
        sio.enter_room(sid, office, namespace=NS)
        if args.notify_on_join and args.computer:
            await sio.emit("notify:enter_office", {"office_id": office, "computer": args.computer}, to=sid, namespace=NS)
        return True, None

    def virtual(office):
        if not args.computer:
            return []
        return [{"sid": "virtual-computer", "name": args.computer, "role": "computer",
                 "office_id": office, "a2c_version": "0.2.0"}]

    peerlib.office_rooms(sio, NS, sessions, extra=virtual)

    @sio.on("client:get_config", namespace=NS)
    async def get_config(sid, data):
        return {
            "inputs": [{"id": "token", "description": "API token", "type": "promptString", "password": True}],
            "servers": {
                "library": {"name": "library", "type": "stdio", "disabled": False,
                            "server_parameters": {"command": "library", "args": [], "env": {}, "cwd": None}},
                "old": {"name": "old", "type": "sse", "disabled": True,
                        "server_parameters": {"url": "http://127.0.0.1:1/sse", "headers": {}}},
            },
            "req_id": data.get("req_id"),
        }

    @sio.on("client:get_resources", namespace=NS)
    async def get_resources(sid, data):
        if data.get("mcp_server") == "drop-connection":
            # Close the engine.io transport: the client sees a lost
            # connection (not a namespace disconnect) and reconnects.
            await sio.eio.disconnect(sio.manager.eio_sid_from_sid(sid, NS))
            await asyncio.sleep(3600)
        return None  # empty ack: this peer does not route get_resources

    peerlib.serve(app)


if __name__ == "__main__":
    main()
