#!/usr/bin/env python3
"""Writes the must-reject cases of scenarios/tilecache/ (n_*.yaml) from one table: each case
patches the busy cache's Full ONTK snapshot at one field and restores it in place, expecting the
error of spec/tilecache.md §6.4 (class, field path, absolute offset) and the cache untouched.

The offsets are computed here from the layout of TC19 and the busy cache's lists as the steps
build them (five obstacles, two volumes, two queued cells), not read back from any reader.

    scenarios/tilecache/tools/cases.py          (re)write the n_ files
    scenarios/tilecache/tools/cases.py --check  fail if a file differs from what it would write
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.dirname(HERE)

# The busy cache: obstacles (shape, values) in id order, volumes (area, min_y, max_y, corners),
# then the two boxes added after the update, whose cells are queued (TC9: tile cells (0, 0) and
# (2, 0), in that order).
OBSTACLES = [
    ("cylinder", [12, -0.5, 12, 1, 2]),
    ("box", [3, -1, 3, 5, 1, 5]),
    ("oriented_box", [18, 0.5, 6, 2, 1, 0.5, 0.7]),
]
LATE = [("box", [3.5, -1, 3.5, 4.5, 1, 4.5]), ("box", [19.5, -1, 3.5, 20.5, 1, 4.5])]
VOLUMES = [
    (5, -1, 1, [[8, 4], [10, 4], [10, 6], [8, 6]]),
    (0, -1, 1, [[16, 16], [18, 16], [18, 18], [16, 18]]),
]
QUEUE = 2
# The length of the busy cache's Full mesh snapshot: read from the blessed golden
# tilecache/y_busy-snapshot/busy-full by check_ontk.py, which fails when it differs.
MESH_LEN = 5318
# The length and SHA-256 of the busy cache's Referenced ONTK (the golden busy-referenced): derived
# from the Full golden by check_ontk.py (every inline tile replaced by its content id), which fails
# when they differ from this or from the Referenced golden.
REFERENCED = (1113, "510f8bdcc12614afc0e8f3569a7dde9528901bfd6d0ff6974b8bd1437c85b529")
VALUES = {
    "cylinder": ["x", "y", "z", "radius", "height"],
    "box": ["min_x", "min_y", "min_z", "max_x", "max_y", "max_z"],
    "oriented_box": ["x", "y", "z", "half_x", "half_y", "half_z", "rotation"],
}


def layout():
    """Field offsets of the busy snapshot by TC19 (the mesh snapshot starts at `mesh`)."""
    at = {"magic": 0, "version": 4, "flags": 6, "next_obstacle_id": 8, "next_volume_id": 12,
          "obstacle_count": 16}
    o = 20
    for i, (shape, values) in enumerate(OBSTACLES + LATE):
        at[f"obstacle[{i}].id"] = o
        at[f"obstacle[{i}].shape"] = o + 4
        for k, name in enumerate(VALUES[shape]):
            at[f"obstacle[{i}].{name}"] = o + 5 + 8 * k
        o += 5 + 8 * len(values)
    at["volume_count"] = o
    o += 4
    for i, (_, _, _, corners) in enumerate(VOLUMES):
        at[f"volume[{i}].id"] = o
        at[f"volume[{i}].area"] = o + 4
        at[f"volume[{i}].min_y"] = o + 5
        at[f"volume[{i}].max_y"] = o + 13
        at[f"volume[{i}].corner_count"] = o + 21
        for j in range(len(corners)):
            at[f"volume[{i}].corner[{j}]"] = o + 25 + 16 * j
            at[f"volume[{i}].corner[{j}].x"] = o + 25 + 16 * j
            at[f"volume[{i}].corner[{j}].z"] = o + 33 + 16 * j
        o += 25 + 16 * len(corners)
    at["queue_length"] = o
    for j in range(QUEUE):
        at[f"queue[{j}]"] = o + 4 + 8 * j
    o += 4 + 8 * QUEUE
    at["mesh_length"] = o
    at["mesh"] = o + 4
    # The mesh snapshot (snapshot.md): magic at 0, params at 8, the digest 36 into the params.
    at["mesh.magic"] = o + 4
    at["mesh.params"] = o + 4 + 8
    at["mesh.params.settings_digest"] = o + 4 + 8 + 36
    if MESH_LEN is not None:
        at["end"] = o + 4 + MESH_LEN
    return at


AT = layout()


def fmt(v):
    """A value as the YAML writes it."""
    return str(v)


PRELUDE = """  - bytes:
      name: floor
      text: |
        v 0 0 0
        v 0 0 24
        v 24 0 0
        v 24 0 24
        f 1 2 3
        f 3 2 4
  - settings: {name: s, cell_size: 0.5, tile_size: 16, detail_sample_dist: 0}
  - cache: {name: c, obj: floor, settings: s}
