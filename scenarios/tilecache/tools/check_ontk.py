#!/usr/bin/env python3
"""An independent reader of the tile cache goldens (golden/bytes/tilecache/**.bin), written from
the seed's "Tile cache snapshot" layout and spec/tilecache.md §6 alone (no onav code): it parses
every ONTK byte by byte, the mesh snapshot it holds by spec/snapshot.md §4, checks the reading
rules TC18-TC28 (and the queue against the 5 x 5 cached cells of the suite's floor, TC29 C), and
compares each golden with what its scenario says it holds. Each Referenced golden is decoded and
checked against the Full golden of the same state (REFERENCED_OF): the same lists, queue,
generations, edits and switches, every tile named by the SHA-256 of the Full golden's inline tile,
and byte for byte the Referenced form derived from the Full golden. For the busy cache it also checks that
every offset tools/cases.py computes for the must-reject cases is where this reader finds that
field, and that cases.py's MESH_LEN is the golden's mesh length.

    scenarios/tilecache/tools/check_ontk.py     exit 0 when every golden passes
"""
import hashlib
import math
import os
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..", "..")
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "scenarios", "build3d", "tools"))
import cases  # noqa: E402
import check_goldens as b3d  # noqa: E402  (the tile layout and build3d's tile checks)

SHAPES = {1: ("cylinder", 5), 2: ("box", 6), 3: ("oriented_box", 7)}
# The cached cells of the suite's floor (TC1, B15): columns and rows -1 ..= 3.
CELLS = {(c, r) for c in range(-1, 4) for r in range(-1, 4)}


class Bad(Exception):
    pass


class Reader:
    def __init__(self, b):
        self.b, self.at, self.fields = b, 0, {}

    def take(self, fmt, name):
        n = struct.calcsize(fmt)
        if self.at + n > len(self.b):
            raise Bad(f"{name}: truncated at {self.at}")
        v = struct.unpack_from("<" + fmt, self.b, self.at)
        self.fields[name] = self.at
        self.at += n
        return v[0] if len(v) == 1 else v

    def f64(self, name):
        v = self.take("d", name)
        if not math.isfinite(v):
            raise Bad(f"{name} is not finite")
        return v


def cross(o, a, b):
    return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])


def convex(poly):
    """Strictly convex with every turn of one sign (the sign is the winding)."""
    k = len(poly)
    turns = [cross(poly[j], poly[(j + 1) % k], poly[(j + 2) % k]) for j in range(k)]
    if all(t > 0 for t in turns):
        return 1
    if all(t < 0 for t in turns):
        return -1
    return 0


def parse_onps(b, base):
    """The mesh snapshot (snapshot.md §4): the header, params, the slots section; returns slots."""
    if b[:4] != b"ONPS":
        raise Bad("mesh: magic")
    version, flags = struct.unpack_from("<HH", b, 4)
    if (version, flags) != (2, 0):
        raise Bad(f"mesh: version {version} flags {flags}")
    params = b[8:76]
    digest = params[36:68]
    slot_count_params = struct.unpack_from("<I", params, 32)[0]
    nsec = struct.unpack_from("<I", b, 76)[0]
    at = 80
    slots = []
    for _ in range(nsec):
        sid, res, ln = struct.unpack_from("<HHI", b, at)
        at += 8
        end = at + ln
        if sid != 1 or res != 0:
            raise Bad(f"mesh: section {sid}")
        n = struct.unpack_from("<I", b, at)[0]
        at += 4
        if n != slot_count_params:
            raise Bad("mesh: slot count differs from params")
        for _ in range(n):
            gen, kind = struct.unpack_from("<IB", b, at)
            at += 5
            slot = {"gen": gen, "kind": kind}
            if kind == 1:
                tl = struct.unpack_from("<I", b, at)[0]
                tile = b[at + 4: at + 4 + tl]
                at += 4 + tl
                if tile[:4] != b"ONTL":
                    raise Bad("mesh: a tile without ONTL")
                slot["id"] = hashlib.sha256(tile).digest()
                slot["tile"] = tile
            elif kind == 2:
                slot["id"] = b[at: at + 32]
                at += 32
            elif kind != 0:
                raise Bad(f"mesh: slot kind {kind}")
            if kind:
                start = at
                ne = struct.unpack_from("<I", b, at)[0]
                at += 4 + 7 * ne
                nd = struct.unpack_from("<I", b, at)[0]
                at += 4 + 4 * nd
                slot["edits"] = b[start:at]
            slots.append(slot)
        if at != end:
            raise Bad(f"mesh: section length {ln} is not its body ({at - end:+})")
    if at != len(b):
        raise Bad(f"mesh: {len(b) - at} bytes after the sections")
    return {"digest": digest, "slots": slots, "slot_count": slot_count_params, "head": b[:80]}


