#!/usr/bin/env python3
"""Checks the query-answer goldens of the y_ cases of query/ (and of the continue cases of
snapshot/) by a route independent of onav: each
golden is decoded by the `ONQA` layout of spec/conformance.md §3 ("Query answers"), written here
from the text alone, which must read every byte exactly once; then every reply key the case's
`expect: {query: …}` lists (values derived by hand from spec/queries.md, see each case's notes)
must equal the decoded value, floats bitwise and references resolved by replaying the case's mesh
operations on the spec state model (scenarios/snapshot/tools/replay.py: a tile reference NAME is
the generation and slot its add_tile got, R1 packs (g << 40) | (s << 20) | p). Every reference
an answer holds must be a current one of that replayed state. Keys a case does not list (the
continue cases list none: their answers must equal those of the twin that never left, S26) are
checked by the layout and that property only, and are printed.

Then, for every query step with the default filter and pool (no `filter`, `max_nodes`), the
answer is derived again by query_model.py, an independent model of spec/queries.md: the whole
find_nearest_poly answer by brute force (Q1-Q3); a raycast's stop, t, edge, normal and cost walked
along the polygons it visited, each step through the edge §6.1 picks and its neighbour code,
ending on a wall or the end; a complete path's cost along its corridor (P0/P2), each step over
an edge or off-mesh link that exists. The golden must equal the model on every such key, and the
case must list each of them (so the values it states are checked by the model, not copied).

    scenarios/query/tools/check_answers.py     check every query-answer golden
"""
import glob
import os
import struct
import sys

import yaml

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "snapshot", "tools"))
import replay  # noqa: E402
import query_model  # noqa: E402

OPS = {1: "find_nearest_poly", 2: "find_path", 3: "find_straight_path", 4: "raycast", 5: "corridor_cost"}
STATUS = ["complete", "partial", "out_of_nodes"]
STOP = ["reached", "wall", "missed", "visit_limit"]


class Reader:
    def __init__(self, b):
        self.b, self.at = b, 0

    def take(self, fmt):
        v = struct.unpack_from(fmt, self.b, self.at)
        self.at += struct.calcsize(fmt)
        return v if len(v) > 1 else v[0]

    def f64(self):
        return self.take("<d")

    def vec3(self):
        return list(self.take("<3d"))

    def refs(self):
        return [self.take("<Q") for _ in range(self.take("<I"))]


def decode(b):
    """The reply an ONQA golden holds (§3): header, then the op's fields in the table's order."""
    r = Reader(b)
    magic, version, op, reserved = r.take("<4sHBB")
    assert magic == b"ONQA" and version == 1 and reserved == 0 and op in OPS, (magic, version, op)
    a = {}
    if op == 1:
        a["found"] = {0: False, 1: True}[r.take("<B")]
        if a["found"]:
            a["poly"], a["point"] = r.take("<Q"), r.vec3()
            a["over_poly"] = {0: False, 1: True}[r.take("<B")]
    elif op == 2:
        a["status"], a["cost"], a["corridor"] = STATUS[r.take("<B")], r.f64(), r.refs()
    elif op == 5:
        a["cost"] = r.f64()
    elif op == 3:
        a["points"] = [dict(pos=r.vec3(), flags=r.take("<B"), poly=r.take("<Q")) for _ in range(r.take("<I"))]
    else:
        a["stop"], a["t"], a["normal"] = STOP[r.take("<B")], r.f64(), r.vec3()
        if r.take("<B"):
            a["edge"] = r.take("<I")
        if r.take("<B"):
            a["cost"] = r.f64()
        a["visited"] = r.refs()
    assert r.at == len(b), "bytes left over"
    return OPS[op], a


def same_float(got, want):
    w = replay.exact(want) if want not in ("inf", "-inf", "nan") else float(want)
    if w != w:
        return got != got and struct.pack("<d", got) == struct.pack("<Q", 0x7FF8000000000000)
    return struct.pack("<d", got) == struct.pack("<d", w)


