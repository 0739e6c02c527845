//! Golden hashes that must be identical on every platform (`spec/security.md`, "Platforms"):
//! SHA-256 of the Full and Referenced snapshots of fixed generated meshes, of a tile, and of a
//! mesh file. The constants were computed on x86_64 and confirmed unchanged on s390x
//! (big-endian, under qemu-user) and i686 (32-bit); see `.ci/cross`.

use onav::testing::all_links;
use onav::{write_mesh, NavMeshSnapshot, SnapshotMode, TileLibrary, TiledNavMesh};
use onav_testkit::{busy_mesh, fuzz_world, mesh_of, tiny_tiles};
use sha2::{Digest, Sha256};

fn sha(b: &[u8]) -> String {
    Sha256::digest(b)
        .iter()
        .map(|x| format!("{x:02x}"))
        .collect()
}

/// The fixture's busy mesh: free slots, generations above 1, edits, disabled links.
fn busy() -> (TiledNavMesh, TileLibrary) {
    let w = fuzz_world();
    let tiles = w.tiles();
    (busy_mesh(&w, &tiles), TileLibrary::from_tiles(&tiles))
}

/// Every golden value: (name, bytes).
fn goldens() -> Vec<(&'static str, Vec<u8>)> {
    let (m, _) = busy();
    let (tw, tiles) = tiny_tiles(50);
    let tiny = mesh_of(&tw.params(64), &tiles).unwrap();
    vec![
        ("busy_full", m.snapshot(SnapshotMode::Full)),
        ("busy_referenced", m.snapshot(SnapshotMode::Referenced)),
        ("busy_mesh_file", write_mesh(&m)),
        (
            "world_tile_0",
            fuzz_world().tiles()[0].as_built_bytes().to_vec(),
        ),
        ("tiny_full", tiny.snapshot(SnapshotMode::Full)),
        ("tiny_referenced", tiny.snapshot(SnapshotMode::Referenced)),
    ]
}

const EXPECTED: &[(&str, &str)] = &[
    (
        "busy_full",
        "831badb73174b9eb6eee6064e622dcd533021a190ffa6aa4bec69a8edcb601f4",
    ),
    (
        "busy_referenced",
        "48af37fda21e7bc72c4c8c72c1a24cd22be6946c8e38eca0d31d37366a683e64",
    ),
    (
        "busy_mesh_file",
        "1dc5563917fd9095ccd0bb65b0fd7f0d3f0578c42caa3b93fffee99df2177d24",
    ),
    (
        "world_tile_0",
        "273f1d9c0542c40b134a710488616ae3683fd9351ada0e07b9d61be6bd264a87",
    ),
    (
        "tiny_full",
        "924f42f8300e131f7208033e26ba0b22b3c9acd1b9b9f1bf9b71879c28174e6d",
    ),
    (
        "tiny_referenced",
        "49a7a4d48bf7d364ad0f7c8a115308eebc9290acf0cdd67d321c408cd73e81c0",
    ),
];

#[test]
#[cfg_attr(miri, ignore)]
fn golden_hashes_are_identical_on_every_platform() {
    let got: Vec<(&str, String)> = goldens().into_iter().map(|(n, b)| (n, sha(&b))).collect();
    for (n, h) in &got {
        println!("    (\"{n}\", \"{h}\"),");
    }
    for ((n, h), (en, eh)) in got.iter().zip(EXPECTED) {
        assert_eq!(n, en);
        assert_eq!(h, eh, "{n}: hash differs from the x86_64 golden");
    }
}

#[test]
#[cfg_attr(miri, ignore)]
fn restored_goldens_snapshot_back_to_the_same_bytes() {
    let (m, lib) = busy();
    for mode in [SnapshotMode::Full, SnapshotMode::Referenced] {
        let s = m.snapshot(mode);
        let r = NavMeshSnapshot::restore(&s, &lib).unwrap();
        assert_eq!(r.snapshot(mode), s);
        assert_eq!(all_links(&r), all_links(&m));
    }
}
