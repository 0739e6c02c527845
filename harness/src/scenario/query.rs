//! Query steps and expectations in scenarios (`spec/conformance.md` §2.1, §2.3). Points are
//! `[x, y, z]` arrays of exact binary64 numbers; references are reference specs.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

use super::numbers::{Exact, WireFloat};
use super::refs::RefError;
use crate::limits::DEFAULT_MAX_NODES;
use crate::protocol::query::Op;
use crate::protocol::wire::float;

/// A query step with keys its query does not take, or without one it needs.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum QueryKeyError {
    /// A key the query does not take.
    #[error("this query takes no {key}")]
    TakesNo {
        /// The key.
        key: &'static str,
    },
    /// A key the query needs.
    #[error("this query needs {key}")]
    Needs {
        /// The key.
        key: &'static str,
    },
}

/// A query filter in a scenario.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FilterSpec {
    /// Include flags (default 0xffff).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include: Option<u16>,
    /// Exclude flags (default 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exclude: Option<u16>,
    /// Area costs by area (default 1.0 each).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub area_costs: BTreeMap<u8, WireFloat>,
}

/// A query step: `find_nearest_poly`, `find_path`, `find_straight_path` or `raycast`. Which keys
/// each takes is checked at load ([`QueryStep::check`]).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(missing_docs)]
pub struct QueryStep {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mesh: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_nodes: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub center: Option<[WireFloat; 3]>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub half_extents: Option<[WireFloat; 3]>,
    /// Start polygon (a reference spec).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start: Option<String>,
    /// End polygon (a reference spec).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_pos: Option<[WireFloat; 3]>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end_pos: Option<[WireFloat; 3]>,
    /// Corridor polygons (reference specs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub corridor: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filter: Option<FilterSpec>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub area_crossings: bool,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub all_crossings: bool,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub costs: bool,
}

impl QueryStep {
    /// The load-time check of the keys: exactly those `op` takes.
    pub fn check_keys(&self, op: Op) -> Result<(), QueryKeyError> {
        let have: [(&'static str, bool); 10] = [
            ("center", self.center.is_some()),
            ("half_extents", self.half_extents.is_some()),
            ("start", self.start.is_some()),
            ("end", self.end.is_some()),
            ("start_pos", self.start_pos.is_some()),
            ("end_pos", self.end_pos.is_some()),
            ("corridor", self.corridor.is_some()),
            ("filter", self.filter.is_some()),
            ("area_crossings", self.area_crossings || self.all_crossings),
            ("costs", self.costs),
        ];
        let (required, optional) = op.keys();
        fn wire(k: &str) -> &str {
            match k {
                "start" => "start_ref",
                "end" => "end_ref",
                other => other,
            }
        }
        for (key, present) in have {
            let w = wire(key);
            let allowed = required.contains(&w)
                || optional.contains(&w)
                || (w == "area_crossings" && optional.contains(&"all_crossings"));
            if present && !allowed {
                return Err(QueryKeyError::TakesNo { key });
            }
            if !present && required.contains(&w) {
                return Err(QueryKeyError::Needs { key });
            }
        }
        Ok(())
    }

    /// The references it names: start, end and the corridor.
    pub fn refs(&self) -> impl Iterator<Item = &String> {
        self.start
            .iter()
            .chain(self.end.iter())
            .chain(self.corridor.iter().flatten())
    }

    /// The wire `args`, references resolved by `resolve`.
    pub fn args(
        &self,
        resolve: &dyn Fn(&str) -> Result<String, RefError>,
    ) -> Result<Value, RefError> {
        let p = |v: &[WireFloat; 3]| json!([float(v[0].0), float(v[1].0), float(v[2].0)]);
        let mut o = Map::new();
        o.insert(
            "max_nodes".into(),
            json!(self.max_nodes.unwrap_or(DEFAULT_MAX_NODES)),
        );
        if let Some(v) = &self.center {
            o.insert("center".into(), p(v));
        }
        if let Some(v) = &self.half_extents {
            o.insert("half_extents".into(), p(v));
        }
        if let Some(r) = &self.start {
            o.insert("start_ref".into(), json!(resolve(r)?));
        }
        if let Some(r) = &self.end {
            o.insert("end_ref".into(), json!(resolve(r)?));
        }
        if let Some(v) = &self.start_pos {
            o.insert("start_pos".into(), p(v));
        }
        if let Some(v) = &self.end_pos {
            o.insert("end_pos".into(), p(v));
        }
        if let Some(c) = &self.corridor {
            let refs: Vec<String> = c.iter().map(|r| resolve(r)).collect::<Result<_, _>>()?;
            o.insert("corridor".into(), json!(refs));
        }
        if let Some(f) = &self.filter {
            let mut fo = Map::new();
            if let Some(i) = f.include {
                fo.insert("include".into(), json!(i));
            }
            if let Some(e) = f.exclude {
                fo.insert("exclude".into(), json!(e));
            }
            if !f.area_costs.is_empty() {
                let pairs: Vec<Value> = f
                    .area_costs
                    .iter()
                    .map(|(a, c)| json!([a, float(c.0)]))
                    .collect();
                fo.insert("area_costs".into(), Value::Array(pairs));
            }
            o.insert("filter".into(), Value::Object(fo));
        }
        if self.area_crossings {
            o.insert("area_crossings".into(), json!(true));
        }
        if self.all_crossings {
            o.insert("all_crossings".into(), json!(true));
        }
        if self.costs {
            o.insert("costs".into(), json!(true));
        }
        Ok(Value::Object(o))
    }
}

/// An expected point of `find_straight_path`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PointExpect {
    /// Position.
    pub pos: [Exact; 3],
    /// Flags: START 1, END 2, OFF_MESH 4.
    pub flags: u8,
    /// The polygon entered there (a reference spec).
    pub poly: String,
}

