#!/usr/bin/python3
"""A minimal A2C-SMCP server on python-socketio + aiohttp, used only as a test
peer for the Go agent (issue 3, Done-when 2). It is NOT our server: it is
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
import json
import sys

import socketio
from aiohttp import web

NS = "/smcp"


def parse_version(s):
    parts = s.split(".")
    if len(parts) != 3 or not all(p.isdigit() for p in parts):
        raise ValueError("want MAJOR.MINOR.PATCH")
    return tuple(int(p) for p in parts)


def compatible(server, client):
    if server[0] != client[0]:
        return False
    return server[0] != 0 or server[1] == client[1]


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
    server_version = parse_version(args.server_version)
    stats = {"handshakes": 0, "rejected": 0}

    @web.middleware
    async def a2c_version(request, handler):
        if not request.path.startswith("/socket.io"):
            return await handler(request)
        if "sid" not in request.query:
            stats["handshakes"] += 1
        v = request.query.get("a2c_version")
        if not v:
            stats["rejected"] += 1
            return web.json_response({"code": 400, "message": "Missing a2c_version query parameter"}, status=400)
        try:
            cv = parse_version(v)
        except ValueError as e:
            stats["rejected"] += 1
            return web.json_response({"code": 400, "message": f"Invalid a2c_version: {e}"}, status=400)
        if not compatible(server_version, cv):
            stats["rejected"] += 1
            sv = ".".join(map(str, server_version))
            return web.json_response({
                "code": 4008, "message": "Protocol version mismatch",
                "server_version": sv, "client_version": v,
                "min_supported": f"{server_version[0]}.{server_version[1]}.0",
                "max_supported": f"{server_version[0]}.{server_version[1]}.999",
            }, status=400, headers={"X-A2C-Error-Code": "4008"})
        if args.api_key and request.headers.get("x-api-key") != args.api_key:
            stats["rejected"] += 1
            return web.json_response({"code": 401, "message": "Invalid API key"}, status=401)
        return await handler(request)

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

    @sio.on("server:leave_office", namespace=NS)
    async def leave_office(sid, data):
        s = sessions.get(sid)
        if s and s["office_id"]:
            sio.leave_room(sid, s["office_id"], namespace=NS)
            s["office_id"] = None
        return True, None

    @sio.on("server:list_room", namespace=NS)
    async def list_room(sid, data):
        office = data.get("office_id")
        out = [dict(s) for s in sessions.values() if s["office_id"] == office]
        if args.computer:
            out.append({"sid": "virtual-computer", "name": args.computer, "role": "computer",
                        "office_id": office, "a2c_version": "0.2.0"})
        return {"sessions": out, "req_id": data.get("req_id")}

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

    async def on_startup(app_):
        pass

    async def run():
        runner = web.AppRunner(app)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        port = site._server.sockets[0].getsockname()[1]
        print(f"PORT {port}", flush=True)
        # Exit when the parent closes stdin (the test ended or died).
        loop = asyncio.get_running_loop()
        reader = asyncio.StreamReader()
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
        await reader.read()
        await runner.cleanup()

    asyncio.run(run())


if __name__ == "__main__":
    main()
