#!/usr/bin/env python3
"""Replays the y_ cases of navmesh/, snapshot/, meshfile/ and tile/ on a model written from spec/
alone (no onav code) and compares every golden they declare with the model's bytes: snapshots
(snapshot.md §4, S22, the state model of golden/verify/spec_snapshot.py), mesh files
(navmesh-format.md §8, M14-M16) and tiles written back (a valid tile is written back as it was
read, navmesh-format.md §3). Tiles come from golden/verify/spec_generator.py (§7), patched at the
offsets of the spec's layout tables; a restore decodes the ONPS layout of snapshot.md §4, a
mesh-file read the ONMS layout of §8.1.

The state follows the steps a case sends, never a testee's replies. Steps that do not change a
mesh's state (expectations, queries, is_valid_ref, get_poly, content_id) are skipped.

    scenarios/snapshot/tools/replay.py --check     compare every golden with the model
"""
import glob
import hashlib
import os
import re
import struct
import sys

import yaml

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..")
sys.path.insert(0, os.path.join(ROOT, "golden", "verify"))
import spec_generator as gen  # noqa: E402
import spec_snapshot as snap  # noqa: E402

AREAS = ("navmesh", "snapshot", "meshfile", "tile", "query")
OPS_QUERY = {"find_nearest_poly", "find_path", "find_straight_path", "raycast", "corridor_cost"}
PASSIVE = {"expect", "is_valid_ref", "get_poly", "content_id", "find_nearest_poly", "find_path",
           "find_straight_path", "raycast", "corridor_cost"}


class Unsupported(Exception):
    pass


def integer(s):
    return int(s, 16) if s.lower().startswith(("0x", "-0x")) else int(s)


def exact(s):
    """An exact float (conformance §1.2): the shortest decimal, or 0x and 16 hex digits of bits."""
    s = str(s)
    if s.lower().startswith("0x"):
        return struct.unpack("<d", struct.pack("<Q", int(s, 16)))[0]
    return float(s)


def boolean(s):
    return {"true": True, "false": False}[s]


# --- tile layout (navmesh-format.md §3.1, §3.2) -------------------------------------------------

def counts(t):
    return struct.unpack_from("<5I", t, 108)  # V, G, L, DV, DT


def array_offsets(t):
    v, g, l, dv, dt = counts(t)
    links = 132 + 24 * v + 52 * g
    areas = links + 64 * l + 16 * g + 24 * dv + 4 * dt
    return links, areas, areas + g + l


HEADER_F64 = {"params.origin.x": 8, "params.origin.y": 16, "params.origin.z": 24,
              "params.tile_size": 32, "agent.height": 84, "agent.radius": 92, "agent.climb": 100}


def tile_field(t, path):
    """(offset, struct format) of a tile field path."""
    if path in HEADER_F64:
        return HEADER_F64[path], "<d"
    if path == "position.column":
        return 72, "<i"
    if path == "position.row":
        return 76, "<i"
    if path == "position.layer":
        return 80, "<I"
    m = re.fullmatch(r"polygon\[(\d+)\]\.(vertex|neighbour)\[(\d+)\]", path)
    if m:  # polygon i at 132 + 24 V + 52 i: count (1 + 3), vertex[6] at +4, neighbour[6] at +28 (§3.2)
        v = counts(t)[0]
        base = 132 + 24 * v + 52 * int(m[1])
        return base + (4 if m[2] == "vertex" else 28) + 4 * int(m[3]), "<I"
    m = re.fullmatch(r"link\[(\d+)\]\.(start|end)\.([xyz])", path)
    if m:
        links, _, _ = array_offsets(t)
        return links + 64 * int(m[1]) + (0 if m[2] == "start" else 24) + "xyz".index(m[3]) * 8, "<d"
    raise Unsupported(f"tile field {path}")


