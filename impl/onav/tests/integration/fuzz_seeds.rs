//! The fuzz seed corpus (`fuzz/seeds/<target>/`) is generated from real tiles, snapshots and mesh
//! files by [`onav_testkit::seed_inputs`]. With `ONAV_WRITE_SEEDS=1` this test writes the files;
//! otherwise it checks that the committed files are exactly what the generator makes here (on a
//! big-endian or 32-bit target too, that is one more check that the writers are portable).

#[test]
#[cfg_attr(miri, ignore)]
fn committed_seeds_match_the_generator() {
    onav_testkit::corpus::check_committed_seeds(onav_testkit::seed_inputs(), 2 << 20);
}

/// The seeds over the landing budget are rejected where they are meant to be: at the one slot's
/// tile (snapshot S30) and at the one tile of the mesh file (format M13).
#[test]
#[cfg_attr(miri, ignore)]
fn landing_budget_seeds_reach_the_last_check() {
    use onav::{FormatReason, RestoreError};
    let lib = onav::TileLibrary::new();
    for (target, name, bytes) in onav_testkit::seed_inputs() {
        if !name.starts_with("over_landing_budget") {
            continue;
        }
        let e = if target == "read_mesh" {
            onav::read_mesh(&bytes).unwrap_err()
        } else {
            onav::NavMeshSnapshot::restore(&bytes, &lib).unwrap_err()
        };
        let RestoreError::Format(f) = e else {
            panic!("{target}/{name}: {e}")
        };
        assert!(
            matches!(f.reason, FormatReason::LandingBudget { .. }),
            "{target}/{name}: {f}"
        );
        let field = if target == "read_mesh" {
            "tile[0]"
        } else {
            "slot[0].tile"
        };
        assert_eq!(f.field, field);
    }
}
