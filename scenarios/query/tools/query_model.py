#!/usr/bin/env python3
"""An independent model of the parts of spec/queries.md a replayed mesh state is enough for,
written from the text alone (no onav code): find_nearest_poly by brute force over every ground
polygon (Q1-Q3), a raycast walked along the polygons an answer says it visited (§6.1-§6.3, with
the walls found from the tiles' neighbour codes), and the cost of a corridor under the default
filter (P2: crossing positions, steps, the end term; P0 for one polygon). check_answers.py uses it
to derive the values of the answers whose cases list none (the continue cases of snapshot/).

Tiles are the bytes the replay model holds (navmesh-format.md §3.1, §3.2); areas and flags are
the as-built ones with the slot's edits (snapshot.md S6); off-mesh link polygons pass the filter
only while their link is enabled (queries.md §2.1). A portal's lo and hi are K6's overlap of the
two edges on the border axis.
"""
import math
import struct


def orient(a, b, p):
    return (b[0] - a[0]) * (p[2] - a[2]) - (b[2] - a[2]) * (p[0] - a[0])


def dist3(a, b):
    return math.sqrt((b[0] - a[0]) * (b[0] - a[0]) + (b[1] - a[1]) * (b[1] - a[1]) + (b[2] - a[2]) * (b[2] - a[2]))


def dist2_3(a, b):
    return (b[0] - a[0]) * (b[0] - a[0]) + (b[1] - a[1]) * (b[1] - a[1]) + (b[2] - a[2]) * (b[2] - a[2])


def dist2_xz(a, b):
    return (b[0] - a[0]) * (b[0] - a[0]) + (b[2] - a[2]) * (b[2] - a[2])


def lerp(a, b, t):
    return (a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t, a[2] + (b[2] - a[2]) * t)


def seg_t(p, a, b):
    dx, dz = b[0] - a[0], b[2] - a[2]
    len2 = dx * dx + dz * dz
    if len2 <= 0:
        return 0.0
    return min(max(((p[0] - a[0]) * dx + (p[2] - a[2]) * dz) / len2, 0.0), 1.0)


class Tile:
    """A decoded tile (navmesh-format.md §3.2) with its slot's current areas, flags, switches."""

    def __init__(self, b, slot, gen, edits, disabled):
        self.slot, self.gen = slot, gen
        v, g, l, dv, dt = struct.unpack_from("<5I", b, 108)
        self.g, self.l = g, l
        self.climb = struct.unpack_from("<d", b, 100)[0]
        self.cell = struct.unpack_from("<2i", b, 72)
        at = 132
        self.verts = [struct.unpack_from("<3d", b, at + 24 * i) for i in range(v)]
        at += 24 * v
        self.polys = []
        for i in range(g):
            n = b[at + 52 * i]
            vi = struct.unpack_from("<6I", b, at + 52 * i + 4)[:n]
            nei = struct.unpack_from("<6I", b, at + 52 * i + 28)[:n]
            self.polys.append(([self.verts[k] for k in vi], nei))
        at += 52 * g
        self.links = []
        for i in range(l):
            s = struct.unpack_from("<3d", b, at + 64 * i)
            e = struct.unpack_from("<3d", b, at + 64 * i + 24)
            self.links.append((s, e))
        at += 64 * l
        det = [struct.unpack_from("<4I", b, at + 16 * i) for i in range(g)]
        at += 16 * g
        dverts = [struct.unpack_from("<3d", b, at + 24 * i) for i in range(dv)]
        at += 24 * dv
        tris = [tuple(b[at + 4 * i:at + 4 * i + 3]) for i in range(dt)]
        at += 4 * dt
        self.detail = []
        for i, (vb, vc, tb, tc) in enumerate(det):
            corners = self.polys[i][0]
            pts = list(corners) + dverts[vb:vb + vc]
            self.detail.append(([tuple(pts[j] for j in tris[t]) for t in range(tb, tb + tc)], dverts[vb:vb + vc]))
        p = g + l
        self.area = list(b[at:at + p])
        self.flags = list(struct.unpack_from(f"<{p}H", b, at + p))
        for poly, (a, f) in edits.items():
            self.area[poly], self.flags[poly] = a, f
        self.disabled = set(disabled)

    def ref(self, p):
        return (self.gen << 40) | (self.slot << 20) | p

    def passes(self, p):  # §2.1 with the default filter
        return self.flags[p] & 0xFFFF != 0 and (p < self.g or (p - self.g) not in self.disabled)


def state(slots):
    """The tiles of a replayed mesh (spec_snapshot.Mesh.slots), by slot."""
    return {i: Tile(s["tile"], i, s["gen"], s["edits"], s["disabled"]) for i, s in enumerate(slots) if s["tile"] is not None}


def closest(p, poly):
    """§1.2 closest(p, P) on x-z: (point, over)."""
    n = len(poly)
    if all(orient(poly[k], poly[(k + 1) % n], p) >= 0 for k in range(n)):
        return p, True
    best, bd = None, None
    for k in range(n):
        a, b = poly[k], poly[(k + 1) % n]
        q = lerp(a, b, seg_t(p, a, b))
        d = dist2_xz(p, q)
        if bd is None or d < bd:
            best, bd = q, d
    return best, False


