//! A cloned cache shares the original's library (`spec/tilecache.md` TC15) until one of them adds
//! a tile; sharing never lets one cache restore a tile only the other built.

use onav::SnapshotMode::{Full, Referenced};
use onav_tilecache::Obstacle;

use crate::kit::*;

#[test]
fn a_clone_shares_the_library_until_either_adds_a_tile() {
    let mut a = small_cache(false);
    let built = a.snapshot(Referenced);
    a.add_obstacle(Obstacle::cylinder([12.0, -0.5, 12.0], 1.0, 2.0).unwrap())
        .unwrap();
    a.update_all().unwrap();
    let cut = a.snapshot(Referenced);
    let len = a.library().len();

    let mut b = a.clone();
    assert!(std::ptr::eq(a.library(), b.library()), "one library object");
    // Restores and rebuilds that bring no new tile keep it shared.
    b.restore(&built).unwrap();
    b.restore(&cut).unwrap();
    // The same cylinder again (id 2): its cells rebuild to tiles the library holds.
    b.add_obstacle(Obstacle::cylinder([12.0, -0.5, 12.0], 1.0, 2.0).unwrap())
        .unwrap();
    b.update_all().unwrap();
    assert!(std::ptr::eq(a.library(), b.library()), "nothing was added");

    // b builds a tile a never had: b's library is its own from then on, a's is unchanged.
    b.add_obstacle(Obstacle::aabb([3.0, -1.0, 3.0], [5.0, 1.0, 5.0]).unwrap())
        .unwrap();
    b.update_all().unwrap();
    assert!(!std::ptr::eq(a.library(), b.library()));
    assert_eq!(a.library().len(), len);
    assert!(b.library().len() > len);
    let b_only = b.snapshot(Referenced);
    let before = a.snapshot(Full);
    assert!(a.restore(&b_only).is_err(), "a never held b's new tile");
    assert_eq!(
        a.snapshot(Full),
        before,
        "a refused restore leaves a untouched"
    );
    // Both still restore every earlier frame.
    for c in [&mut a, &mut b] {
        c.restore(&built).unwrap();
        assert_eq!(c.snapshot(Referenced), built);
        c.restore(&cut).unwrap();
        assert_eq!(c.snapshot(Referenced), cut);
    }
    b.restore(&b_only).unwrap();
    assert_eq!(b.snapshot(Referenced), b_only);
}
