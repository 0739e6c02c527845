//! The `ONTK` snapshot (`spec/tilecache.md` §6): the seed's guarantees, the all-or-nothing
//! restore for every truncation and byte change, field-aware corruptions with their exact
//! errors, fingerprints and the Referenced retention rule.

use onav::{FormatReason as R, RestoreError, SnapshotMode, TileLibrary};
use onav_testkit::{cache_fixture, ontk_restore_into, OntkModel};
use onav_tilecache::{CacheOptions, Obstacle, TileCache, Volume};

use crate::kit::*;

const MODES: [SnapshotMode; 2] = [SnapshotMode::Full, SnapshotMode::Referenced];

fn busy() -> TileCache {
    cache_fixture().busy.clone()
}

#[test]
fn the_fixture_is_busy() {
    let fx = cache_fixture();
    let b = &fx.busy;
    assert!(b.obstacles().len() >= 3 && b.volumes().len() >= 2);
    assert!(b.queue().len() >= 1, "a partly drained queue");
    assert!(
        b.library().len() > fx.fresh.library().len(),
        "rebuilt tiles"
    );
    assert!(b.cells().len() >= 9);
    let m = OntkModel::parse(&fx.busy_snapshots[1]).unwrap();
    assert_eq!(m.encode(), fx.busy_snapshots[1]);
    assert!(ontk_restore_into(
        b,
        &fx.busy_snapshots[0],
        &fx.busy_snapshots[1],
        &TileLibrary::new()
    )
    .is_some());
}

#[test]
fn snapshot_mutate_restore_snapshot_is_identical() {
    for mode in MODES {
        let mut c = busy();
        let s0 = c.snapshot(mode);
        let mut r = Rng(3);
        for _ in 0..6 {
            c.add_obstacle(random_obstacle(&mut r)).unwrap();
        }
        c.add_volume(random_volume(&mut r)).unwrap();
        let first = c.obstacles().next().unwrap().0;
        c.remove_obstacle(first).unwrap();
        c.update(3).unwrap();
        assert_ne!(c.snapshot(mode), s0);
        c.restore(&s0).unwrap();
        assert_eq!(c.snapshot(mode), s0, "{mode:?}");
        for other in MODES {
            assert_eq!(c.snapshot(other), busy().snapshot(other));
        }
    }
}

/// The operations of step k of a run (the same for every twin).
fn step(c: &mut TileCache, k: u64) {
    let mut r = Rng(1000 + k);
    match k % 5 {
        0 | 1 => {
            c.add_obstacle(random_obstacle(&mut r)).unwrap();
        }
        2 => {
            c.add_volume(random_volume(&mut r)).unwrap();
        }
        3 => {
            let id = c.obstacles().nth(r.below(3) as usize).map(|(id, _)| id);
            if let Some(id) = id {
                c.remove_obstacle(id).unwrap();
            }
        }
        _ => {
            c.update(1 + r.below(3) as usize).unwrap();
        }
    }
}

#[test]
fn continuing_after_restores_keeps_twins_identical_step_by_step() {
    for mode in MODES {
        let mut a = busy();
        let mut b = busy();
        for k in 0..30 {
            // b: an excursion (snapshot, other operations, restore) before every step.
            let s = b.snapshot(mode);
            step(&mut b, k + 77);
            step(&mut b, k + 78);
            b.restore(&s).unwrap();
            step(&mut a, k);
            step(&mut b, k);
            for m in MODES {
                assert_eq!(a.snapshot(m), b.snapshot(m), "step {k}, {mode:?}");
            }
        }
        a.update_all().unwrap();
        b.update_all().unwrap();
        assert_eq!(
            a.snapshot(SnapshotMode::Full),
            b.snapshot(SnapshotMode::Full)
        );
    }
}