def add_link(t, start, end, radius, both, user_id):
    """Appends an off-mesh link record, its area 0 and its flags 1 (the plain data's defaults)."""
    t = bytearray(t)
    v, g, l, dv, dt = counts(t)
    links, areas, flags = array_offsets(t)
    p = g + l
    rec = struct.pack("<7dB3xI", *start, *end, radius, 1 if both else 0, user_id)
    out = t[:links + 64 * l] + rec + t[links + 64 * l:areas + p] + b"\0" + t[areas + p:flags + 2 * p]
    out += b"\x01\x00"
    struct.pack_into("<I", out, 116, l + 1)
    return bytes(out)


def clear_links(t):
    """The tile without its off-mesh link records and their areas and flags (the last L of each)."""
    v, g, l, dv, dt = counts(t)
    links, areas, flags = array_offsets(t)
    out = bytearray(t[:links] + t[links + 64 * l:areas + g] + t[areas + g + l:flags + 2 * g])
    struct.pack_into("<I", out, 116, 0)
    return bytes(out)


def set_area_flags(t, poly, area=None, flags=None):
    t = bytearray(t)
    _, areas, fl = array_offsets(t)
    if area is not None:
        t[areas + poly] = area
    if flags is not None:
        struct.pack_into("<H", t, fl + 2 * poly, flags)
    return bytes(t)


# --- snapshot layout (snapshot.md §4) -----------------------------------------------------------

def decode_onps(b, upto=None):
    """Params, and per slot (offset of its record, generation, kind, tile or content id, edits,
    disabled links). Only what a valid snapshot holds: one section, id 1. With `upto`, only the
    slots before it are decoded (a patch's field lookup in bytes that earlier edits changed)."""
    assert b[:4] == b"ONPS" and struct.unpack_from("<HH", b, 4) == (2, 0)
    params = b[8:76]
    (nsec,) = struct.unpack_from("<I", b, 76)
    assert nsec == 1
    sid, _, length = struct.unpack_from("<HHI", b, 80)
    assert sid == 1 and (upto is not None or 88 + length == len(b))
    o = 88
    (n,) = struct.unpack_from("<I", b, o)
    o += 4
    slots = []
    for _ in range(n if upto is None else upto):
        start = o
        gen_, kind = struct.unpack_from("<IB", b, o)
        o += 5
        s = dict(at=start, gen=gen_, kind=kind, tile=None, cid=None, edits={}, disabled=set())
        if kind == 1:
            (ln,) = struct.unpack_from("<I", b, o)
            s["tile"] = b[o + 4:o + 4 + ln]
            o += 4 + ln
        elif kind == 2:
            s["cid"] = b[o:o + 32]
            o += 32
        if kind:
            (ne,) = struct.unpack_from("<I", b, o)
            o += 4
            for _ in range(ne):
                p, a, f = struct.unpack_from("<IBH", b, o)
                s["edits"][p] = (a, f)
                o += 7
            (nd,) = struct.unpack_from("<I", b, o)
            o += 4
            for _ in range(nd):
                s["disabled"].add(struct.unpack_from("<I", b, o)[0])
                o += 4
        slots.append(s)
    if upto is not None:
        return params, slots, o
    assert o == len(b)
    return params, slots


def snapshot_field(b, path):
    """(offset, size, format) of a snapshot field path used by the cases' patches."""
    if path == "section[0].length":
        return 84, 4, "<I"
    m = re.fullmatch(r"slot\[(\d+)\]\.(generation|kind|content_id)", path)
    if not m:
        raise Unsupported(f"snapshot field {path}")
    at = decode_onps(b, int(m[1]))[2]
    return {"generation": (at, 4, "<I"), "kind": (at + 4, 1, "<B"), "content_id": (at + 5, 32, None)}[m[2]]


def mesh_from(params, slots):
    m = snap.Mesh.__new__(snap.Mesh)
    m.params = params
    m.slots = slots
    return m


def restore(b, library):
    params, slots = decode_onps(b)
    by_id = {hashlib.sha256(t).digest(): t for t in library}
    out = []
    for s in slots:
        tile = s["tile"] if s["kind"] == 1 else (by_id[s["cid"]] if s["kind"] == 2 else None)
        d = dict(gen=s["gen"], tile=tile)
        if tile is not None:
            d.update(edits=dict(s["edits"]), disabled=set(s["disabled"]))
        out.append(d)
    return mesh_from(params, out)


