//! The structural decode of a tile cache snapshot `ONTK` (`spec/tilecache.md` §6.1): the header,
//! the next ids, the obstacle and volume records, the queue, and the embedded mesh snapshot
//! decoded as an `ONPS` file whose fields are named `mesh.<path>` at their absolute offsets (the
//! paths and offsets the tile cache's errors use).

use super::{decode, header, Cur, Field, FileKind, Stop};

/// Field names of the values of obstacle shape `code` (TC3), `None` for an unknown code.
fn shape_values(code: u64) -> Option<&'static [&'static str]> {
    match code {
        1 => Some(&["x", "y", "z", "radius", "height"]),
        2 => Some(&["min_x", "min_y", "min_z", "max_x", "max_y", "max_z"]),
        3 => Some(&["x", "y", "z", "half_x", "half_y", "half_z", "rotation"]),
        _ => None,
    }
}

pub(super) fn cache_snapshot(c: &mut Cur<'_>) -> Result<(), Stop> {
    header(c)?;
    c.uint(4, "next_obstacle_id")?;
    c.uint(4, "next_volume_id")?;
    let n = c.count("obstacle_count", 13)?;
    for i in 0..n {
        c.uint(4, format!("obstacle[{i}].id"))?;
        let at = c.at;
        let code = c.uint(1, format!("obstacle[{i}].shape"))?;
        let names = shape_values(code).ok_or_else(|| {
            (
                at as u64,
                format!("obstacle[{i}].shape {code} is not 1, 2 or 3"),
            )
        })?;
        for name in names {
            c.f64(format!("obstacle[{i}].{name}"))?;
        }
    }
    let n = c.count("volume_count", 41)?;
    for i in 0..n {
        c.uint(4, format!("volume[{i}].id"))?;
        c.uint(1, format!("volume[{i}].area"))?;
        c.f64(format!("volume[{i}].min_y"))?;
        c.f64(format!("volume[{i}].max_y"))?;
        let k = c.count(&format!("volume[{i}].corner_count"), 16)?;
        for j in 0..k {
            c.f64(format!("volume[{i}].corner[{j}].x"))?;
            c.f64(format!("volume[{i}].corner[{j}].z"))?;
        }
    }
    let q = c.count("queue_length", 8)?;
    for j in 0..q {
        c.i32(format!("queue[{j}].column"))?;
        c.i32(format!("queue[{j}].row"))?;
    }
    let len = c.count("mesh_length", 1)? as usize;
    let base = c.at;
    let mesh = &c.b[base..base + len];
    c.at = base + len;
    let d = decode(mesh);
    c.out.extend(d.fields.into_iter().map(|f| Field {
        offset: f.offset + base as u64,
        path: format!("mesh.{}", f.path),
        ..f
    }));
    if d.kind != FileKind::Snapshot {
        return Err((base as u64, "mesh: not an ONPS snapshot".to_owned()));
    }
    match d.stopped {
        Some((at, note)) => Err((at + base as u64, format!("mesh: {note}"))),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use onav::{SnapshotMode, TileLibrary};
    use onav_build3d::{Geometry, Settings, SettingsSpec};
    use onav_tilecache::{Obstacle, TileCache, Volume};

    use crate::files::decode::{decode, FileKind, Value};

    /// A busy cache of a small floor: obstacles of the three shapes, two volumes, a partly
    /// drained queue, a flag edit.
    fn cache() -> TileCache {
        let obj = b"v 0 0 0\nv 0 0 24\nv 24 0 0\nv 24 0 24\nf 1 2 3\nf 3 2 4\n";
        let g = Geometry::from_obj(obj).unwrap();
        let s = Settings::new(SettingsSpec {
            cell_size: 0.5,
            cell_height: 0.2,
            tile_size: 16,
            detail_sample_dist: 0.0,
            ..SettingsSpec::default()
        })
        .unwrap();
        let mut c = TileCache::new(&g, &s).unwrap();
        let sq = |x: f64, z: f64| vec![[x, z], [x + 2.0, z], [x + 2.0, z + 2.0], [x, z + 2.0]];
        for o in [
            Obstacle::cylinder([12.0, -0.5, 12.0], 1.0, 2.0),
            Obstacle::aabb([3.0, -1.0, 3.0], [5.0, 1.0, 5.0]),
            Obstacle::oriented_box([18.0, 0.5, 6.0], [2.0, 1.0, 0.5], 0.7),
        ] {
            c.add_obstacle(o.unwrap()).unwrap();
        }
        c.add_volume(Volume::new(5, -1.0, 1.0, sq(8.0, 4.0)).unwrap())
            .unwrap();
        c.add_volume(Volume::new(0, -1.0, 1.0, sq(16.0, 16.0)).unwrap())
            .unwrap();
        c.update(1).unwrap();
        c
    }

    /// The decode of an `ONTK` snapshot covers every byte once, in order, in both modes.
    #[test]
    fn decodes_cover_every_byte() {
        let c = cache();
        assert!(c.queue().len() > 0 && c.obstacles().len() == 3);
        for mode in [SnapshotMode::Full, SnapshotMode::Referenced] {
            let f = c.snapshot(mode);
            let d = decode(&f);
            assert_eq!(d.kind, FileKind::CacheSnapshot);
            assert_eq!(d.stopped, None, "{mode:?}");
            let mut at = 0;
            for fld in &d.fields {
                assert_eq!(fld.offset, at, "{}", fld.path);
                at += fld.size;
            }
            assert_eq!(at, f.len() as u64);
            assert_eq!(
                d.field("obstacle[2].rotation").map(|f| &f.value),
                Some(&Value::F(0.7))
            );
            assert!(d.field("mesh.slot[0].generation").is_some());
        }
    }

    /// Field paths and offsets, nested mesh fields included, agree with the errors the tile
    /// cache reports.
    #[test]
    fn paths_match_error_fields() {
        let c = cache();
        let snap = c.snapshot(SnapshotMode::Full);
        let d = decode(&snap);
        for (path, value) in [
            ("obstacle[1].max_y", f64::NAN.to_le_bytes().to_vec()),
            ("volume[1].area", vec![64]),
            ("queue[0].column", 40i32.to_le_bytes().to_vec()),
            ("mesh.slot[0].tile.polygon[0].vertex_count", vec![9]),
        ] {
            let f = d.field(path).unwrap_or_else(|| panic!("{path}"));
            let mut bad = snap.clone();
            let at = f.offset as usize;
            bad[at..at + value.len()].copy_from_slice(&value);
            let mut target = c.clone();
            let e = target.restore(&bad).unwrap_err();
            let want = if path.starts_with("queue") {
                "queue[0]"
            } else {
                path
            };
            assert_eq!((e.field(), e.offset()), (want, Some(f.offset)), "{path}");
            let e = onav_tilecache::check_without_cache(&bad, &TileLibrary::new());
            if !path.starts_with("queue") {
                let e = e.unwrap_err();
                assert_eq!((e.field(), e.offset()), (want, Some(f.offset)), "{path}");
            }
        }
    }

    #[test]
    fn truncated_inputs_stop_without_panicking() {
        let snap = cache().snapshot(SnapshotMode::Full);
        for n in 4..snap.len() {
            let d = decode(&snap[..n]);
            assert_eq!(d.kind, FileKind::CacheSnapshot);
            assert!(d.stopped.is_some(), "{n}");
        }
    }

    /// `diff` names the first field that differs, nested mesh fields included.
    #[test]
    fn diff_names_the_first_field_that_differs() {
        use crate::files::diff::{diff, Difference};
        let mut c = cache();
        let p = c.mesh().tiles().next().unwrap().0.poly(onav::PolyIndex(0));
        c.mesh_mut().set_poly_flags(p, 7).unwrap();
        let a = c.snapshot(SnapshotMode::Referenced);
        let mut d = c.clone();
        d.mesh_mut().set_poly_flags(p, 9).unwrap();
        let b = d.snapshot(SnapshotMode::Referenced);
        match diff(&a, &b) {
            Difference::Value { a, .. } | Difference::Structure { a, .. } => {
                assert_eq!(a.path, "mesh.slot[0].edit[0].flags")
            }
            other => panic!("{other:?}"),
        }
        let mut e = c.clone();
        e.add_obstacle(Obstacle::cylinder([1.0, 0.0, 1.0], 0.5, 1.0).unwrap())
            .unwrap();
        match diff(&a, &e.snapshot(SnapshotMode::Referenced)) {
            Difference::Value { a, .. } => assert_eq!(a.path, "next_obstacle_id"),
            other => panic!("{other:?}"),
        }
    }

    /// `inspect` lists every field with the verdict of the checks that need no cache, and an
    /// error under the field it names.
    #[test]
    fn inspect_shows_fields_and_the_verdict() {
        use crate::files::inspect::inspect;
        let c = cache();
        let snap = c.snapshot(SnapshotMode::Referenced);
        let out = inspect(&snap, c.library());
        assert!(out.starts_with("ONTK tile cache snapshot"), "{out}");
        assert!(out.contains("obstacle[0].radius"), "{out}");
        assert!(out.contains("mesh.slot[0].content_id"), "{out}");
        assert!(
            out.contains("result: valid as far as it can be checked without its cache"),
            "{out}"
        );
        let f = decode(&snap).field("volume[0].area").unwrap().clone();
        let mut bad = snap.clone();
        bad[f.offset as usize] = 64;
        let out = inspect(&bad, c.library());
        let lines: Vec<&str> = out.lines().collect();
        let at = lines
            .iter()
            .position(|l| l.contains("volume[0].area"))
            .unwrap();
        assert!(lines[at + 1].contains("rejected (format)"), "{out}");
    }
}
