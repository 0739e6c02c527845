#!/usr/bin/env python3
"""A model of a mesh's state and the ONPS encoder of spec/snapshot.md §4 (S22), written from the
text alone (no onav code), to check snapshot goldens by an independent route: the state follows
the steps a case sends (navmesh-format.md R3, R6-R9, R12, R13), never the testee's replies, and
its bytes must equal the golden. Tiles come from spec_generator.py (§7 of navmesh-format.md).

    golden/verify/spec_snapshot.py    checks every model of golden/verify/models.py
"""
import hashlib
import struct

MAXGEN = 16777215


def nextgen(g):  # R3
    return 1 if g == MAXGEN else g + 1


class Mesh:
    def __init__(self, world, slots, digest):
        o = world["origin"]
        self.params = struct.pack("<4dI", o[0], o[1], o[2], world["tile_size"], slots) + digest
        self.slots = [dict(gen=1, tile=None) for _ in range(slots)]

    def add(self, tile):  # R6, R7: the lowest free slot
        i = next(k for k, s in enumerate(self.slots) if s["tile"] is None)
        self.slots[i].update(tile=tile, edits={}, disabled=set())
        return i

    def remove(self, i):  # R8
        self.slots[i]["tile"] = None
        self.slots[i]["gen"] = nextgen(self.slots[i]["gen"])

    def replace(self, i, tile):  # R9: same slot, next generation, edits and switches reset
        self.slots[i].update(tile=tile, edits={}, disabled=set(), gen=nextgen(self.slots[i]["gen"]))

    def edit(self, i, poly, area=None, flags=None):  # R12: an edit equal to as built is no edit
        s = self.slots[i]
        built = as_built(s["tile"], poly)
        cur = s["edits"].get(poly, built)
        new = (cur[0] if area is None else area, cur[1] if flags is None else flags)
        if new == built:
            s["edits"].pop(poly, None)
        else:
            s["edits"][poly] = new

    def switch(self, i, link, enabled):  # R13
        (self.slots[i]["disabled"].discard if enabled else self.slots[i]["disabled"].add)(link)

    def snapshot(self, mode):  # S22, §4
        body = struct.pack("<I", len(self.slots))
        for s in self.slots:
            body += struct.pack("<I", s["gen"])
            t = s["tile"]
            if t is None:
                body += b"\0"
                continue
            if mode == "full":
                body += b"\x01" + struct.pack("<I", len(t)) + t
            else:
                body += b"\x02" + hashlib.sha256(t).digest()
            body += struct.pack("<I", len(s["edits"]))
            for p in sorted(s["edits"]):
                body += struct.pack("<IBH", p, *s["edits"][p])
            body += struct.pack("<I", len(s["disabled"]))
            body += b"".join(struct.pack("<I", d) for d in sorted(s["disabled"]))
        section = struct.pack("<HHI", 1, 0, len(body)) + body
        return b"ONPS" + struct.pack("<HH", 2, 0) + self.params + struct.pack("<I", 1) + section


def as_built(tile, poly):
    """The as-built area and flags of polygon `poly`, read from the tile's header counts."""
    v, g, l, dv, dt = struct.unpack_from("<5I", tile, 108)
    p = g + l
    areas = 132 + 24 * v + 52 * g + 64 * l + 16 * g + 24 * dv + 4 * dt
    return tile[areas + poly], struct.unpack_from("<H", tile, areas + p + 2 * poly)[0]


def link_count(tile):
    """The tile's off-mesh link count L (header offset 116)."""
    return struct.unpack_from("<I", tile, 116)[0]
