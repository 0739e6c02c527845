//! Queries on the wire (`spec/conformance.md` §2.2): the query ops, the keys of their `args`
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
    /// `corridor_cost`: the cost of a given corridor (`spec/queries.md` P6).
    CorridorCost,
}

impl Op {
    /// The op of a wire or step name.
    pub fn of(name: &str) -> Option<Self> {
        Some(match name {
            "find_nearest_poly" => Op::Nearest,
            "find_path" => Op::Path,
            "find_straight_path" => Op::StraightPath,
            "raycast" => Op::Raycast,
            "corridor_cost" => Op::CorridorCost,
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
            // The path search's cost model: a port that finds paths can cost corridors.
            Op::CorridorCost => "query-path",
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
            Op::CorridorCost => (&["corridor", "start_pos", "end_pos"], &["filter"]),
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

/// Query `args` that do not decode: a malformed request, answered `error`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ArgsError {
    /// An op that is not a query.
    #[error("{op} is not a query")]
    NotAQuery {
        /// The op.
        op: String,
    },
    /// `args` that is not an object.
    #[error("args is an object")]
    NotAnObject,
    /// A key the query does not take.
    #[error("args key {key:?} is not one of this query's")]
    UnknownKey {
        /// The key.
        key: String,
    },
    /// A key the query needs.
    #[error("args needs {key:?}")]
    Missing {
        /// The key.
        key: &'static str,
    },
    /// A point that is not 3 numbers.
    #[error("{key} is an array of 3 numbers")]
    Point {
        /// The key.
        key: String,
    },
    /// A reference that is not `"0x…"`.
    #[error("{key} is a \"0x…\" reference")]
    Reference {
        /// The key.
        key: String,
    },
    /// A flag that is not a boolean.
    #[error("{key} is true or false")]
    Boolean {
        /// The key.
        key: String,
    },
    /// An integer out of its range.
    #[error("{key} is an integer 0 ..= {max}")]
    Integer {
        /// The key.
        key: String,
        /// The largest value.
        max: u64,
    },
    /// A corridor that is not an array.
    #[error("corridor is an array of references")]
    Corridor,
    /// A filter that is not an object.
    #[error("filter is an object")]
    Filter,
    /// Area costs that are not an array.
    #[error("area_costs is an array")]
    AreaCosts,
    /// An area cost that is not `[area, cost]`.
    #[error("area_costs holds [area, cost] pairs")]
    AreaCostPair,
    /// A cost that is not a number.
    #[error("a cost is a number")]
    Cost,
    /// A filter key that does not exist.
    #[error("filter key {key:?} is unknown")]
    FilterKey {
        /// The key.
        key: String,
    },
}

fn point(v: &Value, k: &str) -> Result<[f64; 3], ArgsError> {
    let bad = || ArgsError::Point { key: k.to_owned() };
    let a = v.as_array().filter(|a| a.len() == 3).ok_or_else(bad)?;
    let mut out = [0.0; 3];
    for (o, x) in out.iter_mut().zip(a) {
        *o = super::wire::float_from(x).ok_or_else(bad)?;
    }
    Ok(out)
}

fn reference(v: &Value, k: &str) -> Result<u64, ArgsError> {
    v.as_str()
        .and_then(ref_from_hex)
        .ok_or_else(|| ArgsError::Reference { key: k.to_owned() })
}

fn boolean(v: &Value, k: &str) -> Result<bool, ArgsError> {
    v.as_bool()
        .ok_or_else(|| ArgsError::Boolean { key: k.to_owned() })
}

fn uint(v: &Value, k: &str, max: u64) -> Result<u64, ArgsError> {
    v.as_u64()
        .filter(|&n| n <= max)
        .ok_or_else(|| ArgsError::Integer {
            key: k.to_owned(),
            max,
        })
}

impl Args {
    /// Decodes the `args` of query op `op`. Unknown or missing keys and ill-typed values are
    /// errors (a malformed request, answered `error`); values the query itself refuses (NaN
    /// cannot occur in JSON; negative extents, bad costs, invalid references) are not.
    pub fn parse(op: &str, v: &Value) -> Result<Self, ArgsError> {
        let op = Op::of(op).ok_or_else(|| ArgsError::NotAQuery { op: op.to_owned() })?;
        let o = v.as_object().ok_or(ArgsError::NotAnObject)?;
        let (required, optional) = op.keys();
        for k in o.keys() {
            if k != "max_nodes"
                && !required.contains(&k.as_str())
                && !optional.contains(&k.as_str())
            {
                return Err(ArgsError::UnknownKey { key: k.clone() });
            }
        }
        for &key in required.iter().chain(std::iter::once(&"max_nodes")) {
            if !o.contains_key(key) {
                return Err(ArgsError::Missing { key });
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
                        .ok_or(ArgsError::Corridor)?
                        .iter()
                        .map(|r| reference(r, "corridor"))
                        .collect::<Result<_, _>>()?;
                }
                "area_crossings" => a.area_crossings = boolean(v, k)?,
                "all_crossings" => a.all_crossings = boolean(v, k)?,
                "costs" => a.costs = boolean(v, k)?,
                "filter" => {
                    let f = v.as_object().ok_or(ArgsError::Filter)?;
                    for (fk, fv) in f {
                        match fk.as_str() {
                            "include" => a.include = uint(fv, "include", 0xffff)? as u16,
                            "exclude" => a.exclude = uint(fv, "exclude", 0xffff)? as u16,
                            "area_costs" => {
                                for pair in fv.as_array().ok_or(ArgsError::AreaCosts)? {
                                    let p = pair
                                        .as_array()
                                        .filter(|p| p.len() == 2)
                                        .ok_or(ArgsError::AreaCostPair)?;
                                    let area = uint(&p[0], "area", 255)? as u8;
                                    let cost =
                                        super::wire::float_from(&p[1]).ok_or(ArgsError::Cost)?;
                                    a.area_costs.push((area, cost));
                                }
                            }
                            other => {
                                return Err(ArgsError::FilterKey {
                                    key: other.to_owned(),
                                })
                            }
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
        assert_eq!(
            Args::parse(
                "find_nearest_poly",
                &json!({"max_nodes": 4, "center": [0, 0, 0]})
            ),
            Err(ArgsError::Missing {
                key: "half_extents"
            })
        );
        assert_eq!(
            Args::parse("find_path", &ok),
            Err(ArgsError::UnknownKey {
                key: "center".into()
            })
        );
        let extra =
            json!({"max_nodes": 4, "center": [0, 0, 0], "half_extents": [1, 1, 1], "costs": true});
        assert_eq!(
            Args::parse("find_nearest_poly", &extra),
            Err(ArgsError::UnknownKey {
                key: "costs".into()
            })
        );
        assert_eq!(
            Args::parse(
                "find_nearest_poly",
                &json!({"max_nodes": -1, "center": [0, 0, 0], "half_extents": [1, 1, 1]})
            )
            .unwrap_err()
            .to_string(),
            "max_nodes is an integer 0 ..= 4294967295"
        );
        let f = json!({"max_nodes": 4, "start_ref": "0x1", "start_pos": [0,0,0], "end_pos": [1,0,0],
            "filter": {"include": 3, "area_costs": [[1, 0.5]]}, "costs": true});
        let a = Args::parse("raycast", &f).unwrap();
        assert_eq!(
            (a.include, a.area_costs.clone(), a.costs),
            (3, vec![(1, 0.5)], true)
        );
    }
}