/// `query` expectations: each key given must equal the reply's (floats bitwise, references
/// resolved).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(missing_docs)]
pub struct QueryExpect {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub found: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub poly: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub point: Option<[Exact; 3]>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub over_poly: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub corridor: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost: Option<WireFloat>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub points: Option<Vec<PointExpect>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub t: Option<Exact>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub edge: Option<u8>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub normal: Option<[Exact; 3]>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub visited: Option<Vec<String>>,
}

impl QueryExpect {
    /// References it names (for the load-time check).
    pub fn refs(&self) -> Vec<&String> {
        self.poly
            .iter()
            .chain(self.corridor.iter().flatten())
            .chain(self.visited.iter().flatten())
            .chain(self.points.iter().flatten().map(|p| &p.poly))
            .collect()
    }

    /// The same expectation with every reference resolved to `"0x…"` (the compiled form).
    pub fn resolved(
        &self,
        resolve: &dyn Fn(&str) -> Result<String, RefError>,
    ) -> Result<Self, RefError> {
        let list = |v: &Option<Vec<String>>| -> Result<Option<Vec<String>>, RefError> {
            v.as_ref()
                .map(|v| v.iter().map(|r| resolve(r)).collect())
                .transpose()
        };
        let mut out = self.clone();
        out.poly = self.poly.as_deref().map(resolve).transpose()?;
        out.corridor = list(&self.corridor)?;
        out.visited = list(&self.visited)?;
        if let Some(points) = &mut out.points {
            for p in points {
                p.poly = resolve(&p.poly)?;
            }
        }
        Ok(out)
    }

    /// The expected reply fields as JSON, references resolved.
    pub fn to_json(
        &self,
        resolve: &dyn Fn(&str) -> Result<String, RefError>,
    ) -> Result<Map<String, Value>, RefError> {
        let p = |v: &[Exact; 3]| json!([v[0].0, v[1].0, v[2].0]);
        let refs = |v: &[String]| -> Result<Value, RefError> {
            Ok(json!(v
                .iter()
                .map(|r| resolve(r))
                .collect::<Result<Vec<_>, _>>()?))
        };
        let mut o = Map::new();
        if let Some(v) = self.found {
            o.insert("found".into(), json!(v));
        }
        if let Some(v) = &self.poly {
            o.insert("poly".into(), json!(resolve(v)?));
        }
        if let Some(v) = &self.point {
            o.insert("point".into(), p(v));
        }
        if let Some(v) = self.over_poly {
            o.insert("over_poly".into(), json!(v));
        }
        if let Some(v) = &self.corridor {
            o.insert("corridor".into(), refs(v)?);
        }
        if let Some(v) = &self.status {
            o.insert("status".into(), json!(v));
        }
        if let Some(v) = self.cost {
            o.insert("cost".into(), float(v.0));
        }
        if let Some(v) = &self.points {
            let mut pts = Vec::new();
            for q in v {
                pts.push(json!({"pos": p(&q.pos), "flags": q.flags, "poly": resolve(&q.poly)?}));
            }
            o.insert("points".into(), Value::Array(pts));
        }
        if let Some(v) = self.t {
            o.insert("t".into(), json!(v.0));
        }
        if let Some(v) = &self.stop {
            o.insert("stop".into(), json!(v));
        }
        if let Some(v) = self.edge {
            o.insert("edge".into(), json!(v));
        }
        if let Some(v) = &self.normal {
            o.insert("normal".into(), p(v));
        }
        if let Some(v) = &self.visited {
            o.insert("visited".into(), refs(v)?);
        }
        Ok(o)
    }
}