# --- mesh file (navmesh-format.md §8) -----------------------------------------------------------

def write_mesh(m):  # M15
    recs = b""
    n = 0
    for s in m.slots:
        t = s["tile"]
        if t is None:
            continue
        for p, (a, f) in s["edits"].items():
            t = set_area_flags(t, p, a, f)
        recs += struct.pack("<I", len(t)) + t
        n += 1
    return b"ONMS" + struct.pack("<HH", 2, 0) + m.params + struct.pack("<I", n) + recs


def read_mesh(b):  # M14
    assert b[:4] == b"ONMS" and struct.unpack_from("<HH", b, 4) == (2, 0)
    params = b[8:76]
    (slot_count,) = struct.unpack_from("<I", params, 32)
    (n,) = struct.unpack_from("<I", b, 76)
    o = 80
    slots = [dict(gen=1, tile=None) for _ in range(slot_count)]
    for i in range(n):
        (ln,) = struct.unpack_from("<I", b, o)
        slots[i].update(tile=b[o + 4:o + 4 + ln], edits={}, disabled=set())
        o += 4 + ln
    assert o == len(b)
    return mesh_from(params, slots)


# --- the replay ---------------------------------------------------------------------------------

def world_of(spec, worlds):
    w = dict(worlds[spec["like"]]) if "like" in spec else {k: (dict(v) if isinstance(v, dict) else v)
                                                          for k, v in gen.DEFAULTS.items()}
    for k, v in spec.items():
        if k in ("name", "like"):
            continue
        if k in ("origin", "slope"):
            w[k] = [exact(x) for x in v]
        elif k in ("tile_size", "bump", "layer_gap"):
            w[k] = exact(v)
        elif k == "vary_density":
            w[k] = boolean(v)
        elif k == "agent":
            a = dict(w["agent"])
            a.update({x: exact(y) for x, y in v.items()})
            w[k] = a
        else:
            w[k] = integer(v)
    return w


