//! SHA-256 of `ONTK` snapshots after a fixed sequence of operations, as computed on x86_64. Run on
//! other platforms (`.ci/cross` with `-p onav-tilecache`: s390x big-endian, i686 32-bit), equal
//! digests show that the shapes (libm's sin and cos included), the marks, the rebuilt tiles and
//! the snapshot writer give the same bytes everywhere (`spec/tilecache.md` TC30, TC33).

use onav::SnapshotMode;
use onav_build3d::{Settings, SettingsSpec};
use onav_tilecache::{Obstacle, TileCache, Volume};
use sha2::{Digest, Sha256};

use crate::kit::*;

/// (world, mode, expected SHA-256 of the snapshot after the operations).
const EXPECTED: [(&str, bool, &str); 4] = [
    (
        "small",
        false,
        "b9a05fa28dbe5d974b696fb7568337480e2be8014450d306f5d0e80cde18809a",
    ),
    (
        "small",
        true,
        "08a059f783efa4a685cc213e0b25bafe447d08781aeb77f68c13d3163117b6e5",
    ),
    (
        "dungeon",
        false,
        "882ec9ec8b68e659ae78f5cf857d2cb3227c185bf2781932e756d67fed6d4b67",
    ),
    (
        "dungeon",
        true,
        "336d53067749e9130a2eca69d9547d1f04abe0a77705246e21bab4f518ef8955",
    ),
];

/// Obstacles and volumes at vertices of the cache's own tiles (on its floors).
fn ops(c: &mut TileCache, seed: u64) {
    let mut r = Rng(seed);
    let spots: Vec<[f64; 3]> = c
        .mesh()
        .tiles()
        .flat_map(|(_, t)| t.vertices().to_vec())
        .collect();
    for k in 0..24 {
        let p = spots[r.below(spots.len() as u64) as usize];
        let (x, y, z) = (p[0], p[1], p[2]);
        let o = match k % 3 {
            0 => Obstacle::cylinder([x, y - 0.5, z], 1.0, 2.0),
            1 => Obstacle::aabb([x - 0.7, y - 1.0, z - 0.4], [x + 0.7, y + 1.0, z + 0.4]),
            _ => Obstacle::oriented_box([x, y, z], [1.5, 1.0, 0.3], r.range(-3.2, 3.2)),
        }
        .unwrap();
        c.add_obstacle(o).unwrap();
        if k % 5 == 4 {
            let a = r.range(0.0, 6.3);
            let poly = (0..5)
                .map(|j| {
                    let t = a + f64::from(j) * 1.2566;
                    [x + 2.0 * libm::cos(t), z + 2.0 * libm::sin(t)]
                })
                .collect();
            c.add_volume(Volume::new((k % 60) as u8, y - 2.0, y + 2.0, poly).unwrap())
                .unwrap();
        }
        if k % 4 == 3 {
            let first = c.obstacles().next().map(|(id, _)| id).unwrap();
            c.remove_obstacle(first).unwrap();
            c.update(3).unwrap();
        }
    }
    c.update(5).unwrap();
}

fn cache_of(world: &str) -> TileCache {
    match world {
        "small" => small_cache(true),
        _ => {
            let s = Settings::new(SettingsSpec {
                detail_sample_dist: 0.0,
                ..SettingsSpec::default()
            })
            .unwrap();
            TileCache::new(&demo_mesh(world), &s).unwrap()
        }
    }
}

#[test]
fn ontk_bytes_hash_the_same_on_every_platform() {
    let mut report = String::new();
    let mut ok = true;
    let mut caches: Vec<(&str, TileCache)> = Vec::new();
    for (world, full, want) in EXPECTED {
        if !caches.iter().any(|(w, _)| *w == world) {
            let mut c = cache_of(world);
            let built = c.library().len();
            ops(&mut c, 42);
            assert!(
                c.library().len() > built,
                "{world}: the operations changed tiles"
            );
            caches.push((world, c));
        }
        let c = &caches.iter().find(|(w, _)| *w == world).unwrap().1;
        let mode = if full {
            SnapshotMode::Full
        } else {
            SnapshotMode::Referenced
        };
        let got = hex(&Sha256::digest(c.snapshot(mode)));
        if got != want {
            ok = false;
        }
        report.push_str(&format!("(\"{world}\", {full}, \"{got}\"),\n"));
    }
    assert!(ok, "snapshot hashes differ from x86_64:\n{report}");
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}
