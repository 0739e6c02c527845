#!/usr/bin/env python3
"""An independent check of the tile cache goldens that are not ONTK files (tools/check_ontk.py reads
those): the tiles of y_create-is-the-build's build, the mesh files `write_mesh` wrote and the
query answers, written from the specs alone (no onav code), with the case's hand-derived facts:

- a tile decodes by navmesh-format.md §3 with its length formula, lies in its cell, has strictly
  convex polygons of one winding, no off-mesh links (scenarios/build3d/tools/check_goldens.py), and
  its settings digest is recomputed from the case's OBJ text and settings (build3d.md B4-B11);
- a mesh file decodes by the ONMS layout of navmesh-format.md §8.1 (scenarios/snapshot/tools/
  replay.py's reader), its parameters hold the recomputed digest, and its tiles are those the
  case's rules imply: a fresh cache's are the build's (TC1, TC16), a cell no shape may change
  keeps its tile byte for byte (TC9), a cell an obstacle covers has no tile or no vertex under it
  (TC3, TC8);
- a query answer decodes by the ONQA layout of conformance.md §3 (scenarios/query/tools/
  check_answers.py's decoder), holds the reply values the case lists, and a found polygon is a
  current reference of the state the case is in (the ONTK or mesh-file golden of that state: slot,
  generation, polygon index below G) whose x-z outline contains the query centre, with the point
  the centre at the polygon's height.

Every tilecache/ line of golden/manifest.tsv must be checked here or by check_ontk.py (by magic:
ONTK files are that tool's).

    scenarios/tilecache/tools/check_outputs.py     exit 0 when every golden passes
"""
import hashlib
import os
import struct
import sys

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "scenarios", "build3d", "tools"))
sys.path.insert(0, os.path.join(ROOT, "scenarios", "snapshot", "tools"))
import check_goldens as b3d  # noqa: E402  (tile layout, B4-B11 digest)
import check_ontk  # noqa: E402  (the ONTK reader)
import replay  # noqa: E402  (the ONMS reader)

sys.path.insert(0, os.path.join(ROOT, "scenarios", "query", "tools"))
import check_answers  # noqa: E402  (the ONQA decoder)

GOLD = os.path.join(ROOT, "golden", "bytes", "tilecache")


class Bad(Exception):
    pass


def need(cond, msg):
    if not cond:
        raise Bad(msg)


def golden(key):
    return open(os.path.join(GOLD, key + ".bin"), "rb").read()


def manifest():
    out = {}
    for line in open(os.path.join(ROOT, "golden", "manifest.tsv")):
        k, n, sha = line.rstrip("\n").split("\t")
        if k.startswith("tilecache/"):
            out[k[len("tilecache/"):]] = (int(n), sha)
    return out


def floor_digest(case):
    """(digest, bmin, tile side) of the case's cache: its `floor` OBJ and settings `s` (B4-B11)."""
    sc = yaml.safe_load(open(os.path.join(ROOT, "scenarios", "tilecache", case + ".yaml")))
    obj = st = None
    for step in sc["steps"]:
        (k, a), = step.items()
        if k == "bytes" and a["name"] == "floor":
            obj = a["text"].encode()
        if k == "settings" and a["name"] == "s":
            st = dict(b3d.DEMO)
            st.update({x: v for x, v in a.items() if x != "name"})
    tris = b3d.canonical(b3d.obj_triangles(obj))
    d = hashlib.sha256(b3d.settings_encoding(st) + b3d.u32(1) + b3d.geometry_digest(tris)).digest()
    return d, b3d.bounds_min(tris), st["tile_size"] * st["cell_size"]


def tile_ok(t, case, name):
    """A tile of the case's cache: layout, cell, convexity (build3d's checks), digest, origin."""
    d = b3d.decode_tile(t)
    digest, bmin, side = floor_digest(case)
    need(d["digest"] == digest, f"{name}: settings digest is not the one recomputed from the case")
    need(d["origin"] == bmin and d["tile_size"] == side, f"{name}: origin or tile side")
    b3d.check_tile(d, name)
    check_ontk.fan_details(d, name)
    return d


def mesh_file(key, case):
    """The tiles of a mesh-file golden by cell, after checking its layout and parameters."""
    b = golden(key)
    m = replay.read_mesh(b)
    need(m.params[36:68] == floor_digest(case)[0], f"{key}: params' settings digest")
    out = {}
    for i, s in enumerate(m.slots):
        if s["tile"] is None:
            continue
        d = tile_ok(s["tile"], case, f"{key} tile {i}")
        need(d["pos"] not in out, f"{key}: two tiles at {d['pos']}")
        out[d["pos"]] = s["tile"]
    return m, out


