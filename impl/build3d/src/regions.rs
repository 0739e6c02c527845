//! Regions (`spec/build3d.md` §10): the walkable open spans of a tile's interior partitioned
//! into **flat** regions — at most one span per column, and any two spans of a region in
//! neighbouring columns linked both ways — so that every region is a height map over a set of
//! cells and its outline is a plain cell outline.
//!
//! 1. **Sweep** (monotone partition). Rows ascending; in each row, columns ascending, spans
//!    bottom-up: a span continues the sweep of its −x neighbour when the two are linked both
//!    ways, have the same area, and that sweep has no span in this column yet; otherwise it
//!    starts a new sweep. Then, per sweep in creation order: if every member's mutually linked
//!    same-area −z neighbour that has a region has the same region r, at least one has, all the
//!    spans of this row whose −z neighbour is in r belong to this sweep, and no span of r in the
//!    row below would lie next to a member without being its −z link, the sweep joins r;
//!    otherwise it becomes a new region (ids ascending from 1).
//! 2. **Filter.** Regions connected through links form groups; a group with fewer than
//!    `region_min_area` spans that nowhere links to the tile's padding is removed.
//! 3. **Merge.** Repeated passes over the regions in ascending id until a pass merges nothing: a
//!    region with at most `region_merge_area` spans, or one that touches no wall, merges into
//!    the neighbour with the fewest spans (ties: lowest id) that has its area and with which the
//!    union stays flat.
//! 4. **Renumber** the surviving regions 1 … R in ascending order of their ids.
//!
//! Limits: L11 (regions per tile).

use std::collections::BTreeSet;

use crate::compact::{Compact, NO_SPAN};
use crate::error::{check, BuildError, LimitKind, TileCell};

/// The region id of spans in the tile's padding.
pub(crate) const BORDER: u32 = u32::MAX;

/// The opposite of direction d.
#[inline]
pub(crate) fn opposite(d: usize) -> usize {
    (d + 2) & 3
}

/// Spans i and j = neighbour(i, d) linked both ways.
#[cfg(test)]
pub(crate) fn mutual(c: &Compact, i: usize, d: usize) -> Option<usize> {
    let j = c.neighbour(i, d)?;
    (c.neighbour(j, opposite(d)) == Some(i)).then_some(j)
}

/// Spans i and j = neighbour(i, d) linked both ways, through a [`Compact::neighbour_table`].
#[inline]
fn mutual_in(nb: &[[u32; 4]], i: usize, d: usize) -> Option<usize> {
    let j = nb[i][d];
    (j != NO_SPAN && nb[j as usize][opposite(d)] == i as u32).then_some(j as usize)
}

/// The region of every span: 0 none, [`BORDER`] padding, else 1 ..= `count`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Regions {
    pub reg: Vec<u32>,
    pub count: u32,
}

#[derive(Debug, Clone, Default)]
struct Info {
    spans: u64,
    area: u8,
    wall: bool,
    border: bool,
    alive: bool,
    neighbours: BTreeSet<u32>,
    conflicts: BTreeSet<u32>,
    /// The region last added to `neighbours` and to `conflicts` by `analyse` (0: none), so
    /// that the run of spans naming the same region again costs no set lookup.
    last_neighbour: u32,
    last_conflict: u32,
}

impl Info {
    fn add_neighbour(&mut self, q: u32) {
        if self.last_neighbour != q {
            self.last_neighbour = q;
            self.neighbours.insert(q);
        }
    }

    fn add_conflict(&mut self, q: u32) {
        if self.last_conflict != q {
            self.last_conflict = q;
            self.conflicts.insert(q);
        }
    }
}

const NX: usize = 2;
const NZ: usize = 3;

/// Builds the regions of §10.
#[cfg(test)]
pub(crate) fn regions(
    c: &Compact,
    min_area: u32,
    merge_area: u32,
    cell: TileCell,
    max_regions: u64,
) -> Result<Regions, BuildError> {
    let nb = c.neighbour_table();
    regions_with(
        c,
        &nb,
        &c.plain_links(&nb),
        min_area,
        merge_area,
        cell,
        max_regions,
        SweepUse::None,
    )
}

/// The sweep (step 1) of a tile's regions, kept so that a sweep of the same spans with other
/// areas can start at the first row whose areas differ ([`SweepUse::Resume`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Sweep {
    /// The region of every span after the sweep (before steps 2–4).
    raw: Vec<u32>,
    /// Per window row z, the next region id when the sweep reaches it.
    next_at: Vec<u32>,
}

impl Sweep {
    pub(crate) fn heap_bytes(&self) -> usize {
        std::mem::size_of_val(&self.raw[..]) + std::mem::size_of_val(&self.next_at[..])
    }
}

