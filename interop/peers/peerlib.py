"""What the Python test peers share: A2C-SMCP version rules at the HTTP
layer and the process life cycle the Go tests expect (listen on
127.0.0.1:0, print "PORT <n>", exit when stdin closes). One copy, so a fix
to the handshake reaches every peer."""
import asyncio
import sys

from aiohttp import web


def parse_version(s):
    parts = s.split(".")
    if len(parts) != 3 or not all(p.isdigit() for p in parts):
        raise ValueError("want MAJOR.MINOR.PATCH")
    return tuple(int(p) for p in parts)


def compatible(server, client):
    """versioning.md: MAJOR must match; in 0.x MINOR must match too."""
    if server[0] != client[0]:
        return False
    return server[0] != 0 or server[1] == client[1]


def version_middleware(server_version, stats, api_key=""):
    """Checks a2c_version (and x-api-key when api_key is set) before
    Socket.IO sees the request: missing/invalid → 400, incompatible → 400 +
    X-A2C-Error-Code: 4008 + the flat 4008 body, wrong key → 401. Counts
    handshakes and rejections in stats."""
    sv = ".".join(map(str, server_version))

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
            return web.json_response({
                "code": 4008, "message": "Protocol version mismatch",
                "server_version": sv, "client_version": v,
                "min_supported": f"{server_version[0]}.{server_version[1]}.0",
                "max_supported": f"{server_version[0]}.{server_version[1]}.999",
            }, status=400, headers={"X-A2C-Error-Code": "4008"})
        if api_key and request.headers.get("x-api-key") != api_key:
            stats["rejected"] += 1
            return web.json_response({"code": 401, "message": "Invalid API key"}, status=401)
        return await handler(request)

    return a2c_version


def serve(app):
    """Runs app on 127.0.0.1:0, prints "PORT <n>" once listening, and exits
    when the parent closes stdin (the test ended or died)."""

    async def run():
        runner = web.AppRunner(app)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        port = site._server.sockets[0].getsockname()[1]
        print(f"PORT {port}", flush=True)
        loop = asyncio.get_running_loop()
        reader = asyncio.StreamReader()
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
        await reader.read()
        await runner.cleanup()

    asyncio.run(run())


def office_rooms(sio, ns, sessions, extra=lambda office: [], count=lambda event: None, leave=True):
    """Registers server:list_room (and server:leave_office unless leave is
    False) over sessions (sid → session dict with office_id). list_room
    answers the sessions of the asked office plus extra(office); count(event)
    is called for each event handled."""
    if leave:
        @sio.on("server:leave_office", namespace=ns)
        async def leave_office(sid, data):
            count("server:leave_office")
            s = sessions.get(sid)
            if s and s["office_id"]:
                sio.leave_room(sid, s["office_id"], namespace=ns)
                s["office_id"] = None
            return True, None

    @sio.on("server:list_room", namespace=ns)
    async def list_room(sid, data):
        count("server:list_room")
        office = data.get("office_id")
        out = [dict(s) for s in sessions.values() if s["office_id"] == office]
        out.extend(extra(office))
        return {"sessions": out, "req_id": data.get("req_id")}
