//! Replays every fuzz seed (`fuzz/seeds/<target>/`) and every regression input
//! (`fuzz/regressions/<target>/`) through the same `onav_testkit` entry points the cargo-fuzz
//! targets call, on stable Rust: a crash found once stays tested by `cargo test`.

use onav_testkit::corpus::{files, fuzz_dir};

fn replay(kind: &str) -> usize {
    let mut n = 0;
    for &(target, run) in onav_testkit::TARGETS {
        for path in files(&fuzz_dir().join(kind).join(target)) {
            let data = std::fs::read(&path).unwrap();
            let r = std::panic::catch_unwind(|| run(&data));
            assert!(r.is_ok(), "{target}: {} fails", path.display());
            n += 1;
        }
    }
    n
}

#[test]
#[cfg_attr(miri, ignore)]
fn every_seed_passes_its_target() {
    let n = replay("seeds");
    assert!(n >= onav_testkit::TARGETS.len(), "too few seeds found: {n}");
}

#[test]
#[cfg_attr(miri, ignore)]
fn every_regression_passes_its_target() {
    let n = replay("regressions");
    assert!(n >= 1, "no regression input found under fuzz/regressions/");
}

#[test]
fn every_target_has_a_seed_folder() {
    for &(target, _) in onav_testkit::TARGETS {
        assert!(
            !files(&fuzz_dir().join("seeds").join(target)).is_empty(),
            "no seeds for {target}"
        );
    }
}
