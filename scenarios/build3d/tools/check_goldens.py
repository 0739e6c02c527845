#!/usr/bin/env python3
"""An independent check of the build3d goldens, written from the specs alone.

It shares no code with the harness or the builder. For every golden tile of
`golden/manifest.tsv` under `build3d/`:

1. the bytes file has the manifest's length and SHA-256;
2. the tile decodes by `navmesh-format.md` section 3 (header, every array, the length formula,
   nothing after the end), has no off-mesh links, flags 1 on every polygon, its position is the
   one in its golden's name, every vertex lies in its cell (B48), and every polygon is convex
   with a positive area (G7);
3. its settings digest (tile offset 40) equals the one recomputed here from the scenario's OBJ
   text and settings fields by `build3d.md` B4-B6 (OBJ, canonical triangles, geometry digest),
   B8 (settings encoding) and B11 (the digest), and its origin is the geometry's bmin (B7, B12);
4. every query-answer golden of a build3d case (a query on the mesh file of the build before it)
   decodes by the ONQA layout of `conformance.md` section 3 (scenarios/query/tools/check_answers.py's
   decoder, written from that table), every reply key the case lists (derived by hand in its notes)
   equals the decoded value (references packed by R1, floats bitwise), and every reference is a
   current one of that build's mesh: the tiles added in order (section 1.13) sit in slots 0, 1, ...
   at generation 1, and a polygon index is below the G + L of the golden tile in its slot;
5. for the demo meshes, SHA-256 over the content ids (SHA-256 of each tile) in build order equals
   the value `impl/build3d/tests/integration/platform_hashes.rs` pins (checked there on x86_64,
   s390x and i686).

It prints, per build, the tile count, polygon count and walkable area (sum of the polygons' x-z
areas), to compare with the builder's tests and the Recast comparison of bench/.

    python3 scenarios/build3d/tools/check_goldens.py      # from the repository root
"""

import hashlib
import math
import os
import re
import struct
import sys

import yaml

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "query", "tools"))
import check_answers  # noqa: E402  (the ONQA decoder of conformance section 3)

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
SCEN = os.path.join(ROOT, "scenarios", "build3d")

DEMO = dict(cell_size=0.3, cell_height=0.2, agent_height=2.0, agent_radius=0.6, agent_climb=0.9,
            max_slope_deg=45.0, region_min_area=64, region_merge_area=400, max_edge_len=12.0,
            max_edge_error=1.3, verts_per_poly=6, detail_sample_dist=1.8,
            detail_sample_max_error=0.2, tile_size=48, volumes=[])
F64 = ["cell_size", "cell_height", "agent_height", "agent_radius", "agent_climb", "max_slope_deg"]

# platform_hashes.rs: SHA-256 over the content ids of every tile, x86_64 = s390x = i686.
PLATFORM = {
    ("dungeon", "demo"): "69083c801c59117ff752d28bcfc38b3ee3a8e83c380b31272f025899608960c3",
    ("dungeon", "cheap"): "301873c0de5decc347781f95d80f13e6352a15351a332bb0a05b80775446e164",
    ("nav-test", "demo"): "b31edd4c3420e8a9b6f42747a583c4cde54c77fcb09d50ad5f90ff4a7fe31e4e",
    ("nav-test", "cheap"): "f2eefc5f3962b12a3e3124e193386c6bead401a62258e654eeb2dfd030e5984c",
    ("undulating", "demo"): "b99fbce6136ff7cd3283e8a7b13de3711eca7ce6603d5f92d22362dff45e1466",
    ("undulating", "cheap"): "7ce7312f9c4d89cd48ff23f3fb6f8e9c6ff6c18deaa68b3e157f523b0dd33b23",
}


def f64(x):
    return struct.pack("<d", float(x))


def u32(x):
    return struct.pack("<I", int(x))


