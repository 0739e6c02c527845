#!/usr/bin/env python3
"""Writes the seeds of the fuzz target `build_input` (fuzz/seeds/build_input/) from this folder's
scenarios: every OBJ text of a scenario, paired with settings of the scenarios (small cells,
volumes, detail sampling on and off) and with broken settings. An input is u16 n (little-endian),
n bytes of settings encoding (spec/build3d.md B8), then the OBJ bytes.

    python3 scenarios/build3d/tools/fuzz_seeds.py     # from the repository root
"""

import os
import struct
import sys

import yaml

sys.path.insert(0, os.path.dirname(__file__))
from check_goldens import DEMO, ROOT, SCEN, settings_encoding  # noqa: E402

OUT = os.path.join(ROOT, "fuzz", "seeds", "build_input")

SMALL = dict(DEMO, cell_size=0.5, agent_radius=0.0, tile_size=16, detail_sample_dist=0.0)
SETTINGS = {
    "small": SMALL,
    "detail": dict(SMALL, detail_sample_dist=0.5, detail_sample_max_error=0.05),
    "volumes": dict(SMALL, volumes=[
        dict(area=5, min_y=-1.0, max_y=4.0, polygon=[[0, 0], [0, 6], [6, 6], [6, 0]]),
        dict(area=0, min_y=-1.0, max_y=4.0, polygon=[[2, 2], [2, 4], [4, 4], [4, 2]]),
    ]),
    "tiny-tiles": dict(SMALL, tile_size=4, agent_radius=0.5),
}


def seed(name, settings, obj):
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(struct.pack("<H", len(settings)) + settings + obj)


def main():
    os.makedirs(OUT, exist_ok=True)
    objs = {}
    for fn in sorted(os.listdir(SCEN)):
        if fn.endswith(".yaml"):
            sc = yaml.safe_load(open(os.path.join(SCEN, fn), "rb"))
            for st in sc["steps"]:
                b = st.get("bytes")
                if b and "text" in b and len(b["text"]) < 8192:
                    objs[f"{fn[:-5]}-{b['name']}"] = b["text"].encode()
    enc = {k: settings_encoding(v) for k, v in SETTINGS.items()}
    for i, (name, obj) in enumerate(objs.items()):
        key = "small" if name.startswith("n_") else list(enc)[i % len(enc)]
        seed(f"{name}.{key}", enc[key], obj)
    floor = objs["y_flat-floor-floor"]
    good = enc["small"]
    seed("settings-demo.flat-floor", settings_encoding(DEMO), floor)
    seed("settings-truncated.flat-floor", good[:60], floor)
    seed("settings-bad-magic.flat-floor", b"ONB4" + good[4:], floor)
    seed("settings-nan.flat-floor", good[:8] + struct.pack("<d", float("nan")) + good[16:], floor)
    seed("settings-trailing.flat-floor", good + b"\0", floor)
    seed("settings-volume-count.flat-floor", good[:104] + struct.pack("<I", 70000), floor)
    wide = b"v 0 0 0\nv 0 0 600\nv 600 0 0\nf 1 2 3\n"
    seed("beyond-budget.wide", good, wide)
    print(f"{len(os.listdir(OUT))} seeds in {OUT}")


if __name__ == "__main__":
    main()
