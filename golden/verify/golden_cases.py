#!/usr/bin/env python3
"""The snapshot-golden cases of scenarios/snapshot/y_golden-*.yaml, written once as a history of
mesh operations: this script writes each case's YAML and, with --check, replays the same history
on the model of spec_snapshot.py and compares every snapshot the model encodes with the blessed
golden bytes (golden/bytes/<case>/<label>.bin). The model is written from the specs alone, so a
golden that passes is checked by a route independent of onav.

    golden/verify/golden_cases.py --write    (re)write the scenario files
    golden/verify/golden_cases.py --check    compare the blessed goldens with the model
"""
import copy
import json
import os
import sys

import spec_generator as gen
import spec_snapshot as snap

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")


def yaml_flow(d):
    return json.dumps(d).replace('"', "'") if isinstance(d, str) else json.dumps(d)


class Case:
    """One case: YAML steps and the model, driven by the same calls."""

    def __init__(self, cid, title, notes, features, world, slots, spec):
        self.cid, self.title, self.notes, self.spec = cid, title, notes, spec
        self.features = sorted(set(features) | {"navmesh", "snapshot-full", "snapshot-referenced"})
        self.world = dict(gen.DEFAULTS)
        self.world.update(world)
        self.tiles = {}
        self.steps = [f"  - world: {{name: w, {', '.join(f'{k}: {json.dumps(v)}' for k, v in world.items())}}}"]
        self.steps.append(f"  - new_mesh: {{name: m, world: w, slots: {slots}}}")
        self.mesh = "m"
        self.model = snap.Mesh(self.world, slots, gen.digest(self.world))
        self.refs = {}  # slot -> current reference name
        self.n = 0
        self.goldens = []
        self.saved = {}  # snapshot name -> the model state it holds

    def tile(self, at):
        name = "t%d_%d_%d" % at
        if name not in self.tiles:
            self.tiles[name] = gen.tile(self.world, *at)
            self.steps.append(f"  - tile: {{name: {name}, world: w, at: [{at[0]}, {at[1]}, {at[2]}]}}")
        return name

    def _ref(self, slot):
        self.n += 1
        name = f"r{self.n}"
        self.refs[slot] = name
        return name

    def add(self, at):
        t = self.tile(at)
        slot = self.model.add(self.tiles[t])
        gen_ = self.model.slots[slot]["gen"]
        self.steps.append(f"  - add_tile: {{mesh: {self.mesh}, tile: {t}, name: {self._ref(slot)}}}")
        self.steps.append(f"  - expect: {{tile_ref: '{gen_}:{slot}:0'}}")
        return slot

    def remove(self, slot):
        self.steps.append(f"  - remove_tile: {{mesh: {self.mesh}, ref: {self.refs[slot]}}}")
        self.model.remove(slot)

    def replace(self, at):
        t = self.tile(at)
        slot = next(i for i, s in enumerate(self.model.slots) if s["tile"] is not None
                    and s["tile"][72:84] == self.tiles[t][72:84])
        self.model.replace(slot, self.tiles[t])
        self.steps.append(f"  - replace_tile: {{mesh: {self.mesh}, tile: {t}, name: {self._ref(slot)}}}")
        self.steps.append(f"  - expect: {{tile_ref: '{self.model.slots[slot]['gen']}:{slot}:0'}}")

    def poly(self, slot, poly):
        """Polygon `poly` of the tile in `slot`: NAME#P, or G:S:P after a restore."""
        r = self.refs[slot]
        return f"{r.rsplit(':', 1)[0]}:{poly}" if ":" in r else f"{r}#{poly}"

    def restored(self, state):
        """The model takes a snapshot's state (S19-S21); references become G:S:0."""
        self.model.slots = copy.deepcopy(state)
        self.refs = {i: f"{s['gen']}:{i}:0" for i, s in enumerate(self.model.slots) if s["tile"] is not None}

    def library(self):
        return ", ".join(sorted(self.tiles))

    def restore_new(self, name):
        """A new mesh restored from the snapshot `name`, with every tile as the library."""
        self.n += 1
        m = f"m{self.n}"
        self.steps.append(f"  - restore: {{bytes: {name}, library: [{self.library()}], name: {m}}}")
        self.mesh = m
        self.restored(self.saved[name])

    def restore_into(self, name):
        """The current mesh restored in place (S20) from the snapshot `name`."""
        self.steps.append(f"  - restore_into: {{mesh: {self.mesh}, bytes: {name}, library: [{self.library()}]}}")
        self.restored(self.saved[name])

    def inline(self, name, slots):
        """The Referenced snapshot `name` with these slots rewritten as inline tiles (a mixture,
        S23); it holds the same state."""
        self.n += 1
        p = f"mixed{self.n}"
        self.steps.append(f"  - patch:\n      from: {name}\n      name: {p}\n      edits:")
        for slot in sorted(slots, reverse=True):
            t = next(k for k, v in self.tiles.items() if v == self.saved[name][slot]["tile"])
            self.steps.append(f"        - splice: {{field: 'slot[{slot}].content_id', blob: {t}, length_prefix: true}}")
            self.steps.append(f"        - set: {{field: 'slot[{slot}].kind', value: 1}}")
        self.steps.append("        - fit_length: 'section[0].length'")
        self.saved[p] = self.saved[name]
        return p

    def area(self, slot, poly, area):
        self.model.edit(slot, poly, area=area)
        self.steps.append(f"  - set_area: {{mesh: {self.mesh}, poly: '{self.poly(slot, poly)}', area: {area}}}")

    def flags(self, slot, poly, flags):
        self.model.edit(slot, poly, flags=flags)
        self.steps.append(f"  - set_flags: {{mesh: {self.mesh}, poly: '{self.poly(slot, poly)}', flags: {flags:#x}}}")

    def switch(self, slot, link, enabled):
        self.model.switch(slot, link, enabled)
        self.steps.append(f"  - set_link: {{mesh: {self.mesh}, ref: {self.refs[slot]}, link: {link}, enabled: {str(enabled).lower()}}}")

    def generations(self, gens):
        """Sets slot generations by restoring a patched Full snapshot (a valid state)."""
        self.n += 1
        s, p, m = f"g{self.n}", f"gp{self.n}", f"m{self.n}"
        self.goldens.append((s, self.model.snapshot("full")))
        self.steps.append(f"  - snapshot: {{mesh: {self.mesh}, mode: full, name: {s}}}")
        self.steps.append(f"  - expect: {{golden: {s}}}")
        self.steps.append(f"  - patch:\n      from: {s}\n      name: {p}\n      edits:")
        for slot, g in sorted(gens.items()):
            self.steps.append(f"        - set: {{field: 'slot[{slot}].generation', value: {g}}}")
            self.model.slots[slot]["gen"] = g
        self.steps.append(f"  - restore: {{bytes: {p}, name: {m}}}")
        self.mesh = m
        for slot in self.refs:
            if self.model.slots[slot]["tile"] is not None:
                name = self._ref(slot)
                self.steps.append(f"  - is_valid_ref: {{mesh: {m}, poly: '{gens.get(slot, self.model.slots[slot]['gen'])}:{slot}:0'}}")
                self.steps.append("  - expect: {valid: true}")
                self.refs[slot] = f"{self.model.slots[slot]['gen']}:{slot}:0"

    def golden(self, label):
        for mode in ("full", "referenced"):
            name = f"{label}-{mode}"
            self.goldens.append((name, self.model.snapshot(mode)))
            self.saved[name] = copy.deepcopy(self.model.slots)
            self.steps.append(f"  - snapshot: {{mesh: {self.mesh}, mode: {mode}, name: {name}}}")
            self.steps.append(f"  - expect:\n      golden: {name}\n      fields:")
            self.steps.append(f"        slots.slot_count: {len(self.model.slots)}")
            for i, s in enumerate(self.model.slots):
                kind = 0 if s["tile"] is None else (1 if mode == "full" else 2)
                self.steps.append(f"        slot[{i}].generation: {s['gen']}")
                self.steps.append(f"        slot[{i}].kind: {kind}")
                if s["tile"] is not None:
                    self.steps.append(f"        slot[{i}].edit_count: {len(s['edits'])}")
                    self.steps.append(f"        slot[{i}].disabled_count: {len(s['disabled'])}")
        lib = ", ".join(sorted(self.tiles))
        self.steps.append(f"  - restore: {{bytes: {label}-referenced, library: [{lib}], name: back-{label}}}")
        # The restored mesh's Full snapshot: the model's state restored from its Referenced bytes.
        self.goldens.append((f"back-{label}-full", self.model.snapshot("full")))
        self.steps.append(f"  - snapshot: {{mesh: back-{label}, mode: full, name: back-{label}-full}}")
        self.steps.append(f"  - expect: {{golden: back-{label}-full, equals: {label}-full}}")

    def yaml(self):
        head = [
            "schema: 1",
            f"id: {self.cid}",
            f"title: {yaml_flow(self.title)}",
            "class: accept",
            f"spec: [{', '.join(self.spec)}]",
            f"features: [{', '.join(self.features)}]",
            "notes: >",
        ]
        head += ["  " + line for line in self.notes.strip().splitlines()]
        head += ["  Written by golden/verify/golden_cases.py, which checks every golden against its",
                 "  model of the state (spec_snapshot.py) and tiles (spec_generator.py).", "steps:"]
        return "\n".join(head + self.steps) + "\n"