def height(tris, p):
    """§1.2 detail height (navmesh-format.md §6.4)."""
    for a, b, c in tris:
        oa, ob, oc = orient(b, c, p), orient(c, a, p), orient(a, b, p)
        if oa >= 0 and ob >= 0 and oc >= 0:
            d = orient(a, b, c)
            return (oa / d) * a[1] + (ob / d) * b[1] + (oc / d) * c[1]
    best, bd = None, None
    for a, b, c in tris:
        for u, v in ((a, b), (b, c), (c, a)):
            q = lerp(u, v, seg_t(p, u, v))
            d = dist2_xz(p, q)
            if bd is None or d < bd:
                best, bd = q[1], d
    return best


def nearest(tiles, center, half):
    """Q1-Q3 over every ground polygon of every tile: the answer as ONQA's fields."""
    bmin = [center[i] - half[i] for i in range(3)]
    bmax = [center[i] + half[i] for i in range(3)]
    best = None
    for t in tiles.values():
        for i, (poly, _) in enumerate(t.polys):
            pts = list(poly) + t.detail[i][1]
            lo = [min(q[k] for q in pts) for k in range(3)]
            hi = [max(q[k] for q in pts) for k in range(3)]
            if not t.passes(i) or any(lo[k] > bmax[k] or hi[k] < bmin[k] for k in range(3)):
                continue
            q, over = closest(center, poly)
            point = (q[0], height(t.detail[i][0], q), q[2])
            dy = abs(center[1] - point[1])
            if over:
                e = dy - t.climb
                d = e * e if e > 0 else 0.0
            else:
                d = dist2_3(center, point)
            key = (d, dy, t.ref(i))
            if best is None or key < best[0]:
                best = (key, dict(found=True, poly=t.ref(i), point=list(point), over_poly=over))
    return best[1] if best else dict(found=False)


def split(ref):
    return ref >> 40, (ref >> 20) & 0xFFFFF, ref & 0xFFFFF


def cost(tiles, ref, area_costs):
    _, s, p = split(ref)
    return area_costs[tiles[s].area[p]]


def raycast(tiles, start, visited, s, e, costs, area_costs):
    """§6.2 walked along `visited`: each polygon is clipped (§6.1); every polygon but the last must
    be left through an edge whose neighbour code leads on (internal to the next polygon, or a portal
    on the tile border toward the next polygon's tile); the last is left through a wall (code 0, or
    an internal neighbour failing the filter) or not at all. Returns the answer's fields."""
    d = [e[i] - s[i] for i in range(3)]
    t, total, last = 0.0, 0.0, s
    for n, ref in enumerate(visited or [start]):
        _, slot, p = split(ref)
        tile = tiles[slot]
        poly, nei = tile.polys[p]
        k = len(poly)
        tmin, tmax, ex = 0.0, 1.0, None
        for j in range(k):
            a, b = poly[j], poly[(j + 1) % k]
            num = orient(a, b, s)
            den = (b[2] - a[2]) * d[0] - (b[0] - a[0]) * d[2]
            if den == 0:
                if num < 0:
                    break
                continue
            tj = num / den
            if den < 0:
                tmin = max(tmin, tj) if tj > tmin else tmin
            elif tj < tmax:
                tmax, ex = tj, j
            if tmin > tmax:
                break
        else:
            assert visited, f"{start:#x}: the answer visited nothing, but the segment crosses it"
            tmin = None
        if tmin is not None:  # the segment misses the polygon: §6.2 step 2
            assert not visited, f"{ref:#x}: the segment misses it"
            return dict(stop="missed", t=0.0, normal=[0.0, 0.0, 0.0], visited=[], **({"cost": 0.0} if costs else {}))
        if tmax > t:
            t = tmax
        if ex is None:
            assert n == len(visited) - 1, f"{ref:#x}: the end is reached before the last visited polygon"
            if costs:
                total += dist3(last, e) * cost(tiles, ref, area_costs)
            return dict(stop="reached", t=1.0, normal=[0.0, 0.0, 0.0], visited=visited, **({"cost": total} if costs else {}))
        a, b = poly[ex], poly[(ex + 1) % k]
        if costs:
            px, pz = s[0] + d[0] * t, s[2] + d[2] * t
            exx, ezz = b[0] - a[0], b[2] - a[2]
            sg = (px - a[0]) / exx if abs(exx) > abs(ezz) else (pz - a[2]) / ezz
            q = (px, a[1] + (b[1] - a[1]) * sg, pz)
            total += dist3(last, q) * cost(tiles, ref, area_costs)
            last = q
        code = nei[ex]
        if code & 0x80000000:  # step 5: portal links with lo <= c <= hi, in canonical order
            u = 2 if code & 1 == 0 else 0
            c = s[u] + d[u] * tmax
            nxt = sorted((split(r)[1], split(r)[2], r) for r, lo, hi, _ in portal_overlaps(tiles, tile, a, b, code & 3)
                         if lo <= c <= hi and tiles[split(r)[1]].passes(split(r)[2]))
            nxt = nxt[0][2] if nxt else None
        else:
            nxt = tile.ref(code - 1) if code and tile.passes(code - 1) else None
        if n + 1 < len(visited):
            assert nxt == visited[n + 1], f"{ref:#x}: edge {ex} leads to {nxt}, not {visited[n + 1]:#x}"
            continue
        assert nxt is None, f"{ref:#x}: edge {ex} leads on to {nxt:#x}; the answer stops there"
        dx, dz = b[0] - a[0], b[2] - a[2]
        ln = math.sqrt(dx * dx + dz * dz)
        out = dict(stop="wall", t=t, normal=[(0 - dz) / ln + 0, 0.0, dx / ln + 0], edge=ex, visited=visited)
        if costs:
            out["cost"] = total
        return out
    raise AssertionError("no polygon visited")