#[test]
fn a_referenced_snapshot_of_any_earlier_frame_restores() {
    let mut c = busy();
    let mut frames = Vec::new();
    for k in 0..25 {
        frames.push((
            c.snapshot(SnapshotMode::Referenced),
            c.snapshot(SnapshotMode::Full),
        ));
        step(&mut c, k);
        c.update(2).unwrap();
    }
    for (r, f) in &frames {
        c.restore(r).unwrap();
        assert_eq!(&c.snapshot(SnapshotMode::Full), f);
    }
    // Retention: after keeping only the current mesh's tiles, an old frame that names tiles
    // no longer kept is refused (unknown content id) and the cache is unchanged.
    c.restore(&frames[24].0).unwrap();
    let dropped = c.retain_library(&[]);
    assert!(dropped > 0);
    let before = c.snapshot(SnapshotMode::Full);
    let refused = frames
        .iter()
        .filter(|(r, _)| match c.restore(r) {
            Err(RestoreError::Format(e)) => {
                assert_eq!(e.reason, R::UnknownContentId, "{e}");
                assert!(e.field.starts_with("mesh.slot["), "{e}");
                true
            }
            Err(e) => panic!("{e}"),
            Ok(()) => {
                c.restore(&frames[24].0).unwrap();
                false
            }
        })
        .count();
    assert!(refused > 0);
    c.restore(&frames[24].0).unwrap();
    assert_eq!(c.snapshot(SnapshotMode::Full), before);
    // A Full restore brings its tiles back into the library.
    c.restore(&frames[3].1).unwrap();
    c.restore(&frames[3].0).unwrap();
}

#[test]
fn the_new_cache_form_equals_in_place() {
    let fx = cache_fixture();
    for s in &fx.busy_snapshots {
        let n = TileCache::from_snapshot(
            &fx.geometry,
            &fx.settings,
            CacheOptions::default(),
            s,
            fx.busy.library(),
        )
        .unwrap();
        assert_eq!(n.snapshot(SnapshotMode::Full), fx.busy_snapshots[0]);
    }
    // Referenced without the tiles: refused.
    let e = TileCache::from_snapshot(
        &fx.geometry,
        &fx.settings,
        CacheOptions::default(),
        &fx.busy_snapshots[1],
        &TileLibrary::new(),
    );
    assert!(e.is_err());
}

#[test]
fn other_geometry_or_settings_is_a_fingerprint_error() {
    let fx = cache_fixture();
    let mut spec = small_spec(false);
    spec.agent_radius = 0.6;
    let other_settings = onav_build3d::Settings::new(spec).unwrap();
    let other_world = world_geometry_shifted();
    let caches = [
        TileCache::new(&fx.geometry, &other_settings).unwrap(),
        TileCache::new(&other_world, &fx.settings).unwrap(),
    ];
    for mut c in caches {
        let before = c.snapshot(SnapshotMode::Full);
        for s in &fx.busy_snapshots {
            let m = OntkModel::parse(s).unwrap();
            let (_, l) = m.encode_with_layout();
            match c.restore(s) {
                Err(RestoreError::Fingerprint(f)) => {
                    assert_eq!(f.field, "mesh.params.settings_digest");
                    assert_eq!(f.offset, Some(l.mesh + 44));
                }
                r => panic!("{r:?}"),
            }
            assert_eq!(c.snapshot(SnapshotMode::Full), before);
        }
    }
}

/// The small world with one more triangle far away (another geometry digest).
fn world_geometry_shifted() -> onav_build3d::Geometry {
    let g = world_geometry();
    let _ = &g;
    let obj = b"v 0 0 0\nv 0 0 24\nv 24 0 0\nv 24 0 24\nf 1 2 3\nf 3 2 4\nv 30 0 30\nv 30 0 31\nv 31 0 30\nf 5 6 7\n";
    onav_build3d::Geometry::from_obj(obj).unwrap()
}

/// Every truncation and every single-byte change of a set of valid snapshots is either refused
/// with the cache untouched, or accepted canonically (checked by `ontk_restore_into`).
#[test]
fn all_or_nothing_for_every_truncation_and_byte_change() {
    let fx = cache_fixture();
    let mut drained = busy();
    drained.update_all().unwrap();
    let none = TileLibrary::new();
    let snaps = [
        fx.busy_snapshots[1].clone(),
        fx.fresh_snapshot.clone(),
        drained.snapshot(SnapshotMode::Referenced),
        fx.busy_snapshots[0].clone(),
    ];
    let mut refused = 0;
    let mut accepted = 0;
    for (k, s) in snaps.iter().enumerate() {
        for cut in 0..s.len() {
            assert!(ontk_restore_into(&fx.busy, &fx.busy_snapshots[0], &s[..cut], &none).is_none());
            refused += 1;
        }
        // Every byte of the Referenced ones; the Full one every byte of its lists and every
        // 5th byte inside the embedded mesh (its tiles are the mesh targets' ground).
        let mesh_at = OntkModel::parse(s).unwrap().encode_with_layout().1.mesh as usize;
        for i in 0..s.len() {
            if k == 3 && i > mesh_at && i % 5 != 0 {
                continue;
            }
            for x in [0x01u8, 0x80, 0xff] {
                let mut b = s.clone();
                b[i] ^= x;
                match ontk_restore_into(&fx.busy, &fx.busy_snapshots[0], &b, &none) {
                    Some(_) => accepted += 1,
                    None => refused += 1,
                }
            }
        }
    }
    assert!(
        refused > 10_000 && accepted > 0,
        "{refused} refused, {accepted} accepted"
    );
}