def settings_encoding(s):
    out = b"ONB3" + struct.pack("<HH", 1, 0)
    for k in F64:
        out += f64(s[k])
    out += u32(s["region_min_area"]) + u32(s["region_merge_area"])
    out += f64(s["max_edge_len"]) + f64(s["max_edge_error"]) + u32(s["verts_per_poly"])
    out += f64(s["detail_sample_dist"]) + f64(s["detail_sample_max_error"]) + u32(s["tile_size"])
    vols = []
    for v in s["volumes"]:
        vols += [v] * int(v.get("copies", 1))
    out += u32(len(vols))
    for v in vols:
        out += u32(v["area"]) + f64(v["min_y"]) + f64(v["max_y"]) + u32(len(v["polygon"]))
        for x, z in v["polygon"]:
            out += f64(x) + f64(z)
    return out


def obj_triangles(text):
    """B4: v and f lines; faces fan-cut; every triangle area 63."""
    verts, tris = [], []
    for line in text.split(b"\n"):
        if line.endswith(b"\r"):
            line = line[:-1]
        tok = line.replace(b"\t", b" ").split()
        if not tok:
            continue
        if tok[0] == b"v":
            xyz = [float(t) for t in tok[1:4]]
            assert all(math.isfinite(c) for c in xyz)
            verts.append(tuple(xyz))
        elif tok[0] == b"f":
            idx = []
            for c in tok[1:]:
                v = int(c.split(b"/")[0])
                idx.append(v - 1 if v > 0 else len(verts) + v)
            for k in range(1, len(idx) - 1):
                tris.append((verts[idx[0]], verts[idx[k]], verts[idx[k + 1]], 63))
    return tris


def canonical(tris):
    """B5: -0.0 -> +0.0, the smallest rotation, sorted by (v0, v1, v2, area)."""
    out = []
    for a, b, c, area in tris:
        a, b, c = (tuple(x + 0.0 for x in p) for p in (a, b, c))
        out.append(min([(a, b, c), (b, c, a), (c, a, b)]) + (area,))
    out.sort()
    return out


def geometry_digest(tris):
    """B6."""
    h = hashlib.sha256(b"onav-build3d/geometry")
    h.update(struct.pack("<Q", len(tris)))
    for a, b, c, area in tris:
        for p in (a, b, c):
            for x in p:
                h.update(f64(x))
        h.update(bytes([area]))
    return h.digest()


def bounds_min(tris):
    if not tris:
        return (0.0, 0.0, 0.0)
    return tuple(min(p[i] for t in tris for p in t[:3]) for i in range(3))


def decode_tile(b):
    """navmesh-format.md section 3."""
    assert b[:4] == b"ONTL" and struct.unpack_from("<HH", b, 4) == (2, 0)
    ox, oy, oz, ts = struct.unpack_from("<4d", b, 8)
    digest = b[40:72]
    col, row, layer = struct.unpack_from("<iiI", b, 72)
    V, G, L, DV, DT, res = struct.unpack_from("<6I", b, 108)
    assert res == 0
    assert len(b) == 132 + 24 * V + 71 * G + 67 * L + 24 * DV + 4 * DT, "length formula"
    o = 132
    verts = [struct.unpack_from("<3d", b, o + 24 * i) for i in range(V)]
    o += 24 * V
    polys = []
    for i in range(G):
        n = b[o]
        assert 3 <= n <= 6 and b[o + 1:o + 4] == b"\0\0\0"
        vs = struct.unpack_from("<6I", b, o + 4)[:n]
        polys.append(vs)
        o += 52
    o += 64 * L
    details = [struct.unpack_from("<4I", b, o + 16 * i) for i in range(G)]
    o += 16 * G + 24 * DV + 4 * DT
    areas = list(b[o:o + G + L])
    o += G + L
    flags = [struct.unpack_from("<H", b, o + 2 * i)[0] for i in range(G + L)]
    o += 2 * (G + L)
    assert o == len(b)
    return dict(origin=(ox, oy, oz), tile_size=ts, digest=digest, pos=(col, row, layer),
                verts=verts, polys=polys, links=L, details=details, areas=areas, flags=flags,
                dv=DV, dt=DT)