class Refs(replay.Replay):
    def raw(self, ref):
        if ref.lower().startswith("0x"):
            return int(ref, 16)
        if ":" in ref and "#" not in ref:
            g, s, p = (int(x) for x in ref.split(":"))
            return (g << 40) | (s << 20) | p
        name, _, p = ref.partition("#")
        slot = self.refs[name]
        mesh = self.meshes[self.mesh]
        return (mesh.slots[slot]["gen"] << 40) | (slot << 20) | int(p or 0)


def compare(key, got, want, rp):
    if key in ("poly",):
        return got == rp.raw(want)
    if key in ("corridor", "visited"):
        return got == [rp.raw(x) for x in want]
    if key in ("point", "normal", "pos"):
        return len(got) == len(want) and all(same_float(g, w) for g, w in zip(got, want))
    if key in ("cost", "t"):
        return same_float(got, want)
    if key in ("found", "over_poly"):
        return got == replay.boolean(want)
    if key in ("edge", "flags"):
        return got == replay.integer(want)
    if key == "points":
        return len(got) == len(want) and all(compare(k, g[k], w[k], rp) for g, w in zip(got, want) for k in w)
    return got == want


def check_refs(a, rp):
    """Every reference in an answer is a current one of the replayed state (R1, R4): its slot holds
    a tile, its generation is the slot's, its polygon index is below the tile's G + L."""
    refs = [a["poly"]] if "poly" in a else []
    refs += a.get("corridor", []) + a.get("visited", []) + [p["poly"] for p in a.get("points", [])]
    slots = rp.meshes[rp.mesh].slots
    for r in refs:
        g, s, p = r >> 40, (r >> 20) & 0xFFFFF, r & 0xFFFFF
        assert s < len(slots) and slots[s]["tile"] is not None, f"reference {r:#x}: slot {s} is free"
        v, gc, lc, _, _ = struct.unpack_from("<5I", slots[s]["tile"], 108)
        assert g == slots[s]["gen"] and p < gc + lc, f"reference {r:#x} is not current"


MODEL_ARGS = {"mesh", "center", "half_extents", "start", "end", "start_pos", "end_pos", "costs"}


def model_check(op, args, a, listed, rp):
    """query_model's answer for a default-filter step; the keys it derives must equal the golden
    and be listed by the case. Returns how many keys it derived."""
    f3 = lambda v: [replay.exact(x) for x in v]  # noqa: E731
    if op == "corridor_cost" and set(args) <= MODEL_ARGS | {"corridor", "filter"} \
            and set(args.get("filter", {})) <= {"area_costs"}:
        tiles = query_model.state(rp.meshes[rp.mesh].slots)
        costs = [1.0] * 64
        for area, c in (args.get("filter", {}).get("area_costs") or {}).items():
            costs[int(area)] = replay.exact(c)
        m = dict(cost=query_model.corridor_cost(tiles, [rp.raw(x) for x in args["corridor"]],
                                                f3(args["start_pos"]), f3(args["end_pos"]), costs))
        op = "modelled"
    elif op not in ("find_nearest_poly", "raycast", "find_path") or not set(args) <= MODEL_ARGS:
        return 0
    tiles = query_model.state(rp.meshes[rp.mesh].slots)
    if op == "modelled":
        pass
    elif op == "find_nearest_poly":
        m = query_model.nearest(tiles, f3(args["center"]), f3(args["half_extents"]))
    elif op == "raycast":
        costs = replay.boolean(args.get("costs", "false"))
        m = query_model.raycast(tiles, rp.raw(args["start"]), a["visited"], f3(args["start_pos"]), f3(args["end_pos"]), costs, [1.0] * 64)
        del m["visited"]
    elif a["status"] == "complete":
        m = dict(cost=query_model.corridor_cost(tiles, a["corridor"], f3(args["start_pos"]), f3(args["end_pos"]), [1.0] * 64))
    else:
        return 0
    for k, w in m.items():
        assert k in a, f"the model gives {k}, the answer has none"
        same = struct.pack("<3d", *a[k]) == struct.pack("<3d", *w) if k in ("point", "normal") else \
            (struct.pack("<d", a[k]) == struct.pack("<d", w) if isinstance(w, float) else a[k] == w)
        assert same, f"{k} is {a[k]}, the independent model gives {w}"
        assert k in listed, f"{k} (the model gives {w}) is not listed by the case"
    return len(m)