/// The error of one corruption: (class, field, offset, reason) against the busy cache.
fn error_of(b: &[u8]) -> RestoreError {
    let fx = cache_fixture();
    let mut c = busy();
    let e = c.restore(b).expect_err("must be refused");
    assert_eq!(c.snapshot(SnapshotMode::Full), fx.busy_snapshots[0]);
    e
}

fn format_of(b: &[u8]) -> (String, u64, R) {
    match error_of(b) {
        RestoreError::Format(f) => (f.field, f.offset, f.reason),
        e => panic!("{e}"),
    }
}

#[test]
fn field_aware_corruptions_name_the_field_and_offset() {
    let fx = cache_fixture();
    let base = OntkModel::parse(&fx.busy_snapshots[1]).unwrap();
    let (_, l) = base.encode_with_layout();
    let check = |f: &dyn Fn(&mut OntkModel), field: &str, at: u64, reason: R| {
        let mut m = base.clone();
        f(&mut m);
        assert_eq!(
            format_of(&m.encode()),
            (field.to_string(), at, reason),
            "{field}"
        );
    };
    check(&|m| m.magic = *b"ONTL", "magic", 0, R::BadMagic);
    check(&|m| m.version = 2, "version", 4, R::BadVersion { found: 2 });
    check(&|m| m.flags = 1, "flags", 6, R::NonZeroReserved);
    check(
        &|m| m.next_obstacle = 0,
        "next_obstacle_id",
        8,
        R::OutOfRange,
    );
    check(
        &|m| m.next_volume = 1 << 31,
        "next_volume_id",
        12,
        R::OutOfRange,
    );
    let big = |n: u64, max: u64| R::CountTooLarge { count: n, max };
    let after = |at: u64| fx.busy_snapshots[1].len() as u64 - at - 4;
    check(
        &|m| m.obstacle_count = 1 << 20 | 1,
        "obstacle_count",
        16,
        big((1 << 20) + 1, (after(16) / 13).min(1 << 20)),
    );
    let o0 = l.obstacles[0];
    let o1 = l.obstacles[1];
    check(
        &|m| m.obstacles[0].id = 0,
        "obstacle[0].id",
        o0,
        R::OutOfRange,
    );
    check(
        &|m| m.obstacles[1].id = m.obstacles[0].id,
        "obstacle[1].id",
        o1,
        R::NotAscending,
    );
    check(
        &|m| m.obstacles[1].id = m.next_obstacle,
        "obstacle[1].id",
        o1,
        R::OutOfRange,
    );
    check(
        &|m| m.obstacles[0].shape = 4,
        "obstacle[0].shape",
        o0 + 4,
        R::OutOfRange,
    );
    // Obstacle 0 is the cylinder: x y z radius height.
    assert_eq!(base.obstacles[0].shape, 1);
    check(
        &|m| m.obstacles[0].values[1] = f64::NAN,
        "obstacle[0].y",
        o0 + 5 + 8,
        R::NotFinite,
    );
    check(
        &|m| m.obstacles[0].values[3] = 0.0,
        "obstacle[0].radius",
        o0 + 5 + 24,
        R::OutOfRange,
    );
    check(
        &|m| m.obstacles[0].values[4] = -1.0,
        "obstacle[0].height",
        o0 + 5 + 32,
        R::OutOfRange,
    );
    // Obstacle 1 is the oriented box (the box was removed): x y z half_x half_y half_z rotation.
    assert_eq!(base.obstacles[1].shape, 3);
    check(
        &|m| m.obstacles[1].values[4] = 0.0,
        "obstacle[1].half_y",
        o1 + 5 + 32,
        R::OutOfRange,
    );
    check(
        &|m| m.obstacles[1].values[6] = f64::INFINITY,
        "obstacle[1].rotation",
        o1 + 5 + 48,
        R::NotFinite,
    );
    let v0 = l.volumes[0];
    check(
        &|m| m.volumes[0].area = 64,
        "volume[0].area",
        v0 + 4,
        R::OutOfRange,
    );
    check(
        &|m| m.volumes[0].max_y = m.volumes[0].min_y - 1.0,
        "volume[0].max_y",
        v0 + 13,
        R::OutOfRange,
    );
    check(
        &|m| m.volumes[0].corner_count = 2,
        "volume[0].corner_count",
        v0 + 21,
        R::OutOfRange,
    );
    let total = fx.busy_snapshots[1].len() as u64;
    check(
        &|m| m.volumes[0].corner_count = 257,
        "volume[0].corner_count",
        v0 + 21,
        big(257, ((total - v0 - 25) / 16).min(256)),
    );
    check(
        &|m| m.volumes[0].corners.reverse(),
        "volume[0].corner[1]",
        v0 + 25 + 16,
        R::NotConvex,
    );
    check(
        &|m| m.volumes[0].corners[2][1] = f64::NAN,
        "volume[0].corner[2].z",
        v0 + 25 + 32 + 8,
        R::NotFinite,
    );
    check(
        &|m| m.volumes[1].id = 1,
        "volume[1].id",
        l.volumes[1],
        R::NotAscending,
    );
    check(
        &|m| {
            let q = m.queue[0];
            m.queue.push(q);
            m.queue_length += 1;
        },
        &format!("queue[{}]", base.queue.len()),
        l.mesh_length,
        R::Duplicate,
    );
    check(
        &|m| {
            m.queue[0] = (40, 40);
        },
        "queue[0]",
        l.queue[0],
        R::OutOfRange,
    );
    check(
        &|m| m.mesh_length += 1,
        "mesh_length",
        l.mesh_length,
        R::Truncated {
            needed: base.mesh.len() as u64 + 1,
            available: base.mesh.len() as u64,
        },
    );
    check(
        &|m| m.trailing.push(0),
        "end",
        l.end,
        R::TrailingBytes { count: 1 },
    );
    // The embedded mesh's own rules, nested at absolute offsets.
    check(&|m| m.mesh[0] = b'X', "mesh.magic", l.mesh, R::BadMagic);
    check(
        &|m| m.mesh[40] ^= 1,
        "mesh.params",
        l.mesh + 8,
        R::ParamsMismatch,
    );
    // A queue longer than the cached cells.
    let cells = fx.busy.cells().len();
    check(
        &|m| {
            m.queue = (0..=cells as i32).map(|k| (k, 100)).collect();
            m.queue_length = m.queue.len() as u32;
        },
        "queue_length",
        l.queue_length,
        big(cells as u64 + 1, cells as u64),
    );
    let _ = (
        Obstacle::cylinder([0.0; 3], 1.0, 1.0),
        Volume::new(0, 0.0, 0.0, vec![]),
    );
}

