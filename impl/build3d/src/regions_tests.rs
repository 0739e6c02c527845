//! Regions (`spec/build3d.md` B28–B32): every region is flat, whatever the field.

use proptest::prelude::*;

use super::*;
use crate::test_kit::{compact_of, CELL};

fn assert_flat(c: &Compact, r: &Regions) {
    for (i, &ri) in r.reg.iter().enumerate() {
        if ri == 0 || ri == BORDER {
            continue;
        }
        let col = c.col[i] as usize;
        assert!(
            c.win.interior(col % c.win.size, col / c.win.size),
            "region in the padding"
        );
        for j in c.column(col) {
            assert!(
                j == i || r.reg[j] != ri,
                "two spans of region {ri} in column {col}"
            );
        }
        for d in 0..4 {
            let Some(nc) = c.neighbour_column(col, d) else {
                continue;
            };
            for j in c.column(nc) {
                if r.reg[j] == ri {
                    assert_eq!(mutual(c, i, d), Some(j), "region {ri} not linked both ways");
                }
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1000, ..ProptestConfig::default() })]

    #[test]
    fn regions_are_flat(
        heights in prop::collection::vec(prop::collection::vec(prop::sample::select(vec![3u32, 4, 5, 9, 10, 16]), 0..3), 144),
        areas in prop::collection::vec(1u8..3, 144),
        min_area in 0u32..10,
        merge_area in 0u32..60,
    ) {
        let c = compact_of(12, 2, |x, z| {
            let mut h = heights[z * 12 + x].clone();
            h.sort_unstable();
            h.dedup();
            // Keep 5 cells between floors so each is a separate open span.
            let mut out: Vec<(u32, u8)> = Vec::new();
            for y in h {
                if out.last().is_none_or(|&(p, _)| y >= p + 6) {
                    out.push((y, areas[z * 12 + x]));
                }
            }
            out
        });
        let r = regions(&c, min_area, merge_area, CELL, u64::MAX).unwrap();
        assert_flat(&c, &r);
        // Ids are 1 ..= count, each used.
        let mut used = vec![false; r.count as usize + 1];
        for &ri in &r.reg {
            if ri != 0 && ri != BORDER {
                used[ri as usize] = true;
            }
        }
        prop_assert!(used[1..].iter().all(|&u| u));
        // The plain links are a shortcut only: without them (every link taken as not plain,
        // so every neighbour column is walked) the regions are the same.
        let nb = c.neighbour_table();
        let plain = c.plain_links(&nb);
        prop_assert!(plain.iter().any(|&m| m != 0));
        let walked = regions_with(
            &c, &nb, &vec![0; plain.len()], min_area, merge_area, CELL, u64::MAX, SweepUse::None,
        )
        .unwrap();
        prop_assert_eq!(&walked, &r);
        // And per region the same relations (the conflicts above all), for these regions and
        // for the labelling that puts every span of a column in another region.
        let relations = |p: &[u8], reg: &[u32], count: u32| -> Vec<_> {
            analyse(&c, &nb, p, reg, count)
                .into_iter()
                .map(|i| (i.spans, i.area, i.wall, i.border, i.alive, i.neighbours, i.conflicts))
                .collect()
        };
        let none = vec![0; plain.len()];
        prop_assert_eq!(relations(&plain, &r.reg, r.count), relations(&none, &r.reg, r.count));
        let by_floor: Vec<u32> = (0..r.reg.len())
            .map(|i| match r.reg[i] {
                0 | BORDER => r.reg[i],
                _ => 1 + (i - c.column(c.col[i] as usize).start) as u32,
            })
            .collect();
        prop_assert_eq!(relations(&plain, &by_floor, 3), relations(&none, &by_floor, 3));
    }
}

#[test]
fn a_floor_is_one_region_and_stacked_floors_are_two() {
    let one = compact_of(10, 2, |_, _| vec![(4, 1)]);
    let r = regions(&one, 0, 1000, CELL, u64::MAX).unwrap();
    assert_eq!(r.count, 1);
    assert_eq!(r.reg.iter().filter(|&&x| x == BORDER).count(), 100 - 36);
    let two = compact_of(10, 2, |_, _| vec![(4, 1), (20, 1)]);
    let r = regions(&two, 0, 1000, CELL, u64::MAX).unwrap();
    assert_eq!(r.count, 2);
    assert_flat(&two, &r);
}

#[test]
fn small_groups_go_unless_they_reach_the_padding() {
    // A 2×2 island in the middle (4 spans) and a 2×2 piece touching the padding.
    let c = compact_of(12, 2, |x, z| {
        let island = (5..7).contains(&x) && (5..7).contains(&z);
        let edge = x < 4 && (5..7).contains(&z);
        if island || edge {
            vec![(4, 1)]
        } else {
            vec![]
        }
    });
    let r = regions(&c, 5, 0, CELL, u64::MAX).unwrap();
    assert_eq!(r.count, 1, "the island is removed, the edge piece kept");
    let r = regions(&c, 4, 0, CELL, u64::MAX).unwrap();
    assert_eq!(r.count, 2);
}

#[test]
fn different_areas_never_share_a_region() {
    let c = compact_of(10, 2, |x, _| vec![(4, if x < 5 { 1 } else { 2 })]);
    let r = regions(&c, 0, 1000, CELL, u64::MAX).unwrap();
    assert_eq!(r.count, 2);
    for (i, &ri) in r.reg.iter().enumerate() {
        if ri != 0 && ri != BORDER {
            let x = c.col[i] as usize % 10;
            assert_eq!(ri, if x < 5 { 1 } else { 2 });
        }
    }
}
