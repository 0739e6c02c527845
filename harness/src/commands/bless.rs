//! `onav bless [--case GLOB]` (`spec/conformance.md` §3): writes goldens that changed, after
//! checking each new output by an independent route (`golden::verify`); with every scenario
//! selected, also removes the goldens no scenario declares. Never in CI.

use std::collections::BTreeSet;
use std::path::Path;

use super::{reference_results, write_file, Outcome, OutputKind};
use crate::error::HarnessError;
use crate::exec::Status;
use crate::files::decode::{decode, Value};
use crate::files::diff::first_difference;
use crate::golden::{self, Entry, Manifest, Store};
use crate::suite;

/// `onav bless`. `in_ci` is whether the run is in CI (the environment variable `CI` is set):
/// goldens are blessed by people, so bless then refuses.
pub fn run(root: &Path, case: Option<&str>, in_ci: bool) -> Result<Outcome, HarnessError> {
    if in_ci {
        return Err(HarnessError::BlessInCi);
    }
    super::check_root(root)?;
    let suite = suite::load(root, &[], case);
    if suite.load_errors.is_empty() {
        let with_goldens = suite
            .cases
            .iter()
            .filter(|c| !suite::declared_goldens(c).is_empty())
            .count();
        let what = match case {
            Some(g) if suite.cases.is_empty() => Some(format!("no case matches --case {g:?}")),
            Some(g) if with_goldens == 0 => Some(format!(
                "none of the {} cases matching --case {g:?} declares a golden",
                suite.cases.len()
            )),
            _ => None,
        };
        if let Some(what) = what {
            return Err(HarnessError::NothingToBless { what });
        }
    }
    // Every path bless may write is checked before any case runs (`spec/conformance.md` §4.5):
    // the manifest and each declared golden's bytes file.
    let store = Store::at(root);
    super::check_output(&store.manifest_path(), OutputKind::File)?;
    for key in suite.cases.iter().flat_map(suite::declared_goldens) {
        super::check_output(&store.bytes_path(&key), OutputKind::File)?;
    }
    let Some(results) = reference_results(&suite, &[1])? else {
        return Ok(Outcome::Fail);
    };
    let mut manifest = Manifest::read(&store.manifest_path())?;
    let before = manifest.clone();
    let mut bad = 0;
    let (mut changed, mut unchanged) = (0, 0);
    for (c, r) in suite.cases.iter().zip(&results) {
        if suite::declared_goldens(c).is_empty() {
            continue;
        }
        if r.status != Status::Pass {
            eprintln!("not blessed: {} does not pass: {}", c.id, r.message);
            bad += 1;
            continue;
        }
        // The library a Referenced golden is restored with: the case's named bytes (generated
        // tiles) and the tiles held inline by its Full goldens, so a Referenced snapshot of tiles
        // the run built (a tile cache's rebuilds) is verified against the Full golden of the same
        // state. Sound: a content id is its tile's SHA-256, so a tile stands only for itself.
        let mut tiles: Vec<Vec<u8>> = r.run.blobs.iter().map(|b| b.1.clone()).collect();
        tiles.extend(r.run.goldens.iter().flat_map(|g| inline_tiles(&g.1)));
        for (label, bytes) in &r.run.goldens {
            let key = format!("{}/{label}", c.id);
            let new = Entry::of(bytes);
            let path = store.bytes_path(&key);
            let on_disk = std::fs::read(&path).ok();
            if manifest.entries.get(&key) == Some(&new) && on_disk.as_deref() == Some(&bytes[..]) {
                unchanged += 1;
                continue;
            }
            let checked = match golden::verify(bytes, &tiles) {
                Ok(how) => how,
                Err(e) => {
                    eprintln!("not blessed: {key}: independent check failed: {e}");
                    bad += 1;
                    continue;
                }
            };
            match manifest.entries.get(&key) {
                Some(old) => {
                    let diff = on_disk
                        .as_deref()
                        .map(|o| first_difference(o, bytes))
                        .unwrap_or_else(|| "no old bytes file".into());
                    outln!(
                        "changed {key}: {} bytes {} -> {} bytes {}; {diff}",
                        old.length,
                        old.sha256,
                        new.length,
                        new.sha256
                    );
                }
                None => outln!("new     {key}: {} bytes {}", new.length, new.sha256),
            }
            outln!("        checked: {checked}");
            write_file(&path, bytes)?;
            manifest.entries.insert(key, new);
            changed += 1;
        }
    }
    let mut removed = 0;
    if suite.full && bad == 0 {
        let declared: BTreeSet<String> = suite
            .cases
            .iter()
            .flat_map(suite::declared_goldens)
            .collect();
        let keys: Vec<String> = manifest.entries.keys().cloned().collect();
        for k in keys {
            if !declared.contains(&k) {
                manifest.entries.remove(&k);
                let _ = std::fs::remove_file(store.bytes_path(&k));
                outln!("removed {k}: no scenario declares it");
                removed += 1;
            }
        }
        for k in store.byte_files() {
            if !manifest.entries.contains_key(&k) {
                let _ = std::fs::remove_file(store.bytes_path(&k));
                outln!(
                    "removed {}: not in the manifest",
                    store.bytes_path(&k).display()
                );
                removed += 1;
            }
        }
    }
    if manifest != before {
        write_file(&store.manifest_path(), manifest.render().as_bytes())?;
    }
    outln!("{changed} written, {unchanged} unchanged, {removed} removed, {bad} refused");
    Ok(Outcome::pass_if(bad == 0))
}

/// The tiles a snapshot holds inline (`ONPS`, or the mesh snapshot of an `ONTK`), found by the
/// harness's own decoder: the bytes after each `slot[i].tile_length` field, of that length.
/// Other files, or bytes the decoder cannot follow, give no tiles.
fn inline_tiles(bytes: &[u8]) -> Vec<Vec<u8>> {
    decode(bytes)
        .fields
        .iter()
        .filter(|f| f.path.ends_with("].tile_length") && f.path.contains("slot["))
        .filter_map(|f| {
            let Value::U(len) = f.value else { return None };
            let start = usize::try_from(f.offset + f.size).ok()?;
            let end = start.checked_add(usize::try_from(len).ok()?)?;
            bytes.get(start..end).map(<[u8]>::to_vec)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::inline_tiles;
    use crate::golden::{verify, VerifyError};
    use onav::SnapshotMode;

    #[test]
    fn a_referenced_golden_verifies_with_the_tiles_of_the_full_golden_of_its_state() {
        let w = onav::WorldSpec {
            columns: 2,
            rows: 1,
            ..onav::WorldSpec::default()
        };
        let m = crate::files::mesh_of(&w, 3);
        let (full, referenced) = (
            m.snapshot(SnapshotMode::Full),
            m.snapshot(SnapshotMode::Referenced),
        );
        let found = inline_tiles(&full);
        let raw: Vec<Vec<u8>> = w
            .tiles()
            .iter()
            .map(|t| t.as_built_bytes().to_vec())
            .collect();
        assert_eq!(found, raw);
        assert!(matches!(
            verify(&referenced, &[]),
            Err(VerifyError::Snapshot(_))
        ));
        verify(&referenced, &found).unwrap();
        // A Referenced snapshot, a tile, a mesh file and a cut snapshot hold no inline tile.
        assert!(inline_tiles(&referenced).is_empty());
        assert!(inline_tiles(&raw[0]).is_empty());
        assert!(inline_tiles(&onav::write_mesh(&m)).is_empty());
        assert!(inline_tiles(&full[..full.len() / 2]).len() < raw.len());
    }
}