/// An in-place restore skips the leading records a snapshot shares with the cache's own lists
/// (`spec/tilecache.md` TC31): whatever the cache holds (the snapshot's lists with records
/// added at the end, removed at the end or in the middle, other values, its encoding made or
/// not), the result and every error equal those of a check and commit into a cache with no
/// obstacles or volumes, which parses every record.
#[test]
fn restoring_over_shared_leading_records_equals_a_full_parse() {
    let fx = cache_fixture();
    let mut c = busy();
    let mut r = Rng(91);
    let mut frames = Vec::new();
    for k in 0..40u64 {
        match k % 7 {
            0..=2 => {
                c.add_obstacle(random_obstacle(&mut r)).unwrap();
            }
            3 => {
                c.add_volume(random_volume(&mut r)).unwrap();
            }
            4 => {
                let n = c.obstacles().len() as u64;
                if n > 0 {
                    let id = c.obstacles().nth(r.below(n) as usize).unwrap().0;
                    c.remove_obstacle(id).unwrap();
                }
            }
            5 => {
                let n = c.volumes().len() as u64;
                if n > 0 {
                    let id = c.volumes().nth(r.below(n) as usize).unwrap().0;
                    c.remove_volume(id).unwrap();
                }
            }
            _ => {
                c.update(2).unwrap();
            }
        }
        // Each frame is taken right after the cache wrote its snapshot (its list encoding is
        // made); every other frame it writes a Full snapshot as well.
        let s = c.snapshot(SnapshotMode::Referenced);
        frames.push((c.clone(), s));
        if k % 2 == 1 {
            let _ = c.snapshot(SnapshotMode::Full);
        }
    }
    let check = |target: &TileCache, s: &[u8]| -> Result<Vec<u8>, RestoreError> {
        let mut fresh = fx.fresh.clone();
        let v = fresh.check_restore(s, Some(target.library()))?;
        fresh.commit(v);
        Ok(fresh.snapshot(SnapshotMode::Referenced))
    };
    for (i, (from, _)) in frames.iter().enumerate() {
        for (j, (_, s)) in frames.iter().enumerate() {
            if (i + 3 * j) % 4 != 0 {
                continue;
            }
            let mut a = from.clone();
            if (i + j) % 2 == 0 {
                // A removal drops the kept encoding: the restore makes it again.
                let id = a.add_obstacle(random_obstacle(&mut r)).unwrap();
                a.remove_obstacle(id).unwrap();
            }
            a.restore_with(s, c.library()).unwrap();
            assert_eq!(&a.snapshot(SnapshotMode::Referenced), s, "{i} <- {j}");
            assert_eq!(check(&c, s).unwrap(), *s);
            // The same snapshot with lower next ids: refused as the full parse refuses it.
            for at in [8usize, 12] {
                let mut b = s.clone();
                let next = u32::from_le_bytes(b[at..at + 4].try_into().unwrap());
                b[at..at + 4].copy_from_slice(&(next.max(2) - 1).to_le_bytes());
                let mut a = from.clone();
                let before = a.snapshot(SnapshotMode::Full);
                let got = a
                    .restore_with(&b, c.library())
                    .map(|()| a.snapshot(SnapshotMode::Referenced));
                assert_eq!(got, check(&c, &b), "{i} <- {j}, next id at {at}");
                if got.is_err() {
                    assert_eq!(a.snapshot(SnapshotMode::Full), before);
                }
            }
        }
    }
}

