//! Queries on the wire (`spec/conformance.md` §2.2): the four query ops, the keys of their `args`
//! objects, how a backend decodes them, and the names of path statuses and raycast stops.

use serde_json::Value;

use super::ref_from_hex;

/// Which query.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    /// `find_nearest_poly`.
    Nearest,
    /// `find_path`.
    Path,
    /// `find_straight_path`.
    StraightPath,
    /// `raycast`.
    Raycast,
}

impl Op {
    /// The op of a wire or step name.
    pub fn of(name: &str) -> Option<Self> {
        Some(match name {
            "find_nearest_poly" => Op::Nearest,
            "find_path" => Op::Path,
            "find_straight_path" => Op::StraightPath,
            "raycast" => Op::Raycast,
            _ => return None,
        })
    }

    /// The scenario feature it needs.
    pub fn feature(self) -> &'static str {
        match self {
            Op::Nearest => "query-nearest",
            Op::Path => "query-path",
            Op::StraightPath => "query-straight-path",
            Op::Raycast => "query-raycast",
        }
    }

    /// The keys its `args` take (beyond `max_nodes`): required, then optional.
    pub(crate) fn keys(self) -> (&'static [&'static str], &'static [&'static str]) {
        match self {
            Op::Nearest => (&["center", "half_extents"], &["filter"]),
            Op::Path => (
                &["start_ref", "end_ref", "start_pos", "end_pos"],
                &["filter"],
            ),
            Op::StraightPath => (
                &["start_pos", "end_pos", "corridor"],
                &["area_crossings", "all_crossings"],
            ),
            Op::Raycast => (&["start_ref", "start_pos", "end_pos"], &["filter", "costs"]),
        }
    }
}

/// `find_path` status names on the wire.
pub fn status_name(s: onav::query::PathStatus) -> &'static str {
    match s {
        onav::query::PathStatus::Complete => "complete",
        onav::query::PathStatus::Partial => "partial",
        onav::query::PathStatus::OutOfNodes => "out_of_nodes",
    }
}

/// `raycast` stop names on the wire.
pub fn stop_name(s: &onav::query::RaycastStop) -> &'static str {
    match s {
        onav::query::RaycastStop::Reached => "reached",
        onav::query::RaycastStop::Wall { .. } => "wall",
        onav::query::RaycastStop::Missed => "missed",
        onav::query::RaycastStop::VisitLimit => "visit_limit",
    }
}

/// Decoded query arguments.
#[derive(Debug, Clone, PartialEq)]
#[allow(missing_docs)]
pub struct Args {
    pub op: Op,
    pub max_nodes: u32,
    pub center: [f64; 3],
    pub half_extents: [f64; 3],
    pub start_ref: u64,
    pub end_ref: u64,
    pub start_pos: [f64; 3],
    pub end_pos: [f64; 3],
    pub corridor: Vec<u64>,
    pub include: u16,
    pub exclude: u16,
    pub area_costs: Vec<(u8, f64)>,
    pub area_crossings: bool,
    pub all_crossings: bool,
    pub costs: bool,
}

fn point(v: &Value, k: &str) -> Result<[f64; 3], String> {
    let a = v
        .as_array()
        .filter(|a| a.len() == 3)
        .ok_or_else(|| format!("{k} is an array of 3 numbers"))?;
    let mut out = [0.0; 3];
    for (o, x) in out.iter_mut().zip(a) {
        *o = x
            .as_f64()
            .ok_or_else(|| format!("{k} is an array of 3 numbers"))?;
    }
    Ok(out)
}

fn reference(v: &Value, k: &str) -> Result<u64, String> {
    v.as_str()
        .and_then(ref_from_hex)
        .ok_or_else(|| format!("{k} is a \"0x…\" reference"))
}

fn boolean(v: &Value, k: &str) -> Result<bool, String> {
    v.as_bool().ok_or_else(|| format!("{k} is true or false"))
}

fn uint(v: &Value, k: &str, max: u64) -> Result<u64, String> {
    v.as_u64()
        .filter(|&n| n <= max)
        .ok_or_else(|| format!("{k} is an integer 0 ..= {max}"))
}