def poly_area2(pts):
    """G7 as a fan: twice the signed x-z area (the sign of the format's T12 sense)."""
    s = 0.0
    for k in range(1, len(pts) - 1):
        a, b, c = pts[0], pts[k], pts[k + 1]
        s += (b[0] - a[0]) * (c[2] - a[2]) - (c[0] - a[0]) * (b[2] - a[2])
    return s


def check_tile(t, name):
    ox, _, oz = t["origin"]
    ts = t["tile_size"]
    col, row, _ = t["pos"]
    x0, x1 = ox + col * ts, ox + (col + 1) * ts
    z0, z1 = oz + row * ts, oz + (row + 1) * ts
    assert t["links"] == 0 and all(f == 1 for f in t["flags"]), name
    for x, _, z in t["verts"]:
        assert x0 <= x <= x1 and z0 <= z <= z1, (name, x, z, x0, x1, z0, z1)
    total = 0.0
    sign = None
    for vs in t["polys"]:
        pts = [t["verts"][i] for i in vs]
        n = len(pts)
        turns = []
        for k in range(n):
            a, b, c = pts[k], pts[(k + 1) % n], pts[(k + 2) % n]
            turns.append((b[0] - a[0]) * (c[2] - b[2]) - (b[2] - a[2]) * (c[0] - b[0]))
        s = 1 if turns[0] > 0 else -1
        assert all(x * s > 0 for x in turns), (name, "not strictly convex", vs)
        sign = s if sign is None else sign
        assert s == sign, (name, "mixed winding")
        total += abs(poly_area2(pts)) / 2.0
    return total


def goldens_of(path):
    """(label, obj bytes, settings dict) for every build golden the scenario declares."""
    sc = yaml.safe_load(open(path, "rb"))
    data, sets, out, last = {}, {}, [], None
    for st in sc["steps"]:
        (kind, a), = st.items()
        if kind == "bytes":
            if "text" in a:
                data[a["name"]] = a["text"].encode()
            elif "file" in a:
                data[a["name"]] = open(os.path.join(SCEN, a["file"]), "rb").read()
        elif kind == "settings":
            s = dict(sets[a["like"]] if "like" in a else DEMO)
            s.update({k: v for k, v in a.items() if k not in ("name", "like")})
            sets[a["name"]] = s
        elif kind == "build":
            last = (data.get(a["obj"]), sets.get(a["settings"]))
        elif kind == "expect" and "golden" in a and "tiles" in a:
            out.append((a["golden"], last, [tuple(p) for p in a["tiles"]]))
    return out


QUERIES = {"find_nearest_poly": 1, "find_path": 2, "find_straight_path": 3, "raycast": 4}


def answers_of(path):
    """(label, op, expected reply keys, build golden label, build tile positions) for every
    query-answer golden the scenario declares; the query runs on the last build's mesh."""
    sc = yaml.safe_load(open(path, "rb"))
    out, build, prev = [], None, None
    for st in sc["steps"]:
        (kind, a), = st.items()
        if kind == "expect" and prev == "build" and "tiles" in a:
            build = (a.get("golden"), [tuple(p) for p in a["tiles"]])
        elif kind == "expect" and "golden" in a and prev in QUERIES:
            out.append((a["golden"], QUERIES[prev], a.get("query") or {}) + build)
        prev = kind
    return out