def parse(b):
    r = Reader(b)
    if r.take("4s", "magic") != b"ONTK":
        raise Bad("magic")  # TC18
    if r.take("H", "version") != 1:
        raise Bad("version")
    if r.take("H", "flags") != 0:
        raise Bad("flags")
    nxo, nxv = r.take("I", "next_obstacle_id"), r.take("I", "next_volume_id")
    for v, n in [(nxo, "next_obstacle_id"), (nxv, "next_volume_id")]:  # TC20
        if not 1 <= v <= 2**31 - 1:
            raise Bad(n)
    o = r.take("I", "obstacle_count")
    if o > min(2**20, (len(b) - r.at) // 13):  # TC21
        raise Bad("obstacle_count")
    obstacles, last = [], 0
    for i in range(o):
        oid = r.take("I", f"obstacle[{i}].id")
        code = r.take("B", f"obstacle[{i}].shape")
        if code not in SHAPES:  # TC22
            raise Bad(f"obstacle[{i}].shape")
        name, k = SHAPES[code]
        vals = [r.f64(f"obstacle[{i}].v{j}") for j in range(k)]
        if name == "cylinder" and not (vals[3] > 0 and vals[4] > 0):
            raise Bad(f"obstacle[{i}] cylinder sizes")
        if name == "box" and not all(vals[3 + a] > vals[a] for a in range(3)):
            raise Bad(f"obstacle[{i}] box corners")
        if name == "oriented_box" and not all(vals[3 + a] > 0 for a in range(3)):
            raise Bad(f"obstacle[{i}] half extents")
        if not (1 <= oid < nxo) or oid <= last:  # TC23
            raise Bad(f"obstacle[{i}].id")
        last = oid
        obstacles.append((oid, name, vals))
    v = r.take("I", "volume_count")
    if v > min(2**20, (len(b) - r.at) // 41):  # TC24
        raise Bad("volume_count")
    volumes, last = [], 0
    for i in range(v):
        vid = r.take("I", f"volume[{i}].id")
        area = r.take("B", f"volume[{i}].area")
        lo, hi = r.f64(f"volume[{i}].min_y"), r.f64(f"volume[{i}].max_y")
        k = r.take("I", f"volume[{i}].corner_count")
        if area > 63 or hi < lo or not 3 <= k <= 256:  # TC25
            raise Bad(f"volume[{i}] area, y range or corner count")
        corners = [(r.f64(f"volume[{i}].corner[{j}].x"), r.f64(f"volume[{i}].corner[{j}].z")) for j in range(k)]
        if convex(corners) == 0:
            raise Bad(f"volume[{i}] not strictly convex")
        if not (1 <= vid < nxv) or vid <= last:  # TC26
            raise Bad(f"volume[{i}].id")
        last = vid
        volumes.append((vid, area, lo, hi, corners))
    q = r.take("I", "queue_length")
    if q > (len(b) - r.at) // 8 or q > len(CELLS):  # TC27, TC29 C
        raise Bad("queue_length")
    queue = []
    for j in range(q):
        cell = (r.take("i", f"queue[{j}]"), r.take("i", f"queue[{j}].row"))
        if cell in queue or cell not in CELLS:
            raise Bad(f"queue[{j}]")
        queue.append(cell)
    ml = r.take("I", "mesh_length")
    if ml > len(b) - r.at:  # TC28
        raise Bad("mesh_length")
    r.fields["mesh"] = r.at
    mesh = parse_onps(b[r.at: r.at + ml], r.at)
    if r.at + ml != len(b):
        raise Bad("trailing bytes")
    windings = {convex(c[4]) for c in volumes}
    return {"next": (nxo, nxv), "obstacles": obstacles, "volumes": volumes, "queue": queue,
            "mesh_length": ml, "mesh": mesh, "fields": r.fields, "windings": windings}


def same_polygon(given, stored):
    """The stored corners are the given ones, in that order or reversed (one winding, TC5)."""
    g = [tuple(map(float, p)) for p in given]
    return stored == g or stored == list(reversed(g)) or any(
        stored == (list(reversed(g)))[s:] + (list(reversed(g)))[:s] for s in range(len(g)))


def expect_lists(p, obstacles, volumes):
    got = [(n, v) for _, n, v in p["obstacles"]]
    want = [(n, [float(x) for x in v]) for n, v in obstacles]
    if got != want:
        raise Bad(f"obstacles {got} != {want}")
    if [o[0] for o in p["obstacles"]] != list(range(1, len(obstacles) + 1)):
        raise Bad("obstacle ids are not 1 ..")
    if len(p["volumes"]) != len(volumes):
        raise Bad("volume count")
    for (vid, area, lo, hi, corners), (a2, lo2, hi2, poly) in zip(p["volumes"], volumes):
        if (area, lo, hi) != (a2, float(lo2), float(hi2)) or not same_polygon(poly, corners):
            raise Bad(f"volume {vid}: {area} {lo} {hi} {corners}")
    if len(p["windings"]) > 1:
        raise Bad("volumes stored in both windings")


def full_mesh(p):
    """A Full mesh snapshot: every occupied slot inline, each tile's settings digest the params'."""
    for s in p["mesh"]["slots"]:
        if s["kind"] == 2:
            raise Bad("a Full golden with a referenced slot")
        if s["kind"] == 1 and s["tile"][40:72] != p["mesh"]["digest"]:
            raise Bad("a tile of another settings digest")


def referenced_mesh(p):
    """A Referenced mesh snapshot: every occupied slot names its tile by content id (kind 2)."""
    if any(s["kind"] == 1 for s in p["mesh"]["slots"]):
        raise Bad("a Referenced golden with an inline slot")


def check_referenced(ref, full, rb, fb):
    """The Referenced golden `rb` (parsed: `ref`) against the Full golden `fb` of the same state
    (`full`), field by field: the same next ids, obstacles, volumes and queue (TC30: the lists do
    not depend on the mode), the same mesh header and parameters, and slot by slot the same
    generation, kind 0 where the Full one is free and kind 2 where it holds a tile, whose content
    id is the SHA-256 of that tile's bytes (snapshot.md S22), with the same edits and switches.
    Then the bytes are exactly the Referenced form derived from the Full golden."""
    for k in ("next", "obstacles", "volumes", "queue"):
        if ref[k] != full[k]:
            raise Bad(f"{k} differs from the Full golden: {ref[k]} != {full[k]}")
    rm, fm = ref["mesh"], full["mesh"]
    if rm["head"] != fm["head"] or rm["slot_count"] != fm["slot_count"]:
        raise Bad("mesh header or parameters differ from the Full golden's")
    for i, (r, f) in enumerate(zip(rm["slots"], fm["slots"])):
        if r["gen"] != f["gen"] or (r["kind"], f["kind"]) not in ((0, 0), (2, 1)):
            raise Bad(f"mesh.slot[{i}]: generation {r['gen']} kind {r['kind']}, Full {f['gen']} {f['kind']}")
        if f["kind"] and (r["id"] != hashlib.sha256(f["tile"]).digest() or r["edits"] != f["edits"]):
            raise Bad(f"mesh.slot[{i}]: content id, edits or switches differ from the Full tile's")
    if rb != full["referenced"]:
        raise Bad("not the Referenced form derived from the Full golden")
    return sum(1 for s in rm["slots"] if s["kind"])


def referenced_of(b):
    """The Referenced ONTK of the same state as the Full ONTK `b`, derived by the layouts alone
    (TC30, snapshot.md §4, S22): every inline tile (kind 1, u32 length, bytes) becomes kind 2 and
    the tile's SHA-256 (its content id), the slots section's length and mesh_length follow."""
    p = parse(b)
    m = p["fields"]["mesh"]
    mesh = b[m:]
    body = bytearray(mesh[80 + 8: 80 + 8 + 4])
    at = 80 + 8 + 4
    for s in p["mesh"]["slots"]:
        gen, kind = struct.unpack_from("<IB", mesh, at)
        at += 5
        if kind == 0:
            body += struct.pack("<IB", gen, 0)
            continue
        if kind == 1:
            tl = struct.unpack_from("<I", mesh, at)[0]
            body += struct.pack("<IB", gen, 2) + hashlib.sha256(mesh[at + 4: at + 4 + tl]).digest()
            at += 4 + tl
        else:
            body += struct.pack("<IB", gen, 2) + mesh[at: at + 32]
            at += 32
        ne = struct.unpack_from("<I", mesh, at)[0]
        nd = struct.unpack_from("<I", mesh, at + 4 + 7 * ne)[0]
        n = 4 + 7 * ne + 4 + 4 * nd
        body += mesh[at: at + n]
        at += n
    new_mesh = mesh[:80] + struct.pack("<HHI", 1, 0, len(body)) + bytes(body)
    return b[: m - 4] + struct.pack("<I", len(new_mesh)) + new_mesh


def check_busy(p):
    expect_lists(p, cases.OBSTACLES + cases.LATE, cases.VOLUMES)
    if p["queue"] != [(0, 0), (2, 0)] or p["next"] != (6, 3):
        raise Bad(f"busy queue {p['queue']} next {p['next']}")
    if cases.REFERENCED != (len(p["referenced"]), hashlib.sha256(p["referenced"]).hexdigest()):
        raise Bad(f"cases.py REFERENCED {cases.REFERENCED}; derived from the Full golden: "
                  f"{len(p['referenced'])} {hashlib.sha256(p['referenced']).hexdigest()}")
    if cases.MESH_LEN != p["mesh_length"]:
        raise Bad(f"cases.py MESH_LEN {cases.MESH_LEN}, the golden's mesh is {p['mesh_length']} bytes")
    at = cases.layout()
    mine = dict(p["fields"])
    names = {"cylinder": ["x", "y", "z", "radius", "height"], "box": ["min_x", "min_y", "min_z", "max_x", "max_y", "max_z"],
             "oriented_box": ["x", "y", "z", "half_x", "half_y", "half_z", "rotation"]}
    for i, (_, n, _) in enumerate(p["obstacles"]):
        for k, name in enumerate(names[n]):
            mine[f"obstacle[{i}].{name}"] = mine[f"obstacle[{i}].v{k}"]
    for i, v in enumerate(p["volumes"]):
        for j in range(len(v[4])):
            mine[f"volume[{i}].corner[{j}]"] = mine[f"volume[{i}].corner[{j}].x"]
    m = mine["mesh"]
    mine.update({"mesh.magic": m, "mesh.params": m + 8, "mesh.params.settings_digest": m + 44,
                 "end": m + p["mesh_length"]})
    for k, off in at.items():
        if mine.get(k) != off:
            raise Bad(f"cases.py puts {k} at {off}, the golden has it at {mine.get(k)}")
    return len(at)


# The queue of y_obstacles-every-shape before its update (its notes derive it from TC9).
QUEUED = [(1, 1), (2, 1), (1, 2), (2, 2), (0, 0), (1, 0), (0, 1), (2, 0)]
# The volume y_restore-and-continue adds after restoring the busy cache from its Referenced ONTK.
LAST_VOLUME = (9, -1, 1, [[20, 20], [22, 20], [22, 22], [20, 22]])
# Each Referenced golden and the Full golden of the same state it is checked against.
REFERENCED_OF = {
    "y_busy-snapshot/busy-referenced": "y_busy-snapshot/busy-full",
    "y_obstacles-every-shape/queued-referenced": "y_obstacles-every-shape/queued-full",
    "y_restore-and-continue/end-referenced": "y_restore-and-continue/end-full",
    "y_restore-and-continue/s0-referenced": "y_restore-and-continue/s0-full",
    "y_restore-and-continue/d0-referenced": "y_restore-and-continue/d0-full",
    "y_restore-and-continue/x-referenced": "y_restore-and-continue/x-full",
}
# y_restore-and-continue's first continue, from the busy state (ids 1-5, volumes 1-2): a cylinder
# added (id 6), obstacle 2 removed (9 is unknown: refused, no change), volume 1 removed, drained.
X_OBSTACLES = [(i + 1, n, v) for i, (n, v) in enumerate(cases.OBSTACLES + cases.LATE) if i != 1] + [
    (6, "cylinder", [4, -1, 20, 1.5, 3])]
# y_update-budgets' three boxes; their cells, (0, 0) and (2, 0) by TC9 as in the busy cache.
BUDGET_BOXES = [("box", [3.5, -1, 3.5, 4.5, 1, 4.5]), ("box", [19.5, -1, 3.5, 20.5, 1, 4.5]),
                ("box", [3, -1, 3.8, 4, 1, 4.6])]


def expect_ids(p, obstacles, volumes):
    """The lists with their ids (after removals the ids are not 1 ..)."""
    got = [(i, n, v) for i, n, v in p["obstacles"]]
    want = [(i, n, [float(x) for x in v]) for i, n, v in obstacles]
    if got != want:
        raise Bad(f"obstacles {got} != {want}")
    got_v = [(i, a, lo, hi) for i, a, lo, hi, _ in p["volumes"]]
    want_v = [(i, a, float(lo), float(hi)) for i, a, lo, hi, _ in volumes]
    if got_v != want_v or not all(same_polygon(w[4], g[4]) for g, w in zip(p["volumes"], volumes)):
        raise Bad(f"volumes {got_v} != {want_v}")


def tiles_by_cell(p):
    out = {}
    for s in p["mesh"]["slots"]:
        if s["kind"] == 1:
            out[struct.unpack_from("<iiI", s["tile"], 72)] = s["tile"]
    return out


def fan_details(d, key):
    """With no detail sampling (every case's settings: detail_sample_dist 0) a polygon of n corners
    has no extra detail vertices and its n - 2 fan triangles (build3d.md B44), the triangle bases
    running on from polygon to polygon (navmesh-format.md §3)."""
    tri = 0
    for i, (vs, det) in enumerate(zip(d["polys"], d["details"])):
        if det != (0, 0, tri, len(vs) - 2):
            raise Bad(f"{key}: polygon {i}'s detail mesh {det}, not the fan at {tri}")
        tri += len(vs) - 2
    if d["dv"] != 0 or d["dt"] != tri or set(d["areas"]) - {0, 5, 9, 63}:
        raise Bad(f"{key}: detail counts {d['dv']} {d['dt']} or areas {sorted(set(d['areas']))}")


def tiles_ok(p, key):
    """Every inline tile by the tile layout and build3d's tile checks (its cell, convexity), and
    its detail meshes the fans of no detail sampling."""
    for s in p["mesh"]["slots"]:
        if s["kind"] == 1:
            d = b3d.decode_tile(s["tile"])
            b3d.check_tile(d, key)
            fan_details(d, key)


def main():
    base = os.path.join(ROOT, "golden", "bytes", "tilecache")
    goldens = {}
    for case in sorted(os.listdir(base)) if os.path.isdir(base) else []:
        for f in sorted(os.listdir(os.path.join(base, case))):
            b = open(os.path.join(base, case, f), "rb").read()
            if b[:4] == b"ONTK":  # the other goldens are tools/check_outputs.py's
                goldens[f"{case}/{f[:-4]}"] = b

    def mesh_of(key):
        b = goldens[key]
        return b[parse(b)["fields"]["mesh"]:]

    def same_mesh_as(p, key):
        if p["mesh_bytes"] != mesh_of(key):
            raise Bad(f"the mesh snapshot is not that of {key}")

    def same_as(key, b, check):
        """Byte for byte the golden `key` of the same state (checked by its own entry)."""
        return lambda p: (goldens[key] == b or Bad(f"not the bytes of {key}"), check(p))

    def kept_but(p, key, cells):
        """The tiles of cells no shape may change (TC9) are those of golden `key`'s mesh."""
        mine, old = tiles_by_cell(p), tiles_by_cell(parse(goldens[key]))
        if set(mine) != set(old):
            raise Bad(f"tile cells {sorted(mine)} != {sorted(old)}")
        for c in old:
            if (c[0], c[1]) in cells:
                if mine[c] == old[c]:
                    raise Bad(f"the tile of {c} did not change")
            elif mine[c] != old[c]:
                raise Bad(f"the tile of {c} changed")

    expected = {
        "y_create-is-the-build/empty-full": lambda p: (expect_lists(p, [], []), p["queue"] == [] or Bad("queue"),
                                                       p["mesh"]["slot_count"] == 9 + len(CELLS) or Bad("slots")),
        "y_obstacles-every-shape/cut-full": lambda p: (expect_lists(p, cases.OBSTACLES, []), p["queue"] == [] or Bad("queue")),
        "y_obstacles-every-shape/queued-full": lambda p: (
            expect_lists(p, cases.OBSTACLES, []), p["queue"] == QUEUED or Bad(f"queue {p['queue']}"),
            p["next"] == (4, 1) or Bad("next ids"), same_mesh_as(p, "y_create-is-the-build/empty-full")),
        "y_busy-snapshot/busy-full": check_busy,
        "y_volumes/volumes-full": lambda p: (p["next"] == (2, 4) or Bad("next ids"), len(p["volumes"]) == 3 or Bad("volumes")),
        "y_restore-and-continue/end-full": lambda p: (
            expect_lists(p, cases.OBSTACLES + cases.LATE, cases.VOLUMES + [LAST_VOLUME]),
            p["queue"] == [] or Bad("queue"), p["next"] == (6, 4) or Bad("next ids")),
    }
    # y_restore-and-continue repeats y_busy-snapshot's operations: s0 is the busy state, d0 its
    # restored copy's snapshot, back the in-place restore of s0r; y is the state end-full holds.
    for k in ("s0-full", "d0-full", "back-full"):
        key = f"y_restore-and-continue/{k}"
        expected[key] = same_as("y_busy-snapshot/busy-full", goldens.get(key), check_busy)
    expected["y_restore-and-continue/y-full"] = same_as(
        "y_restore-and-continue/end-full", goldens.get("y_restore-and-continue/y-full"),
        expected["y_restore-and-continue/end-full"])
    expected["y_restore-and-continue/x-full"] = lambda p: (
        expect_ids(p, X_OBSTACLES, [(2,) + cases.VOLUMES[1]]), p["queue"] == [] or Bad("queue"),
        p["next"] == (7, 3) or Bad("next ids"))
    expected["y_update-budgets/queued-full"] = lambda p: (
        expect_lists(p, BUDGET_BOXES, []), p["queue"] == [(0, 0), (2, 0)] or Bad(f"queue {p['queue']}"),
        p["next"] == (4, 1) or Bad("next ids"), same_mesh_as(p, "y_create-is-the-build/empty-full"))
    expected["y_update-budgets/drained-full"] = lambda p: (
        expect_lists(p, BUDGET_BOXES, []), p["queue"] == [] or Bad(f"queue {p['queue']}"),
        p["next"] == (4, 1) or Bad("next ids"),
        kept_but(p, "y_create-is-the-build/empty-full", {(0, 0), (2, 0)}))
    bad = 0
    parsed = {}
    # Full goldens first: each Referenced golden is checked against its Full counterpart.
    order = sorted(goldens, key=lambda k: (k in REFERENCED_OF, k))
    for key in order:
        b = goldens[key]
        try:
            p = parse(b)
            p["mesh_bytes"] = b[p["fields"]["mesh"]:]
            tiles = sum(1 for s in p["mesh"]["slots"] if s["kind"])
            if key in REFERENCED_OF:
                referenced_mesh(p)
                full = parsed.get(REFERENCED_OF[key])
                if full is None:
                    raise Bad(f"its Full counterpart {REFERENCED_OF[key]} is missing or failed")
                n = check_referenced(p, full, b, goldens[REFERENCED_OF[key]])
                print(f"ok   {key}: {len(b)} bytes, Referenced, {n} tiles named by content id; the lists, "
                      f"queue, generations, edits and switches of {REFERENCED_OF[key]}, and its derived "
                      f"Referenced form byte for byte")
                continue
            full_mesh(p)
            tiles_ok(p, key)
            p["referenced"] = referenced_of(b)
            parse(p["referenced"])
            extra = expected[key](p) if key in expected else None
            def raise_bad(e):  # an entry's checks: Bad values, in nested tuples
                if isinstance(e, Bad):
                    raise e
                for x in e if isinstance(e, tuple) else ():
                    raise_bad(x)
            raise_bad(extra)
            extra = next((x for x in extra if isinstance(x, int) and not isinstance(x, bool)), None) \
                if isinstance(extra, tuple) else extra
            parsed[key] = p
            print(f"ok   {key}: {len(b)} bytes, {len(p['obstacles'])} obstacles, {len(p['volumes'])} volumes, "
                  f"queue {p['queue']}, {tiles} tiles in {p['mesh']['slot_count']} slots"
                  + (f", {extra} offsets of cases.py confirmed" if isinstance(extra, int) else ""))
        except (Bad, KeyError, IndexError, AssertionError, struct.error) as e:
            print(f"FAIL {key}: {e}")
            bad += 1
    for key in sorted((set(expected) | set(REFERENCED_OF)) - set(goldens)):
        print(f"FAIL {key}: no golden")
        bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
