//! Local steps (`spec/conformance.md` §1.3): worlds, generated tiles, inline and file bytes, raw
//! tile edits and patches. The runner computes them; they are always accepted, and every byte
//! string they make is kept for the compiled suite.

use std::collections::BTreeMap;

use onav::generator::WorldSpec;
use onav::{AgentSizes, NavTile, RawTile};

use super::{harness, Done, Exec, Stop, R};
use crate::exec::Status;
use crate::files::patch;
use crate::scenario::{parse_hex, world, RawEdit, RepeatFault, Step};

impl Exec<'_> {
    /// Runs a local step.
    pub(super) fn local(&mut self, step: &Step) -> R<Done> {
        match step {
            // The load-time checks ranged every world and position already; a scenario built in
            // code has not been through them, so the same checks run again here.
            Step::World(w) => {
                let like = match &w.like {
                    Some(l) => Some(self.env.world(l)?.clone()),
                    None => None,
                };
                let spec = world::world(self.index, w, like.as_ref())
                    .map_err(|e| Stop(Status::Error, e.to_string()))?;
                self.env.worlds.insert(w.name.clone(), spec);
                Ok(Done::local(None))
            }
            Step::Tile(t) => {
                let pos = world::position(self.index, t)
                    .map_err(|e| Stop(Status::Error, e.to_string()))?;
                let b = world::tile_bytes(self.env.world(&t.world)?, pos);
                self.blob(&t.name, &b);
                Ok(Done::local(Some(b)))
            }
            Step::Tiles(t) => {
                let w = self.env.world(&t.world)?.clone();
                // Counted before anything is generated or allocated.
                let count = world::tile_count(&w);
                if count != t.names.len() as u64 {
                    return harness(format!(
                        "world {} has {count} tiles; {} names given",
                        t.world,
                        t.names.len()
                    ));
                }
                for (b, n) in world::tiles_bytes(&w).iter().zip(&t.names) {
                    self.blob(n, b);
                }
                Ok(Done::local(None))
            }
            Step::Bytes(b) if b.repeat.is_some() => {
                let r = b.repeat.as_ref().expect("matched");
                let head = b.text.as_deref().unwrap_or_default();
                let v = match r.expand(head, self.opts.max_bytes as u64) {
                    Ok(v) => v,
                    Err(RepeatFault::Vertex) => {
                        return harness("repeat: a v line without three finite numbers")
                    }
                    Err(RepeatFault::TooLong { max }) => {
                        return harness(format!(
                            "repeat: more than the {max} bytes a step may make"
                        ))
                    }
                };
                self.blob(&b.name, &v);
                Ok(Done::local(Some(v)))
            }
            Step::Bytes(b) => {
                let v = match (&b.hex, &b.file) {
                    (None, None) if b.text.is_some() => {
                        b.text.as_deref().unwrap_or_default().as_bytes().to_vec()
                    }
                    (Some(h), _) => parse_hex(h).map_err(|e| Stop(Status::Error, e.to_string()))?,
                    (None, Some(f)) => {
                        let p = self.opts.files.join(f);
                        let max = self.opts.max_bytes;
                        match std::fs::metadata(&p).map(|m| m.len()) {
                            Ok(n) if n > max as u64 => {
                                return harness(format!(
                                    "{}: {n} bytes, more than the {max} a step may make",
                                    p.display()
                                ))
                            }
                            _ => {}
                        }
                        match std::fs::read(&p) {
                            Ok(v) => v,
                            Err(e) => return harness(format!("{}: {e}", p.display())),
                        }
                    }
                    (None, None) => return harness("bytes without hex or file"),
                };
                self.blob(&b.name, &v);
                Ok(Done::local(Some(v)))
            }
            Step::RawTile(r) => {
                let src = self.env.bytes(&r.from)?;
                let tile = match NavTile::from_bytes(&src) {
                    Ok(t) => t,
                    Err(e) => return harness(format!("raw_tile needs a valid tile: {e}")),
                };
                let mut raw = RawTile::from_tile(&tile);
                for e in &r.edits {
                    raw_edit(&mut raw, e, &self.env.worlds)?;
                }
                let b = raw.to_bytes();
                self.blob(&r.name, &b);
                Ok(Done::local(Some(b)))
            }
            Step::Patch(p) => {
                let src = self.env.bytes(&p.from)?;
                let blobs = &self.env.bytes;
                let (b, low) = patch::apply(
                    &src,
                    &p.edits,
                    &|n| blobs.get(n).cloned(),
                    self.opts.max_bytes,
                )
                .map_err(|e| Stop(Status::Error, format!("patch {}: {e}", p.name)))?;
                self.lower.patch(p, &low);
                self.env.define_bytes(&p.name, b.clone());
                Ok(Done::local(Some(b)))
            }
            Step::Settings(s) => self.settings_step(s),
            other => harness(format!("{} is not a local step", other.key())),
        }
    }

    /// Bytes the runner computed: named, and kept as a file of the compiled suite.
    pub(super) fn blob(&mut self, name: &str, b: &[u8]) {
        self.lower.blob(name, b);
        self.env.define_bytes(name, b.to_vec());
    }
}

fn raw_edit(t: &mut RawTile, e: &RawEdit, worlds: &BTreeMap<String, WorldSpec>) -> R<()> {
    match e {
        RawEdit::SetVertex { index, value } => match t.vertices.get_mut(*index as usize) {
            Some(v) => *v = value.map(|x| x.0),
            None => return harness(format!("raw_tile: no vertex {index}")),
        },
        RawEdit::SetArea { poly, value } => match t.areas.get_mut(*poly as usize) {
            Some(a) => *a = *value,
            None => return harness(format!("raw_tile: no polygon {poly}")),
        },
        RawEdit::SetFlags { poly, value } => match t.flags.get_mut(*poly as usize) {
            Some(f) => *f = *value,
            None => return harness(format!("raw_tile: no polygon {poly}")),
        },
        RawEdit::AddLink {
            start,
            end,
            radius,
            bidirectional,
            user_id,
        } => t.push_link(
            start.map(|x| x.0),
            end.map(|x| x.0),
            radius.0,
            if *bidirectional {
                onav::LinkDirection::Bidirectional
            } else {
                onav::LinkDirection::OneWay
            },
            *user_id,
        ),
        RawEdit::ClearLinks => {
            let g = t.polys.len();
            t.links.clear();
            t.areas.truncate(g);
            t.flags.truncate(g);
        }
        RawEdit::DigestOf(w) => match worlds.get(w) {
            Some(w) => t.digest = onav::SettingsDigest(world::digest(w)),
            None => return harness(format!("no world {w:?}")),
        },
        RawEdit::Agent(a) => {
            t.agent = AgentSizes {
                height: a.height.0,
                radius: a.radius.0,
                climb: a.climb.0,
            }
        }
    }
    Ok(())
}