def check_answer(case, label, op, want, build_label, positions):
    """Section 4 of the docstring: decode, hand-derived keys, current references."""
    b = open(os.path.join(ROOT, "golden", "bytes", case, label + ".bin"), "rb").read()
    got_op, a = check_answers.decode(b)
    assert got_op == check_answers.OPS[op], (case, label, got_op, op)
    packed = lambda r: (lambda g, s, p: (g << 40) | (s << 20) | p)(*(int(x) for x in r.split(":")))
    for k, w in want.items():
        if k in ("corridor", "visited"):
            assert a[k] == [packed(x) for x in w], (case, label, k, a[k], w)
        elif k == "poly":
            assert a[k] == packed(w), (case, label, k, a[k], w)
        elif k in ("cost", "t"):
            assert struct.pack("<d", a[k]) == struct.pack("<d", float(w)), (case, label, k, a[k], w)
        elif k in ("status", "stop"):
            assert a[k] == w, (case, label, k, a[k], w)
        else:
            raise AssertionError(f"{case}/{label}: key {k} has no check here")
    assert build_label is not None, (case, label, "the build before the query has no golden")
    tiles = [decode_tile(open(os.path.join(ROOT, "golden", "bytes", case,
                                           f"{build_label}-c{c}-r{r}-l{l}.bin"), "rb").read())
             for (c, r, l) in positions]
    refs = ([a["poly"]] if "poly" in a else []) + a.get("corridor", []) + a.get("visited", [])
    refs += [p["poly"] for p in a.get("points", [])]
    for r in refs:
        g, s, p = r >> 40, (r >> 20) & 0xFFFFF, r & 0xFFFFF
        assert g == 1 and s < len(tiles) and p < len(tiles[s]["polys"]) + tiles[s]["links"], \
            (case, label, f"reference {r:#x} is not current")
    return len(want)


def main():
    manifest = {}
    for line in open(os.path.join(ROOT, "golden", "manifest.tsv")):
        key, length, sha = line.rstrip("\n").split("\t")
        if key.startswith("build3d/"):
            manifest[key] = (int(length), sha)
    seen, fails = set(), 0
    for fn in sorted(os.listdir(SCEN)):
        if not fn.endswith(".yaml"):
            continue
        case = "build3d/" + fn[:-5]
        for label, op, want, build_label, positions in answers_of(os.path.join(SCEN, fn)):
            key = f"{case}/{label}"
            seen.add(key)
            b = open(os.path.join(ROOT, "golden", "bytes", key + ".bin"), "rb").read()
            assert (len(b), hashlib.sha256(b).hexdigest()) == manifest[key], key
            n = check_answer(case, label, op, want, build_label, positions)
            print(f"{key}: query answer decoded (ONQA), {n} hand-derived reply values equal, "
                  f"references current in {build_label}'s tiles")
        for label, (obj, st), positions in goldens_of(os.path.join(SCEN, fn)):
            tris = canonical(obj_triangles(obj))
            want = hashlib.sha256(settings_encoding(st) + u32(1) + geometry_digest(tris)).digest()
            bmin = bounds_min(tris)
            ids, polys, area = hashlib.sha256(), 0, 0.0
            for (c, r, l) in positions:
                key = f"{case}/{label}-c{c}-r{r}-l{l}"
                seen.add(key)
                b = open(os.path.join(ROOT, "golden", "bytes", key + ".bin"), "rb").read()
                length, sha = manifest[key]
                assert len(b) == length and hashlib.sha256(b).hexdigest() == sha, key
                t = decode_tile(b)
                assert t["pos"] == (c, r, l), key
                if t["digest"] != want:
                    print(f"DIGEST MISMATCH {key}")
                    fails += 1
                assert t["origin"] == bmin, (key, t["origin"], bmin)
                assert t["tile_size"] == st["tile_size"] * st["cell_size"], key
                area += check_tile(t, key)
                polys += len(t["polys"])
                ids.update(hashlib.sha256(b).digest())
            extra = ""
            mesh = case.split("/y_")[1]
            if (mesh, label) in PLATFORM:
                ok = ids.hexdigest() == PLATFORM[(mesh, label)]
                fails += not ok
                extra = " platform hash " + ("equal" if ok else "DIFFERENT")
            print(f"{case}/{label}: {len(positions)} tiles, {polys} polygons, "
                  f"area {area:.3f}, digest recomputed{extra}")
    orphans = set(manifest) - seen
    for k in sorted(orphans):
        print(f"not checked: {k}")
    print("FAIL" if fails or orphans else "all build3d goldens checked")
    return 1 if fails or orphans else 0


if __name__ == "__main__":
    sys.exit(main())