SPEC = ["snapshot.md#s22", "snapshot.md#s26", "navmesh-format.md#r3", "navmesh-format.md#r6"]


def cases():
    out = []

    c = Case("snapshot/y_golden-free-slots", "Snapshot goldens: free slots between tiles at several generations",
             """S = 9, a 3 x 3 world. Every slot filled, then slots 1, 3, 5 and 7 freed after 0, 1, 2 and 4
extra remove/add cycles; a one-slot mesh state is not needed here: the first golden has one tile.""",
             ["links"], {"columns": 3, "rows": 3, "quads": 1}, 9, SPEC + ["navmesh-format.md#r8"])
    c.add((0, 0, 0))
    c.golden("one")
    for k in range(1, 9):
        c.add((k % 3, k // 3, 0))
    c.golden("all")
    for slot, cycles in ((1, 0), (3, 1), (5, 2), (7, 4)):
        at = (slot % 3, slot // 3, 0)
        for _ in range(cycles):
            c.remove(slot)
            c.add(at)
    for slot in (1, 3, 5, 7):
        c.remove(slot)
    c.golden("free-between")
    c.remove(0)
    c.remove(2)
    c.golden("free-ends")
    c.add((0, 0, 0))
    c.golden("lowest-free")
    out.append(c)

    c = Case("snapshot/y_golden-edits-and-switches", "Snapshot goldens: edits and disabled links in many slots",
             """A 3 x 2 world with bumps, two off-mesh links per tile and four area kinds in an 8-slot mesh.
Edits in five slots (area 63, flags 0xffff and 0, one polygon edited and set back to its as-built
values, which is no edit), links switched off in four slots in descending order, then some
switched on again; a replace resets one slot's edits and switches.""",
             ["links", "off-mesh-links"],
             {"columns": 3, "rows": 2, "quads": 2, "bump": 0.3, "links_per_tile": 2, "area_kinds": 4, "seed": 5},
             8, SPEC + ["snapshot.md#s12", "snapshot.md#s16", "navmesh-format.md#r12", "navmesh-format.md#r13", "navmesh-format.md#r9"])
    for k in range(6):
        c.add((k % 3, k // 3, 0))
    c.golden("built")
    c.area(0, 0, 63)
    c.flags(0, 1, 0xffff)
    c.area(1, 3, 1)
    c.flags(2, 2, 0)
    c.area(3, 0, 7)
    c.flags(3, 0, 0x4242)
    c.area(4, 1, 2)
    c.golden("edits")
    a, f = snap.as_built(c.model.slots[4]["tile"], 1)
    c.area(4, 1, a)
    c.flags(0, 1, 0x1234)
    c.golden("edit-undone")
    links = lambda slot: snap.link_count(c.model.slots[slot]["tile"])
    for slot in (5, 3, 2, 0):
        for link in reversed(range(links(slot))):
            c.switch(slot, link, False)
    c.golden("disabled")
    for slot in (3, 0):
        if links(slot):
            c.switch(slot, links(slot) - 1, True)
    c.golden("some-enabled")
    c.replace((0, 0, 0))
    c.golden("replaced")
    out.append(c)

    c = Case("snapshot/y_golden-layers", "Snapshot goldens: layers of one cell and linked layers",
             """A 2 x 2 world of three layers with one off-mesh link per tile (links cross layers). The layers
of cell (0, 0) are added in the order 2, 0, 1, then the rest; one layer tile is removed and
added back into the lowest free slot.""",
             ["layers", "links", "off-mesh-links"],
             {"columns": 2, "rows": 2, "layers": 3, "quads": 2, "links_per_tile": 1, "hole_chance": 30, "seed": 9},
             16, SPEC + ["navmesh-format.md#r10"])
    for L in (2, 0, 1):
        c.add((0, 0, L))
    c.golden("one-cell")
    for L in range(3):
        for r in range(2):
            for col in range(2):
                if (col, r) != (0, 0):
                    c.add((col, r, L))
    c.golden("all-layers")
    c.remove(1)
    c.area(4, 0, 9)
    c.switch(next(k for k in range(5, 16) if snap.link_count(c.model.slots[k]["tile"])), 0, False)
    c.golden("one-removed")
    c.add((0, 0, 0))
    c.golden("back")
    out.append(c)

    c = Case("snapshot/y_golden-wrapped-generations", "Snapshot goldens: generations at and past 16 777 215",
             """A 4-slot mesh whose generations are set by restoring a patched snapshot: slot 0 at 16 777 215
is removed and wraps to 1, slot 1 stays at 16 777 215, slot 2 at 16 777 214 is replaced (to
16 777 215), slot 3 is free at 16 777 215.""",
             ["links"], {"columns": 4, "rows": 1, "quads": 1}, 4, SPEC + ["snapshot.md#s7"])
    for k in range(3):
        c.add((k, 0, 0))
    c.generations({0: 16777215, 1: 16777215, 2: 16777214, 3: 16777215})
    c.golden("high")
    c.remove(0)
    c.replace((2, 0, 0))
    c.golden("wrapped")
    c.add((3, 0, 0))
    c.golden("refilled")
    out.append(c)

    c = Case("snapshot/y_golden-negative-origin", "Snapshot goldens: a world at a negative origin with a small tile size",
             """Origin (-100.5, 3, 7.25), tile size 12.5, slope and bumps; 64 slots of which three hold tiles.""",
             ["links"], {"columns": 3, "rows": 1, "quads": 3, "origin": [-100.5, 3.0, 7.25], "tile_size": 12.5,
                         "slope": [0.125, -0.25], "bump": 0.75, "area_kinds": 2, "seed": 2}, 64, SPEC)
    for k in range(3):
        c.add((k, 0, 0))
    c.flags(1, 4, 0x8000)
    c.golden("three")
    out.append(c)

    c = Case("snapshot/y_golden-mixed-restores", "Snapshot goldens: restores across modes, in place and new, and a mixture",
             """A 4 x 2 world of two layers, two off-mesh links per tile, three area kinds, in a 20-slot mesh:
all 16 tiles, edits in ten slots, links off in eight, slots 3 and 9 freed ("busy"). A mesh restored
from the Full snapshot is changed and then restored in place from the Referenced one; a mesh
restored from the Referenced snapshot is changed and then restored in place from the Full one;
then a mixture (slots 2, 7 and 12 inline, the rest referenced) is restored in place after another
change. Each restore gives the busy state back, in both modes.""",
             ["layers", "links", "off-mesh-links", "restore-in-place"],
             {"columns": 4, "rows": 2, "layers": 2, "quads": 2, "links_per_tile": 2, "area_kinds": 3,
              "bump": 0.25, "hole_chance": 15, "seed": 11}, 20,
             SPEC + ["snapshot.md#s19", "snapshot.md#s20", "snapshot.md#s21", "snapshot.md#s23"])
    for L in range(2):
        for r in range(2):
            for col in range(4):
                c.add((col, r, L))
    for k, slot in enumerate((0, 1, 2, 4, 5, 7, 8, 11, 13, 15)):
        c.area(slot, k % 2, 20 + k)
        c.flags(slot, (k + 1) % 2, 0x100 + k)
    links = lambda slot: snap.link_count(c.model.slots[slot]["tile"])
    for slot in (14, 12, 10, 8, 6, 4, 2, 0):
        for link in range(0, links(slot), 2):
            c.switch(slot, link, False)
    c.remove(3)
    c.remove(9)
    c.golden("busy")

    def change(k):
        """Slot 5 + k's tile leaves and comes back in the lowest free slot; a replace, an edit, a
        switch."""
        name = next(n for n, t in c.tiles.items() if t == c.model.slots[5 + k]["tile"])
        c.remove(5 + k)
        c.replace((0, 0, 1))
        c.area(1, 0, 40 + k)
        if links(4):
            c.switch(4, links(4) - 1, False)
        c.add(tuple(int(x) for x in name[1:].split("_")))

    c.restore_new("busy-full")
    change(0)
    c.golden("from-full-changed")
    c.restore_into("busy-referenced")
    c.golden("referenced-into-full")
    c.restore_new("busy-referenced")
    change(1)
    c.golden("from-referenced-changed")
    c.restore_into("busy-full")
    c.golden("full-into-referenced")
    mixed = c.inline("busy-referenced", (2, 7, 12))
    change(2)
    c.golden("before-mixed")
    c.restore_into(mixed)
    c.golden("mixed-into")
    out.append(c)
    return out


def main():
    if "--write" in sys.argv:
        for c in cases():
            with open(os.path.join(ROOT, "scenarios", c.cid + ".yaml"), "w") as f:
                f.write(c.yaml())
    if "--check" in sys.argv:
        bad = 0
        n = 0
        for c in cases():
            for label, want in c.goldens:
                path = os.path.join(ROOT, "golden", "bytes", c.cid, label + ".bin")
                got = open(path, "rb").read() if os.path.exists(path) else None
                n += 1
                if got != want:
                    bad += 1
                    print(f"DIFFERS {c.cid}/{label}: model {len(want)} bytes, golden {None if got is None else len(got)}")
        print(f"{n - bad} of {n} snapshot goldens equal the model")
        sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
