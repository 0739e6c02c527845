//! Fuzz entry point for the builder's inputs (`spec/build3d.md` §2.2 and §3.2: OBJ text and the
//! settings encoding are untrusted input). The cargo-fuzz target `build_input` calls it, and the
//! unit tests below replay the committed seeds and regressions through it.
//!
//! An input is `u16 n` (little-endian), then n bytes of settings encoding, then the OBJ bytes
//! (a shorter input gives what it has to the settings). Whatever the bytes:
//! - the settings are refused with a field path and an offset within them, or accepted and
//!   canonical: their encoding is the input (B8, B9);
//! - the OBJ is refused with a line that exists (B4), or read;
//! - when both are accepted and the build fits [`BUILD_BUDGET`], it is built: a limit or a
//!   failure of §17 is an error, never a panic, and built tiles pass every check of the runner
//!   ([`crate::built::check`], `spec/conformance.md` §1.13), with the walkable area the builder
//!   reports equal to their sum, bit for bit.

use onav_build3d::{build, Geometry, Settings};

/// What one build may cost, so that one fuzz input stays fast: every limit of §16 is safe, this
/// keeps the work of a build to about a million cells. Inputs beyond it are read, not built.
#[derive(Debug, Clone, Copy)]
pub struct BuildBudget {
    /// Input triangles.
    pub triangles: usize,
    /// Extent of the geometry on x and z, in cells.
    pub extent_cells: f64,
    /// Extent of the geometry on y, in cells.
    pub height_cells: f64,
    /// Tile size, in cells.
    pub tile_size: u32,
    /// Agent radius, in cells.
    pub radius_cells: f64,
    /// Volumes of the settings.
    pub volumes: usize,
}

/// The budget of the `build_input` target.
pub const BUILD_BUDGET: BuildBudget = BuildBudget {
    triangles: 256,
    extent_cells: 256.0,
    height_cells: 4096.0,
    tile_size: 64,
    radius_cells: 8.0,
    volumes: 8,
};

impl BuildBudget {
    /// True when building `g` with `s` stays within the budget.
    pub fn admits(&self, g: &Geometry, s: &Settings) -> bool {
        let p = s.spec();
        let (lo, hi) = g.bounds();
        let within = |d: f64, cell: f64, max: f64| (d / cell) <= max;
        g.triangle_count() <= self.triangles
            && within(hi[0] - lo[0], p.cell_size, self.extent_cells)
            && within(hi[2] - lo[2], p.cell_size, self.extent_cells)
            && within(hi[1] - lo[1], p.cell_height, self.height_cells)
            && p.tile_size <= self.tile_size
            && within(p.agent_radius, p.cell_size, self.radius_cells)
            && p.volumes.len() <= self.volumes
    }
}

/// What one input did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BuildFuzzed {
    /// The settings were refused.
    BadSettings,
    /// The OBJ was refused.
    BadObj,
    /// Both read, beyond [`BUILD_BUDGET`]: not built.
    NotBuilt,
    /// Built, refused with a build error.
    Refused,
    /// Built, this many tiles, all checked.
    Built(usize),
}

/// Splits, reads and (within the budget) builds one input (the module docs).
pub fn fuzz_build_input(data: &[u8]) -> BuildFuzzed {
    let n = match data {
        [a, b, ..] => usize::from(u16::from_le_bytes([*a, *b])),
        _ => 0,
    };
    let rest = data.get(2..).unwrap_or_default();
    let (settings, obj) = rest.split_at(n.min(rest.len()));
    let settings = match Settings::from_bytes(settings) {
        Ok(s) => {
            assert_eq!(s.to_bytes(), settings, "accepted settings are canonical");
            s
        }
        Err(e) => {
            assert!(
                !e.field.is_empty(),
                "a settings error names its field: {e:?}"
            );
            assert!(e.offset <= settings.len() as u64, "offset within: {e:?}");
            return BuildFuzzed::BadSettings;
        }
    };
    let geometry = match Geometry::from_obj(obj) {
        Ok(g) => g,
        Err(e) => {
            let lines = obj.split(|&b| b == b'\n').count() as u64;
            assert!(1 <= e.line && e.line <= lines, "the line exists: {e:?}");
            return BuildFuzzed::BadObj;
        }
    };
    if !BUILD_BUDGET.admits(&geometry, &settings) {
        return BuildFuzzed::NotBuilt;
    }
    let Ok(b) = build(&geometry, &settings) else {
        return BuildFuzzed::Refused;
    };
    let (_, summary) = crate::built::check(b.params, &b.tiles)
        .unwrap_or_else(|e| panic!("built tiles break a promise of the spec: {e}"));
    assert_eq!(
        summary.walkable_area.to_bits(),
        b.stats.walkable_area.to_bits(),
        "the walkable area the builder reports is the sum of its polygons' areas"
    );
    BuildFuzzed::Built(b.tiles.len())
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::path::Path;

    use onav_testkit::corpus::inputs;

    use super::*;

    /// An input of the target: settings, then OBJ text.
    fn input(settings: &[u8], obj: &str) -> Vec<u8> {
        let mut v = (settings.len() as u16).to_le_bytes().to_vec();
        v.extend_from_slice(settings);
        v.extend_from_slice(obj.as_bytes());
        v
    }

    /// The committed seeds and regressions of `build_input` replay through the entry point the
    /// fuzzer calls, and the seeds reach every outcome: bad settings, bad OBJ, builds that give
    /// tiles, and inputs beyond the budget.
    #[test]
    fn build_input_seeds_and_regressions_replay() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz");
        let seeds = inputs(&root.join("seeds/build_input"));
        assert!(seeds.len() >= 10, "the seed corpus is committed");
        let mut by: BTreeMap<&str, usize> = BTreeMap::new();
        for s in &seeds {
            let kind = match fuzz_build_input(s) {
                BuildFuzzed::BadSettings => "bad settings",
                BuildFuzzed::BadObj => "bad obj",
                BuildFuzzed::NotBuilt => "not built",
                BuildFuzzed::Refused => "refused",
                BuildFuzzed::Built(0) => "no tile",
                BuildFuzzed::Built(_) => "tiles",
            };
            *by.entry(kind).or_default() += 1;
        }
        for k in ["bad settings", "bad obj", "not built", "tiles"] {
            assert!(by.contains_key(k), "a seed reaches {k}: {by:?}");
        }
        for r in inputs(&root.join("regressions/build_input")) {
            fuzz_build_input(&r);
        }
    }

    #[test]
    fn outcomes() {
        let demo = Settings::new(onav_build3d::SettingsSpec::default()).unwrap();
        let s = demo.to_bytes();
        let floor = "v 0 0 0\nv 0 0 6\nv 6 0 6\nv 6 0 0\nf 1 2 3 4\n";
        assert!(matches!(
            fuzz_build_input(&input(s, floor)),
            BuildFuzzed::Built(1)
        ));
        assert_eq!(
            fuzz_build_input(&input(&s[..20], floor)),
            BuildFuzzed::BadSettings
        );
        assert_eq!(fuzz_build_input(&input(s, "v 0 0\n")), BuildFuzzed::BadObj);
        let wide = "v 0 0 0\nv 0 0 600\nv 600 0 0\nf 1 2 3\n";
        assert_eq!(fuzz_build_input(&input(s, wide)), BuildFuzzed::NotBuilt);
        assert_eq!(fuzz_build_input(b""), BuildFuzzed::BadSettings);
        assert_eq!(fuzz_build_input(b"\xff"), BuildFuzzed::BadSettings);
    }
}
