#!/usr/bin/env python3
"""Fills (or checks, with --check) the `offset` of every expected format error of the build
scenarios, computed from the specs alone, without the harness or the builder:

- `obj.line[N].…`: the byte at which 1-based line N of the OBJ text starts (lines end at LF,
  spec/build3d.md B4);
- `settings.FIELD`: the field's offset in the canonical settings encoding (spec/build3d.md B8's
  table; volume i starts at 108 plus 24 + 16 k bytes for each earlier volume of k corners;
  `volume[i].polygon[j]` is the offset of corner j's x, B9; `end` is the first byte past the
  encoding). A patched encoding keeps the layout of the settings it was patched from.

The runner then compares these with the reference testee's offsets (protocol 2): two routes.
"""
import re
import sys
from pathlib import Path

import yaml

FIXED = {"magic": 0, "version": 4, "flags": 6, "cell_size": 8, "cell_height": 16,
         "agent_height": 24, "agent_radius": 32, "agent_climb": 40, "max_slope_deg": 48,
         "region_min_area": 56, "region_merge_area": 60, "max_edge_len": 64,
         "max_edge_error": 72, "verts_per_poly": 80, "detail_sample_dist": 84,
         "detail_sample_max_error": 92, "tile_size": 100, "volume_count": 104}


def volume_sizes(settings):
    return [24 + 16 * len(v.get("polygon", [])) for v in settings.get("volumes", []) or []]


def settings_offset(path, settings):
    if path in FIXED:
        return FIXED[path]
    sizes = volume_sizes(settings)
    if path == "end":
        return 108 + sum(sizes)
    m = re.fullmatch(r"volume\[(\d+)\]\.(area|min_y|max_y|vertex_count|polygon\[(\d+)\](\.x|\.z)?)", path)
    if not m:
        raise SystemExit(f"no rule for settings.{path}")
    i = int(m.group(1))
    start = 108 + sum(sizes[:i])
    field = m.group(2)
    if field.startswith("polygon"):
        j = int(m.group(3))
        return start + 24 + 16 * j + (8 if m.group(4) == ".z" else 0)
    return start + {"area": 0, "min_y": 4, "max_y": 12, "vertex_count": 20}[field]


def line_offset(text, line):
    starts = [0] + [i + 1 for i, b in enumerate(text.encode()) if b == 0x0A]
    return starts[line - 1] if line - 1 < len(starts) else len(text.encode())


def offsets(doc):
    texts, settings, out = {}, {}, []
    steps = doc.get("steps", [])
    for k, step in enumerate(steps):
        (key, body), = step.items()
        if key == "bytes":
            texts[body["name"]] = body.get("text", "")
        elif key == "settings":
            base = dict(settings.get(body.get("like"), {})) if body.get("like") else {}
            base.update({a: b for a, b in body.items() if a not in ("name", "like")})
            settings[body["name"]] = base
        elif key == "patch":
            settings[body["name"]] = settings.get(body["from"], {})
        elif key == "build" and k + 1 < len(steps) and "expect" in steps[k + 1]:
            err = (steps[k + 1]["expect"] or {}).get("error")
            if not err or err.get("class") != "format":
                continue
            field = err["field"]
            if field.startswith("obj.line["):
                n = int(re.match(r"obj\.line\[(\d+)\]", field).group(1))
                out.append((field, line_offset(texts[body["obj"]], n)))
            elif field.startswith("settings."):
                out.append((field, settings_offset(field[len("settings."):], settings[body["settings"]])))
            else:
                raise SystemExit(f"{doc['id']}: no rule for {field}")
    return out


def main():
    check = "--check" in sys.argv
    bad = 0
    root = Path(__file__).resolve().parents[1]
    for p in sorted(root.glob("*.yaml")):
        text = p.read_text()
        want = offsets(yaml.safe_load(text))
        pat = re.compile(r"error: \{class: format, field: ([^,}]+)(?:, offset: (\d+))?\}")
        it = iter(want)

        def fill(m):
            nonlocal bad
            field, off = next(it)
            assert m.group(1).strip("'") == field, (p.name, m.group(1), field)
            if m.group(2) is not None and int(m.group(2)) != off:
                print(f"{p.name}: {field} offset {m.group(2)}, the spec gives {off}")
                bad += 1
            return f"error: {{class: format, field: {m.group(1)}, offset: {off}}}"

        new = pat.sub(fill, text)
        if not check and new != text:
            p.write_text(new)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