impl Args {
    /// Decodes the `args` of query op `op`. Unknown or missing keys and ill-typed values are
    /// errors (a malformed request, answered `error`); values the query itself refuses (NaN
    /// cannot occur in JSON; negative extents, bad costs, invalid references) are not.
    pub fn parse(op: &str, v: &Value) -> Result<Self, String> {
        let op = Op::of(op).ok_or_else(|| format!("{op} is not a query"))?;
        let o = v.as_object().ok_or("args is an object")?;
        let (required, optional) = op.keys();
        for k in o.keys() {
            if k != "max_nodes"
                && !required.contains(&k.as_str())
                && !optional.contains(&k.as_str())
            {
                return Err(format!("args key {k:?} is not one of this query's"));
            }
        }
        for k in required.iter().chain(std::iter::once(&"max_nodes")) {
            if !o.contains_key(*k) {
                return Err(format!("args needs {k:?}"));
            }
        }
        let mut a = Args {
            op,
            max_nodes: uint(&o["max_nodes"], "max_nodes", u64::from(u32::MAX))? as u32,
            center: [0.0; 3],
            half_extents: [0.0; 3],
            start_ref: 0,
            end_ref: 0,
            start_pos: [0.0; 3],
            end_pos: [0.0; 3],
            corridor: Vec::new(),
            include: 0xffff,
            exclude: 0,
            area_costs: Vec::new(),
            area_crossings: false,
            all_crossings: false,
            costs: false,
        };
        for (k, v) in o {
            match k.as_str() {
                "center" => a.center = point(v, k)?,
                "half_extents" => a.half_extents = point(v, k)?,
                "start_ref" => a.start_ref = reference(v, k)?,
                "end_ref" => a.end_ref = reference(v, k)?,
                "start_pos" => a.start_pos = point(v, k)?,
                "end_pos" => a.end_pos = point(v, k)?,
                "corridor" => {
                    a.corridor = v
                        .as_array()
                        .ok_or("corridor is an array of references")?
                        .iter()
                        .map(|r| reference(r, "corridor"))
                        .collect::<Result<_, _>>()?;
                }
                "area_crossings" => a.area_crossings = boolean(v, k)?,
                "all_crossings" => a.all_crossings = boolean(v, k)?,
                "costs" => a.costs = boolean(v, k)?,
                "filter" => {
                    let f = v.as_object().ok_or("filter is an object")?;
                    for (fk, fv) in f {
                        match fk.as_str() {
                            "include" => a.include = uint(fv, "include", 0xffff)? as u16,
                            "exclude" => a.exclude = uint(fv, "exclude", 0xffff)? as u16,
                            "area_costs" => {
                                for pair in fv.as_array().ok_or("area_costs is an array")? {
                                    let p = pair
                                        .as_array()
                                        .filter(|p| p.len() == 2)
                                        .ok_or("area_costs holds [area, cost] pairs")?;
                                    let area = uint(&p[0], "area", 255)? as u8;
                                    let cost = p[1].as_f64().ok_or("a cost is a number")?;
                                    a.area_costs.push((area, cost));
                                }
                            }
                            other => return Err(format!("filter key {other:?} is unknown")),
                        }
                    }
                }
                _ => {}
            }
        }
        Ok(a)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn args_are_strict() {
        let ok = json!({"max_nodes": 4, "center": [0.0, 1.0, 2.0], "half_extents": [1, 1, 1]});
        let a = Args::parse("find_nearest_poly", &ok).unwrap();
        assert_eq!(a.center, [0.0, 1.0, 2.0]);
        assert!(Args::parse(
            "find_nearest_poly",
            &json!({"max_nodes": 4, "center": [0, 0, 0]})
        )
        .is_err());
        assert!(Args::parse("find_path", &ok).is_err());
        let extra =
            json!({"max_nodes": 4, "center": [0, 0, 0], "half_extents": [1, 1, 1], "costs": true});
        assert!(Args::parse("find_nearest_poly", &extra).is_err());
        let f = json!({"max_nodes": 4, "start_ref": "0x1", "start_pos": [0,0,0], "end_pos": [1,0,0],
            "filter": {"include": 3, "area_costs": [[1, 0.5]]}, "costs": true});
        let a = Args::parse("raycast", &f).unwrap();
        assert_eq!(
            (a.include, a.area_costs.clone(), a.costs),
            (3, vec![(1, 0.5)], true)
        );
    }
}
