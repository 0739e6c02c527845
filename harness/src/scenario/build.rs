//! Build steps (`spec/conformance.md` §1.13): `settings` (the canonical settings encoding of
//! `spec/build3d.md` §3.2, written without any check) and `build` (OBJ bytes and settings bytes
//! to tiles, the `build` request of the testee protocol), and the golden labels of a build's
//! tiles.

use serde::{Deserialize, Serialize};

use super::model::{Expect, Located};
use super::numbers::Exact;

/// A convex area volume of a `settings` step (`spec/build3d.md` §3.1), written as given: the
/// corners in the order listed (a clockwise polygon stays clockwise), the area as a u32.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VolumeStep {
    /// Area id (the encoding's u32; above 63 is refused by the reader).
    pub area: u32,
    /// Lowest floor height marked (wu).
    pub min_y: Exact,
    /// Highest floor height marked (wu).
    pub max_y: Exact,
    /// Corners (x, z) (wu), in order.
    pub polygon: Vec<[Exact; 2]>,
    /// The volume is written this many times in a row (default 1): the limits of many volumes
    /// without as many lines.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub copies: Option<Located<u32>>,
}

impl VolumeStep {
    /// Its encoded length, all copies (u32 area, two f64, u32 count, 16 bytes per corner).
    pub fn encoded_len(&self) -> u64 {
        let copies = self.copies.map_or(1, |c| u64::from(c.value));
        copies * (24 + 16 * self.polygon.len() as u64)
    }
}

/// `settings`: the canonical encoding of build settings as bytes named `name`. Unset fields take
/// `like`'s values (another `settings` step), else the demo settings of `spec/build3d.md` §3.1.
/// Every value is written as given, valid or not, so that scenarios can ask for invalid ones.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(missing_docs)]
pub struct SettingsStep {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub like: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cell_size: Option<Exact>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cell_height: Option<Exact>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_height: Option<Exact>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_radius: Option<Exact>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_climb: Option<Exact>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_slope_deg: Option<Exact>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub region_min_area: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub region_merge_area: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_edge_len: Option<Exact>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_edge_error: Option<Exact>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verts_per_poly: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail_sample_dist: Option<Exact>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail_sample_max_error: Option<Exact>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tile_size: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub volumes: Option<Vec<VolumeStep>>,
}

impl SettingsStep {
    /// The encoded length of its own volumes (none when it takes `like`'s).
    pub fn volumes_len(&self) -> u64 {
        self.volumes
            .iter()
            .flatten()
            .map(VolumeStep::encoded_len)
            .sum()
    }
}

/// `build`: the `build` request with the OBJ bytes `obj` and the settings bytes `settings`. Its
/// output is the mesh file of the built tiles (stored under `name`); `expect: {tiles, golden}`
/// judges the tiles themselves.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(missing_docs)]
pub struct BuildStep {
    pub obj: String,
    pub settings: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

/// The golden label of the built tile at `(column, row, layer)` under the build's label.
pub fn tile_label(label: &str, (column, row, layer): (i32, i32, u32)) -> String {
    format!("{label}-c{column}-r{row}-l{layer}")
}

/// The golden labels an expectation declares: its `golden` label, or, with `tiles` (a build),
/// one label per tile listed.
pub fn golden_labels(e: &Expect) -> Vec<String> {
    match (&e.golden, &e.tiles) {
        (Some(g), Some(tiles)) => tiles.iter().map(|&p| tile_label(g, p)).collect(),
        (Some(g), None) => vec![g.clone()],
        (None, _) => Vec::new(),
    }
}

/// A volume as the settings encoding writes it.
#[derive(Debug, Clone, PartialEq)]
pub struct VolumeValues {
    /// Area (u32 on the wire).
    pub area: u32,
    /// Lowest floor height.
    pub min_y: f64,
    /// Highest floor height.
    pub max_y: f64,
    /// Corners (x, z), in order.
    pub polygon: Vec<[f64; 2]>,
    /// How many times it is written.
    pub copies: u32,
}

/// Every value of the settings encoding (`spec/build3d.md` §3.2, B8), as written, checked or
/// not.
#[derive(Debug, Clone, PartialEq)]
#[allow(missing_docs)]
pub struct SettingsValues {
    pub cell_size: f64,
    pub cell_height: f64,
    pub agent_height: f64,
    pub agent_radius: f64,
    pub agent_climb: f64,
    pub max_slope_deg: f64,
    pub region_min_area: u32,
    pub region_merge_area: u32,
    pub max_edge_len: f64,
    pub max_edge_error: f64,
    pub verts_per_poly: u32,
    pub detail_sample_dist: f64,
    pub detail_sample_max_error: f64,
    pub tile_size: u32,
    pub volumes: Vec<VolumeValues>,
}

impl SettingsValues {
    /// The values of validated settings.
    pub fn of(s: &onav_build3d::SettingsSpec) -> Self {
        Self {
            cell_size: s.cell_size,
            cell_height: s.cell_height,
            agent_height: s.agent_height,
            agent_radius: s.agent_radius,
            agent_climb: s.agent_climb,
            max_slope_deg: s.max_slope_deg,
            region_min_area: s.region_min_area,
            region_merge_area: s.region_merge_area,
            max_edge_len: s.max_edge_len,
            max_edge_error: s.max_edge_error,
            verts_per_poly: s.verts_per_poly,
            detail_sample_dist: s.detail_sample_dist,
            detail_sample_max_error: s.detail_sample_max_error,
            tile_size: s.tile_size,
            volumes: s
                .volumes
                .iter()
                .map(|v| VolumeValues {
                    area: u32::from(v.area),
                    min_y: v.min_y,
                    max_y: v.max_y,
                    polygon: v.polygon.clone(),
                    copies: 1,
                })
                .collect(),
        }
    }