class Replay:
    def __init__(self, case):
        self.case = case
        self.worlds, self.bytes, self.meshes, self.refs = {}, {}, {}, {}
        self.outputs = []  # (label, bytes)

    def slot_of(self, mesh, ref):
        """The slot of a reference: a name (the slot it was returned for) or G:S:P / 0x…."""
        if "#" in ref:
            ref = ref.split("#")[0]
        if ref in self.refs:
            return self.refs[ref]
        if re.fullmatch(r"\d+:\d+:\d+", ref):
            return int(ref.split(":")[1])
        raise Unsupported(f"reference {ref}")

    @staticmethod
    def poly_of(ref):
        if "#" in ref:
            return int(ref.split("#")[1])
        if ":" in ref:
            return int(ref.split(":")[2])
        return 0  # a tile reference names its polygon 0 (R1)

    def tile_at(self, m, t):
        return next(i for i, s in enumerate(m.slots) if s["tile"] is not None and s["tile"][72:84] == t[72:84])

    def op(self, k, v, mesh=None):
        """A state-changing mesh operation; returns its output bytes, if any."""
        m = self.meshes[mesh or v.get("mesh")]
        if k == "add_tile":
            t = self.bytes[v["tile"]]
            taken = any(x["tile"] is not None and x["tile"][72:84] == t[72:84] for x in m.slots)
            if taken or all(x["tile"] is not None for x in m.slots):
                return None  # R7: position taken, or no free slot: refused, nothing changes
            slot = m.add(t)
            if "name" in v:
                self.refs[v["name"]] = slot
        elif k == "replace_tile":
            t = self.bytes[v["tile"]]
            slot = self.tile_at(m, t)
            m.replace(slot, t)
            if "name" in v:
                self.refs[v["name"]] = slot
        elif k == "remove_tile":
            m.remove(self.slot_of(m, v["ref"]))
        elif k == "set_area":
            m.edit(self.slot_of(m, v["poly"]), self.poly_of(v["poly"]), area=integer(v["area"]))
        elif k == "set_flags":
            m.edit(self.slot_of(m, v["poly"]), self.poly_of(v["poly"]), flags=integer(v["flags"]))
        elif k == "set_link":
            m.switch(self.slot_of(m, v["ref"]), integer(v["link"]), boolean(v["enabled"]))
        elif k == "snapshot":
            out = m.snapshot(v["mode"])
            self.bytes[v["name"]] = out
            return out
        else:
            raise Unsupported(k)
        return None

    def patch(self, v):
        b = bytearray(self.bytes[v["from"]])
        for e in v["edits"]:
            (k, a), = e.items()
            kind = "snapshot" if b[:4] == b"ONPS" else "tile"
            if k == "set" and "value" in a:
                if kind == "tile":
                    at, fmt = tile_field(b, a["field"])
                else:
                    at, _, fmt = snapshot_field(b, a["field"])
                val = exact(a["value"]) if fmt == "<d" else integer(a["value"])
                if fmt == "<d" and str(a["value"]).lower().startswith("0x"):
                    struct.pack_into("<Q", b, at, int(a["value"], 16))
                else:
                    struct.pack_into(fmt, b, at, val)
            elif k == "set" and "add" in a and kind == "snapshot":
                at, _, fmt = snapshot_field(b, a["field"])
                struct.pack_into(fmt, b, at, struct.unpack_from(fmt, b, at)[0] + integer(a["add"]))
            elif k == "splice" and kind == "snapshot" and a.get("length_prefix") == "true":
                at, size, _ = snapshot_field(b, a["field"])
                blob = self.bytes[a["blob"]]
                b[at:at + size] = struct.pack("<I", len(blob)) + blob
            elif k == "fit_length" and kind == "snapshot":
                at, _, _ = snapshot_field(b, a)
                struct.pack_into("<I", b, at, len(b) - at - 4)
            else:
                raise Unsupported(f"patch {k}")
        self.bytes[v["name"]] = bytes(b)

    def run(self, steps):
        last, prev = None, None
        for s in steps:
            (k, v), = s.items()
            if k == "expect":
                if "golden" in v and prev not in OPS_QUERY:  # answers: check_answers.py
                    if last is None:
                        raise Unsupported("golden of a step the model has no output for")
                    self.outputs.append((v["golden"], last))
                continue
            last, prev = None, k
            if k in PASSIVE:
                continue
            if k == "world":
                self.worlds[v["name"]] = world_of(v, self.worlds)
            elif k == "tile":
                w = self.worlds[v["world"]]
                self.bytes[v["name"]] = gen.tile(w, *(integer(x) for x in v["at"]))
            elif k == "tiles":
                w = self.worlds[v["world"]]
                ats = [(c, r, L) for L in range(w["layers"]) for r in range(w["rows"]) for c in range(w["columns"])]
                for name, at in zip(v["names"], ats):
                    self.bytes[name] = gen.tile(w, *at)
            elif k == "bytes" and "hex" in v:
                self.bytes[v["name"]] = bytes.fromhex(re.sub(r"#[^\n]*", "", v["hex"]).replace(" ", "").replace("\n", ""))
            elif k == "raw_tile":
                t = self.bytes[v["from"]]
                for e in v["edits"]:
                    if e == "clear_links":
                        t = clear_links(t)
                        continue
                    if not isinstance(e, dict):
                        raise Unsupported(f"raw_tile {e}")
                    (ek, ea), = e.items()
                    if ek == "set_vertex":  # vertex[i] at 132 + 24 i (§3.2)
                        t = bytearray(t)
                        struct.pack_into("<3d", t, 132 + 24 * integer(ea["index"]), *(exact(x) for x in ea["value"]))
                        t = bytes(t)
                        continue
                    if ek in ("set_area", "set_flags"):
                        val = integer(ea["value"])
                        t = set_area_flags(t, integer(ea["poly"]), *((val, None) if ek == "set_area" else (None, val)))
                        continue
                    if ek == "agent":  # agent.height, .radius, .climb at 84, 92, 100 (§3.1)
                        t = bytearray(t)
                        struct.pack_into("<3d", t, 84, *(exact(ea[k]) for k in ("height", "radius", "climb")))
                        t = bytes(t)
                        continue
                    if ek == "digest_of":  # settings_digest at 40 (§3.1)
                        t = t[:40] + gen.digest(self.worlds[ea]) + t[72:]
                        continue
                    if ek != "add_link":
                        raise Unsupported(f"raw_tile {ek}")
                    t = add_link(t, [exact(x) for x in ea["start"]], [exact(x) for x in ea["end"]],
                                 exact(ea["radius"]), boolean(ea["bidirectional"]), integer(ea.get("user_id", "0")))
                self.bytes[v["name"]] = t
            elif k == "patch":
                self.patch(v)
            elif k == "new_mesh":
                if "params" in v:
                    p = bytes.fromhex(v["params"])
                    self.meshes[v["name"]] = mesh_from(p, [dict(gen=1, tile=None)
                                                           for _ in range(struct.unpack_from("<I", p, 32)[0])])
                else:
                    w = dict(self.worlds[v["world"]])
                    digest = gen.digest(self.worlds[v.get("digest_of", v["world"])])
                    if "origin" in v:
                        w["origin"] = [exact(x) for x in v["origin"]]
                    if "tile_size" in v:
                        w["tile_size"] = exact(v["tile_size"])
                    self.meshes[v["name"]] = snap.Mesh(w, integer(v["slots"]), digest)
            elif k == "restore":
                lib = [self.bytes[n] for n in v.get("library", [])]
                self.meshes[v["name"]] = restore(self.bytes[v["bytes"]], lib)
            elif k == "restore_into":
                lib = [self.bytes[n] for n in v.get("library", [])]
                self.meshes[v["mesh"]] = restore(self.bytes[v["bytes"]], lib)
            elif k == "write_mesh":
                last = write_mesh(self.meshes[v["mesh"]])
                self.bytes[v["name"]] = last
            elif k == "read_mesh":
                self.meshes[v["name"]] = read_mesh(self.bytes[v["bytes"]])
            elif k == "parse_tile":
                last = self.bytes[v["tile"]]  # a valid tile is written back as read
                if "name" in v:
                    self.bytes[v["name"]] = last
            elif k == "continue":
                a, b = v["meshes"]
                out, prev = None, None
                for o in v["ops"]:
                    (ok, ov), = o.items()
                    if ok == "expect":  # judges the first mesh's output of the op before it
                        if "golden" in ov and prev not in OPS_QUERY:  # answers: check_answers.py
                            if out is None:
                                raise Unsupported("golden of an op the model has no output for")
                            self.outputs.append((ov["golden"], out))
                        continue
                    out, prev = None, ok
                    if ok in PASSIVE:
                        continue
                    self.op(ok, ov, b)
                    out = self.op(ok, ov, a)  # names the ops define are A's
            else:
                last = self.op(k, v)
        return self.outputs


def main():
    bad = n = skipped = 0
    for area in AREAS:
        for f in sorted(glob.glob(os.path.join(ROOT, "scenarios", area, "y_*.yaml"))):
            d = yaml.load(open(f), Loader=yaml.BaseLoader)
            if not any("golden" in (s.get("expect") or {}) for s in d["steps"] if isinstance(s.get("expect"), dict)):
                continue
            try:
                outs = Replay(d["id"]).run(d["steps"])
            except Unsupported as e:
                print(f"NOT REPLAYED {d['id']}: {e}")
                skipped += 1
                continue
            for label, want in outs:
                n += 1
                path = os.path.join(ROOT, "golden", "bytes", d["id"], label + ".bin")
                got = open(path, "rb").read() if os.path.exists(path) else None
                if got != want:
                    bad += 1
                    print(f"DIFFERS {d['id']}/{label}: model {len(want)} bytes, golden "
                          f"{None if got is None else len(got)}")
    print(f"{n - bad} of {n} goldens of {', '.join(AREAS)} equal the model; {skipped} cases not replayed")
    sys.exit(1 if bad or skipped else 0)


if __name__ == "__main__":
    main()
