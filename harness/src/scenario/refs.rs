//! References as scenarios write them (`spec/conformance.md` §1.2): `0x…`, `G:S:P`, `NAME`,
//! `NAME#P`.

use super::model::valid_name;
use onav::limits::{MAX_POLYS, MAX_SLOTS};
use onav::{Generation, PolyIndex, PolyRef, SlotIndex, TileRef};

use crate::protocol::{ref_from_hex, ref_to_hex};

/// A reference spec that does not parse or resolve.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RefError {
    /// Not one of the four forms (or a field out of its range).
    #[error("reference {text:?}: write 0x…, G:S:P, NAME or NAME#P")]
    Malformed {
        /// The spec as written.
        text: String,
    },
    /// `NAME` names no tile reference stored so far.
    #[error("reference {text:?} names no stored tile reference")]
    Unresolved {
        /// The spec as written.
        text: String,
    },
    /// `NAME#P` where the reference stored under NAME (the testee's reply) is not a tile
    /// reference, so it has no polygon P.
    #[error("reference {text:?}: {name} holds {}, which is not a tile reference", ref_to_hex(*stored))]
    NotATile {
        /// The spec as written.
        text: String,
        /// The name.
        name: String,
        /// What the testee answered for it.
        stored: u64,
    },
}

/// A reference as written in a scenario.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RefSpec {
    /// `0x…`: any u64, forged or not.
    Raw(u64),
    /// `G:S:P`: generation (1 ..= 16 777 215), slot and polygon packed as rule R1 of
    /// `spec/navmesh-format.md` says.
    Packed(PolyRef),
    /// `NAME` or `NAME#P`: a stored tile reference, with polygon P (0 if absent).
    Named {
        /// The stored reference.
        name: String,
        /// Polygon index.
        poly: PolyIndex,
    },
}

impl RefSpec {
    /// Parses a reference spec.
    pub fn parse(s: &str) -> Result<Self, RefError> {
        let bad = || RefError::Malformed { text: s.to_owned() };
        if s.starts_with("0x") {
            return ref_from_hex(s).map(RefSpec::Raw).ok_or_else(bad);
        }
        if s.contains(':') {
            let n: Vec<u32> = s
                .split(':')
                .map(str::parse)
                .collect::<Result<_, _>>()
                .map_err(|_| bad())?;
            let [g, slot, poly] = n[..] else {
                return Err(bad());
            };
            let generation = Generation::new(g).ok_or_else(bad)?;
            if slot > MAX_SLOTS || poly > MAX_POLYS {
                return Err(bad());
            }
            return Ok(RefSpec::Packed(PolyRef::new(
                generation,
                SlotIndex(slot),
                PolyIndex(poly),
            )));
        }
        let (name, poly) = match s.split_once('#') {
            Some((n, p)) => (n, p.parse::<u32>().map_err(|_| bad())?),
            None => (s, 0),
        };
        if poly > MAX_POLYS || !valid_name(name) {
            return Err(bad());
        }
        Ok(RefSpec::Named {
            name: name.to_owned(),
            poly: PolyIndex(poly),
        })
    }

    /// The u64 value, given the stored tile references; `text` is the spec as written, for
    /// errors. `NAME` is the stored reference itself, whatever it is; `NAME#P` needs a tile
    /// reference there.
    pub fn resolve(
        &self,
        text: &str,
        lookup: impl Fn(&str) -> Option<u64>,
    ) -> Result<u64, RefError> {
        match self {
            RefSpec::Raw(v) => Ok(*v),
            RefSpec::Packed(r) => Ok(r.raw()),
            RefSpec::Named { name, poly } => {
                let stored = lookup(name).ok_or_else(|| RefError::Unresolved {
                    text: text.to_owned(),
                })?;
                if poly.0 == 0 {
                    return Ok(stored);
                }
                TileRef::from_raw(stored)
                    .map(|t| t.poly(*poly).raw())
                    .ok_or_else(|| RefError::NotATile {
                        text: text.to_owned(),
                        name: name.clone(),
                        stored,
                    })
            }
        }
    }
}

/// A reference spec resolved to `"0x…"`, given the stored tile references.
pub fn resolve_ref(spec: &str, lookup: &dyn Fn(&str) -> Option<u64>) -> Result<String, RefError> {
    RefSpec::parse(spec)?.resolve(spec, lookup).map(ref_to_hex)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_parse() {
        assert_eq!(RefSpec::parse("0x10").unwrap(), RefSpec::Raw(16));
        let none = |_: &str| None;
        let p = RefSpec::parse("2:1:3").unwrap();
        assert_eq!(p.resolve("2:1:3", none), Ok(2 << 40 | 1 << 20 | 3));
        let n = RefSpec::parse("ra#5").unwrap();
        assert_eq!(n.resolve("ra#5", |_| Some(1 << 40)), Ok(1 << 40 | 5));
        assert_eq!(
            RefSpec::parse("ra").unwrap().resolve("ra", |_| Some(7)),
            Ok(7),
            "a name is the stored reference, whatever it is"
        );
        for bad in [
            "1:2",
            "x#y",
            "16777216:0:0",
            "0:1:2",
            "1:1048576:0",
            "1:0:1048576",
            "#3",
            "0xg",
            "ra#1048576",
        ] {
            assert_eq!(
                RefSpec::parse(bad),
                Err(RefError::Malformed { text: bad.into() }),
                "{bad}"
            );
        }
        assert_eq!(
            n.resolve("ra#5", none),
            Err(RefError::Unresolved {
                text: "ra#5".into()
            })
        );
        assert_eq!(
            n.resolve("ra#5", |_| Some(1 << 40 | 1)),
            Err(RefError::NotATile {
                text: "ra#5".into(),
                name: "ra".into(),
                stored: 1 << 40 | 1
            })
        );
        assert_eq!(
            RefError::NotATile {
                text: "ra#5".into(),
                name: "ra".into(),
                stored: 1
            }
            .to_string(),
            "reference \"ra#5\": ra holds 0x0000000000000001, which is not a tile reference"
        );
    }
}
