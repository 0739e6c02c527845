//! The triangle bins (`spec/build3d.md` B15, B15a): the pairs of every triangle's cell range,
//! and the memory they take.

use std::collections::BTreeMap;

use super::*;
use crate::settings::SettingsSpec;
use crate::test_kit::floor_arrays;

fn settings(tile_size: u32) -> Settings {
    Settings::new(SettingsSpec {
        cell_size: 0.5,
        agent_radius: 0.5,
        tile_size,
        ..SettingsSpec::default()
    })
    .unwrap()
}

/// B15 written out: every tile cell whose window meets a triangle's cell range, with the
/// triangle's index, cells ascending by (row, column).
fn reference(plan: &Plan) -> BTreeMap<(i32, i32), Vec<u32>> {
    let ts = i64::from(plan.settings.spec().tile_size);
    let b = i64::from(plan.d.border);
    let mut out: BTreeMap<(i32, i32), Vec<u32>> = BTreeMap::new();
    for (i, t) in plan.tris.iter().enumerate() {
        let (x0, x1) = cell_range(&t.p, 0);
        let (z0, z1) = cell_range(&t.p, 2);
        for r in floor_div(z0 - b, ts)..=floor_div(z1 + b, ts) {
            for c in floor_div(x0 - b, ts)..=floor_div(x1 + b, ts) {
                out.entry((r as i32, c as i32)).or_default().push(i as u32);
            }
        }
    }
    out
}

fn bins_of(plan: &Plan) -> BTreeMap<(i32, i32), Vec<u32>> {
    (0..plan.bins.len())
        .map(|k| {
            let (cell, list) = plan.bins.get(k).unwrap();
            ((cell.row, cell.column), list.to_vec())
        })
        .collect()
}

#[test]
fn bins_are_the_pairs_of_every_triangle() {
    // Overlapping, touching and separate ranges, rows with gaps between runs, a row range that
    // starts while others are active and one that starts after all have ended.
    let world = floor_arrays(&[
        [0.0, 0.0, 3.0, 3.0, 0.0],
        [2.0, 1.0, 9.0, 2.0, 0.5],
        [30.0, 0.0, 31.0, 40.0, 0.0],
        [12.0, 6.0, 13.0, 7.0, 1.0],
        [0.0, 60.0, 70.0, 61.0, 0.0],
        [45.0, 20.0, 46.0, 21.0, 2.0],
    ]);
    for ts in [4, 8, 16] {
        let plan = Plan::new(&world, &settings(ts)).unwrap();
        let want = reference(&plan);
        assert_eq!(bins_of(&plan), want, "tile size {ts}");
        // Ascending (row, column), as prepare's index and cell_index need.
        let cells = plan.bins.cells();
        assert!(cells
            .windows(2)
            .all(|w| (w[0].row, w[0].column) < (w[1].row, w[1].column)));
        assert_eq!(
            plan.bins.pairs(),
            want.values().map(Vec::len).sum::<usize>()
        );
    }
}

#[test]
fn bins_take_four_bytes_per_pair_and_twelve_per_cell() {
    // 64 stacked floors over 40 × 40 tile cells: many more pairs than tile cells.
    let floors: Vec<[f64; 5]> = (0..64)
        .map(|k| [0.0, 0.0, 80.0, 80.0, f64::from(k) * 3.0])
        .collect();
    let plan = Plan::new(&floor_arrays(&floors), &settings(4)).unwrap();
    let (pairs, cells) = (plan.bins.pairs(), plan.bins.len());
    assert!(pairs > 100 * cells, "{pairs} pairs, {cells} cells");
    assert_eq!(plan.bins.heap_bytes(), 4 * pairs + 12 * cells + 4);
}