def cases():
    """The cases with query-answer goldens: query/'s y_ cases and the continue cases of snapshot/."""
    files = sorted(glob.glob(os.path.join(replay.ROOT, "scenarios", "query", "y_*.yaml")))
    return files + sorted(glob.glob(os.path.join(replay.ROOT, "scenarios", "snapshot", "y_continue-*.yaml")))


def main():
    n = bad = keys = modelled = 0
    unchecked = []

    def judge(cid, op, e, rp, args):
        nonlocal n, bad, keys, modelled
        path = os.path.join(replay.ROOT, "golden", "bytes", cid, e["golden"] + ".bin")
        n += 1
        try:
            got_op, a = decode(open(path, "rb").read())
            assert got_op == op, f"op {got_op}, the step is {op}"
            check_refs(a, rp)
            for k, w in (e.get("query") or {}).items():
                keys += 1
                assert k in a, f"{k} missing"
                assert compare(k, a[k], w, rp), f"{k} is {a[k]}, the case expects {w}"
            modelled += model_check(op, args, a, e.get("query") or {}, rp)
            unchecked.extend(f"{cid}/{e['golden']}.{k}" for k in a if k not in (e.get("query") or {}))
        except (AssertionError, ZeroDivisionError, OSError, struct.error, KeyError, IndexError) as x:
            bad += 1
            print(f"DIFFERS {cid}/{e['golden']}: {x}")

    for f in cases():
        d = yaml.load(open(f), Loader=yaml.BaseLoader)
        steps = d["steps"]
        rp = Refs(d["id"])
        for i, s in enumerate(steps):
            k = next(iter(s))
            if k == "continue":
                a, b = s[k]["meshes"]
                ops = s[k]["ops"]
                for j, o in enumerate(ops):
                    (ok, ov), = o.items()
                    if ok == "expect":
                        if "golden" in ov and next(iter(ops[j - 1])) in replay.OPS_QUERY:
                            rp.mesh = a
                            q = next(iter(ops[j - 1]))
                            judge(d["id"], q, ov, rp, ops[j - 1][q])
                        continue
                    if ok not in replay.PASSIVE:
                        rp.op(ok, ov, b)
                        rp.op(ok, ov, a)
                continue
            if k not in replay.PASSIVE:
                rp.run([s])  # the state the queries after it see
                continue
            e = s.get("expect")
            if k != "expect" or not isinstance(e, dict) or "golden" not in e:
                continue
            op = next(iter(steps[i - 1]))
            if op not in replay.OPS_QUERY:
                continue
            rp.mesh = steps[i - 1][op]["mesh"]
            judge(d["id"], op, e, rp, steps[i - 1][op])
    # The two continue cases restore one state, from a Full and from a Referenced snapshot, and
    # apply the same ops (S23, S26): their answers must be equal label by label.
    pair = [os.path.join(replay.ROOT, "golden", "bytes", "snapshot", c) for c in ("y_continue-full", "y_continue-referenced")]
    for label in sorted(x for x in os.listdir(pair[0]) if x.startswith("continue-") and not x.startswith("continue-cs")):
        a, b = (open(os.path.join(d, label), "rb").read() if os.path.exists(os.path.join(d, label)) else None for d in pair)
        if a != b:
            bad += 1
            print(f"DIFFERS snapshot/y_continue-full/{label} and snapshot/y_continue-referenced/{label}")
    if unchecked:
        print(f"hashed but not listed by their case (checked by the layout only): {', '.join(unchecked)}")
    print(f"{n - bad} of {n} query-answer goldens decode by the ONQA layout and agree with the "
          f"{keys} hand-derived reply values of their cases; {modelled} values equal the independent "
          f"model's")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