    /// The demo settings (`spec/build3d.md` §3.1).
    pub fn demo() -> Self {
        Self::of(&onav_build3d::SettingsSpec::default())
    }

    /// The length of the encoding.
    pub fn encoded_len(&self) -> u64 {
        let per = |v: &VolumeValues| u64::from(v.copies) * (24 + 16 * v.polygon.len() as u64);
        108 + self.volumes.iter().map(per).sum::<u64>()
    }

    /// The encoding of B8, little-endian, without any check.
    pub fn encode(&self) -> Vec<u8> {
        let mut w = onav::bytes::Writer::with_capacity(self.encoded_len() as usize);
        w.header(*b"ONB3", 1);
        for v in [
            self.cell_size,
            self.cell_height,
            self.agent_height,
            self.agent_radius,
            self.agent_climb,
            self.max_slope_deg,
        ] {
            w.f64(v);
        }
        w.u32(self.region_min_area);
        w.u32(self.region_merge_area);
        w.f64(self.max_edge_len);
        w.f64(self.max_edge_error);
        w.u32(self.verts_per_poly);
        w.f64(self.detail_sample_dist);
        w.f64(self.detail_sample_max_error);
        w.u32(self.tile_size);
        let count: u64 = self.volumes.iter().map(|v| u64::from(v.copies)).sum();
        w.u32(u32::try_from(count).unwrap_or(u32::MAX));
        for v in &self.volumes {
            for _ in 0..v.copies {
                w.u32(v.area);
                w.f64(v.min_y);
                w.f64(v.max_y);
                w.u32(v.polygon.len() as u32);
                for p in &v.polygon {
                    w.f64(p[0]);
                    w.f64(p[1]);
                }
            }
        }
        w.into_inner()
    }
}

impl SettingsStep {
    /// The step's values: its own fields over `like`'s values (or the demo settings).
    pub fn resolve(&self, like: Option<&SettingsValues>) -> SettingsValues {
        let b = like.cloned().unwrap_or_else(SettingsValues::demo);
        let f = |o: Option<Exact>, d: f64| o.map_or(d, |x| x.0);
        SettingsValues {
            cell_size: f(self.cell_size, b.cell_size),
            cell_height: f(self.cell_height, b.cell_height),
            agent_height: f(self.agent_height, b.agent_height),
            agent_radius: f(self.agent_radius, b.agent_radius),
            agent_climb: f(self.agent_climb, b.agent_climb),
            max_slope_deg: f(self.max_slope_deg, b.max_slope_deg),
            region_min_area: self.region_min_area.unwrap_or(b.region_min_area),
            region_merge_area: self.region_merge_area.unwrap_or(b.region_merge_area),
            max_edge_len: f(self.max_edge_len, b.max_edge_len),
            max_edge_error: f(self.max_edge_error, b.max_edge_error),
            verts_per_poly: self.verts_per_poly.unwrap_or(b.verts_per_poly),
            detail_sample_dist: f(self.detail_sample_dist, b.detail_sample_dist),
            detail_sample_max_error: f(self.detail_sample_max_error, b.detail_sample_max_error),
            tile_size: self.tile_size.unwrap_or(b.tile_size),
            volumes: match &self.volumes {
                Some(vs) => vs
                    .iter()
                    .map(|v| VolumeValues {
                        area: v.area,
                        min_y: v.min_y.0,
                        max_y: v.max_y.0,
                        polygon: v.polygon.iter().map(|p| [p[0].0, p[1].0]).collect(),
                        copies: v.copies.map_or(1, |c| c.value),
                    })
                    .collect(),
                None => b.volumes,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::check::{CheckError, StepError};
    use crate::scenario::{load_str, test_text, LoadReason, RepeatFault};

    fn refused(steps: &str) -> CheckError {
        let text = test_text("build3d/y_t", "build3d", steps);
        match load_str("build3d/y_t", &text) {
            Err(LoadReason::Check(e)) => e,
            other => panic!("expected a check error, got {other:?}"),
        }
    }

    const BUILD: &str = "  - bytes: {name: g, text: \"v 0 0 0\\n\"}\n  - settings: {name: s}\n  \
                         - build: {obj: g, settings: s, name: b}\n";

    /// `repeat` (`spec/conformance.md` §1.13): copy k moves every vertex by k · step, other
    /// lines are copied, numbers are written as Rust writes an f64; with hex or file, or no
    /// copies, the step is refused at load.
    #[test]
    fn repeat_moves_each_copy_by_its_step() {
        let r = crate::scenario::RepeatText {
            text: "v 0.1 0 1\nf -1 -1 -1\n".into(),
            copies: 3,
            step: [Exact(0.2), Exact(2.0), Exact(-1.0)],
        };
        let got = String::from_utf8(r.expand("", 1 << 20).unwrap()).unwrap();
        assert_eq!(
            got,
            "v 0.1 0 1\nf -1 -1 -1\nv 0.30000000000000004 2 0\nf -1 -1 -1\nv 0.5 4 -1\nf -1 -1 -1\n"
        );
        assert_eq!(r.expand("", got.len() as u64).unwrap(), got.as_bytes());
        assert_eq!(
            r.expand("", got.len() as u64 - 1),
            Err(RepeatFault::TooLong {
                max: got.len() as u64 - 1
            }),
            "one byte over the limit stops the copies"
        );
        assert_eq!(
            String::from_utf8(r.expand("# h\n", 1 << 20).unwrap()).unwrap(),
            format!("# h\n{got}"),
            "the head comes first"
        );
        let bad = crate::scenario::RepeatText {
            text: "v 1 2\n".into(),
            ..r.clone()
        };
        assert_eq!(
            bad.expand("", 1 << 20),
            Err(RepeatFault::Vertex),
            "a v line needs three numbers"
        );
        // Numbers print without an exponent, so a huge coordinate is hundreds of bytes: the
        // copies stop at the limit, having made at most one line past it.
        let huge = crate::scenario::RepeatText {
            text: "v 1e300 1e300 1e300\n".into(),
            copies: u32::MAX,
            step: [Exact(0.0), Exact(0.0), Exact(0.0)],
        };
        assert_eq!(
            huge.expand("", 1 << 16),
            Err(RepeatFault::TooLong { max: 1 << 16 })
        );
        // An empty text makes no bytes, without looping over its copies.
        let empty = crate::scenario::RepeatText {
            text: String::new(),
            ..huge.clone()
        };
        assert_eq!(empty.expand("x", 1 << 16), Ok(b"x".to_vec()));
        let rep = "repeat: {text: \"v 0 0 0\\n\", copies: 2, step: [0, 1, 0]}";
        let ok = format!(
            "  - bytes: {{name: g, text: \"f -1 -1 -1\\n\", {rep}}}\n  - expect: {{length: 18}}\n"
        );
        assert!(load_str("build3d/y_t", &test_text("build3d/y_t", "build3d", &ok)).is_ok());
        for bad in [
            format!("  - bytes: {{name: g, hex: '00', {rep}}}\n"),
            "  - bytes: {name: g, repeat: {text: \"v 0 0 0\\n\", copies: 0, step: [0, 1, 0]}}\n"
                .to_string(),
        ] {
            assert_eq!(
                refused(&bad),
                CheckError::Step {
                    step: 1,
                    reason: StepError::BytesSource
                }
            );
        }
    }

    /// The load-time checks of build steps (`spec/conformance.md` §1.8), each with its error.
    #[test]
    fn build_steps_are_checked_at_load() {
        let ok = format!("{BUILD}  - expect: {{tiles: [[0, 0, 0]], golden: t}}\n");
        let case = load_str("build3d/y_t", &test_text("build3d/y_t", "build3d", &ok)).unwrap();
        assert_eq!(
            crate::suite::declared_goldens(&case),
            ["build3d/y_t/t-c0-r0-l0"],
            "a build declares one golden per tile"
        );
        let text = test_text("build3d/y_t", "", &ok);
        assert!(matches!(
            load_str("build3d/y_t", &text),
            Err(LoadReason::Check(CheckError::Unlisted {
                feature: "build3d"
            }))
        ));
        let e = refused(&format!("{BUILD}  - expect: {{golden: t}}\n"));
        assert_eq!(
            e,
            CheckError::Step {
                step: 4,
                reason: StepError::BuildGoldenWithoutTiles
            }
        );
        let e = refused("  - bytes: {name: g, hex: '00'}\n  - expect: {tiles: []}\n");
        assert_eq!(
            e,
            CheckError::Step {
                step: 2,
                reason: StepError::NotABuild { step: "bytes" }
            }
        );
        let e = refused("  - bytes: {name: g, hex: '00'}\n  - settings: {name: s, like: g}\n");
        assert_eq!(
            e,
            CheckError::Step {
                step: 2,
                reason: StepError::NotSettings { name: "g".into() }
            }
        );
        let e = refused("  - bytes: {name: g, hex: '00', text: x}\n");
        assert_eq!(
            e,
            CheckError::Step {
                step: 1,
                reason: StepError::BytesSource
            }
        );
        let e = refused(&format!(
            "{BUILD}  - expect: {{tiles: [[0, 0, 0], [0, 0, 0]], golden: t}}\n"
        ));
        assert_eq!(
            e,
            CheckError::Step {
                step: 4,
                reason: StepError::GoldenTwice {
                    label: "t-c0-r0-l0".into()
                }
            }
        );
    }

    /// The step's encoding is the builder's canonical encoding for valid settings (B8): the
    /// harness writes the bytes from the spec's table, the builder from its own code.
    #[test]
    fn the_encoding_is_the_builders() {
        let demo = onav_build3d::Settings::new(onav_build3d::SettingsSpec::default()).unwrap();
        assert_eq!(SettingsValues::demo().encode(), demo.to_bytes());
        let spec = onav_build3d::SettingsSpec {
            cell_size: 0.5,
            tile_size: 16,
            detail_sample_dist: 0.0,
            volumes: vec![onav_build3d::VolumeSpec {
                area: 5,
                min_y: -1.0,
                max_y: 2.5,
                polygon: vec![[0.0, 0.0], [4.0, 0.0], [4.0, 4.0], [0.0, 4.0]],
            }],
            ..onav_build3d::SettingsSpec::default()
        };
        let s = onav_build3d::Settings::new(spec.clone()).unwrap();
        let v = SettingsValues::of(&spec);
        assert_eq!(v.encode(), s.to_bytes());
        assert_eq!(v.encoded_len(), s.to_bytes().len() as u64);
        let two = SettingsValues {
            volumes: vec![VolumeValues {
                copies: 2,
                ..v.volumes[0].clone()
            }],
            ..v.clone()
        };
        let both = onav_build3d::Settings::new(onav_build3d::SettingsSpec {
            volumes: vec![spec.volumes[0].clone(), spec.volumes[0].clone()],
            ..spec
        })
        .unwrap();
        assert_eq!(two.encode(), both.to_bytes(), "copies are written in a row");
    }
}
