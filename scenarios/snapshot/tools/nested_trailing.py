#!/usr/bin/env python3
"""The expected error of the nested trailing-byte cases, computed from the layouts of spec/ alone
(no onav code): meshfile/n_tile-trailing-byte (navmesh-format.md §8.1, M7, M8) and
snapshot/n_inline-tile-trailing-byte (snapshot.md §4, S9). Each builds the case's input with the
spec generator and the spec model, inserts one byte after the nested tile's last flags entry and
grows the lengths that enclose it, then walks the layout: the tile's own length follows from its
header counts (navmesh-format.md §3.2, 132 + 24V + 71G + 67L + 24DV + 4DT), so the first extra
byte of its container is T19's `end`.

    scenarios/snapshot/tools/nested_trailing.py           print each case's error
    scenarios/snapshot/tools/nested_trailing.py --check   compare them with the scenario files
"""
import os
import struct
import sys

import yaml

import replay

gen, snap = replay.gen, replay.snap


def tile_length(t, at):
    """The length a tile at `at` has by its header counts (§3.2)."""
    v, g, l, dv, dt = struct.unpack_from("<5I", t, at + 108)
    return 132 + 24 * v + 71 * g + 67 * l + 24 * dv + 4 * dt


def inputs():
    w = dict(gen.DEFAULTS, columns=2, rows=1, quads=1)
    big = dict(w, quads=4)
    a, b = gen.tile(w, 0, 0, 0), gen.tile(big, 1, 0, 0)
    m = snap.Mesh(w, 2, gen.digest(w))
    m.add(a)
    m.add(b)
    return a, m


def meshfile_case():
    a, m = inputs()
    f = bytearray(replay.write_mesh(m))
    rec = 80  # tile[0].length (§8.1)
    t = rec + 4
    n = struct.unpack_from("<I", f, rec)[0]
    assert n == len(a) == tile_length(f, t)
    struct.pack_into("<I", f, rec, n + 1)
    f[t + n:t + n] = b"\0"
    # The walk: the record holds tile_length + 1 bytes; the next record starts after it and fits.
    end = t + tile_length(f, t)
    nxt = t + n + 1
    assert struct.unpack_from("<I", f, nxt)[0] + nxt + 4 == len(f)
    return {"splice": t + n, "error": {"class": "format", "field": "tile[0].end", "offset": end}}


def snapshot_case():
    a, m = inputs()
    s = bytearray(m.snapshot("full"))
    slot0 = 88 + 4  # section body at 88, slot_count, then slot[0] (§4)
    tl = slot0 + 5  # after generation (4) and kind (1): slot[0].tile_length
    t = tl + 4
    n = struct.unpack_from("<I", s, tl)[0]
    assert s[slot0 + 4] == 1 and n == len(a) == tile_length(s, t)
    struct.pack_into("<I", s, tl, n + 1)
    struct.pack_into("<I", s, 84, struct.unpack_from("<I", s, 84)[0] + 1)  # section[0].length
    s[t + n:t + n] = b"\0"
    assert 88 + struct.unpack_from("<I", s, 84)[0] == len(s)
    return {"splice": t + n, "error": {"class": "format", "field": "slot[0].tile.end",
                                       "offset": t + tile_length(s, t)}}


CASES = {"meshfile/n_tile-trailing-byte": meshfile_case, "snapshot/n_inline-tile-trailing-byte": snapshot_case}


def main():
    bad = 0
    for cid, fn in CASES.items():
        want = fn()
        print(cid, want)
        if "--check" not in sys.argv:
            continue
        d = yaml.safe_load(open(os.path.join(replay.ROOT, "scenarios", cid + ".yaml")))
        err = next(s["expect"]["error"] for s in d["steps"] if "error" in (s.get("expect") or {}))
        splice = next(e["splice"]["offset"] for s in d["steps"] if "patch" in s
                      for e in s["patch"]["edits"] if "splice" in e)
        if err != want["error"] or splice != want["splice"]:
            bad += 1
            print(f"DIFFERS {cid}: file has {err} and a splice at {splice}")
    if "--check" in sys.argv:
        print(f"{len(CASES) - bad} of {len(CASES)} nested trailing-byte cases agree with the layout")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
