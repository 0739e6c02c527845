//! Every error path of an `ONTK` restore (`spec/tilecache.md` §6.4), one must-reject case each:
//! the exact error (class, field path, absolute offset, reason) of an in-place restore into the
//! busy cache and of the new-cache form, for a Full and a Referenced base snapshot; the cache
//! untouched after each refusal (both snapshot modes, the library, the queue, the lists), and
//! the caller's library unchanged. The expected offsets are computed here from the layout of
//! TC19 (field by field), not read back from the reader. The boundary values just inside each
//! range are accepted (so each rule is pinned from both sides).

use onav::{FormatReason as R, RestoreError, SnapshotMode};
use onav_testkit::ontk::ObstacleRecord;
use onav_testkit::{cache_fixture, OntkModel};
use onav_tilecache::{
    check_without_cache, CacheOptions, FromSnapshotError, SnapshotSummary, TileCache,
};

/// What a refused restore must report.
#[derive(Debug, Clone, PartialEq)]
struct Want {
    class: &'static str,
    field: String,
    offset: u64,
    reason: Option<R>,
}

fn format(field: impl Into<String>, offset: u64, reason: R) -> Want {
    Want {
        class: "format",
        field: field.into(),
        offset,
        reason: Some(reason),
    }
}

fn got(e: &RestoreError) -> Want {
    Want {
        class: e.class(),
        field: e.field().to_string(),
        offset: e.offset().expect("an offset"),
        reason: match e {
            RestoreError::Format(f) => Some(f.reason.clone()),
            RestoreError::Fingerprint(_) => None,
        },
    }
}

/// The observable state of a cache: both snapshots, the library's size, the queue.
fn state(c: &TileCache) -> (Vec<u8>, Vec<u8>, usize, usize) {
    (
        c.snapshot(SnapshotMode::Full),
        c.snapshot(SnapshotMode::Referenced),
        c.library().len(),
        c.queue().len(),
    )
}