STEP = {0: (1, 0), 1: (0, 1), 2: (-1, 0), 3: (0, -1)}  # side: (Δcolumn, Δrow), navmesh-format.md §1.5


def portal_overlaps(tiles, tile, a, b, side):
    """K5/K6: (ref, lo, hi, u) for every polygon edge across `side` of edge a-b of `tile` that
    overlaps it within the smaller climb, in the neighbouring cell's tiles."""
    u = 2 if side & 1 == 0 else 0  # sides ±x: z varies along the border; sides ±z: x varies
    cell = (tile.cell[0] + STEP[side][0], tile.cell[1] + STEP[side][1])
    out = []
    for t in tiles.values():
        if t.cell != cell:
            continue
        climb = min(tile.climb, t.climb)
        for j, (poly, nei) in enumerate(t.polys):
            for m in range(len(poly)):
                c, d = poly[m], poly[(m + 1) % len(poly)]
                if nei[m] != 0x80000000 + (side + 2) % 4:
                    continue
                lo = max(min(a[u], b[u]), min(c[u], d[u]))
                hi = min(max(a[u], b[u]), max(c[u], d[u]))
                if hi <= lo:
                    continue
                h = lambda p, q, x: p[1] + (q[1] - p[1]) * ((x - p[u]) / (q[u] - p[u]))  # noqa: E731
                if any(abs(h(a, b, x) - h(c, d, x)) > climb for x in (lo, hi)):
                    continue
                out.append((t.ref(j), lo, hi, u))
    return out


def edge_crossing(tiles, pref, qref):
    """The position of the crossing from ground polygon P into ground polygon Q (P2): the portal
    midpoint of P's first edge (lowest edge index) leading to Q, by its neighbour code (internal)
    or by K6's overlap with an edge of Q on the opposite border (portal)."""
    _, ps, pp = split(pref)
    _, qs, qp = split(qref)
    poly, nei = tiles[ps].polys[pp]
    n = len(poly)
    for k in range(n):
        a, b = poly[k], poly[(k + 1) % n]
        if ps == qs and nei[k] == qp + 1:
            return tuple((a[i] + b[i]) * 0.5 for i in range(3))
        if nei[k] & 0x80000000 and qs != ps:
            for ref, lo, hi, u in portal_overlaps(tiles, tiles[ps], a, b, nei[k] & 3):
                if ref != qref:
                    continue

                def at(x):
                    p = list(a)
                    p[u] = x
                    p[1] = a[1] + (b[1] - a[1]) * ((x - a[u]) / (b[u] - a[u]))
                    return p
                pl, ph = at(lo), at(hi)
                return tuple((pl[i] + ph[i]) * 0.5 for i in range(3))
    raise AssertionError(f"{pref:#x} has no edge to {qref:#x}")


def over(tiles, ref, p):
    _, s, i = split(ref)
    return closest(p, tiles[s].polys[i][0])[1]


def corridor_cost(tiles, corridor, s, e, area_costs):
    """P0/P2: the g of the end node reached along `corridor` (the answer's cost when complete)."""
    if len(corridor) == 1:
        return dist3(s, e) * cost(tiles, corridor[0], area_costs)
    g, pos = 0.0, s
    for n in range(1, len(corridor)):
        pref, qref = corridor[n - 1], corridor[n]
        _, qs, qp = split(qref)
        _, ps, pp = split(pref)
        if qp >= tiles[qs].g:  # boarding link polygon Q at the end that lands on P
            ends = tiles[qs].links[qp - tiles[qs].g]
            e_at = [i for i in (0, 1) if over(tiles, pref, ends[i]) and over(tiles, corridor[n + 1], ends[1 - i])]
            assert len(e_at) == 1, f"link {qref:#x}: which end is boarded from {pref:#x} is ambiguous"
            q = ends[e_at[0]]
        elif pp >= tiles[ps].g:  # leaving link polygon P at its other end
            ends = tiles[ps].links[pp - tiles[ps].g]
            q = ends[1 - e_at[0]]
        else:
            q = edge_crossing(tiles, pref, qref)
        g += dist3(pos, q) * cost(tiles, pref, area_costs)
        pos = q
    return g + dist3(pos, e) * cost(tiles, corridor[-1], area_costs)