def poly_contains(pts, x, z):
    """The x-z outline (convex, either winding) contains (x, z), edges included."""
    sign = 0
    for k in range(len(pts)):
        a, b = pts[k], pts[(k + 1) % len(pts)]
        c = (b[0] - a[0]) * (z - a[2]) - (b[2] - a[2]) * (x - a[0])
        if c and sign and (c > 0) != (sign > 0):
            return False
        sign = sign or c
    return True


def answer(key, want, centre, slots=None):
    """An ONQA find_nearest_poly golden: the case's values, and a found polygon current in
    `slots` (generation and tile per slot) containing the centre, the point the centre at the
    polygon's height (a flat floor: every vertex of the polygon at one height)."""
    op, a = check_answers.decode(golden(key))
    need(op == "find_nearest_poly", f"{key}: op {op}")
    for k, v in want.items():
        need(a.get(k) == v, f"{key}: {k} is {a.get(k)}, the case says {v}")
    if not a["found"]:
        need(set(a) == {"found"}, f"{key}: fields after found = false")
        return "not found"
    g, s, p = a["poly"] >> 40, (a["poly"] >> 20) & 0xFFFFF, a["poly"] & 0xFFFFF
    need(s < len(slots) and slots[s]["tile"] is not None and slots[s]["gen"] == g,
         f"{key}: reference {a['poly']:#x} is not current (slot {s}, generation {g})")
    d = b3d.decode_tile(slots[s]["tile"])
    need(p < len(d["polys"]), f"{key}: polygon {p} of {len(d['polys'])}")
    pts = [d["verts"][i] for i in d["polys"][p]]
    need(poly_contains(pts, centre[0], centre[2]), f"{key}: polygon {p} does not hold the centre")
    heights = {v[1] for v in pts}
    need(len(heights) == 1, f"{key}: polygon not flat")
    need(a["point"] == [centre[0], heights.pop(), centre[2]], f"{key}: point {a['point']}")
    return f"slot {s} generation {g} polygon {p}, holding the centre"


def ontk_slots(key):
    p = check_ontk.parse(golden(key))
    return [dict(gen=s["gen"], tile=s.get("tile")) for s in p["mesh"]["slots"]]


def onms_slots(key, gens):
    """The slots of a mesh-file golden (the file keeps no generations: `gens` per slot, from the
    case's facts)."""
    m = replay.read_mesh(golden(key))
    return [dict(gen=gens.get(i, 1), tile=s["tile"]) for i, s in enumerate(m.slots)]


def check_create():
    case = "y_create-is-the-build"
    cells = [(c, r) for r in range(3) for c in range(3)]
    built = {}
    for c, r in cells:
        key = f"{case}/built-c{c}-r{r}-l0"
        d = tile_ok(golden(key), case, key)
        need(d["pos"] == (c, r, 0), f"{key}: position {d['pos']}")
        built[(c, r, 0)] = golden(key)
    m, tiles = mesh_file(f"{case}/nine-file", case)
    # A cache of 9 slots holds the build's tiles (TC1, TC16: the cache's mesh is the build), in
    # the build's order: cells in ascending (row, column), slot i the i-th tile.
    order = [s["tile"] for s in m.slots]
    need(order == [built[(c, r, 0)] for c, r in cells], "nine-file: not the build's tiles in order")
    return built


def check_layer(built):
    case = "y_layer-disappears-and-returns"
    nine = golden("y_create-is-the-build/nine-file")
    # The same floor, settings and 9 slots as y_create-is-the-build's nine-file.
    need(golden(f"{case}/fresh-file") == nine, "fresh-file is not nine-file")
    need(golden(f"{case}/back-file") == nine, "back-file is not the fresh file (TC16)")
    _, cut = mesh_file(f"{case}/cut-file", case)
    # The box [-1, 9]^2 covers cell (0, 0) (x, z in [0, 8]) whole: its tile is removed; TC9 with
    # B = 5 cells queues columns and rows -1 ..= 1, so the tiles of column 2 and row 2 are kept.
    need((0, 0, 0) not in cut and len(cut) == 8, f"cut-file cells {sorted(cut)}")
    for (c, r, l), t in built.items():
        if c == 2 or r == 2:
            need(cut[(c, r, l)] == t, f"cut-file: the tile of ({c}, {r}) changed")
        elif (c, r) != (0, 0):
            need(cut[(c, r, l)] != t, f"cut-file: the tile of ({c}, {r}) is not cut")
            for x, _, z in b3d.decode_tile(cut[(c, r, l)])["verts"]:
                need(not (x < 9 and z < 9), f"cut-file: a vertex ({x}, {z}) under the box")
    r = [answer(f"{case}/cut-query", {"found": False}, (4, 0.2, 4))]
    # After the removal the cell's tile is added back in slot 0 at generation 2 (the case's
    # is_valid_ref 2:0:0); the file is the fresh one.
    r.append(answer(f"{case}/back-query", {"found": True, "over_poly": True}, (4, 0.2, 4),
                    onms_slots(f"{case}/back-file", {0: 2})))
    return "fresh, cut and back files; " + "; ".join(r)


