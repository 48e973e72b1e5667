#!/usr/bin/python3
"""An A2C-SMCP server that routes the way the python-sdk reference server
does, used only as a test peer (Finder through a server that is not ours).

Behaviour:
  * /smcp: server:join_office for agents and computers (one agent per
    office), server:leave_office, server:list_room.
  * It routes exactly two events from an agent to the named computer of
    the agent's office, and returns the computer's answer as the ack:
    client:tool_call and client:get_tools. When routing fails (no such
    computer, the computer does not answer in time) the handler raises,
    so nothing is acked, as in the reference server.
  * client:get_dpe, client:get_config, client:get_resources and
    client:get_desktop are not routed: an EMPTY ack (handler returns None).
  * Bound to 127.0.0.1:0; prints "PORT <n>" once listening; exits when
    stdin closes.
"""

import socketio
from aiohttp import web

import peerlib

NS = "/smcp"


def main():
    sio = socketio.AsyncServer(async_mode="aiohttp", cors_allowed_origins="*",
                               max_http_buffer_size=8 << 20)
    app = web.Application()
    sio.attach(app)
    sessions = {}  # sid -> {sid, name, role, office_id}

    @sio.on("connect", namespace=NS)
    async def connect(sid, environ, auth):
        role = (auth or {}).get("role")
        if role not in ("agent", "computer"):
            raise socketio.exceptions.ConnectionRefusedError({"code": 400, "message": "auth.role must be agent or computer"})
        sessions[sid] = {"sid": sid, "name": "", "role": role, "office_id": None, "a2c_version": "0.2.0"}

    @sio.on("disconnect", namespace=NS)
    async def disconnect(sid):
        sessions.pop(sid, None)

    @sio.on("server:join_office", namespace=NS)
    async def join_office(sid, data):
        office, name, role = data.get("office_id"), data.get("name"), data.get("role")
        for other in sessions.values():
            if other["sid"] != sid and other["office_id"] == office and (
                    (role == "agent" and other["role"] == "agent") or other["name"] == name):
                return False, f"office {office} already has {'an agent' if role == 'agent' else name}"
        s = sessions[sid]
        s.update(name=name, role=role, office_id=office)
        sio.enter_room(sid, office, namespace=NS)
        return True, None

    peerlib.office_rooms(sio, NS, sessions)

    async def route(event, sid, data):
        agent = sessions.get(sid)
        if not agent or agent["role"] != "agent" or not agent["office_id"]:
            raise RuntimeError(f"{event}: not an agent in an office")
        name = (data or {}).get("computer")
        target = next((s for s in sessions.values()
                       if s["role"] == "computer" and s["name"] == name and s["office_id"] == agent["office_id"]), None)
        if target is None:
            raise RuntimeError(f"{event}: no computer {name!r} in office {agent['office_id']}")
        timeout = (data or {}).get("timeout") or 30
        # Targets one socket (never the room): one answer, the computer's.
        return await sio.call(event, data, to=target["sid"], namespace=NS, timeout=float(timeout))

    @sio.on("client:tool_call", namespace=NS)
    async def tool_call(sid, data):
        return await route("client:tool_call", sid, data)

    @sio.on("client:get_tools", namespace=NS)
    async def get_tools(sid, data):
        return await route("client:get_tools", sid, data)

    def not_routed(event):
        async def handler(sid, data):
            return None  # empty ack: this server does not route it
        sio.on(event, handler, namespace=NS)

    for ev in ("client:get_dpe", "client:get_config", "client:get_resources", "client:get_desktop"):
        not_routed(ev)

    peerlib.serve(app)


if __name__ == "__main__":
    main()
