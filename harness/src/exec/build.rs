//! Build steps (`spec/conformance.md` §1.13): `settings` encodes settings locally; `build` sends
//! the `build` request and checks what comes back as one mesh ([`crate::built`]) before anything
//! is judged: a reply whose tiles break the promises of `spec/build3d.md` §15 fails the case.
//! The step's output is the mesh file of the built mesh; its tiles are judged by `tiles` and
//! per-tile goldens.

use serde_json::{Map, Value};

use super::{fail, harness, Done, Exec, Outcome, Stop, R};
use crate::built;
use crate::exec::Status;
use crate::protocol::{wire, Request};
use crate::scenario::build::{tile_label, BuildStep, SettingsStep};
use crate::scenario::Expect;

/// The decoded `params` and `tiles` of a build reply.
fn reply_parts(f: &Map<String, Value>) -> R<(Vec<u8>, Vec<Vec<u8>>)> {
    let err = |m: String| Stop(Status::Error, format!("build: {m}"));
    let text = |v: &Value, what: &str| -> R<Vec<u8>> {
        let s = v
            .as_str()
            .ok_or_else(|| err(format!("{what} is not a string")))?;
        wire::unb64(what, s).map_err(|_| err(format!("{what} is not base64")))
    };
    let params = text(f.get("params").unwrap_or(&Value::Null), "params")?;
    let tiles = f
        .get("tiles")
        .and_then(Value::as_array)
        .ok_or_else(|| err("the reply has no array \"tiles\"".into()))?
        .iter()
        .enumerate()
        .map(|(i, t)| text(t, &format!("tiles[{i}]")))
        .collect::<R<Vec<_>>>()?;
    Ok((params, tiles))
}

impl Exec<'_> {
    /// `settings`: the encoding of the step's values, kept as bytes (and its values, for `like`).
    pub(super) fn settings_step(&mut self, s: &SettingsStep) -> R<Done> {
        let like = match &s.like {
            Some(l) => match self.env.settings.get(l) {
                Some(v) => Some(v.clone()),
                None => return harness(format!("no settings named {l:?}")),
            },
            None => None,
        };
        let values = s.resolve(like.as_ref());
        let max = self.opts.max_bytes as u64;
        if values.encoded_len() > max {
            return harness(format!(
                "settings {}: {} bytes, more than the {max} a step may make",
                s.name,
                values.encoded_len()
            ));
        }
        let b = values.encode();
        self.blob(&s.name, &b);
        self.env.settings.insert(s.name.clone(), values);
        Ok(Done::local(Some(b)))
    }

    /// `build`: the request, then the built tiles checked as one mesh; the output is its mesh
    /// file.
    pub(super) fn build_step(&mut self, b: &BuildStep) -> R<Done> {
        let req = Request::Build {
            obj: wire::b64(&self.env.bytes(&b.obj)?),
            settings: wire::b64(&self.env.bytes(&b.settings)?),
        };
        let outcome = self.traced(&req)?;
        let mut done = Done {
            outcome,
            output: None,
            mesh: None,
            input: None,
            tiles: Vec::new(),
            unencodable: None,
        };
        let Outcome::Ok(f) = &done.outcome else {
            return Ok(done);
        };
        let (params, tiles) = reply_parts(f)?;
        let (params, parsed) = match built::parse(&params, &tiles) {
            Ok(p) => p,
            Err(e) => return fail(format!("build: {e}")),
        };
        let (mesh, summary) = match built::check(params, &parsed) {
            Ok(m) => m,
            Err(e) => return fail(format!("build: {e}")),
        };
        if let Some(reported) = f.get("walkable_area").and_then(Value::as_f64) {
            if reported.to_bits() != summary.walkable_area.to_bits() {
                return fail(format!(
                    "build: the reply's walkable_area {reported:?} is not the sum of the tiles' \
                     polygon areas {:?}",
                    summary.walkable_area
                ));
            }
        }
        let file = onav::write_mesh(&mesh);
        if let Some(n) = &b.name {
            self.env.define_bytes(n, file.clone());
        }
        done.output = Some(file);
        done.tiles = parsed.iter().map(|t| t.pos()).zip(tiles).collect();
        Ok(done)
    }

    /// `tiles` of a build's expectation, and its per-tile goldens.
    pub(super) fn judge_build(&mut self, key: &str, done: &Done, e: &Expect) -> R<()> {
        let Some(want) = &e.tiles else {
            return Ok(());
        };
        let got: Vec<(i32, i32, u32)> = done
            .tiles
            .iter()
            .map(|(p, _)| (p.column, p.row, p.layer))
            .collect();
        if &got != want {
            let show = |v: &[(i32, i32, u32)]| {
                v.iter()
                    .map(|(c, r, l)| format!("[{c}, {r}, {l}]"))
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            return fail(format!(
                "{key}: tiles at [{}], expected [{}]",
                show(&got),
                show(want)
            ));
        }
        if let Some(label) = &e.golden {
            for (p, bytes) in &done.tiles {
                let pos = (p.column, p.row, p.layer);
                self.run
                    .goldens
                    .push((tile_label(label, pos), bytes.clone()));
            }
        }
        Ok(())
    }
}
