//! References as scenarios write them (`spec/conformance.md` §1.2): `0x…`, `G:S:P`, `NAME`,
//! `NAME#P`.

use super::model::valid_name;
use crate::protocol::ref_to_hex;

/// A reference as written in a scenario.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RefSpec {
    /// `0x…`: any u64, forged or not.
    Raw(u64),
    /// `G:S:P`: generation, slot and polygon packed as the spec says.
    Packed {
        /// Generation (24 bits).
        generation: u64,
        /// Slot (20 bits).
        slot: u64,
        /// Polygon (20 bits).
        poly: u64,
    },
    /// `NAME` or `NAME#P`: a stored tile reference, with polygon P (0 if absent).
    Named {
        /// The stored reference.
        name: String,
        /// Polygon index.
        poly: u64,
    },
}

impl RefSpec {
    /// Parses a reference spec.
    pub fn parse(s: &str) -> Result<Self, String> {
        let bad = || format!("reference {s:?}: write 0x…, G:S:P, NAME or NAME#P");
        if s.starts_with("0x") {
            return crate::protocol::ref_from_hex(s)
                .map(RefSpec::Raw)
                .ok_or_else(bad);
        }
        if s.contains(':') {
            let p: Vec<&str> = s.split(':').collect();
            let n: Vec<u64> = p
                .iter()
                .map(|x| x.parse::<u64>())
                .collect::<Result<_, _>>()
                .map_err(|_| bad())?;
            if n.len() != 3 || n[0] >= 1 << 24 || n[1] >= 1 << 20 || n[2] >= 1 << 20 {
                return Err(bad());
            }
            return Ok(RefSpec::Packed {
                generation: n[0],
                slot: n[1],
                poly: n[2],
            });
        }
        let (name, poly) = match s.split_once('#') {
            Some((n, p)) => (n, p.parse::<u64>().map_err(|_| bad())?),
            None => (s, 0),
        };
        if poly >= 1 << 20 || !valid_name(name) {
            return Err(bad());
        }
        Ok(RefSpec::Named {
            name: name.to_owned(),
            poly,
        })
    }

    /// The u64 value, given the stored tile references.
    pub fn resolve(&self, lookup: impl Fn(&str) -> Option<u64>) -> Option<u64> {
        match self {
            RefSpec::Raw(v) => Some(*v),
            RefSpec::Packed {
                generation,
                slot,
                poly,
            } => Some(generation << 40 | slot << 20 | poly),
            RefSpec::Named { name, poly } => lookup(name).map(|t| t | poly),
        }
    }
}

/// A reference spec resolved to `"0x…"`, given the stored tile references.
pub fn resolve_ref(spec: &str, lookup: &dyn Fn(&str) -> Option<u64>) -> Result<String, String> {
    RefSpec::parse(spec)?
        .resolve(lookup)
        .map(ref_to_hex)
        .ok_or_else(|| format!("reference {spec:?} names no stored tile reference"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_parse() {
        assert_eq!(RefSpec::parse("0x10").unwrap(), RefSpec::Raw(16));
        let p = RefSpec::parse("2:1:3").unwrap();
        assert_eq!(p.resolve(|_| None), Some(2 << 40 | 1 << 20 | 3));
        let n = RefSpec::parse("ra#5").unwrap();
        assert_eq!(n.resolve(|_| Some(1 << 40)), Some(1 << 40 | 5));
        for bad in ["1:2", "x#y", "16777216:0:0", "#3", "0xg"] {
            assert!(RefSpec::parse(bad).is_err(), "{bad}");
        }
    }
}
