#!/usr/bin/env python3
"""The generator of spec/navmesh-format.md §7, written from the text alone (no onav code), used to
check generated-tile goldens by an independent route before blessing them.

    golden/verify/spec_generator.py WORLD_JSON COLUMN ROW LAYER > tile.bin

WORLD_JSON holds the §7.1 settings that differ from the defaults, e.g. '{"quads": 2}'.
"""
import hashlib
import json
import struct
import sys

M = (1 << 64) - 1
DEFAULTS = dict(seed=1, columns=4, rows=4, layers=1, origin=[0.0, 0.0, 0.0], tile_size=16.0,
                quads=4, vary_density=False, slope=[0.0, 0.0], bump=0.0, hole_chance=0,
                layer_gap=8.0, links_per_tile=0, agent=dict(height=2.0, radius=0.5, climb=0.9),
                area_kinds=1)


def mix(z):  # §7.2
    z = (z + 0x9E3779B97F4A7C15) & M
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M
    return z ^ (z >> 31)


def hsh(w, tag, a, b, c):  # §7.2, the multiplier 2^44 + 0x1B3
    h = mix(w["seed"] ^ ((tag * 0x1000000001B3) & M))
    for v in (a, b, c):
        h = mix(h ^ (v & M))
    return h


def unit(h):
    return float(h >> 11) / 9007199254740992.0


def digest(w):  # §7.3
    a, o = w["agent"], w["origin"]
    return hashlib.sha256(b"onav-generator/1" + struct.pack(
        "<7d", a["height"], a["radius"], a["climb"], w["tile_size"], o[0], o[1], o[2])).digest()


def surface(w, c, r, L):  # §7.4: q, vertices, quads (i, j) that are not holes
    q = max(w["quads"], 1)
    if w["vary_density"] and hsh(w, 1, c, r, 0) & 1 == 1:
        q = 2 * q
    ox, oz, s = w["origin"][0], w["origin"][2], w["tile_size"]
    minx, maxx = ox + (float(c) * s), ox + (float(c + 1) * s)
    minz, maxz = oz + (float(r) * s), oz + (float(r + 1) * s)

    def line(lo, hi, k):
        return lo if k == 0 else hi if k == q else lo + ((hi - lo) * (float(k) / float(q)))

    verts = []
    for j in range(q + 1):
        for i in range(q + 1):
            x, z = line(minx, maxx, i), line(minz, maxz, j)
            y = ((w["slope"][0] * x) + (w["slope"][1] * z)) + (float(L) * w["layer_gap"])
            if w["bump"] > 0 and 0 < i < q and 0 < j < q:
                y = y + (w["bump"] * unit(hsh(w, 3, c, r, (j * (q + 1) + i) & 0xFFFFFFFF)))
            verts.append((x, y, z))
    hole = lambda i, j: w["hole_chance"] > 0 and (
        hsh(w, 2, c, r, (L << 40) | (q << 20) | (i << 10) | j) & 255) < w["hole_chance"]
    quads = [(i, j) for j in range(q) for i in range(q) if not hole(i, j)]
    return q, verts, quads


def quad_point(q, verts, i, j):
    a, b = verts[j * (q + 1) + i], verts[(j + 1) * (q + 1) + i + 1]
    return ((a[0] + b[0]) / 2, (a[1] + b[1]) / 2, (a[2] + b[2]) / 2)


def tile(w, c, r, L):  # §7.5, serialised by the tables of §3
    q, verts, quads = surface(w, c, r, L)
    index = {qd: k for k, qd in enumerate(quads)}
    v = lambda i, j: j * (q + 1) + i
    polys, details, dverts, dtris, areas, flags = [], [], [], [], [], []
    for (i, j) in quads:
        corners = [v(i, j), v(i + 1, j), v(i + 1, j + 1), v(i, j + 1)]
        nbrs = []
        for (di, dj, side) in ((0, -1, 3), (1, 0, 0), (0, 1, 1), (-1, 0, 2)):
            ni, nj = i + di, j + dj
            if not (0 <= ni < q and 0 <= nj < q):
                nbrs.append(0x80000000 + side)
            else:
                nbrs.append(index[(ni, nj)] + 1 if (ni, nj) in index else 0)
        polys.append((corners, nbrs))
        h = hsh(w, 4, c, r, (L << 32) | ((j * q + i) & 0xFFFFFFFF))
        area = h % max(w["area_kinds"], 1)
        areas.append(area)
        flags.append(1 << (area % 16))
        if w["bump"] > 0 and (h >> 8) & 3 == 0:
            cs = [verts[k] for k in corners]
            x = (((cs[0][0] + cs[1][0]) + cs[2][0]) + cs[3][0]) / 4
            z = (((cs[0][2] + cs[1][2]) + cs[2][2]) + cs[3][2]) / 4
            y = ((((cs[0][1] + cs[1][1]) + cs[2][1]) + cs[3][1]) / 4) + (w["bump"] * 0.25)
            details.append((len(dverts), 1, len(dtris), 4))
            dverts.append((x, y, z))
            dtris += [(4, 0, 1), (4, 1, 2), (4, 2, 3), (4, 3, 0)]
        else:
            details.append((len(dverts), 0, len(dtris), 2))
            dtris += [(0, 1, 2), (0, 2, 3)]
    links = []
    if quads:
        for n in range(w["links_per_tile"]):
            h = hsh(w, 5, c, r, (L << 32) | n)
            start = quad_point(q, verts, *quads[h % len(quads)])
            h2 = mix(h)
            dc, dr = (h2 % 3) - 1, ((h2 >> 8) % 3) - 1
            layer = (h2 >> 16) % max(w["layers"], 1)
            tc, tr = c + dc, r + dr
            if not (0 <= tc < w["columns"] and 0 <= tr < w["rows"]):
                tc, tr = c, r
            q2, verts2, quads2 = surface(w, tc, tr, layer)
            if not quads2:
                continue
            end = quad_point(q2, verts2, *quads2[(h2 >> 24) % len(quads2)])
            if end == start:
                continue
            radius = (w["tile_size"] / float(max(q, q2))) * 0.5
            links.append((start, end, radius, 0 if (h2 >> 40) & 1 == 0 else 1, n))
            areas.append(0)
            flags.append(1)
    o, a = w["origin"], w["agent"]
    out = b"ONTL" + struct.pack("<HH", 2, 0) + struct.pack("<4d", o[0], o[1], o[2], w["tile_size"])
    out += digest(w) + struct.pack("<iiI3d", c, r, L, a["height"], a["radius"], a["climb"])
    out += struct.pack("<6I", len(verts), len(polys), len(links), len(dverts), len(dtris), 0)
    out += b"".join(struct.pack("<3d", *p) for p in verts)
    for corners, nbrs in polys:
        out += struct.pack("<B3x6I6I", 4, *(corners + [0, 0]), *(nbrs + [0, 0]))
    for (s, e, rad, d, uid) in links:
        out += struct.pack("<3d3ddB3xI", *s, *e, rad, d, uid)
    out += b"".join(struct.pack("<4I", *d) for d in details)
    out += b"".join(struct.pack("<3d", *p) for p in dverts)
    out += b"".join(struct.pack("<3Bx", *t) for t in dtris)
    out += bytes(areas) + b"".join(struct.pack("<H", f) for f in flags)
    return out


if __name__ == "__main__":
    world = dict(DEFAULTS)
    world.update(json.loads(sys.argv[1]))
    sys.stdout.buffer.write(tile(world, int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])))