def check_obstacles():
    case = "y_obstacles-every-shape"
    # Before the update the mesh is the fresh cache's (queued-full's mesh).
    r = [answer(f"{case}/queued-query", {"found": True, "over_poly": True}, (12, 0.2, 12),
                ontk_slots(f"{case}/queued-full"))]
    r.append(answer(f"{case}/cut-query", {"found": False}, (12, 0.2, 12)))
    return "; ".join(r)


def check_volumes():
    case = "y_volumes"
    # The unwalkable volume [1, 6] x [17, 23] covers the query box around (3, 20).
    r = [answer(f"{case}/unwalkable-query", {"found": False}, (3, 0.2, 20))]
    r.append(answer(f"{case}/walkable-query", {"found": True, "over_poly": True}, (8, 0.2, 8),
                    ontk_slots(f"{case}/volumes-full")))
    return "; ".join(r)


def check_restore():
    # The cylinder (4, 20) of radius 1.5 covers the query box (4 +- 0.25, 20 +- 0.25).
    return answer("y_restore-and-continue/continue-query", {"found": False}, (4, 0.2, 20))


def check_budgets(built):
    case = "y_update-budgets"
    m, tiles = mesh_file(f"{case}/fresh-file", case)
    # A fresh cache of the default slots (TC1: the 9 tiles and one spare per cached cell, 9 + 25)
    # holds the build's tiles.
    need(struct.unpack_from("<I", m.params, 32)[0] == 34, "fresh-file slot count")
    need(tiles == built, "fresh-file: not the build's tiles")
    # The three boxes removed and drained, the mesh is the fresh one again (TC16).
    need(golden(f"{case}/a-file") == golden(f"{case}/fresh-file"), "a-file is not the fresh file")
    return "fresh and drained files"


CHECKS = [
    ("y_create-is-the-build", check_create),
    ("y_layer-disappears-and-returns", check_layer),
    ("y_obstacles-every-shape", check_obstacles),
    ("y_volumes", check_volumes),
    ("y_restore-and-continue", check_restore),
    ("y_update-budgets", check_budgets),
]


def main():
    man = manifest()
    bad = 0
    for key, (n, sha) in sorted(man.items()):
        b = golden(key)
        if (len(b), hashlib.sha256(b).hexdigest()) != (n, sha):
            print(f"FAIL {key}: not the manifest's length and SHA-256")
            bad += 1
    built = None
    for case, f in CHECKS:
        try:
            if f in (check_layer, check_budgets) and built is None:
                raise Bad("the build's tiles failed their check")
            out = f(built) if f in (check_layer, check_budgets) else f()
            if f is check_create:
                built, out = out, "9 build tiles (digest recomputed) and nine-file, the build's tiles in order"
            print(f"ok   tilecache/{case}: {out}")
        except (Bad, AssertionError, KeyError, IndexError, OSError, struct.error, TypeError) as e:
            print(f"FAIL tilecache/{case}: {e!r}")
            bad += 1
    # Every golden is an ONTK file (check_ontk.py's) or one of the outputs checked above.
    mine = {f"y_create-is-the-build/built-c{c}-r{r}-l0" for c in range(3) for r in range(3)} | {
        "y_create-is-the-build/nine-file", "y_layer-disappears-and-returns/fresh-file",
        "y_layer-disappears-and-returns/cut-file", "y_layer-disappears-and-returns/back-file",
        "y_layer-disappears-and-returns/cut-query", "y_layer-disappears-and-returns/back-query",
        "y_obstacles-every-shape/queued-query", "y_obstacles-every-shape/cut-query",
        "y_volumes/unwalkable-query", "y_volumes/walkable-query",
        "y_restore-and-continue/continue-query", "y_update-budgets/fresh-file",
        "y_update-budgets/a-file"}
    for key in sorted(man):
        if key not in mine and golden(key)[:4] != b"ONTK":
            print(f"FAIL {key}: checked by no tool")
            bad += 1
    for key in sorted(mine - set(man)):
        print(f"FAIL {key}: not in the manifest")
        bad += 1
    print(f"{len(mine) - bad if not bad else 'not all'} of {len(mine)} tile, mesh-file and query goldens "
          f"of tilecache/ checked" + ("" if not bad else f": {bad} failed"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