"""


def prelude():
    out = PRELUDE
    for shape, values in OBSTACLES:
        out += f"  - add_obstacle: {{cache: c, shape: {shape}, values: [{', '.join(map(fmt, values))}]}}\n"
    for area, lo, hi, corners in VOLUMES:
        poly = ", ".join(f"[{x}, {z}]" for x, z in corners)
        out += f"  - add_volume: {{cache: c, area: {area}, min_y: {lo}, max_y: {hi}, polygon: [{poly}]}}\n"
    out += "  - update: {cache: c, max_tiles: 100}\n"
    out += "  - expect: {cache: {remaining: 0}}\n"
    for shape, values in LATE:
        out += f"  - add_obstacle: {{cache: c, shape: {shape}, values: [{', '.join(map(fmt, values))}]}}\n"
    out += "  - cache_snapshot: {cache: c, mode: full, name: s0}\n"
    out += "  - expect:\n      fields: {queue_length: 2, 'queue[0].column': 0, 'queue[1].column': 2, obstacle_count: 5, volume_count: 2, next_obstacle_id: 6, next_volume_id: 3}\n"
    # The cache moves on after the snapshot, so a restore that went through would show.
    out += "  - update: {cache: c, max_tiles: 1}\n"
    out += "  - add_volume: {cache: c, area: 7, min_y: -1, max_y: 1, polygon: [[1, 20], [2, 20], [2, 21]]}\n"
    return out


NOTES = """The busy cache (scenarios/tilecache/tools/cases.py): the floor of y_create-is-the-build, three
obstacles (cylinder, box, oriented box; ids 1-3) and two volumes (ids 1, 2), drained, then two
small boxes (ids 4, 5) whose cells (0, 0) and (2, 0) are queued (TC9 with B = 2 + 3 = 5 cells).
Its Full ONTK s0 by TC19: obstacle records at 20, 65, 118, 179, 232 (45, 53, 61, 53, 53
bytes), volume_count at 285, volume records at 289 and 378 (89 bytes each), queue_length at
467, queue entries at 471 and 479, mesh_length at 487, the mesh snapshot from 491 (its params
at 499, their settings digest at 535). After the snapshot the cache moves on (one cell rebuilt,
a volume added), so a restore that went through would show; each bad restore must leave it
exactly as it was (state: unchanged compares its Full ONTK, its mesh and every link).
"""


def case(cid, title, spec, rules, extra_notes=""):
    """rules: list of (edits yaml lines, class, field, offset)."""
    out = f"schema: 1\nid: tilecache/{cid}\ntitle: {title}\nclass: reject\n"
    out += f"spec: [{', '.join(spec)}]\nfeatures: [links, tilecache]\nnotes: |\n"
    for line in (NOTES + extra_notes).rstrip("\n").split("\n"):
        out += f"  {line}\n"
    out += "steps:\n" + prelude()
    for k, (edits, cls, field, offset) in enumerate(rules):
        out += f"  - patch:\n      from: s0\n      name: bad{k}\n      edits:\n"
        for e in edits:
            out += f"        - {e}\n"
        out += f"  - cache_restore_into: {{cache: c, bytes: bad{k}}}\n"
        out += f"  - expect: {{error: {{class: {cls}, field: '{field}', offset: {offset}}}, state: unchanged}}\n"
        # TC32: a new cache accepts exactly what an in-place restore accepts.
        out += f"  - cache_restore: {{obj: floor, settings: s, bytes: bad{k}, name: new{k}}}\n"
        out += f"  - expect: {{error: {{class: {cls}, field: '{field}', offset: {offset}}}}}\n"
    return out


def setv(field, value):
    return f"set: {{field: '{field}', value: '{value}'}}"


def cases():
    c = {}
    c["n_header"] = case(
        "n_header", "A wrong magic, version or flags word is refused at its offset",
        ["tilecache.md#tc18", "tilecache.md#tc29", "tilecache.md#tc31"],
        [([f"set: {{field: magic, hex: '4f4e5053'}}"], "format", "magic", AT["magic"]),
         ([setv("version", 2)], "format", "version", AT["version"]),
         ([setv("version", 0)], "format", "version", AT["version"]),
         ([setv("flags", 1)], "format", "flags", AT["flags"]),
         ([setv("flags", 32768)], "format", "flags", AT["flags"])])
    c["n_next-ids"] = case(
        "n_next-ids", "Next ids outside 1 ..= 2^31 - 1 are refused",
        ["tilecache.md#tc20"],
        [([setv("next_obstacle_id", 0)], "format", "next_obstacle_id", AT["next_obstacle_id"]),
         ([setv("next_obstacle_id", 2147483648)], "format", "next_obstacle_id", AT["next_obstacle_id"]),
         ([setv("next_volume_id", 0)], "format", "next_volume_id", AT["next_volume_id"]),
         ([setv("next_volume_id", 4294967295)], "format", "next_volume_id", AT["next_volume_id"])])
    c["n_obstacle-count"] = case(
        "n_obstacle-count", "An obstacle count above the bytes that remain over 13 is refused before allocating",
        ["tilecache.md#tc21"],
        [([setv("obstacle_count", 4294967295)], "format", "obstacle_count", AT["obstacle_count"]),
         # 200 is within the seed's bound (5 789 bytes remain: 5 789 / 13 = 445) but above one by
         # the smallest record (5 789 / 45 = 128): the count passes, five records are read, and
         # the sixth, at the volume count, has id 2 below the last id 5 (TC23, checked when read).
         ([setv("obstacle_count", 200)], "format", "obstacle[5].id", AT["volume_count"])],
        "The second patch pins TC21's 13 bytes per record rather than the smallest record's 45: 200\n"
        "is within 5 789 / 13 = 445 (the bytes after the count) but above 5 789 / 45 = 128, so the count\n"
        "passes, the five records are read, and the sixth, at the volume count (285), has id 2, not\n"
        "above the last id 5 (TC23). A reader bounding by 45 refuses at obstacle_count (16).\n")
    c["n_obstacle-shape"] = case(
        "n_obstacle-shape", "Obstacle records with an unknown shape code, or values a constructor rule refuses",
        ["tilecache.md#tc22", "tilecache.md#tc4"],
        [([setv("obstacle[0].shape", 0)], "format", "obstacle[0].shape", AT["obstacle[0].shape"]),
         ([setv("obstacle[2].shape", 4)], "format", "obstacle[2].shape", AT["obstacle[2].shape"]),
         ([setv("obstacle[0].height", "nan")], "format", "obstacle[0].height", AT["obstacle[0].height"]),
         ([setv("obstacle[1].min_x", "inf")], "format", "obstacle[1].min_x", AT["obstacle[1].min_x"]),
         ([setv("obstacle[0].radius", 0)], "format", "obstacle[0].radius", AT["obstacle[0].radius"]),
         ([setv("obstacle[0].height", -1)], "format", "obstacle[0].height", AT["obstacle[0].height"]),
         ([setv("obstacle[1].max_x", 3)], "format", "obstacle[1].max_x", AT["obstacle[1].max_x"]),
         ([setv("obstacle[1].max_y", -2)], "format", "obstacle[1].max_y", AT["obstacle[1].max_y"]),
         ([setv("obstacle[2].half_z", 0)], "format", "obstacle[2].half_z", AT["obstacle[2].half_z"]),
         ([setv("obstacle[2].half_x", -0.5)], "format", "obstacle[2].half_x", AT["obstacle[2].half_x"]),
         ([setv("obstacle[2].rotation", "-inf")], "format", "obstacle[2].rotation", AT["obstacle[2].rotation"])])
    c["n_obstacle-ids"] = case(
        "n_obstacle-ids", "Obstacle ids of 0, not below the next id, repeated or descending",
        ["tilecache.md#tc23"],
        [([setv("obstacle[0].id", 0)], "format", "obstacle[0].id", AT["obstacle[0].id"]),
         ([setv("obstacle[4].id", 6)], "format", "obstacle[4].id", AT["obstacle[4].id"]),
         ([setv("obstacle[1].id", 1)], "format", "obstacle[1].id", AT["obstacle[1].id"]),
         ([setv("obstacle[3].id", 2)], "format", "obstacle[3].id", AT["obstacle[3].id"])])
    c["n_volume-count"] = case(
        "n_volume-count", "A volume count above the bytes that remain over 41 is refused before allocating",
        ["tilecache.md#tc24"],
        [([setv("volume_count", 4294967295)], "format", "volume_count", AT["volume_count"]),
         # 100 is within the seed's bound (5 520 bytes remain: 5 520 / 41 = 134) but above one by
         # the smallest record (5 520 / 73 = 75): the count passes, two records are read, and the
         # third, at the queue length, has id 2 (the queue length), not above the last id 2 (TC26,
         # checked when read).
         ([setv("volume_count", 100)], "format", "volume[2].id", AT["queue_length"])],
        "The second patch pins TC24's 41 bytes per record rather than the smallest record's 73: 100\n"
        "is within 5 520 / 41 = 134 (the bytes after the count) but above 5 520 / 73 = 75, so the count\n"
        "passes, the two records are read, and the third, at the queue length (467), has id 2, not\n"
        "above the last id 2 (TC26). A reader bounding by 73 refuses at volume_count (285).\n")
    c["n_volume-records"] = case(
        "n_volume-records", "Volume records refused by the constructor rules (area, y range, corner count, corners)",
        ["tilecache.md#tc25", "tilecache.md#tc5"],
        [([setv("volume[0].area", 64)], "format", "volume[0].area", AT["volume[0].area"]),
         ([setv("volume[1].min_y", "nan")], "format", "volume[1].min_y", AT["volume[1].min_y"]),
         ([setv("volume[0].max_y", -2)], "format", "volume[0].max_y", AT["volume[0].max_y"]),
         ([setv("volume[0].corner_count", 257)], "format", "volume[0].corner_count", AT["volume[0].corner_count"]),
         ([setv("volume[0].corner_count", 2)], "format", "volume[0].corner_count", AT["volume[0].corner_count"]),
         ([setv("volume[1].corner[2].z", "inf")], "format", "volume[1].corner[2].z", AT["volume[1].corner[2].z"]),
         ([setv("volume[0].corner[1].x", 9), setv("volume[0].corner[1].z", 5)], "format", "volume[0].corner[1]", AT["volume[0].corner[1]"])],
        "The last case moves corner 1 of the square to (9, 5), the midpoint of corners 0 and 2 (opposite\n"
        "corners of the square, whichever winding is stored): orient(v0, v1, v2) = 0, so T12 rule 1\n"
        "fails first at k = 0, naming corner 1.\n")
    c["n_volume-ids"] = case(
        "n_volume-ids", "Volume ids of 0, not below the next id, or repeated",
        ["tilecache.md#tc26"],
        [([setv("volume[0].id", 0)], "format", "volume[0].id", AT["volume[0].id"]),
         ([setv("volume[1].id", 3)], "format", "volume[1].id", AT["volume[1].id"]),
         ([setv("volume[1].id", 1)], "format", "volume[1].id", AT["volume[1].id"])])
    c["n_queue"] = case(
        "n_queue", "A queue length above the bytes over 8, and a repeated entry",
        ["tilecache.md#tc27"],
        [([setv("queue_length", 4294967295)], "format", "queue_length", AT["queue_length"]),
         (["copy: {from: 'queue[0].column', to: 'queue[1].column'}"], "format", "queue[1]", AT["queue[1]"])])
    c["n_mesh-length-and-end"] = case(
        "n_mesh-length-and-end", "A mesh length past the end, and a byte after the mesh snapshot",
        ["tilecache.md#tc28"],
        [([setv("mesh_length", 4294967295)], "format", "mesh_length", AT["mesh_length"]),
         (["append: '00'"], "format", "end", AT.get("end", "END"))])
    c["n_queue-against-cache"] = case(
        "n_queue-against-cache", "Stage C, a queued cell the cache does not hold",
        ["tilecache.md#tc29"],
        [([setv("queue[1].column", 4)], "format", "queue[1]", AT["queue[1]"]),
         ([setv("queue[0].row", -2)], "format", "queue[0]", AT["queue[0]"])],
        "The cached cells are the tile cells whose window meets a triangle (TC1, B15): u and w run\n"
        "over [0, 48], so columns and rows floor((0 - 5) / 16) = -1 to floor((48 + 5) / 16) = 3.\n"
        "(4, 0) and (0, -2) are outside, so stage C refuses them (stages A and B pass).\n")
    c["n_mesh-snapshot"] = case(
        "n_mesh-snapshot", "Stage B, the mesh snapshot rules nested under mesh. at absolute offsets",
        ["tilecache.md#tc29", "tilecache.md#tc34"],
        [([f"set: {{field: mesh.magic, hex: '4f4e544b'}}"], "format", "mesh.magic", AT["mesh.magic"]),
         ([setv("mesh.params.slot_count", 9)], "format", "mesh.params", AT["mesh.params"]),
         ([f"flip: {{field: mesh.params.settings_digest, bit: 0}}"], "fingerprint", "mesh.params.settings_digest", AT["mesh.params.settings_digest"])])
    c["n_stage-order"] = case(
        "n_stage-order", "Two faults in one snapshot, the first in the stage order of TC29 is reported",
        ["tilecache.md#tc29", "tilecache.md#tc34"],
        [([setv("obstacle[0].radius", 0), "flip: {field: mesh.params.settings_digest, bit: 3}"],
          "format", "obstacle[0].radius", AT["obstacle[0].radius"]),
         ([setv("queue[1].column", 4), "flip: {field: mesh.params.settings_digest, bit: 3}"],
          "fingerprint", "mesh.params.settings_digest", AT["mesh.params.settings_digest"]),
         ([setv("queue[0].row", -2), setv("mesh.params.slot_count", 9)],
          "format", "mesh.params", AT["mesh.params"]),
         ([setv("queue[0].row", -2), setv("queue[1].column", 0), setv("queue[1].row", -2)],
          "format", "queue[1]", AT["queue[1]"])],
        "Stage A (the lists) comes before stage B (the mesh snapshot: its digest against the cache's,\n"
        "then its parameter block), which comes before stage C (the queue against the cached cells).\n"
        "The last case: the two entries both (0, -2), uncached (stage C) and a duplicate (stage A,\n"
        "TC27): the duplicate is reported.\n")
    return c


CAP = 2**20
# The bytes after a count of CAP + 1: exactly CAP + 1 records' worth of the seed's per-record
# bytes (13 per obstacle, 41 per volume), so the bytes bound admits the count and only the cap
# refuses it. Each copy of the repeated text is that many bytes with its LF; "aaaa" read as an id
# is 0x61616161, not below any next id, so a reader without the cap fails at the first record.
JUNK = {"obstacle": 13, "volume": 41}


def yaml_bytes(b):
    """Bytes below 0x80 as a YAML double-quoted string (the scenario's text is UTF-8)."""
    assert all(c < 0x80 for c in b) and b"\n" not in b
    return '"' + "".join(chr(c) if 0x20 <= c < 0x7f and chr(c) not in '"\\' else f"\\x{c:02x}"
                         for c in b) + '"'


def caps_case():
    """n_count-caps: the caps of TC7 as the reader applies them (TC21, TC24). Each snapshot is
    written by TC19 here: the header, the next ids 6 and 3 (the busy cache's), then the counts."""
    import struct
    head = b"ONTK" + struct.pack("<HHII", 1, 0, 6, 3)
    snaps = [("obstacle", head + struct.pack("<I", CAP + 1), "obstacle_count", AT["obstacle_count"]),
             ("volume", head + struct.pack("<II", 0, CAP + 1), "volume_count", AT["obstacle_count"] + 4)]
    out = "schema: 1\nid: tilecache/n_count-caps\n"
    out += "title: An obstacle or volume count of 2^20 + 1 is refused by the cap even when the bytes would hold it\nclass: reject\n"
    out += "spec: [tilecache.md#tc7, tilecache.md#tc21, tilecache.md#tc24]\n"
    out += "features: [links, tilecache]\nnotes: |\n"
    extra = (
        "TC21 and TC24 bound a count by min(2^20, floor(R / 13)) (volumes: 41), R the bytes after it,\n"
        "in one check whose error (class, field, offset) is the same whichever bound binds. So only\n"
        "an input with R >= 13 (2^20 + 1) bytes (volumes: 41 (2^20 + 1)) shows the cap: a smaller\n"
        "one is refused by the bytes bound alone, with or without the cap. Each snapshot here is\n"
        "written by TC19 (tools/cases.py): ONTK, version 1, flags 0, next ids 6 and 3, then\n"
        "obstacle_count 2^20 + 1 at 16 (or obstacle_count 0 and volume_count 2^20 + 1 at 20 = 16 + 4),\n"
        "then exactly (2^20 + 1) records' worth of 'a' (13 631 501 or 42 991 657 bytes, by repeat):\n"
        "only the cap refuses the count. A reader without the cap reads the first record and fails\n"
        "at its id (0x61616161 is not below the next id) or a later field, at another offset.\n")
    for line in (NOTES + extra).rstrip("\n").split("\n"):
        out += f"  {line}\n"
    out += "steps:\n" + prelude()
    for k, (kind, b, field, offset) in enumerate(snaps):
        text = "a" * (JUNK[kind] - 1)
        out += f"  - bytes:\n      name: bad{k}\n      text: {yaml_bytes(b)}\n"
        out += f"      repeat: {{text: {text}, copies: {CAP + 1}, step: [0, 0, 0]}}\n"
        out += f"  - expect: {{length: {len(b) + JUNK[kind] * (CAP + 1)}}}\n"
        out += f"  - cache_restore_into: {{cache: c, bytes: bad{k}}}\n"
        out += f"  - expect: {{error: {{class: format, field: '{field}', offset: {offset}}}, state: unchanged}}\n"
        out += f"  - cache_restore: {{obj: floor, settings: s, bytes: bad{k}, name: new{k}}}\n"
        out += f"  - expect: {{error: {{class: format, field: '{field}', offset: {offset}}}}}\n"
    return out


def busy():
    out = "schema: 1\nid: tilecache/y_busy-snapshot\n"
    out += "title: The busy cache of the must-reject cases, its Full and Referenced ONTK\nclass: accept\n"
    out += "spec: [tilecache.md#tc19, tilecache.md#tc30, tilecache.md#tc9, tilecache.md#tc10]\n"
    out += "features: [tilecache]\nnotes: |\n"
    for line in NOTES[: NOTES.index(" After the snapshot")].split("\n"):
        out += f"  {line}\n"
    out += "  Both snapshots are goldens. tools/check_ontk.py reads the Full one by the seed's layout and\n"
    out += "  checks every offset the n_ cases use. The Referenced one holds the same lists and queue; the\n"
    out += "  checker decodes it and compares it with the Full golden field by field (each inline tile is\n"
    out += "  kind 2 there with the tile's SHA-256, generations, edits and switches equal) and byte for\n"
    out += "  byte with the Referenced form it derives from the Full golden alone (the section and mesh\n"
    out += "  lengths recomputed): 1113 bytes, SHA-256 510f8bdc... (cases.py REFERENCED).\n"
    out += "steps:\n"
    p = prelude()
    p = p[: p.index("  # after")] if "  # after" in p else p
    head, _ = p.split("  - update: {cache: c, max_tiles: 1}\n")
    out += head.replace("name: s0}\n  - expect:\n", "name: s0}\n  - expect:\n      golden: busy-full\n", 1)
    out += "  - cache_snapshot: {cache: c, mode: referenced, name: s0r}\n"
    out += "  - expect:\n      fields: {queue_length: 2, 'queue[0].column': 0, 'queue[1].column': 2, 'queue[1].row': 0, obstacle_count: 5, volume_count: 2}\n"
    out += "      golden: busy-referenced\n"
    return out


def continue_case():
    """n_continue-after-rejections: after refused restores the cache goes on exactly as a twin
    restored from its own snapshot."""
    out = "schema: 1\nid: tilecache/n_continue-after-rejections\n"
    out += "title: After refused restores the cache continues exactly as a twin of its state\nclass: reject\n"
    out += "spec: [tilecache.md#tc31, tilecache.md#tc32, tilecache.md#tc33]\n"
    out += "features: [links, query-nearest, tilecache]\nnotes: |\n"
    for line in NOTES.rstrip("\n").split("\n"):
        out += f"  {line}\n"
    out += "  Three refused restores (a cut snapshot, a bad obstacle value, a bad queue entry), each in\n"
    out += "  place and as a new cache; then a twin restored from the cache's own Full snapshot and the\n"
    out += "  same operations on both, compared after every one (outcomes, ONTK bytes, meshes, links).\n"
    out += "steps:\n" + prelude()
    bad = [(["truncate: {drop: 1}"], "format", "mesh_length", AT["mesh_length"]),
           ([setv("obstacle[2].half_y", 0)], "format", "obstacle[2].half_y", AT["obstacle[2].half_y"]),
           ([setv("queue[0].column", -2)], "format", "queue[0]", AT["queue[0]"])]
    for k, (edits, cls, field, offset) in enumerate(bad):
        out += f"  - patch:\n      from: s0\n      name: bad{k}\n      edits:\n"
        for e in edits:
            out += f"        - {e}\n"
        out += f"  - cache_restore_into: {{cache: c, bytes: bad{k}}}\n"
        out += f"  - expect: {{error: {{class: {cls}, field: '{field}', offset: {offset}}}, state: unchanged}}\n"
        out += f"  - cache_restore: {{obj: floor, settings: s, bytes: bad{k}, name: new{k}}}\n"
        out += f"  - expect: {{error: {{class: {cls}, field: '{field}', offset: {offset}}}}}\n"
    out += "  - cache_snapshot: {cache: c, mode: full, name: now}\n"
    out += "  - cache_restore: {obj: floor, settings: s, bytes: now, name: twin}\n"
    out += "  - expect: {same_state: c}\n"
    out += "  - continue:\n      meshes: [twin, c]\n      ops:\n"
    for op in ["update: {max_tiles: 1}",
               "add_obstacle: {shape: cylinder, values: [4, -1, 20, 1.5, 3]}",
               "remove_obstacle: {id: 2}",
               "remove_obstacle: {id: 2}",
               "update: {max_tiles: 2}",
               "remove_volume: {id: 3}",
               "update: {max_tiles: 100}",
               "find_nearest_poly: {center: [4, 0.2, 20], half_extents: [0.25, 1, 0.25]}",
               "cache_snapshot: {mode: full, name: after}",
               "cache_snapshot: {mode: referenced, name: after-r}"]:
        out += f"        - {op}\n"
    return out


def main():
    check = "--check" in sys.argv[1:]
    bad = 0
    all_cases = cases()
    all_cases["y_busy-snapshot"] = busy()
    all_cases["n_continue-after-rejections"] = continue_case()
    all_cases["n_count-caps"] = caps_case()
    for name, text in all_cases.items():
        path = os.path.join(OUT, name + ".yaml")
        if check:
            old = open(path).read() if os.path.exists(path) else None
            if old != text or "END" in text:
                print(f"differs: {path}")
                bad += 1
        else:
            open(path, "w").write(text)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
