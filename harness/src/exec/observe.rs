//! The state of a mesh as the runner observes it (`spec/conformance.md` §1.6): its Full snapshot,
//! and the stitched links of every polygon of every tile in it, polygons enumerated from the
//! snapshot's own decode.

use onav::limits::{MAX_POLYS, MAX_SLOTS};
use onav::{Generation, PolyIndex, SlotIndex, TileRef};
use serde_json::Value;

use super::ops::reply_bytes;
use super::{fail, harness, Exec, Outcome, R};
use crate::files::decode::{self, decode};
use crate::files::diff::first_difference;
use crate::protocol::{ref_to_hex, Request};

/// What the runner can see of a mesh: its Full snapshot and every polygon's links (and of a tile
/// cache, also its Full `ONTK` snapshot).
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Observation {
    snapshot: Vec<u8>,
    links: Vec<(String, Value)>,
    /// A tile cache's Full `ONTK` snapshot (its lists, ids and queue as well as its mesh).
    cache: Option<Vec<u8>>,
}

impl Observation {
    /// Fails with `what` and the first difference unless `a` and `b` are the same state.
    pub(super) fn same(a: &Observation, b: &Observation, what: &str) -> R<()> {
        if a.snapshot != b.snapshot {
            return fail(format!(
                "{what}: Full snapshots differ: {}",
                first_difference(&a.snapshot, &b.snapshot)
            ));
        }
        if let Some((x, y)) = a.links.iter().zip(&b.links).find(|(x, y)| x != y) {
            return fail(format!(
                "{what}: links of {} differ: {} vs {}",
                x.0, x.1, y.1
            ));
        }
        if a.links.len() != b.links.len() {
            return fail(format!("{what}: different polygon counts"));
        }
        if a.cache != b.cache {
            let d = match (&a.cache, &b.cache) {
                (Some(x), Some(y)) => first_difference(x, y),
                _ => "one is a tile cache, the other is not".into(),
            };
            return fail(format!("{what}: Full ONTK snapshots differ: {d}"));
        }
        Ok(())
    }
}

impl Exec<'_> {
    /// The Full snapshot and the links of every polygon of every tile.
    pub(super) fn observe(&mut self, mesh: &str) -> R<Observation> {
        let h = self.env.mesh(mesh)?;
        let snap = match self.call(&Request::Snapshot {
            mesh: h.clone(),
            mode: "full".into(),
        })? {
            Outcome::Ok(f) => reply_bytes(&f, "snapshot")?,
            Outcome::Rejected { class, field, .. } => {
                return harness(format!("snapshot of {mesh} rejected: {class} {field}"))
            }
        };
        let d = decode(&snap);
        if let Some((at, why)) = &d.stopped {
            return fail(format!(
                "the Full snapshot of {mesh} does not decode (byte {at}: {why})"
            ));
        }
        let get = |p: &str| match d.field(p).map(|f| &f.value) {
            Some(decode::Value::U(v)) => Some(*v),
            _ => None,
        };
        let slots = get("slots.slot_count").unwrap_or(0);
        let mut refs = Vec::new();
        for i in 0..slots {
            if get(&format!("slot[{i}].kind")) != Some(1) {
                continue;
            }
            let g = get(&format!("slot[{i}].generation")).unwrap_or(0);
            let n = get(&format!("slot[{i}].tile.polygon_count")).unwrap_or(0)
                + get(&format!("slot[{i}].tile.link_count")).unwrap_or(0);
            let (Some(generation), Some(slot), true) = (
                u32::try_from(g).ok().and_then(Generation::new),
                u32::try_from(i).ok().filter(|&s| s <= MAX_SLOTS),
                n <= u64::from(MAX_POLYS) + 1,
            ) else {
                return fail(format!(
                    "the Full snapshot of {mesh} holds a tile in slot {i} (generation {g}, {n} \
                     polygons) that no polygon reference can name"
                ));
            };
            let tile = TileRef::new(generation, SlotIndex(slot));
            refs.extend((0..n as u32).map(|p| tile.poly(PolyIndex(p)).raw()));
        }
        let mut links = Vec::with_capacity(refs.len());
        for r in refs {
            let hex = ref_to_hex(r);
            match self.call(&Request::GetPoly {
                mesh: h.clone(),
                poly_ref: hex.clone(),
            })? {
                Outcome::Ok(f) => links.push((hex, f.get("links").cloned().unwrap_or(Value::Null))),
                Outcome::Rejected { class, field, .. } => {
                    return fail(format!(
                        "get_poly {hex} of {mesh}, a polygon of its own snapshot, was rejected: {class} {field}"
                    ))
                }
            }
        }
        let cache = if self.env.caches.contains(mesh) {
            match self.call(&Request::CacheSnapshot {
                cache: h,
                mode: "full".into(),
            })? {
                Outcome::Ok(f) => Some(reply_bytes(&f, "cache_snapshot")?),
                Outcome::Rejected { class, field, .. } => {
                    return harness(format!(
                        "cache_snapshot of {mesh} rejected: {class} {field}"
                    ))
                }
            }
        } else {
            None
        };
        Ok(Observation {
            snapshot: snap,
            links,
            cache,
        })
    }
}
