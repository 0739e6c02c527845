#!/usr/bin/env python3
"""Writes (or checks, with --check) the build cases of the tile-layer limits L13, L14 and L17
(spec/build3d.md §16.1): n_limit-vertices, n_limit-polygons and n_limit-detail-triangles, and
the case of L9 (raw spans of one tile cell), n_limit-spans-per-tile (see spans_case).

Each stacks F flat square floors of n x n cells (cells of 1 x 1 wu, 10 cells apart) and gives
them a checkerboard of areas with one thin volume per odd diagonal i + j of cells (B25: a column
is covered when its centre is inside the volume). Every walkable cell then differs in area from
its four neighbours, so it is a region of its own (B28) with a corner at every kind change
(B38), and the regions' corners are shared and welded (B40). The counts below follow by hand:
per floor the ledge filter (B21) takes the outer ring, leaving (n - 2)^2 walkable cells and
(n - 1)^2 welded corners; with verts_per_poly 3 each cell is two triangles, otherwise one quad
(B42); without detail sampling a quad's detail mesh is two triangles (B44). No region touches a
side of the tile (the ring is unwalkable), so every floor is in layer 0 (B35).
"""
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent

L = 1_048_575  # L13, L14, L16, L17


def counts(n, floors, nvp):
    cells = (n - 2) ** 2
    polys = floors * cells * (2 if nvp == 3 else 1)
    verts = floors * (n - 1) ** 2
    tris = floors * cells * 2
    return verts, polys, tris


def fmt(v):
    return str(int(v)) if v == int(v) else repr(v)


def volumes(n):
    # Cells (i, j) with i + j odd have centres on x + z = c, c = 2, 4, ..., 2n - 2; the volume
    # is the strip |x + z - c| <= 0.25 for z in [-1, n + 1], counter-clockwise.
    out = []
    for c in range(2, 2 * n - 1, 2):
        p = [[c + 0.75, -1], [c + 1.25, -1], [c + 0.25 - (n + 1), n + 1],
             [c - 0.25 - (n + 1), n + 1]]
        corners = ", ".join("[%s, %s]" % (fmt(a), fmt(b)) for a, b in p)
        out.append("        - {area: 5, min_y: -1, max_y: 1000, polygon: [%s]}" % corners)
    return "\n".join(out)


def case(name, title, rule, kind, n, floors, nvp, notes):
    verts, polys, tris = counts(n, floors, nvp)
    obj = "".join(
        f"        v 0 {10 * f} 0\n        v 0 {10 * f} {n}\n        v {n} {10 * f} {n}\n"
        f"        v {n} {10 * f} 0\n        f -4 -3 -2 -1\n" for f in range(floors))
    notes = notes.format(n=n, floors=floors, nvp=nvp, verts=verts, polys=polys, tris=tris,
                         cells=(n - 2) ** 2, corners=(n - 1) ** 2, vols=n - 1, L=L)
    body = f"""schema: 1
id: build3d/{name}
title: {title}
class: reject
spec: [build3d.md#{rule}, build3d.md#l{ {'vertices': 13, 'polygons': 14, 'detail_triangles': 17}[kind] }]
features: [build3d]
notes: |
{notes.rstrip()}
  Written by scenarios/build3d/tools/limit_cases.py.
steps:
  - bytes:
      name: g
      text: |
{obj.rstrip()}
  - settings:
      name: s
      cell_size: 1
      cell_height: 1
      agent_height: 2
      agent_climb: 0
      agent_radius: 0
      region_min_area: 0
      region_merge_area: 0
      max_edge_len: 0
      max_edge_error: 0
      verts_per_poly: {nvp}
      detail_sample_dist: 0
      tile_size: 1024
      volumes:
{volumes(n)}
  - build: {{obj: g, settings: s}}
  - expect:
      error: {{class: build, field: 'cell[0,0].layer[0].{kind}'}}
"""
    return name, body, (verts, polys, tris)


INTRO = """  {floors} floors of {n} x {n} cells (1 x 1 wu, 10 cells apart) in one 1024-cell tile, with
  {vols} diagonal volumes of area 5 over the cells whose i + j is odd: a checkerboard of areas 5
  and 63, so every walkable cell is a region of its own (B28; no merge, B31, finds a neighbour
  of its area) whose four corners are contour points (B38, max_edge_error 0) welded with its
  neighbours' (B40). Per floor the ledge filter (B21) leaves {cells} walkable cells and
  {corners} corners; no region reaches a tile side, so all floors are layer 0 (B35).
"""


def cases():
    return [
        case("n_limit-vertices",
             "A tile-layer needing more than L13 = 1 048 575 vertices fails the build",
             "b43", "vertices", 364, 8, 6,
             INTRO + "  B43: {floors} x {corners} = {verts} vertices > L13 = {L}, while the "
             "quads\n  number {polys} <= L14: cell[0,0].layer[0].vertices.\n"),
        case("n_limit-polygons",
             "A tile-layer needing more than L14 = 1 048 575 polygons fails the build",
             "b43", "polygons", 259, 8, 3,
             INTRO + "  With verts_per_poly 3 each cell is two triangles (B41, B42): {polys} "
             "polygons > L14 = {L},\n  with {verts} <= L13 vertices: "
             "cell[0,0].layer[0].polygons.\n"),
        case("n_limit-detail-triangles",
             "A tile-layer needing more than L17 = 1 048 575 detail triangles fails the build",
             "b49", "detail_triangles", 259, 8, 4,
             INTRO + "  With verts_per_poly 4 each cell is one quad (B42): {polys} polygons and "
             "{verts}\n  vertices, within L13 and L14; without detail sampling each quad's "
             "detail mesh is\n  two triangles (B44): {tris} > L17 = {L} with no extra detail "
             "vertex:\n  cell[0,0].layer[0].detail_triangles.\n"),
    ]