/// What [`regions_with`] does with a [`Sweep`].
pub(crate) enum SweepUse<'a> {
    /// Nothing.
    None,
    /// Records its sweep there.
    Record(&'a mut Sweep),
    /// Takes rows below window row `z0` from a sweep recorded with the same spans and links
    /// and, in every row below `z0`, the same areas. Row z of the sweep reads only the areas of
    /// rows z and z − 1, the links and the regions of row z − 1, so those rows and the next id
    /// at row `z0` are the recorded ones.
    Resume(&'a Sweep, usize),
}

/// Builds the regions of §10, with `nb` the [`Compact::neighbour_table`] of `c` and `plain`
/// its [`Compact::plain_links`].
#[allow(clippy::too_many_arguments)]
pub(crate) fn regions_with(
    c: &Compact,
    nb: &[[u32; 4]],
    plain: &[u8],
    min_area: u32,
    merge_area: u32,
    cell: TileCell,
    max_regions: u64,
    mut sweep: SweepUse<'_>,
) -> Result<Regions, BuildError> {
    let (size, b) = (c.win.size, c.win.border);
    let n = c.span_count();
    let mut reg = vec![0u32; n];
    for z in c.occ.z0..c.occ.z1 {
        for x in c.occ.x0..c.occ.x1 {
            if !c.win.interior(x, z) {
                for i in c.column(z * size + x) {
                    if c.area[i] != 0 {
                        reg[i] = BORDER;
                    }
                }
            }
        }
    }
    let (zs, ze) = (b.max(c.occ.z0), (size - b).min(c.occ.z1));
    let mut next: u32 = 1;
    let mut first = zs;
    if let SweepUse::Resume(rec, z0) = sweep {
        if z0 >= zs {
            // Rows zs .. first come from the record (none when the sweep has no rows).
            first = z0.min(ze.max(zs));
            let p = c.start[first * size] as usize;
            reg[..p].copy_from_slice(&rec.raw[..p]);
            next = rec.next_at[first];
        }
    }
    if let SweepUse::Record(rec) = &mut sweep {
        rec.next_at = vec![1; size + 1];
    }
    let mut sweep_of = vec![u32::MAX; n];
    let mut below_count: Vec<u32> = vec![0; next as usize];
    let mut sweeps: Vec<(usize, Vec<usize>)> = Vec::new();
    // Reused from row to row (their capacity only): spare member lists, the region below each
    // member (sweep s's members at `belows[boff[s] .. boff[s + 1]]`), and per-sweep decisions.
    let mut spare: Vec<Vec<usize>> = Vec::new();
    let mut belows: Vec<Option<(usize, u32)>> = Vec::new();
    let mut boff: Vec<usize> = Vec::new();
    let mut decided: Vec<(Option<u32>, u32)> = Vec::new();
    let mut targets: Vec<Option<u32>> = Vec::new();
    let (xs, xe) = (b.max(c.occ.x0), (size - b).min(c.occ.x1));
    for z in first..ze {
        if let SweepUse::Record(rec) = &mut sweep {
            rec.next_at[z] = next;
        }
        for (_, mut m) in sweeps.drain(..) {
            m.clear();
            spare.push(m);
        }
        for x in xs..xe {
            for i in c.column(z * size + x) {
                if c.area[i] == 0 {
                    continue;
                }
                let joined = (x > b)
                    .then(|| mutual_in(nb, i, NX))
                    .flatten()
                    .filter(|&j| c.area[j] == c.area[i] && sweep_of[j] != u32::MAX)
                    .map(|j| sweep_of[j] as usize)
                    .filter(|&s| sweeps[s].0 != x);
                let s = match joined {
                    Some(s) => s,
                    None => {
                        sweeps.push((x, spare.pop().unwrap_or_default()));
                        sweeps.len() - 1
                    }
                };
                sweeps[s].0 = x;
                sweeps[s].1.push(i);
                sweep_of[i] = s as u32;
            }
        }
        // The region below each member, if any (read before this row assigns anything).
        let below = |i: usize| -> Option<(usize, u32)> {
            if z == b {
                return None;
            }
            let j = mutual_in(nb, i, NZ)?;
            let r = reg[j];
            (c.area[j] == c.area[i] && r != 0 && r != BORDER).then_some((j, r))
        };
        belows.clear();
        boff.clear();
        for (_, m) in &sweeps {
            boff.push(belows.len());
            belows.extend(m.iter().map(|&i| below(i)));
        }
        boff.push(belows.len());
        let below_of = |s: usize| &belows[boff[s]..boff[s + 1]];
        decided.clear();
        for s in 0..sweeps.len() {
            let mut nei: Option<Option<u32>> = None;
            let mut ns = 0u32;
            for &(_, r) in below_of(s).iter().flatten() {
                below_count[r as usize] += 1;
                ns += 1;
                nei = match nei {
                    None => Some(Some(r)),
                    Some(Some(r0)) if r0 == r => Some(Some(r)),
                    _ => Some(None),
                };
            }
            decided.push((nei.flatten(), ns));
        }
        targets.clear();
        for (s, (_, members)) in sweeps.iter().enumerate() {
            let (nei, ns) = decided[s];
            let target = nei.filter(|&r| {
                ns == below_count[r as usize]
                    && members.iter().zip(below_of(s)).all(|(&i, bl)| {
                        // A plain −z link is the column's only span: in r it is the member's
                        // link below (r's spans all have the member's area), else not in r.
                        if plain[i] & (1 << NZ) != 0 {
                            return true;
                        }
                        let link = bl.map(|(j, _)| j);
                        // Member i lies in row z, so its column minus one row.
                        let under = c.col[i] as usize - size;
                        c.column(under).all(|j| reg[j] != r || Some(j) == link)
                    })
            });
            targets.push(target);
        }
        for (s, (_, members)) in sweeps.iter().enumerate() {
            let r = match targets[s] {
                Some(r) => r,
                None => {
                    let r = next;
                    next += 1;
                    check(
                        Some(cell),
                        None,
                        LimitKind::Regions,
                        u64::from(r),
                        max_regions,
                    )?;
                    below_count.push(0);
                    r
                }
            };
            for &i in members {
                reg[i] = r;
                sweep_of[i] = u32::MAX;
            }
            for &(_, q) in below_of(s).iter().flatten() {
                below_count[q as usize] = 0;
            }
        }
    }
    if let SweepUse::Record(rec) = &mut sweep {
        if ze > zs {
            rec.next_at[ze] = next;
        }
        rec.raw = reg.clone();
    }
    let count = next - 1;
    let mut info = analyse(c, nb, plain, &reg, count);
    filter_small(&mut info, min_area);
    let alias = merge(&mut info, merge_area);
    // Renumber survivors ascending.
    let mut new_id = vec![0u32; count as usize + 1];
    let mut k = 0;
    for r in 1..=count as usize {
        if info[r].alive {
            k += 1;
            new_id[r] = k;
        }
    }
    for r in reg.iter_mut() {
        if *r != 0 && *r != BORDER {
            *r = new_id[alias[*r as usize] as usize];
        }
    }
    Ok(Regions { reg, count: k })
}

/// Per-region span counts, neighbours and flatness conflicts.
///
/// Only interior columns are walked: the sweep gives regions to interior spans only (padding
/// spans get 0 or [`BORDER`], rows and columns outside the interior are never swept), so a
/// padding column holds no span that contributes. The four neighbour columns of an interior
/// column lie inside the window (the border is at least 3 columns, §3).
fn analyse(c: &Compact, nb: &[[u32; 4]], plain: &[u8], reg: &[u32], count: u32) -> Vec<Info> {
    let mut info = vec![Info::default(); count as usize + 1];
    let is_region = |r: u32| r != 0 && r != BORDER;
    let (size, b) = (c.win.size, c.win.border);
    debug_assert!(b >= 1, "an interior column has all four neighbour columns");
    let (xs, xe) = (b.max(c.occ.x0), (size - b).min(c.occ.x1));
    let (zs, ze) = (b.max(c.occ.z0), (size - b).min(c.occ.z1));
    // The column offsets of directions 0 … 3 (+x, +z, −x, −z); wrapping, since an interior
    // column's neighbours are inside the window the sums stay in range.
    let step = [1, size, 1usize.wrapping_neg(), size.wrapping_neg()];
    // The columns are walked in index order.
    for z in zs..ze {
        for x in xs..xe {
            let col = z * size + x;
            let own = c.column(col);
            for i in own.clone() {
                let r = reg[i];
                if !is_region(r) {
                    continue;
                }
                let inf = &mut info[r as usize];
                inf.spans += 1;
                inf.area = c.area[i];
                inf.alive = true;
                if own.len() > 1 {
                    for j in own.clone() {
                        if j != i && is_region(reg[j]) && reg[j] != r {
                            inf.add_conflict(reg[j]);
                        }
                    }
                }
                let (nbi, pl) = (nb[i], plain[i]);
                // Inside a region (four plain links into r) the span adds nothing more.
                if pl == 0b1111 && nbi.iter().all(|&j| reg[j as usize] == r) {
                    continue;
                }
                for (d, &st) in step.iter().enumerate() {
                    let j = nbi[d];
                    if pl & (1 << d) != 0 {
                        // The neighbour column is the mutual link alone: no conflict there.
                        match reg[j as usize] {
                            BORDER => inf.border = true,
                            0 => inf.wall = true,
                            q if q != r => inf.add_neighbour(q),
                            _ => {}
                        }
                        continue;
                    }
                    if j == NO_SPAN {
                        inf.wall = true;
                    } else {
                        match reg[j as usize] {
                            BORDER => inf.border = true,
                            0 => inf.wall = true,
                            q if q != r => inf.add_neighbour(q),
                            _ => {}
                        }
                    }
                    // Spans of the neighbour column in another region conflict unless they
                    // are the mutual link (looked up only for such a span).
                    for k in c.column(col.wrapping_add(st)) {
                        let q = reg[k];
                        if q != r && is_region(q) && Some(k) != mutual_in(nb, i, d) {
                            inf.add_conflict(q);
                        }
                    }
                }
            }
        }
    }
    // Make both relations symmetric (links need not be mutual).
    for r in 1..info.len() {
        let (nb, cf): (Vec<u32>, Vec<u32>) = (
            info[r].neighbours.iter().copied().collect(),
            info[r].conflicts.iter().copied().collect(),
        );
        for q in nb {
            info[q as usize].neighbours.insert(r as u32);
        }
        for q in cf {
            info[q as usize].conflicts.insert(r as u32);
        }
    }
    info
}

/// Removes small groups of regions that do not reach the padding (§10 step 2).
fn filter_small(info: &mut [Info], min_area: u32) {
    let mut seen = vec![false; info.len()];
    let mut stack = Vec::new();
    let mut group = Vec::new();
    for r in 1..info.len() {
        if seen[r] || !info[r].alive {
            continue;
        }
        seen[r] = true;
        stack.push(r);
        group.clear();
        let (mut total, mut border) = (0u64, false);
        while let Some(q) = stack.pop() {
            group.push(q);
            total += info[q].spans;
            border |= info[q].border;
            for &n in &info[q].neighbours {
                if !seen[n as usize] {
                    seen[n as usize] = true;
                    stack.push(n as usize);
                }
            }
        }
        if !border && total < u64::from(min_area) {
            for &q in &group {
                info[q].alive = false;
            }
        }
    }
}

/// Merges small regions into neighbours (§10 step 3); returns each id's final id (0: removed).
fn merge(info: &mut [Info], merge_area: u32) -> Vec<u32> {
    let mut alias: Vec<u32> = (0..info.len() as u32).collect();
    for r in 1..info.len() {
        if !info[r].alive {
            alias[r] = 0;
        }
    }
    loop {
        let mut merged = false;
        for r in 1..info.len() {
            let inf = &info[r];
            if !inf.alive || (inf.spans > u64::from(merge_area) && inf.wall) {
                continue;
            }
            let mut best: Option<(u64, u32)> = None;
            for &q in &inf.neighbours {
                let o = &info[q as usize];
                if !o.alive || o.area != inf.area || inf.conflicts.contains(&q) {
                    continue;
                }
                if best.is_none_or(|(s, _)| o.spans < s) {
                    best = Some((o.spans, q));
                }
            }
            let Some((_, t)) = best else { continue };
            let t = t as usize;
            let src = std::mem::take(&mut info[r]);
            for &q in &src.neighbours {
                let qi = &mut info[q as usize];
                qi.neighbours.remove(&(r as u32));
                if q as usize != t {
                    qi.neighbours.insert(t as u32);
                }
            }
            for &q in &src.conflicts {
                let qi = &mut info[q as usize];
                qi.conflicts.remove(&(r as u32));
                qi.conflicts.insert(t as u32);
            }
            let dst = &mut info[t];
            dst.spans += src.spans;
            dst.wall |= src.wall;
            dst.border |= src.border;
            dst.neighbours.extend(src.neighbours.iter().copied());
            dst.neighbours.remove(&(r as u32));
            dst.neighbours.remove(&(t as u32));
            dst.conflicts.extend(src.conflicts.iter().copied());
            dst.conflicts.remove(&(t as u32));
            alias[r] = t as u32;
            merged = true;
        }
        if !merged {
            break;
        }
    }
    // Resolve chains of merges.
    for r in 1..alias.len() {
        let mut a = alias[r];
        while a != 0 && alias[a as usize] != a {
            a = alias[a as usize];
        }
        alias[r] = a;
    }
    alias
}

#[cfg(test)]
#[path = "regions_tests.rs"]
mod tests;
