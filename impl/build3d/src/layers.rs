//! Layers (`spec/build3d.md` §11): the regions of a tile grouped into tile-layers so that no
//! two portal edges of one layer cross the same point of a tile side (`spec/navmesh-format.md`
//! T20), keeping linked regions together wherever that allows.
//!
//! A region's **portal cells** on side s are the cells of its spans in the tile's outermost
//! interior column or row on that side (0 +x: x = last, 1 +z: z = last, 2 −x: x = first,
//! 3 −z: z = first), counted along the side. Flat regions hold each such cell at most once.
//!
//! 1. **Groups.** For each region in ascending id that has no group yet: a new group starts with
//!    it; breadth-first (first in, first out), each region taken from the queue offers its linked
//!    neighbours in ascending id; one without a group joins when its portal cells meet none of
//!    the group's on any side, and is queued.
//! 2. **Layers.** Groups in creation order take the lowest layer whose portal cells they do not
//!    meet on any side.
//!
//! Limits: L12 (layers per tile).

use std::collections::{BTreeSet, VecDeque};

use crate::compact::{Compact, NO_SPAN};
use crate::error::{check, BuildError, LimitKind, TileCell};
use crate::regions::{Regions, BORDER};

/// Portal-cell bit sets of the four sides.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Cells(Vec<u64>);

impl Cells {
    fn new(words: usize) -> Self {
        Self(vec![0; 4 * words])
    }
    fn meets(&self, o: &Cells) -> bool {
        self.0.iter().zip(&o.0).any(|(a, b)| a & b != 0)
    }
    fn add(&mut self, o: &Cells) {
        self.0.iter_mut().zip(&o.0).for_each(|(a, b)| *a |= b);
    }
}

/// The layer of each region (index r − 1) and the number of layers.
#[cfg(test)]
pub(crate) fn layers(
    c: &Compact,
    regs: &Regions,
    tile_size: u32,
    cell: TileCell,
    max_layers: u64,
) -> Result<(Vec<u32>, u32), BuildError> {
    layers_with(c, &c.neighbour_table(), regs, tile_size, cell, max_layers)
}

/// [`layers`] with `nb` the [`Compact::neighbour_table`] of `c`.
pub(crate) fn layers_with(
    c: &Compact,
    nb: &[[u32; 4]],
    regs: &Regions,
    tile_size: u32,
    cell: TileCell,
    max_layers: u64,
) -> Result<(Vec<u32>, u32), BuildError> {
    let n = regs.count as usize;
    let words = (tile_size as usize).div_ceil(64);
    let mut cells = vec![Cells::new(words); n];
    let mut neighbours = vec![BTreeSet::new(); n];
    let (size, b) = (c.win.size, c.win.border);
    let last = size - b - 1;
    for (i, &r) in regs.reg.iter().enumerate() {
        if r == 0 || r == BORDER {
            continue;
        }
        let ri = r as usize - 1;
        let col = c.col[i] as usize;
        let (x, z) = (col % size, col / size);
        for (side, on, along) in [
            (0, x == last, z - b),
            (1, z == last, x - b),
            (2, x == b, z - b),
            (3, z == b, x - b),
        ] {
            if on {
                cells[ri].0[side * words + along / 64] |= 1 << (along % 64);
            }
        }
        for &j in &nb[i] {
            if j != NO_SPAN {
                let q = regs.reg[j as usize];
                if q != 0 && q != BORDER && q != r {
                    neighbours[ri].insert(q as usize - 1);
                    neighbours[q as usize - 1].insert(ri);
                }
            }
        }
    }
    let mut group = vec![usize::MAX; n];
    let mut groups: Vec<Cells> = Vec::new();
    let mut queue = VecDeque::new();
    for seed in 0..n {
        if group[seed] != usize::MAX {
            continue;
        }
        let g = groups.len();
        group[seed] = g;
        let mut gc = cells[seed].clone();
        queue.push_back(seed);
        while let Some(r) = queue.pop_front() {
            for &q in &neighbours[r] {
                if group[q] == usize::MAX && !cells[q].meets(&gc) {
                    group[q] = g;
                    gc.add(&cells[q]);
                    queue.push_back(q);
                }
            }
        }
        groups.push(gc);
    }
    let mut layer_cells: Vec<Cells> = Vec::new();
    let mut layer_of_group = Vec::with_capacity(groups.len());
    for gc in &groups {
        let l = match layer_cells.iter().position(|lc| !lc.meets(gc)) {
            Some(l) => l,
            None => {
                layer_cells.push(Cells::new(words));
                layer_cells.len() - 1
            }
        };
        layer_cells[l].add(gc);
        layer_of_group.push(l as u32);
    }
    check(
        Some(cell),
        None,
        LimitKind::Layers,
        layer_cells.len() as u64,
        max_layers,
    )?;
    let layer_of = group.iter().map(|&g| layer_of_group[g]).collect();
    Ok((layer_of, layer_cells.len() as u32))
}

#[cfg(test)]
mod tests {
    //! `spec/build3d.md` B33–B35.
    use super::*;
    use crate::regions::regions;
    use crate::test_kit::{compact_of, CELL};

    #[test]
    fn stacked_floors_on_the_sides_take_two_layers() {
        let c = compact_of(10, 2, |_, _| vec![(4, 1), (20, 1)]);
        let r = regions(&c, 0, 1000, CELL, u64::MAX).unwrap();
        let (of, n) = layers(&c, &r, 6, CELL, u64::MAX).unwrap();
        assert_eq!((of, n), (vec![0, 1], 2));
    }

    #[test]
    fn an_upper_floor_off_the_sides_shares_the_layer() {
        let c = compact_of(10, 2, |x, z| {
            let inner = (4..6).contains(&x) && (4..6).contains(&z);
            if inner {
                vec![(4, 1), (20, 1)]
            } else {
                vec![(4, 1)]
            }
        });
        let r = regions(&c, 0, 0, CELL, u64::MAX).unwrap();
        let (of, n) = layers(&c, &r, 6, CELL, u64::MAX).unwrap();
        assert_eq!(n, 1);
        assert!(of.iter().all(|&l| l == 0));
        assert!(layers(&c, &r, 6, CELL, 0).is_err());
    }
}