L9 = 1 << 28


def rect_spans(a, b):
    """Raw spans of the flat quad [0, a] x [0, b] (integer a, b in cells, cut by B4's fan into
    the triangles on either side of its diagonal from (0, 0) to (a, b)): each triangle gives one
    raw span per cell its interior meets (B18: a cell polygon of at least three points), so every
    cell of the quad has one, and the a + b - gcd(a, b) cells the diagonal's interior crosses
    have two; a cell the triangle touches only at a corner or along its side has at most two
    points and none."""
    from math import gcd
    return a * b + a + b - gcd(a, b)


SPAN_FLOORS = 255
SPAN_RECT = (768, 1023)
SPAN_TINY = 5


def spans_case():
    """L9: SPAN_FLOORS floors of 1024 x 1024 cells 1 cell apart, one quad of 768 x 1023 cells
    and SPAN_TINY triangles each inside one cell, all in tile cell (0, 0): 2^28 + 1 raw spans."""
    full = rect_spans(1024, 1024)
    total = SPAN_FLOORS * full + rect_spans(*SPAN_RECT) + SPAN_TINY
    a, b = SPAN_RECT
    y = SPAN_FLOORS
    tiny = "".join(
        f"        v 0.25 {y + 1 + k} 0.25\n        v 0.25 {y + 1 + k} 0.5\n"
        f"        v 0.5 {y + 1 + k} 0.5\n        f -3 -2 -1\n" for k in range(SPAN_TINY))
    body = f"""schema: 1
id: build3d/n_limit-spans-per-tile
title: A tile cell rasterizing more than L9 = 2^28 raw spans fails the build, before storing them
class: reject
spec: [build3d.md#b19, build3d.md#l9]
features: [build3d]
notes: |
  B19: more than L9 = 2^28 = {L9} raw spans in one tile cell fail the build. Cells of
  1 x 1 wu, no radius (border 3), 1024-cell tiles. {SPAN_FLOORS} flat floors over
  x, z in [0, 1024] at y = 0, 1, ..., {SPAN_FLOORS - 1} (the `repeat` form of the bytes step), each
  two triangles: every one of the floor's 1024 x 1024 cells has a raw span, and the 1024 cells
  its diagonal crosses two ({full} per floor, B18); a quad over [0, {a}] x [0, {b}] at
  y = {y}: {a} x {b} + {a} + {b} - gcd = {rect_spans(a, b)}; {SPAN_TINY} triangles inside cell (0, 0)
  above it, one raw span each. Total {SPAN_FLOORS} x {full} + {rect_spans(a, b)} + {SPAN_TINY} = {total}
  = L9 + {total - L9} in tile cell (0, 0). The bound of B19 (each triangle's cell range within
  the window) exceeds L9, so the spans are counted before any is stored and the build fails in
  bounded memory. The neighbouring tile cells (-1 and 1 on either axis) see only a strip of
  three columns, and the stacked floors, 1 cell apart, merge into one span per column (B19), so
  they build and the first failing tile cell is (0, 0): cell[0,0].spans_per_tile.
  Written by scenarios/build3d/tools/limit_cases.py.
steps:
  - bytes:
      name: g
      text: |
        v 0 {y} 0
        v 0 {y} {b}
        v {a} {y} {b}
        v {a} {y} 0
        f -4 -3 -2 -1
{tiny.rstrip()}
      repeat:
        text: |
          v 0 0 0
          v 0 0 1024
          v 1024 0 1024
          v 1024 0 0
          f -4 -3 -2 -1
        copies: {SPAN_FLOORS}
        step: [0, 1, 0]
  - settings: {{name: s, cell_size: 1, cell_height: 1, agent_height: 2, agent_climb: 0, agent_radius: 0, region_min_area: 0, region_merge_area: 0, detail_sample_dist: 0, tile_size: 1024}}
  - build: {{obj: g, settings: s}}
  - expect:
      error: {{class: build, field: 'cell[0,0].spans_per_tile'}}
"""
    assert total == L9 + 1, total
    return "n_limit-spans-per-tile", body, total


def write_or_check(name, body, check):
    """Writes the case file, or with --check returns 1 when the committed file differs."""
    path = HERE / f"{name}.yaml"
    if not check:
        path.write_text(body)
        return 0
    if path.exists() and path.read_text() == body:
        return 0
    print(f"  {path} differs from what this tool writes")
    return 1


def main():
    check = "--check" in sys.argv
    bad = 0
    for name, body, (verts, polys, tris) in cases():
        print(f"{name}: vertices {verts}, polygons {polys}, detail triangles {tris}")
        bad += write_or_check(name, body, check)
    name, body, total = spans_case()
    print(f"{name}: raw spans of tile cell (0, 0) {total} = L9 + {total - L9}")
    bad += write_or_check(name, body, check)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
