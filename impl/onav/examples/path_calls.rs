//! A fixed run of `find_path_into` calls for instruction counts (issue 13 item 2): the ratio
//! report's 16 × 16 world and its seeded tile-centre pairs (`benches/common`), each searched once
//! inside [`searches`], a function of its own, after a warm-up pass outside it (so the query's
//! scratch has its capacity and the measured calls allocate nothing). Run under callgrind and
//! divide that function's inclusive count by the calls printed:
//!
//! `valgrind --tool=callgrind --toggle-collect='*searches*' target/release/examples/path_calls`
//!
//! `path_calls N` sets the pairs (default 2000). The line printed folds every answer (corridor,
//! status and cost bits) into one hash, so two builds that print the same line answered alike.
//! `path_calls N check` prints such hashes for more searches over the same pairs and their
//! reverses: small pools (out of nodes, partial corridors), area costs below and above H and
//! excluded flags, for before/after comparisons of changes that must not change any answer.

use std::hint::black_box;

use onav::{NavMeshQuery, NearestPoly, PolyRef, QueryFilter};

#[path = "../benches/common/mod.rs"]
mod common;
use common::{centre_pairs, mesh, world};

/// One `find_path_into` per pair; returns a hash of the answers.
#[inline(never)]
fn searches(
    q: &mut NavMeshQuery<'_>,
    pairs: &[(NearestPoly, NearestPoly)],
    filter: &QueryFilter,
    corridor: &mut Vec<PolyRef>,
) -> u64 {
    let mut h = 0u64;
    for (a, b) in pairs {
        let s = q
            .find_path_into(a.poly, b.poly, a.point, b.point, filter, corridor)
            .expect("valid pair");
        let mut x = s.cost.to_bits() ^ s.status as u64;
        for r in corridor.iter() {
            x = onav::generator::mix(x ^ r.raw());
        }
        h = onav::generator::mix(h ^ x);
    }
    black_box(h)
}

fn main() {
    let n = std::env::args()
        .nth(1)
        .and_then(|v| v.parse().ok())
        .unwrap_or(2000);
    let w = world(16, 4);
    let (m, _) = mesh(&w);
    let filter = QueryFilter::new();
    let mut q = NavMeshQuery::new(&m, 4096).expect("pool size");
    let pairs = centre_pairs(&q, &w, &filter, n);
    let mut corridor = Vec::new();
    for (a, b) in &pairs {
        q.find_path_into(a.poly, b.poly, a.point, b.point, &filter, &mut corridor)
            .expect("valid pair");
    }
    let h = searches(&mut q, &pairs, &filter, &mut corridor);
    println!(
        "{} find_path_into calls, answers hash {h:016x}",
        pairs.len()
    );
    if std::env::args().nth(2).as_deref() != Some("check") {
        return;
    }
    let mut all: Vec<_> = pairs.iter().flat_map(|&(a, b)| [(a, b), (b, a)]).collect();
    all.extend(
        pairs
            .iter()
            .map(|&(a, _)| (a, a))
            .chain(pairs.iter().map(|&(_, b)| (b, b))),
    );
    let mut costly = QueryFilter::new();
    for (area, cost) in [(0, 1.0), (1, 2.5), (2, 0.5), (3, 0.0), (4, 7.0)] {
        costly.set_area_cost(area, cost).expect("cost");
    }
    let mut excluding = costly.clone();
    excluding.set_exclude_flags(2);
    for nodes in [1, 2, 7, 64, 300, 1000, 4096] {
        let mut q = NavMeshQuery::new(&m, nodes).expect("pool size");
        for (name, f) in [
            ("default", &filter),
            ("costs", &costly),
            ("exclude", &excluding),
        ] {
            let h = searches(&mut q, &all, f, &mut corridor);
            println!("  pool {nodes:>4}, filter {name:<7}: hash {h:016x}");
        }
    }
}