/// Additions extend the cache's kept list encoding in place (volumes after obstacles): the
/// snapshot written from it equals the independent model's encoding of what it parses, and
/// the snapshot a fresh cache writes after restoring it.
#[test]
fn additions_extend_the_kept_list_encoding_exactly() {
    let fx = cache_fixture();
    let mut c = busy();
    let _ = c.snapshot(SnapshotMode::Referenced);
    let mut r = Rng(17);
    for k in 0..12 {
        if k % 3 == 0 {
            c.add_volume(random_volume(&mut r)).unwrap();
        } else {
            c.add_obstacle(random_obstacle(&mut r)).unwrap();
        }
        let s = c.snapshot(SnapshotMode::Referenced);
        assert_eq!(OntkModel::parse(&s).unwrap().encode(), s, "step {k}");
        let mut fresh = fx.fresh.clone();
        fresh.restore_with(&s, c.library()).unwrap();
        assert_eq!(fresh.snapshot(SnapshotMode::Referenced), s, "step {k}");
    }
}

/// An in-place restore of a settled cache's own snapshot takes stage A's one-pass path (every
/// record the cache's own, an empty queue): with every byte of the head and lists changed,
/// and every cut up to the mesh snapshot, it gives exactly what a full parse (a check into a
/// fresh cache, which has no list encoding to share) gives, and a refusal changes nothing.
#[test]
fn the_one_pass_head_and_lists_path_equals_a_full_parse() {
    let fx = cache_fixture();
    let mut drained = busy();
    drained.update_all().unwrap();
    let s = drained.snapshot(SnapshotMode::Referenced);
    let mesh_at = OntkModel::parse(&s).unwrap().encode_with_layout().1.mesh as usize;
    let full = |b: &[u8]| -> Result<Vec<u8>, RestoreError> {
        let mut fresh = fx.fresh.clone();
        let v = fresh.check_restore(b, Some(drained.library()))?;
        fresh.commit(v);
        Ok(fresh.snapshot(SnapshotMode::Referenced))
    };
    let before = drained.snapshot(SnapshotMode::Full);
    let in_place = |b: &[u8]| -> Result<Vec<u8>, RestoreError> {
        let mut a = drained.clone();
        let got = a.restore(b).map(|()| a.snapshot(SnapshotMode::Referenced));
        if got.is_err() {
            assert_eq!(a.snapshot(SnapshotMode::Full), before);
        }
        got
    };
    assert_eq!(in_place(&s), Ok(s.clone()));
    let mut accepted = 0;
    for i in 0..mesh_at + 8 {
        for x in [0x01u8, 0x80] {
            let mut b = s.clone();
            b[i] ^= x;
            let got = in_place(&b);
            assert_eq!(got, full(&b), "byte {i} ^ {x:#x}");
            accepted += usize::from(got.is_ok());
        }
        assert_eq!(in_place(&s[..i]), full(&s[..i]), "cut at {i}");
    }
    let mut longer = s.clone();
    longer.push(0);
    assert_eq!(in_place(&longer), full(&longer));
    assert!(mesh_at > 100, "the snapshot holds lists ({mesh_at})");
    let tried = 2 * (mesh_at + 8);
    assert!(
        accepted > 0 && accepted < tried,
        "{accepted} of {tried} changes accepted"
    );
}