/// The two bases: the busy cache's Full and Referenced snapshots, and the library a new cache
/// needs for the Referenced one (the busy cache's own, as a host would keep it).
fn bases() -> [(&'static str, OntkModel); 2] {
    let fx = cache_fixture();
    [
        ("full", OntkModel::parse(&fx.busy_snapshots[0]).unwrap()),
        (
            "referenced",
            OntkModel::parse(&fx.busy_snapshots[1]).unwrap(),
        ),
    ]
}

/// Restores `bytes` in place into a copy of the busy cache and as a new cache; both must fail
/// with `want`, the in-place cache untouched, the caller's library unchanged.
fn must_reject(name: &str, bytes: &[u8], want: &Want) {
    let fx = cache_fixture();
    let mut c = fx.busy.clone();
    let before = state(&c);
    let e = c.restore(bytes).expect_err(name);
    assert_eq!(&got(&e), want, "{name} (in place)");
    assert!(state(&c) == before, "{name}: the cache changed");
    // `restore` checks stage C before the mesh (to restore the mesh by its rollback path) and
    // must still report what `check_restore` reports, in TC29's order.
    let e_check = c.check_restore(bytes, None).expect_err(name);
    assert_eq!(&got(&e_check), want, "{name} (check_restore)");
    let lib = fx.busy.library().clone();
    let lib_len = lib.len();
    let e2 = c.restore_with(bytes, &lib).expect_err(name);
    assert_eq!(&got(&e2), want, "{name} (with a library)");
    assert!(state(&c) == before, "{name}: the cache changed");
    assert_eq!(lib.len(), lib_len);
    match TileCache::from_snapshot(
        &fx.geometry,
        &fx.settings,
        CacheOptions::default(),
        bytes,
        &lib,
    ) {
        Err(FromSnapshotError::Restore(e3)) => assert_eq!(&got(&e3), want, "{name} (new)"),
        r => panic!("{name} (new): {:?}", r.map(|_| ())),
    }
}

/// Restores `bytes` in place and as a new cache; both accept.
fn must_accept(name: &str, bytes: &[u8]) {
    let fx = cache_fixture();
    let mut c = fx.busy.clone();
    c.restore(bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
    TileCache::from_snapshot(
        &fx.geometry,
        &fx.settings,
        CacheOptions::default(),
        bytes,
        fx.busy.library(),
    )
    .unwrap_or_else(|e| panic!("{name} (new): {e}"));
}

/// A valid box record (shape 2) with id `id`, far from the world.
fn far_box(id: u32) -> ObstacleRecord {
    ObstacleRecord {
        id,
        shape: 2,
        values: vec![300.0, 0.0, 300.0, 301.0, 1.0, 302.0],
    }
}

/// A valid oriented box record (shape 3) with id `id`, far from the world.
fn far_oriented(id: u32) -> ObstacleRecord {
    ObstacleRecord {
        id,
        shape: 3,
        values: vec![300.0, 0.0, 300.0, 1.0, 1.0, 2.0, 0.3],
    }
}

/// A valid cylinder record (shape 1) with id `id`, far from the world.
fn far_cylinder(id: u32) -> ObstacleRecord {
    ObstacleRecord {
        id,
        shape: 1,
        values: vec![300.0, 0.0, 300.0, 1.0, 2.0],
    }
}

/// A model of the base whose obstacles are a cylinder, a box and an oriented box (ids 1, 2, 3)
/// and whose volumes are the base's; the offsets of obstacle i's record in `offsets`.
fn three_shapes(base: &OntkModel) -> OntkModel {
    let mut m = base.clone();
    m.obstacles = vec![far_cylinder(1), far_box(2), far_oriented(3)];
    m.next_obstacle = m.next_obstacle.max(4);
    m.fix_counts();
    m
}

const CYLINDER: [&str; 5] = ["x", "y", "z", "radius", "height"];
const BOX: [&str; 6] = ["min_x", "min_y", "min_z", "max_x", "max_y", "max_z"];
const ORIENTED: [&str; 7] = ["x", "y", "z", "half_x", "half_y", "half_z", "rotation"];

type Mutation = Box<dyn Fn(&mut OntkModel)>;

/// Cases on the model: (name, mutation, the expected error from the mutated model's layout).
type Case = (String, Mutation, Box<dyn Fn(&OntkModel, &Layout) -> Want>);

/// Offsets of the model's records, computed from TC19 (independent of the reader).
struct Layout {
    obstacles: Vec<u64>,
    volume_count: u64,
    volumes: Vec<u64>,
    queue_length: u64,
    mesh_length: u64,
    mesh: u64,
    end: u64,
    total: u64,
}

fn layout(m: &OntkModel) -> Layout {
    let mut at = 20u64;
    let mut obstacles = Vec::new();
    for o in &m.obstacles {
        obstacles.push(at);
        at += 5 + 8 * o.values.len() as u64;
    }
    let volume_count = at;
    at += 4;
    let mut volumes = Vec::new();
    for v in &m.volumes {
        volumes.push(at);
        at += 25 + 16 * v.corners.len() as u64;
    }
    let queue_length = at;
    at += 4 + 8 * m.queue.len() as u64;
    let mesh_length = at;
    let mesh = at + 4;
    let end = mesh + m.mesh.len() as u64;
    Layout {
        obstacles,
        volume_count,
        volumes,
        queue_length,
        mesh_length,
        mesh,
        end,
        total: end + m.trailing.len() as u64,
    }
}

fn case(
    name: impl Into<String>,
    f: impl Fn(&mut OntkModel) + 'static,
    w: impl Fn(&OntkModel, &Layout) -> Want + 'static,
) -> Case {
    (name.into(), Box::new(f), Box::new(w))
}

fn big(count: u64, max: u64) -> R {
    R::CountTooLarge { count, max }
}

fn cases() -> Vec<Case> {
    let mut v: Vec<Case> = Vec::new();
    // TC18: the header.
    v.push(case(
        "magic",
        |m| m.magic = *b"ONPS",
        |_, _| format("magic", 0, R::BadMagic),
    ));
    v.push(case(
        "version",
        |m| m.version = 0,
        |_, _| format("version", 4, R::BadVersion { found: 0 }),
    ));
    v.push(case(
        "flags",
        |m| m.flags = 0x8000,
        |_, _| format("flags", 6, R::NonZeroReserved),
    ));
    // TC20: the next ids, both ends.
    for (name, at) in [("next_obstacle_id", 8u64), ("next_volume_id", 12)] {
        for bad in [0u32, 1 << 31, u32::MAX] {
            v.push(case(
                format!("{name} = {bad}"),
                move |m| {
                    if at == 8 {
                        m.next_obstacle = bad;
                    } else {
                        m.next_volume = bad;
                    }
                },
                move |_, _| format(name, at, R::OutOfRange),
            ));
        }
    }
    // TC21: the obstacle count against the bytes (R / 13) and against 2^20.
    v.push(case(
        "obstacle_count by bytes",
        |m| m.obstacle_count = u32::MAX,
        |_, l| {
            format(
                "obstacle_count",
                16,
                big(u32::MAX.into(), (l.total - 20) / 13),
            )
        },
    ));
    v.push(case(
        "obstacle_count over 2^20",
        |m| {
            m.obstacle_count = (1 << 20) + 1;
            m.trailing = vec![0; 13 << 20 | 64];
        },
        |_, _| format("obstacle_count", 16, big((1 << 20) + 1, 1 << 20)),
    ));
    // TC23: obstacle ids.
    v.push(case(
        "obstacle id 0",
        |m| m.obstacles[0].id = 0,
        |_, l| format("obstacle[0].id", l.obstacles[0], R::OutOfRange),
    ));
    v.push(case(
        "obstacle id = next",
        |m| m.obstacles[1].id = m.next_obstacle,
        |_, l| format("obstacle[1].id", l.obstacles[1], R::OutOfRange),
    ));
    v.push(case(
        "obstacle id repeated",
        |m| m.obstacles[1].id = m.obstacles[0].id,
        |_, l| format("obstacle[1].id", l.obstacles[1], R::NotAscending),
    ));
    v.push(case(
        "obstacle ids descending",
        |m| m.obstacles.swap(0, 1),
        |_, l| format("obstacle[1].id", l.obstacles[1], R::NotAscending),
    ));
    // TC22: shape codes.
    for code in [0u8, 4, 255] {
        v.push(case(
            format!("shape {code}"),
            move |m| m.obstacles[0].shape = code,
            |_, l| format("obstacle[0].shape", l.obstacles[0] + 4, R::OutOfRange),
        ));
    }
    // TC22 / TC4 rule 1: every value of every shape, NaN and infinite.
    for (i, names) in [(0usize, &CYLINDER[..]), (1, &BOX[..]), (2, &ORIENTED[..])] {
        for (k, name) in names.iter().enumerate() {
            for bad in [f64::NAN, f64::NEG_INFINITY] {
                v.push(case(
                    format!("obstacle {i} {name} = {bad}"),
                    move |m| {
                        *m = three_shapes(m);
                        m.obstacles[i].values[k] = bad;
                    },
                    move |_, l| {
                        let at = l.obstacles[i] + 5 + 8 * k as u64;
                        format(format!("obstacle[{i}].{name}"), at, R::NotFinite)
                    },
                ));
            }
        }
    }
    // TC4 rules 2-5, through the constructor: (shape index, values, field, reason).
    let rules: Vec<(usize, Vec<f64>, &str, R)> = vec![
        (
            0,
            vec![300.0, 0.0, 300.0, 0.0, 2.0],
            "radius",
            R::OutOfRange,
        ),
        (
            0,
            vec![300.0, 0.0, 300.0, -1.0, 2.0],
            "radius",
            R::OutOfRange,
        ),
        (
            0,
            vec![300.0, 0.0, 300.0, 1.0, 0.0],
            "height",
            R::OutOfRange,
        ),
        (
            0,
            vec![300.0, 0.0, 300.0, 1.0, -2.0],
            "height",
            R::OutOfRange,
        ),
        (
            0,
            vec![300.0, 1e308, 300.0, 1.0, 1e308],
            "height",
            R::OutOfRange,
        ),
        (
            0,
            vec![1e308, 0.0, 300.0, 1e308, 2.0],
            "radius",
            R::OutOfRange,
        ),
        (
            0,
            vec![300.0, 0.0, -1e308, 1e308, 2.0],
            "radius",
            R::OutOfRange,
        ),
        (
            1,
            vec![300.0, 0.0, 300.0, 300.0, 1.0, 302.0],
            "max_x",
            R::OutOfRange,
        ),
        (
            1,
            vec![300.0, 0.0, 300.0, 299.0, 1.0, 302.0],
            "max_x",
            R::OutOfRange,
        ),
        (
            1,
            vec![300.0, 1.0, 300.0, 301.0, 1.0, 302.0],
            "max_y",
            R::OutOfRange,
        ),
        (
            1,
            vec![300.0, 0.0, 302.0, 301.0, 1.0, 302.0],
            "max_z",
            R::OutOfRange,
        ),
        // Sides that overflow binary64: not strictly convex in binary64.
        (
            1,
            vec![-1e308, 0.0, 0.0, 1e308, 1.0, 1.0],
            "max_x",
            R::NotConvex,
        ),
        (
            2,
            vec![300.0, 0.0, 300.0, 0.0, 1.0, 2.0, 0.3],
            "half_x",
            R::OutOfRange,
        ),
        (
            2,
            vec![300.0, 0.0, 300.0, 1.0, -1.0, 2.0, 0.3],
            "half_y",
            R::OutOfRange,
        ),
        (
            2,
            vec![300.0, 0.0, 300.0, 1.0, 1.0, 0.0, 0.3],
            "half_z",
            R::OutOfRange,
        ),
        (
            2,
            vec![300.0, 1e308, 300.0, 1.0, 1e308, 2.0, 0.3],
            "half_y",
            R::OutOfRange,
        ),
        // Half extents below the spacing of the centre's binary64: a degenerate polygon.
        (
            2,
            vec![1e17, 0.0, 0.0, 1e-3, 1.0, 1e-3, 0.0],
            "half_x",
            R::NotConvex,
        ),
    ];
    for (n, (i, values, field, reason)) in rules.into_iter().enumerate() {
        let names: &[&str] = [&CYLINDER[..], &BOX[..], &ORIENTED[..]][i];
        let k = names.iter().position(|x| *x == field).unwrap();
        v.push(case(
            format!("rule {n}: obstacle {i} {field}"),
            move |m| {
                *m = three_shapes(m);
                m.obstacles[i].values = values.clone();
            },
            move |_, l| {
                let at = l.obstacles[i] + 5 + 8 * k as u64;
                format(format!("obstacle[{i}].{field}"), at, reason.clone())
            },
        ));
    }
    // TC24: the volume count.
    v.push(case(
        "volume_count by bytes",
        |m| m.volume_count = u32::MAX,
        |_, l| {
            let r = l.total - l.volume_count - 4;
            format("volume_count", l.volume_count, big(u32::MAX.into(), r / 41))
        },
    ));
    v.push(case(
        "volume_count over 2^20",
        |m| {
            m.volume_count = (1 << 20) + 1;
            m.trailing = vec![0; 41 << 20 | 64];
        },
        |_, l| format("volume_count", l.volume_count, big((1 << 20) + 1, 1 << 20)),
    ));
    // TC26: volume ids.
    v.push(case(
        "volume id 0",
        |m| m.volumes[0].id = 0,
        |_, l| format("volume[0].id", l.volumes[0], R::OutOfRange),
    ));
    v.push(case(
        "volume id = next",
        |m| m.volumes[1].id = m.next_volume,
        |_, l| format("volume[1].id", l.volumes[1], R::OutOfRange),
    ));
    v.push(case(
        "volume id repeated",
        |m| m.volumes[1].id = m.volumes[0].id,
        |_, l| format("volume[1].id", l.volumes[1], R::NotAscending),
    ));
    // TC25: the volume's fields in byte order.
    v.push(case(
        "area 64",
        |m| m.volumes[0].area = 64,
        |_, l| format("volume[0].area", l.volumes[0] + 4, R::OutOfRange),
    ));
    v.push(case(
        "area 255",
        |m| m.volumes[1].area = 255,
        |_, l| format("volume[1].area", l.volumes[1] + 4, R::OutOfRange),
    ));
    v.push(case(
        "min_y NaN",
        |m| m.volumes[0].min_y = f64::NAN,
        |_, l| format("volume[0].min_y", l.volumes[0] + 5, R::NotFinite),
    ));
    v.push(case(
        "max_y infinite",
        |m| m.volumes[0].max_y = f64::INFINITY,
        |_, l| format("volume[0].max_y", l.volumes[0] + 13, R::NotFinite),
    ));
    v.push(case(
        "max_y below min_y",
        |m| m.volumes[0].max_y = m.volumes[0].min_y - 1e-9,
        |_, l| format("volume[0].max_y", l.volumes[0] + 13, R::OutOfRange),
    ));
    v.push(case(
        "corner_count 2",
        |m| {
            m.volumes[0].corner_count = 2;
            m.volumes[0].corners.truncate(2);
        },
        |_, l| format("volume[0].corner_count", l.volumes[0] + 21, R::OutOfRange),
    ));
    v.push(case(
        "corner_count 0",
        |m| {
            m.volumes[0].corner_count = 0;
            m.volumes[0].corners.clear();
        },
        |_, l| format("volume[0].corner_count", l.volumes[0] + 21, R::OutOfRange),
    ));
    v.push(case(
        "corner_count 257",
        |m| m.volumes[0].corner_count = 257,
        |_, l| {
            let r = l.total - l.volumes[0] - 25;
            format(
                "volume[0].corner_count",
                l.volumes[0] + 21,
                big(257, (r / 16).min(256)),
            )
        },
    ));
    v.push(case(
        "corner_count by bytes",
        |m| {
            // The last volume at the end of a snapshot with no queue and no mesh: the bytes
            // after its count bound K, not 256.
            let last = m.volumes.len() - 1;
            m.volumes[last].corner_count = 200;
            m.queue.clear();
            m.queue_length = 0;
            m.mesh.clear();
            m.mesh_length = 0;
        },
        |m, l| {
            let last = m.volumes.len() - 1;
            let r = l.total - l.volumes[last] - 25;
            assert!(r / 16 < 200);
            format(
                format!("volume[{last}].corner_count"),
                l.volumes[last] + 21,
                big(200, r / 16),
            )
        },
    ));
    v.push(case(
        "corner x NaN",
        |m| m.volumes[0].corners[1][0] = f64::NAN,
        |_, l| {
            format(
                "volume[0].corner[1].x",
                l.volumes[0] + 25 + 16,
                R::NotFinite,
            )
        },
    ));
    v.push(case(
        "corner z infinite",
        |m| m.volumes[0].corners[3][1] = f64::INFINITY,
        |_, l| {
            format(
                "volume[0].corner[3].z",
                l.volumes[0] + 25 + 48 + 8,
                R::NotFinite,
            )
        },
    ));
    // T12 part 1: clockwise (the turn at corner 1 is right), collinear (no turn at corner 1).
    v.push(case(
        "clockwise",
        |m| m.volumes[0].corners.reverse(),
        |_, l| format("volume[0].corner[1]", l.volumes[0] + 25 + 16, R::NotConvex),
    ));
    v.push(case(
        "collinear",
        |m| {
            m.volumes[0].corners = vec![[0.0, 0.0], [1.0, 0.0], [2.0, 0.0], [1.0, 1.0]];
            m.fix_counts();
        },
        |_, l| format("volume[0].corner[1]", l.volumes[0] + 25 + 16, R::NotConvex),
    ));
    // T12 part 2: a pentagram turns left at every corner, but corner 3 (the star's second
    // point, P1) lies right of the first edge P0 -> P2.
    v.push(case(
        "pentagram",
        |m| {
            let p = |i: u32| {
                let a = std::f64::consts::FRAC_PI_2 + f64::from(i) * 0.4 * std::f64::consts::PI;
                [100.0 * libm::cos(a), 100.0 * libm::sin(a)]
            };
            m.volumes[0].corners = [0, 2, 4, 1, 3].map(p).to_vec();
            m.volumes[0].corner_count = 5;
        },
        |_, l| format("volume[0].corner[3]", l.volumes[0] + 25 + 48, R::NotConvex),
    ));
    // TC27: the queue.
    v.push(case(
        "queue_length by bytes",
        |m| m.queue_length = u32::MAX,
        |_, l| {
            let r = l.total - l.queue_length - 4;
            format("queue_length", l.queue_length, big(u32::MAX.into(), r / 8))
        },
    ));
    v.push(case(
        "queue duplicate",
        |m| {
            let q = m.queue[0];
            m.queue.push(q);
            m.fix_counts();
        },
        |m, l| {
            let j = m.queue.len() - 1;
            format(
                format!("queue[{j}]"),
                l.queue_length + 4 + 8 * j as u64,
                R::Duplicate,
            )
        },
    ));
    // TC28: the mesh length and the end.
    v.push(case(
        "mesh_length past the end",
        |m| m.mesh_length = m.mesh.len() as u32 + 1,
        |m, l| {
            let n = m.mesh.len() as u64;
            format(
                "mesh_length",
                l.mesh_length,
                R::Truncated {
                    needed: n + 1,
                    available: n,
                },
            )
        },
    ));
    v.push(case(
        "trailing bytes",
        |m| m.trailing = vec![0; 3],
        |_, l| format("end", l.end, R::TrailingBytes { count: 3 }),
    ));
    v.push(case(
        "mesh_length short: the rest is trailing",
        |m| m.mesh_length = m.mesh.len() as u32 - 2,
        |_, l| format("end", l.end - 2, R::TrailingBytes { count: 2 }),
    ));
    // Stage A comes before stage B: a bad mesh and trailing bytes report the trailing bytes.
    v.push(case(
        "stage A before B",
        |m| {
            m.mesh[0] = b'X';
            m.trailing = vec![1];
        },
        |_, l| format("end", l.end, R::TrailingBytes { count: 1 }),
    ));
    // TC29 stage B: the mesh snapshot's own rules, nested at absolute offsets (snapshot.md:
    // magic at 0, the parameters at 8 with the settings digest at 44).
    v.push(case(
        "mesh magic",
        |m| m.mesh[1] = b'X',
        |_, l| format("mesh.magic", l.mesh, R::BadMagic),
    ));
    v.push(case(
        "mesh empty",
        |m| {
            m.mesh.clear();
            m.fix_counts();
        },
        |_, l| {
            format(
                "mesh.magic",
                l.mesh,
                R::Truncated {
                    needed: 4,
                    available: 0,
                },
            )
        },
    ));
    v.push(case(
        "mesh settings digest",
        |m| m.mesh[44] ^= 1,
        |_, l| Want {
            class: "fingerprint",
            field: "mesh.params.settings_digest".into(),
            offset: l.mesh + 44,
            reason: None,
        },
    ));
    v.push(case(
        "mesh parameters",
        |m| m.mesh[40] ^= 1,
        |_, l| format("mesh.params", l.mesh + 8, R::ParamsMismatch),
    ));
    v.push(case(
        "mesh trailing",
        |m| {
            m.mesh.push(0);
            m.fix_counts();
        },
        |m, l| {
            format(
                "mesh.end",
                l.mesh + m.mesh.len() as u64 - 1,
                R::TrailingBytes { count: 1 },
            )
        },
    ));
    // Stage B before stage C: a queue entry the cache does not hold and a bad mesh report the mesh.
    v.push(case(
        "stage B before C",
        |m| {
            m.queue[0] = (40, 40);
            m.mesh[2] = b'X';
        },
        |_, l| format("mesh.magic", l.mesh, R::BadMagic),
    ));
    // TC29 stage C: the queue against the cache (its cached cells are columns and rows
    // -1 ..= 3: the world's tiles and the padding cells its border reaches).
    let cells = cache_fixture().busy.cells().len();
    v.push(case(
        "queue longer than the cached cells",
        move |m| {
            m.queue = (0..=cells as i32).map(|k| (k, 100)).collect();
            m.fix_counts();
        },
        move |_, l| {
            format(
                "queue_length",
                l.queue_length,
                big(cells as u64 + 1, cells as u64),
            )
        },
    ));
    for (j, cell) in [
        (0usize, (40, 40)),
        (0, (-2, 0)),
        (1, (4, 3)),
        (0, (i32::MIN, i32::MAX)),
    ] {
        v.push(case(
            format!("queue entry {cell:?} not cached"),
            move |m| m.queue[j] = cell,
            move |_, l| {
                format(
                    format!("queue[{j}]"),
                    l.queue_length + 4 + 8 * j as u64,
                    R::OutOfRange,
                )
            },
        ));
    }
    v
}

#[test]
fn every_error_path_is_refused_with_its_exact_error_and_the_cache_untouched() {
    let mut n = 0;
    for (base_name, base) in bases() {
        assert!(base.obstacles.len() >= 2 && base.volumes.len() >= 2 && !base.queue.is_empty());
        for (name, f, want) in cases() {
            let mut m = base.clone();
            f(&mut m);
            let l = layout(&m);
            let bytes = m.encode();
            assert_eq!(bytes.len() as u64, l.total, "{name}: the layout");
            let w = want(&m, &l);
            must_reject(&format!("{base_name} {name}"), &bytes, &w);
            // The checks that need no cache (for tools) agree, except on what needs one: the
            // mesh's parameters against the cache's, the queue against the cached cells.
            let needs_cache = name.starts_with("mesh settings")
                || name.starts_with("mesh parameters")
                || name.starts_with("queue longer")
                || name.ends_with("not cached");
            if !needs_cache {
                let e =
                    check_without_cache(&bytes, cache_fixture().busy.library()).expect_err(&name);
                assert_eq!(got(&e), w, "{base_name} {name} (without a cache)");
            }
            n += 1;
        }
    }
    assert!(n > 100, "{n} cases");
}

#[test]
fn a_referenced_tile_missing_from_every_library_is_refused() {
    // snapshot.md: slot 0 of the mesh snapshot is at 80 + 8 (section header) + 4 (slot count);
    // its content id follows the generation (4) and the kind (1).
    let fx = cache_fixture();
    let mut m = OntkModel::parse(&fx.busy_snapshots[1]).unwrap();
    assert_eq!(m.mesh[80 + 8 + 4 + 4], 2, "slot 0 is a referenced tile");
    m.mesh[80 + 8 + 4 + 5] ^= 0xff;
    let l = layout(&m);
    let w = format("mesh.slot[0].content_id", l.mesh + 97, R::UnknownContentId);
    must_reject("missing tile", &m.encode(), &w);
}

#[test]
fn every_truncation_names_the_field_being_read() {
    // The field each byte of the busy Referenced snapshot belongs to (TC19), computed from the
    // layout; a cut at that byte is *truncated* there (the mesh length field is read whole, so
    // a cut inside the mesh bytes is reported at `mesh_length`).
    let fx = cache_fixture();
    let m = OntkModel::parse(&fx.busy_snapshots[1]).unwrap();
    let l = layout(&m);
    let mut fields: Vec<(u64, String, u64)> = vec![
        (0, "magic".into(), 4),
        (4, "version".into(), 2),
        (6, "flags".into(), 2),
        (8, "next_obstacle_id".into(), 4),
        (12, "next_volume_id".into(), 4),
        (16, "obstacle_count".into(), 4),
    ];
    for (i, o) in m.obstacles.iter().enumerate() {
        let at = l.obstacles[i];
        fields.push((at, format!("obstacle[{i}].id"), 4));
        fields.push((at + 4, format!("obstacle[{i}].shape"), 1));
        let names: &[&str] = [&CYLINDER[..], &BOX[..], &ORIENTED[..]][o.shape as usize - 1];
        for (k, name) in names.iter().enumerate() {
            fields.push((at + 5 + 8 * k as u64, format!("obstacle[{i}].{name}"), 8));
        }
    }
    fields.push((l.volume_count, "volume_count".into(), 4));
    for (i, v) in m.volumes.iter().enumerate() {
        let at = l.volumes[i];
        fields.push((at, format!("volume[{i}].id"), 4));
        fields.push((at + 4, format!("volume[{i}].area"), 1));
        fields.push((at + 5, format!("volume[{i}].min_y"), 8));
        fields.push((at + 13, format!("volume[{i}].max_y"), 8));
        fields.push((at + 21, format!("volume[{i}].corner_count"), 4));
        for j in 0..v.corners.len() as u64 {
            fields.push((at + 25 + 16 * j, format!("volume[{i}].corner[{j}].x"), 8));
            fields.push((at + 33 + 16 * j, format!("volume[{i}].corner[{j}].z"), 8));
        }
    }
    fields.push((l.queue_length, "queue_length".into(), 4));
    for j in 0..m.queue.len() as u64 {
        fields.push((l.queue_length + 4 + 8 * j, format!("queue[{j}].column"), 4));
        fields.push((l.queue_length + 8 + 8 * j, format!("queue[{j}].row"), 4));
    }
    fields.push((l.mesh_length, "mesh_length".into(), 4));
    let bytes = &fx.busy_snapshots[1];
    let mut checked = 0;
    for cut in 0..bytes.len() as u64 {
        let want = match fields.iter().rev().find(|(at, _, _)| *at <= cut) {
            Some((at, field, size)) if cut < at + size => {
                // Counts are read whole and then bounded by the bytes after them; a cut inside
                // a count is a truncation of the count.
                format(
                    field.clone(),
                    *at,
                    R::Truncated {
                        needed: *size,
                        available: cut - at,
                    },
                )
            }
            _ => {
                assert!(
                    cut >= l.mesh,
                    "{cut}: every byte before the mesh is in a field"
                );
                let n = m.mesh.len() as u64;
                format(
                    "mesh_length",
                    l.mesh_length,
                    R::Truncated {
                        needed: n,
                        available: cut - l.mesh,
                    },
                )
            }
        };
        // A cut right after a count leaves fewer bytes than its records need: the count is
        // then too large for the bytes (TC21, TC24, TC27, TC25), checked before anything else.
        let mut c = fx.busy.clone();
        let before = state(&c);
        let e = c.restore(&bytes[..cut as usize]).expect_err("truncated");
        assert!(state(&c) == before);
        let g = got(&e);
        if matches!(g.reason, Some(R::CountTooLarge { .. })) {
            assert!(cut >= g.offset + 4, "cut at {cut}: {g:?}");
            assert!(
                fields
                    .iter()
                    .any(|(at, f, _)| *at == g.offset && *f == g.field),
                "cut at {cut}: {g:?}"
            );
            continue;
        }
        assert_eq!(g, want, "cut at {cut}");
        checked += 1;
    }
    assert!(
        checked > bytes.len() as u64 / 2,
        "{checked} cuts checked exactly"
    );
}

#[test]
fn the_values_just_inside_each_range_are_accepted() {
    for (name, base) in bases() {
        let mut m = base.clone();
        m.next_obstacle = (1 << 31) - 1;
        m.next_volume = (1 << 31) - 1;
        must_accept(&format!("{name}: next ids 2^31 - 1"), &m.encode());
        let mut m = three_shapes(&base);
        m.obstacles[0].values[3] = f64::MIN_POSITIVE;
        m.obstacles[1].values[3] = f64::from_bits(300f64.to_bits() + 1);
        m.obstacles[2].values[6] = -1e300;
        must_accept(
            &format!("{name}: smallest sizes, any rotation"),
            &m.encode(),
        );
        let mut m = base.clone();
        m.volumes[0].area = 63;
        m.volumes[0].max_y = m.volumes[0].min_y;
        must_accept(&format!("{name}: area 63, flat volume"), &m.encode());
        let mut m = base.clone();
        m.volumes[0].corners = (0..256)
            .map(|k| {
                let a = f64::from(k) * (std::f64::consts::TAU / 256.0);
                [8.0 + 2.0 * libm::cos(a), 4.0 + 2.0 * libm::sin(a)]
            })
            .collect();
        m.fix_counts();
        must_accept(&format!("{name}: 256 corners"), &m.encode());
        let mut m = base.clone();
        m.queue = cache_fixture()
            .busy
            .cells()
            .iter()
            .map(|c| (c.column, c.row))
            .collect();
        m.fix_counts();
        must_accept(&format!("{name}: every cached cell queued"), &m.encode());
    }
}

#[test]
fn the_checks_without_a_cache_summarise_a_valid_snapshot() {
    let fx = cache_fixture();
    for s in &fx.busy_snapshots {
        let got = check_without_cache(s, fx.busy.library()).unwrap();
        let want = SnapshotSummary {
            next_ids: fx.busy.next_ids(),
            obstacles: fx.busy.obstacles().len(),
            volumes: fx.busy.volumes().len(),
            queue: fx.busy.queue().len(),
            mesh: (fx.busy.mesh().slot_count(), fx.busy.mesh().tile_count()),
        };
        assert_eq!(got, want);
    }
}
