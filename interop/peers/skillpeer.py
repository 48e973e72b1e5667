"""The skill channel of the version peers (smcp_peer_03.py, smcp_peer_04.py),
written from the spec, not from our Go code: a2c-smcp-protocol
docs/specification/skill.md §6-§9 and blob-transfer.md §2, §4.

  * client:get_skills lists the packages under skills/ (one folder each,
    SKILL.md with a YAML-ish frontmatter of name, description, tags).
  * client:get_skill reads rel_path (default SKILL.md) inside the package:
    absolute paths, ".." and symlink escapes are 4017 traversal, .skillenv
    is 4017 forbidden, a missing file 4017 not_found (details.reason); an
    unknown name is 4014, a malformed one 4016. Text files are inline
    (body), binary ones get a blob_handle. total_size/sha256 are of the
    bytes the agent consumes: SKILL.md without its frontmatter.
  * client:get_blob pages the file by chunk_offset in CHUNK-byte chunks
    (small, so a test sees several), sha256 and total_size of the whole.
"""
import base64
import hashlib
import os
import re

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "skills")
CHUNK = 100
TEXT_EXT = {".md": "text/markdown", ".txt": "text/plain", ".json": "application/json", ".py": "text/x-python"}
BIN_EXT = {".png": "image/png"}
NAME_RE = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")


def split_front(data):
    if not data.startswith(b"---\n"):
        return {}, data
    end = data.find(b"\n---\n", 3)
    if end < 0:
        return {}, data
    meta = {}
    for line in data[4:end].decode().splitlines():
        k, _, v = line.partition(":")
        v = v.strip()
        if v.startswith("[") and v.endswith("]"):
            v = [x.strip() for x in v[1:-1].split(",") if x.strip()]
        meta[k.strip()] = v
    return meta, data[end + 5:]


def refs(source, with_tags):
    out = []
    for name in sorted(os.listdir(ROOT)):
        pkg = os.path.join(ROOT, name)
        meta, _ = split_front(open(os.path.join(pkg, "SKILL.md"), "rb").read())
        ref = {"name": meta.get("name", name), "source": source, "path": pkg,
               "description": meta.get("description", ""), "version": "1.0.0"}
        if with_tags and isinstance(meta.get("tags"), list):
            ref["tags"] = meta["tags"]
        out.append(ref)
    return out


def err(code, message, **details):
    e = {"code": code, "message": message}
    if details:
        e["details"] = details
    return e


def resolve(name, rel):
    """(path, mime, bytes) or an ErrorPayload dict."""
    if not NAME_RE.match(name or ""):
        return err(4016, "Invalid Skill Name", name=name)
    pkg = os.path.join(ROOT, name)
    if not os.path.isdir(pkg):
        return err(4014, f"skill {name} not found", mcp_server_name=name)
    rel = rel or "SKILL.md"
    if rel.startswith("/") or "\\" in rel or ".." in rel.split("/"):
        return err(4017, "Skill Resource Not Accessible", reason="traversal", rel_path=rel)
    if os.path.basename(rel).lower() == ".skillenv":
        return err(4017, "Skill Resource Not Accessible", reason="forbidden", rel_path=rel)
    real = os.path.realpath(os.path.join(pkg, rel))
    if not real.startswith(os.path.realpath(pkg) + os.sep):
        return err(4017, "Skill Resource Not Accessible", reason="traversal", rel_path=rel)
    if not os.path.isfile(real):
        return err(4017, "Skill Resource Not Accessible", reason="not_found", rel_path=rel)
    data = open(real, "rb").read()
    if rel == "SKILL.md":
        _, data = split_front(data)
    ext = os.path.splitext(rel)[1].lower()
    mime = TEXT_EXT.get(ext) or BIN_EXT.get(ext) or "application/octet-stream"
    return rel, mime, data


def get_skill(data):
    r = resolve(data.get("name"), data.get("rel_path"))
    if isinstance(r, dict):
        return r
    rel, mime, body = r
    ret = {"name": data.get("name"), "rel_path": rel, "mime_type": mime, "total_size": len(body),
           "sha256": hashlib.sha256(body).hexdigest(), "req_id": data.get("req_id")}
    if mime.startswith("text/") or mime == "application/json":
        ret["body"] = body.decode()
    else:
        # An opaque handle: name and path, re-checked on every get_blob.
        ret["blob_handle"] = base64.urlsafe_b64encode(f"{data.get('name')}\0{rel}".encode()).decode()
    return ret


def get_blob(data):
    try:
        name, rel = base64.urlsafe_b64decode(data.get("blob_handle", "")).decode().split("\0")
    except Exception:
        return err(4018, "Blob Not Accessible", reason="invalid_handle")
    r = resolve(name, rel)
    if isinstance(r, dict):
        return err(4018, "Blob Not Accessible", reason="gone")
    _, mime, body = r
    off = data.get("chunk_offset", 0)
    if not isinstance(off, int) or off < 0 or off > len(body):
        return err(4018, "Blob Not Accessible", reason="range")
    size = min(data.get("max_chunk_bytes") or CHUNK, CHUNK)
    chunk = body[off:off + size]
    return {"blob_handle": data.get("blob_handle"), "mime_type": mime, "total_size": len(body),
            "sha256": hashlib.sha256(body).hexdigest(), "chunk_offset": off,
            "eof": off + len(chunk) == len(body), "blob": base64.b64encode(chunk).decode(),
            "req_id": data.get("req_id")}
