//! The per-tile polygon index `find_nearest_poly` finds its candidates through
//! (`spec/queries.md` §3.1, `spec/navmesh-format.md` K16): derived from the tile alone, built
//! once when the tile is read and shared by every copy of it, so every mesh and library holding
//! the tile shares it too and no edit, stitch or restore has to rebuild it.
//!
//! It holds each ground polygon's bounds, exactly the per-axis minimum and maximum of §3 over the
//! polygon's vertices and its extra detail vertices, and, for tiles of more than [`LINEAR_MAX`]
//! ground polygons, a bounding-volume tree over them. A tree node's box is the exact union of the
//! boxes below it, so a node that misses the query box has no polygon that overlaps it, and each
//! polygon found is tested against its own exact bounds: the polygons found are exactly those §3
//! names, whatever the tree's shape.

use crate::geom::Vec3;
use crate::tile::{DetailMesh, Polygon};

/// Tiles with at most this many ground polygons are scanned in order; larger ones get a tree.
/// An implementation constant: it changes no result (`spec/navmesh-format.md` K16).
pub(crate) const LINEAR_MAX: usize = 16;

/// An axis-aligned box: per axis the least and the greatest coordinate.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Bounds {
    pub lo: Vec3,
    pub hi: Vec3,
}

impl Bounds {
    /// The box of nothing: overlaps no box, and is the identity of [`Bounds::union`].
    const EMPTY: Self = Self {
        lo: [f64::INFINITY; 3],
        hi: [f64::NEG_INFINITY; 3],
    };

    /// The box grown to hold `p`.
    fn grow(&mut self, p: &Vec3) {
        for ((lo, hi), &v) in self.lo.iter_mut().zip(&mut self.hi).zip(p) {
            *lo = lo.min(v);
            *hi = hi.max(v);
        }
    }

    /// The smallest box holding both.
    fn union(&self, o: &Self) -> Self {
        let mut b = *self;
        b.grow(&o.lo);
        b.grow(&o.hi);
        b
    }

    /// True when the box overlaps `[bmin, bmax]`, inclusively on every axis (§3 item 2).
    #[inline]
    pub fn overlaps(&self, bmin: &Vec3, bmax: &Vec3) -> bool {
        self.lo[0] <= bmax[0]
            && self.hi[0] >= bmin[0]
            && self.lo[1] <= bmax[1]
            && self.hi[1] >= bmin[1]
            && self.lo[2] <= bmax[2]
            && self.hi[2] >= bmin[2]
    }
}

/// A node of the tree, in preorder: a leaf names its polygon; an inner node, how many nodes its
/// subtree takes (the jump to its next sibling).
#[derive(Debug, Clone, Copy)]
struct Node {
    bounds: Bounds,
    kind: NodeKind,
}

#[derive(Debug, Clone, Copy)]
enum NodeKind {
    Leaf(u32),
    Inner { size: u32 },
}

/// The index of one tile's ground polygons.
#[derive(Debug)]
pub(crate) struct TileIndex {
    /// Per ground polygon, its exact bounds.
    bounds: Box<[Bounds]>,
    /// The union of all of them.
    root: Bounds,
    /// Empty for tiles of at most [`LINEAR_MAX`] ground polygons.
    tree: Box<[Node]>,
}

impl TileIndex {
    /// The index of a tile whose arrays have passed the reader's rules (every index in range).
    pub(crate) fn build(
        vertices: &[Vec3],
        polys: &[Polygon],
        details: &[DetailMesh],
        detail_vertices: &[Vec3],
    ) -> Self {
        let bounds: Box<[Bounds]> = polys
            .iter()
            .zip(details)
            .map(|(p, d)| {
                let mut b = Bounds::EMPTY;
                for &v in p.verts() {
                    b.grow(&vertices[v as usize]);
                }
                let extra = d.vertex_base as usize..(d.vertex_base + d.vertex_count) as usize;
                for v in &detail_vertices[extra] {
                    b.grow(v);
                }
                b
            })
            .collect();
        let root = bounds.iter().fold(Bounds::EMPTY, |a, b| a.union(b));
        let tree = if bounds.len() > LINEAR_MAX {
            build_tree(&bounds)
        } else {
            Box::default()
        };
        Self { bounds, root, tree }
    }

    /// Calls `f` with the index of every ground polygon whose bounds overlap `[bmin, bmax]`
    /// (inclusively), each once, in an order that depends on the tile only.
    #[inline]
    pub(crate) fn overlapping(&self, bmin: &Vec3, bmax: &Vec3, mut f: impl FnMut(u32)) {
        if !self.root.overlaps(bmin, bmax) {
            return;
        }
        if self.tree.is_empty() {
            for (i, b) in self.bounds.iter().enumerate() {
                if b.overlaps(bmin, bmax) {
                    f(i as u32);
                }
            }
            return;
        }
        let mut i = 0;
        while let Some(n) = self.tree.get(i) {
            let hit = n.bounds.overlaps(bmin, bmax);
            match n.kind {
                NodeKind::Leaf(p) => {
                    if hit {
                        f(p);
                    }
                    i += 1;
                }
                NodeKind::Inner { size } => i += if hit { 1 } else { size as usize },
            }
        }
    }

    /// The bounds of ground polygon `i`.
    #[cfg(test)]
    pub(crate) fn bounds(&self, i: u32) -> Bounds {
        self.bounds[i as usize]
    }
}

/// A tree over `bounds` in preorder: each inner node splits its polygons at the median of their
/// box centres along the longest axis of its box (ties by polygon index). Built with an explicit
/// stack: the reader uses no recursion (`spec/security.md` §6).
fn build_tree(bounds: &[Bounds]) -> Box<[Node]> {
    enum Task {
        Build(usize, usize),
        Close(usize),
    }
    let mut items: Vec<u32> = (0..bounds.len() as u32).collect();
    let mut nodes: Vec<Node> = Vec::with_capacity(2 * bounds.len());
    let mut stack = vec![Task::Build(0, items.len())];
    while let Some(task) = stack.pop() {
        match task {
            Task::Close(at) => {
                let size = (nodes.len() - at) as u32;
                nodes[at].kind = NodeKind::Inner { size };
            }
            Task::Build(start, end) => {
                let part = &mut items[start..end];
                let b = part
                    .iter()
                    .fold(Bounds::EMPTY, |a, &i| a.union(&bounds[i as usize]));
                if let [single] = part {
                    nodes.push(Node {
                        bounds: b,
                        kind: NodeKind::Leaf(*single),
                    });
                    continue;
                }
                let extent = [0, 1, 2].map(|k| b.hi[k] - b.lo[k]);
                let axis = if extent[0] >= extent[1] && extent[0] >= extent[2] {
                    0
                } else if extent[2] >= extent[1] {
                    2
                } else {
                    1
                };
                let centre = |i: u32| {
                    let c = &bounds[i as usize];
                    c.lo[axis] + c.hi[axis]
                };
                part.sort_unstable_by(|&x, &y| centre(x).total_cmp(&centre(y)).then(x.cmp(&y)));
                let mid = start + part.len() / 2;
                let at = nodes.len();
                nodes.push(Node {
                    bounds: b,
                    kind: NodeKind::Inner { size: 0 },
                });
                stack.push(Task::Close(at));
                stack.push(Task::Build(mid, end));
                stack.push(Task::Build(start, mid));
            }
        }
    }
    nodes.into_boxed_slice()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cube(x: f64, y: f64, z: f64, s: f64) -> Bounds {
        Bounds {
            lo: [x, y, z],
            hi: [x + s, y + s, z + s],
        }
    }

    /// The polygons of every box overlapping the query, by scanning.
    fn scan(bounds: &[Bounds], bmin: &Vec3, bmax: &Vec3) -> Vec<u32> {
        (0..bounds.len() as u32)
            .filter(|&i| bounds[i as usize].overlaps(bmin, bmax))
            .collect()
    }

    fn walk(tree: &[Node], bounds: &[Bounds], bmin: &Vec3, bmax: &Vec3) -> Vec<u32> {
        let index = TileIndex {
            bounds: bounds.into(),
            root: bounds.iter().fold(Bounds::EMPTY, |a, b| a.union(b)),
            tree: tree.into(),
        };
        let mut out = Vec::new();
        index.overlapping(bmin, bmax, |i| out.push(i));
        out.sort_unstable();
        out
    }

    #[test]
    fn tree_nodes_enclose_their_subtrees_and_visit_each_polygon_once() {
        let mut x = 5u64;
        let mut unit = || {
            x = crate::generator::mix(x);
            (x >> 11) as f64 / (1u64 << 53) as f64
        };
        let bounds: Vec<Bounds> = (0..200)
            .map(|_| cube(unit() * 50.0, unit() * 3.0, unit() * 50.0, unit() * 4.0))
            .collect();
        let tree = build_tree(&bounds);
        assert_eq!(tree.len(), 2 * bounds.len() - 1);
        // Every inner node's box holds its subtree's boxes, and the leaves name every polygon
        // once.
        let mut leaves = Vec::new();
        for (i, n) in tree.iter().enumerate() {
            match n.kind {
                NodeKind::Leaf(p) => {
                    assert_eq!(n.bounds, bounds[p as usize]);
                    leaves.push(p);
                }
                NodeKind::Inner { size } => {
                    for m in &tree[i + 1..i + size as usize] {
                        assert_eq!(n.bounds.union(&m.bounds), n.bounds);
                    }
                }
            }
        }
        leaves.sort_unstable();
        assert_eq!(leaves, (0..200).collect::<Vec<u32>>());
        // Every query box finds exactly the polygons a scan finds: boxes of every size, and boxes
        // whose faces lie exactly on a polygon's bound.
        for k in 0..2000 {
            let (bmin, bmax) = if k % 4 == 0 {
                let b = bounds[k % bounds.len()];
                let lo = [b.hi[0], b.lo[1] - 1.0, b.hi[2]];
                (lo, [lo[0] + unit(), lo[1] + unit(), lo[2] + unit()])
            } else {
                let c = [unit() * 60.0 - 5.0, unit() * 6.0 - 1.5, unit() * 60.0 - 5.0];
                let h = [unit() * 8.0, unit() * 2.0, unit() * 8.0];
                (
                    [c[0] - h[0], c[1] - h[1], c[2] - h[2]],
                    [c[0] + h[0], c[1] + h[1], c[2] + h[2]],
                )
            };
            assert_eq!(
                walk(&tree, &bounds, &bmin, &bmax),
                scan(&bounds, &bmin, &bmax)
            );
        }
    }

    #[test]
    fn extreme_coordinates() {
        let bounds = vec![
            cube(-1e300, -0.0, 1e300, 0.0),
            cube(5e-324, 0.0, -5e-324, 1e-300),
            cube(-0.0, -0.0, -0.0, 0.0),
        ];
        let tree = build_tree(&bounds);
        for (bmin, bmax) in [
            ([0.0; 3], [0.0; 3]),
            ([-1e300, -1.0, 1e300], [-1e300, 1.0, 1e300]),
            ([f64::MIN; 3], [f64::MAX; 3]),
            ([1e-300; 3], [1.0; 3]),
        ] {
            assert_eq!(
                walk(&tree, &bounds, &bmin, &bmax),
                scan(&bounds, &bmin, &bmax)
            );
        }
    }
}
