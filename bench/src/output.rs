//! The bench's output: one markdown table per comparison, a column per mesh, then the issue-13
//! targets with whether each is met.

use crate::report::{self, ratio, time, Table, Target};
use crate::{alloc, case, compare, timing};

/// Everything measured on one mesh.
pub struct Results {
    /// The prepared mesh.
    pub case: case::Case,
    /// Recast's build and quality figures.
    pub build: compare::build3d::BuildReport,
    /// Queries and answers.
    pub queries: compare::queries::QueryReport,
    /// Building and restoring whole meshes.
    pub meshes: compare::meshes::MeshReport,
    /// Tile state and rollback.
    pub state: compare::state::StateReport,
    /// DetourTileCache at 48- and 16-cell tiles.
    pub cache: Vec<compare::tilecache::CacheReport>,
}

fn cols(all: &[Results]) -> Vec<String> {
    all.iter().map(|r| r.case.name.clone()).collect()
}

fn table(title: &str, all: &[Results]) -> Table {
    let names = cols(all);
    let mut head = vec!["figure"];
    head.extend(names.iter().map(String::as_str));
    Table::new(title, &head)
}

fn row(t: &mut Table, label: &str, all: &[Results], f: impl Fn(&Results) -> String) {
    let mut cells = vec![label.to_string()];
    cells.extend(all.iter().map(f));
    t.row(cells);
}

/// Prints every table.
pub fn print_all(all: &[Results], world: &compare::world::WorldReport) {
    const US: f64 = 1e3;
    let mut t = table("## Input and the Recast build (detour-figures.md: 24/34/49 tiles, 129/220/284 polygons, dungeon ~27 ms, nav_test 34–43 ms, undulating ~59 ms)", all);
    row(&mut t, "input triangles", all, |r| {
        r.case.tri.tri_count().to_string()
    });
    row(&mut t, "tile grid (cells)", all, |r| {
        let b = &r.case.build;
        format!(
            "{}x{} ({}x{} cells)",
            b.tiles_wh.0, b.tiles_wh.1, b.cells.0, b.cells.1
        )
    });
    row(&mut t, "non-empty tiles", all, |r| {
        r.build.tiles.to_string()
    });
    row(&mut t, "polygons", all, |r| r.build.polys.to_string());
    row(&mut t, "tile data, KiB", all, |r| {
        format!(
            "{:.1}",
            r.case.build.blobs.iter().map(|b| b.len()).sum::<usize>() as f64 / 1024.0
        )
    });
    row(
        &mut t,
        "Recast tiled build, ms (interleaved with onav-build3d, each after a warm-up)",
        all,
        |r| time(&r.build.recast, 1e6),
    );
    row(
        &mut t,
        "walkable area (sum of polygon areas), m²",
        all,
        |r| format!("{:.1}", r.build.area),
    );
    row(&mut t, "pairs Detour connects (complete path)", all, |r| {
        format!("{} of {}", r.build.connected.0, r.build.connected.1)
    });
    let o = |r: &Results| r.build.onav.clone();
    row(
        &mut t,
        "onav-build3d: tiles (tile cells, upper layers) / polygons / tile data, KiB",
        all,
        |r| {
            let x = o(r);
            format!(
                "{} ({}, {}) / {} / {:.1}",
                x.tiles.0,
                x.tiles.1,
                x.tiles.2,
                x.polys,
                x.bytes as f64 / 1024.0
            )
        },
    );
    row(&mut t, "onav-build3d on 1 thread, ms", all, |r| {
        time(&o(r).one, 1e6)
    });
    row(&mut t, "onav-build3d on 2 threads, ms", all, |r| {
        time(&o(r).two, 1e6)
    });
    row(&mut t, "… 1 thread / Recast", all, |r| {
        ratio(&o(r).one.ratio(&r.build.recast))
    });
    row(
        &mut t,
        "… speed-up on 2 threads (1 thread / 2 threads)",
        all,
        |r| {
            let x = o(r);
            format!(
                "{:.2} ({:.2})",
                x.one.median / x.two.median,
                x.one.min / x.two.min
            )
        },
    );
    row(
        &mut t,
        "… builds whose tile bytes equal the first 1-thread build's",
        all,
        |r| format!("{0} of {0}", o(r).compared),
    );
    row(
        &mut t,
        "onav-build3d walkable area, m² (/ Recast's)",
        all,
        |r| {
            let x = o(r);
            format!("{:.1} ({:.3})", x.area, x.area / r.build.area)
        },
    );
    row(
        &mut t,
        "pairs Detour connects, also connected on onav's built mesh",
        all,
        |r| {
            let p = o(r).pairs;
            format!(
                "{} of {}; {} more that Detour does not connect",
                p.connected, p.checked, p.only_onav
            )
        },
    );
    t.print();
    let builds: Vec<&compare::build3d::BuildReport> = all.iter().map(|r| &r.build).collect();
    compare::build3d::print_targets(&cols(all), &builds);

    let mut t = table(
        "## Conversion Detour tile → ONTL (detour-vs-onav.md: 26/26, 52/52, 49/49 after step 4)",
        all,
    );
    let stages = [
        "0 literal",
        "1 + flip winding",
        "2 + snap border coordinates",
        "3 + repair detail",
        "4 + split into onav layers",
    ];
    for (k, label) in stages.iter().enumerate() {
        row(
            &mut t,
            &format!("accepted / tiles after step {label}"),
            all,
            |r| {
                let s = &r.case.stages[k];
                let errs: Vec<String> = s.errors.iter().map(|(e, n)| format!("{e} {n}")).collect();
                if errs.is_empty() {
                    format!("{} / {}", s.accepted, s.total)
                } else {
                    format!(
                        "{} / {} (first errors: {})",
                        s.accepted,
                        s.total,
                        errs.join(", ")
                    )
                }
            },
        );
    }
    row(&mut t, "coordinates snapped (max move, m)", all, |r| {
        format!(
            "{} ({:.2e})",
            r.case.repairs.snapped, r.case.repairs.snap_max
        )
    });
    row(
        &mut t,
        "detail vertices projected (max move, m); of them nudged",
        all,
        |r| {
            let p = &r.case.repairs;
            format!("{} ({:.2e}); {}", p.projected, p.project_max, p.nudged)
        },
    );
    row(&mut t, "detail fan fallbacks", all, |r| {
        r.case.repairs.fan_fallbacks.to_string()
    });
    row(
        &mut t,
        "Recast tiles split / internal edges cut",
        all,
        |r| {
            format!(
                "{} / {}",
                r.case.repairs.split_tiles, r.case.repairs.cut_edges
            )
        },
    );
    row(&mut t, "onav tiles", all, |r| {
        r.case.onav_tiles().to_string()
    });
    t.print();

    let mut t = table("## Stitching: onav's links against Detour's (detour-vs-onav.md: cross-tile 76/176/206 equal; internal 190, 284 vs 282, 494)", all);
    row(&mut t, "cross-tile: Detour / onav (in both)", all, |r| {
        let l = &r.case.links;
        format!("{} / {} ({})", l.detour_ext, l.onav_ext, l.both_ext)
    });
    row(&mut t, "internal: Detour / onav (in both)", all, |r| {
        let l = &r.case.links;
        format!("{} / {} ({})", l.detour_int, l.onav_int, l.both_int)
    });
    row(
        &mut t,
        "onav incremental links = stitch from scratch",
        all,
        |r| r.case.links.incremental_ok.to_string(),
    );
    t.print();

    let mut t = table("## Queries, µs per query: Detour | onav | onav/Detour", all);
    let q = |label: &str,
             f: fn(&compare::queries::QueryReport) -> &compare::queries::Pair,
             t: &mut Table| {
        row(t, &format!("{label}: Detour"), all, |r| {
            time(&f(&r.queries).0, US)
        });
        row(t, &format!("{label}: onav"), all, |r| {
            time(&f(&r.queries).1, US)
        });
        row(t, &format!("{label}: onav/Detour"), all, |r| {
            let p = f(&r.queries);
            ratio(&p.1.ratio(&p.0))
        });
    };
    q(
        "find_nearest_poly (2, 4, 2), 1000 points",
        |r| &r.nearest,
        &mut t,
    );
    q("find_path, 1000 pairs", |r| &r.path, &mut t);
    q(
        "find_straight_path (own corridors)",
        |r| &r.straight,
        &mut t,
    );
    q("raycast", |r| &r.raycast, &mut t);
    t.print();

    let mut t = table("## Answers (untimed; detour-vs-onav.md \"Agreement\")", all);
    let a = |r: &Results| r.queries.agree.clone();
    row(
        &mut t,
        "nearest: found by both / Detour only / onav only",
        all,
        |r| {
            let f = a(r).found;
            format!("{} / {} / {}", f.0, f.1, f.2)
        },
    );
    row(
        &mut t,
        "… same polygon / same point (≤ 1e-3 m)",
        all,
        |r| {
            let x = a(r);
            format!("{} / {} of {}", x.same_poly, x.same_point, x.found.0)
        },
    );
    row(
        &mut t,
        "find_path: same status / Detour complete",
        all,
        |r| {
            let x = a(r);
            format!("{} of {} / {}", x.same_status, x.pairs, x.detour_complete)
        },
    );
    row(
        &mut t,
        "… same corridor length / identical corridor",
        all,
        |r| {
            let x = a(r);
            format!("{} / {}", x.same_len, x.same_corridor)
        },
    );
    row(&mut t, "… differing complete corridors, in onav's cost model: onav costlier / Detour costlier / Detour's uses a cut edge", all, |r| {
        let c = a(r).costlier;
        format!("{} / {} / {}", c.0, c.1, c.2)
    });
    row(
        &mut t,
        "… fraction of pairs where onav's corridor is costlier (issue 13 item 3 target: 0)",
        all,
        |r| {
            let x = a(r);
            format!("{:.3}", x.costlier.0 as f64 / x.pairs.max(1) as f64)
        },
    );
    row(&mut t, "… onav's find_path cost = the portal-midpoint cost of its own corridor (differs where a node kept the midpoint it was first reached through)", all, |r| {
        let x = a(r).cost_model_ok;
        format!("{} of {}", x.0, x.1)
    });
    row(&mut t, "find_straight_path: same point count", all, |r| {
        a(r).same_straight.to_string()
    });
    row(&mut t, "raycast (shared starts): t within 1e-4", all, |r| {
        a(r).ray_same_t.to_string()
    });
    row(&mut t, "… reached end, Detour / onav", all, |r| {
        let x = a(r).ray_reached;
        format!("{} / {}", x.0, x.1)
    });
    row(&mut t, "… t differs: onav Missed at t = 0", all, |r| {
        a(r).ray_missed_shared.to_string()
    });
    row(
        &mut t,
        "raycast from each engine's own nearest points: start missed, Detour / onav",
        all,
        |r| {
            let ((d, dn), (o, on)) = a(r).ray_missed_own;
            format!(
                "{d} of {dn} ({:.1} %) / {o} of {on} ({:.1} %)",
                pct(d, dn),
                pct(o, on)
            )
        },
    );
    t.print();

    let mut t = table("## Building and restoring whole meshes, µs per mesh", all);
    row(
        &mut t,
        "Detour: dtAllocNavMesh + init + addTile × all",
        all,
        |r| time(&r.meshes.detour_add, US),
    );
    type Step = fn(&compare::meshes::MeshReport) -> timing::Stats;
    let steps: [(&str, Step); 4] = [
        ("onav: parse + add_tile × all (incremental stitch)", |m| {
            m.onav_add
        }),
        ("onav: restore Full snapshot into a new mesh", |m| {
            m.restore_full
        }),
        ("onav: restore Referenced snapshot into a new mesh", |m| {
            m.restore_ref
        }),
        ("onav: read_mesh", |m| m.read_mesh),
    ];
    for (label, f) in steps {
        row(&mut t, label, all, |r| time(&f(&r.meshes), US));
        row(&mut t, "… onav/Detour", all, |r| {
            ratio(&f(&r.meshes).ratio(&r.meshes.detour_add))
        });
    }
    let m = |r: &Results| r.meshes;
    row(
        &mut t,
        "bytes: onav tiles / Full snapshot / Referenced snapshot / mesh file",
        all,
        |r| {
            let s = m(r).sizes;
            format!("{} / {} / {} / {}", s.0, s.1, s.2, s.3)
        },
    );
    t.print();

    let mut t = table(
        "## Tile state and rollback, µs per call over all tiles",
        all,
    );
    row(
        &mut t,
        "Detour storeTileState loop [state bytes]",
        all,
        |r| format!("{} [{}]", time(&r.state.store, US), r.state.state_bytes),
    );
    row(
        &mut t,
        "onav snapshot(Referenced) / snapshot(Full)",
        all,
        |r| {
            format!(
                "{} / {}",
                time(&r.state.write.0, US),
                time(&r.state.write.1, US)
            )
        },
    );
    let variants: Vec<compare::state::Edits> = all
        .first()
        .map(|r| r.state.rollback.iter().map(|x| x.edits).collect())
        .unwrap_or_default();
    for (i, e) in variants.iter().enumerate() {
        let label = format!(
            "in-place restore, {}: onav Referenced / onav Full / Detour restoreTileState loop",
            e.label()
        );
        row(&mut t, &label, all, |r| {
            let x = r.state.rollback[i];
            format!(
                "{} / {} / {}",
                time(&x.referenced, US),
                time(&x.full, US),
                time(&x.detour, US)
            )
        });
        row(&mut t, "… onav/Detour: Referenced / Full", all, |r| {
            let (a, b) = r.state.rollback[i].ratios();
            format!("{} / {}", ratio(&a), ratio(&b))
        });
    }
    row(
        &mut t,
        "rollback (Referenced, every 7th polygon) / Referenced restore into a new mesh",
        all,
        |r| ratio(&r.state.rollback[1].referenced.ratio(&r.meshes.restore_ref)),
    );
    type Mem = fn(&compare::state::StateReport) -> alloc::Usage;
    let mems: [(&str, Mem); 2] = [("Full", |s| s.mem_full), ("Referenced", |s| s.mem_ref)];
    for (mode, f) in mems {
        let label =
            format!("peak memory of a {mode} restore into a new mesh / the mesh it makes (KiB)");
        row(&mut t, &label, all, |r| {
            let u = f(&r.state);
            format!(
                "{:.2} ({:.1} / {:.1})",
                u.peak as f64 / u.kept as f64,
                u.peak as f64 / 1024.0,
                u.kept as f64 / 1024.0
            )
        });
    }
    row(
        &mut t,
        "peak memory of a Full in-place rollback of every polygon, KiB (/ the Full-restored mesh)",
        all,
        |r| {
            let (u, k) = (r.state.mem_rollback, r.state.mem_full.kept);
            format!(
                "{:.1} ({:.2})",
                u.peak as f64 / 1024.0,
                u.peak as f64 / k as f64
            )
        },
    );
    t.print();

    let mut t = Table::new(
        "## onav's generated world (impl/benches world, 4×4 quads per tile)",
        &["figure", "value"],
    );
    t.row(vec!["tiles".into(), world.tiles.to_string()]);
    t.row(vec![
        "rollback (in-place Referenced, edits and switches on every 7th tile), µs".into(),
        time(&world.rollback, US),
    ]);
    t.row(vec![
        "Referenced restore into a new mesh, µs".into(),
        time(&world.full, US),
    ]);
    t.row(vec![
        "rollback / full restore (target ≤ 0.05 at 1024 tiles)".into(),
        format!(
            "{:.3} ({:.3})",
            world.rollback.median / world.full.median,
            world.rollback.min / world.full.min
        ),
    ]);
    t.print();

    // Targets.
    let names = cols(all);
    let per =
        |f: &dyn Fn(&Results) -> timing::Ratio| all.iter().map(|r| Some(f(r))).collect::<Vec<_>>();
    let q = |r: &Results, f: fn(&compare::queries::QueryReport) -> &compare::queries::Pair| {
        let p = f(&r.queries);
        p.1.ratio(&p.0)
    };
    let mut targets = vec![
        Target {
            name: "find_nearest_poly".into(),
            bound: 1.0,
            values: per(&|r| q(r, |x| &x.nearest)),
        },
        Target {
            name: "find_path".into(),
            bound: 1.0,
            values: per(&|r| q(r, |x| &x.path)),
        },
        Target {
            name: "find_straight_path".into(),
            bound: 1.0,
            values: per(&|r| q(r, |x| &x.straight)),
        },
        Target {
            name: "raycast".into(),
            bound: 1.0,
            values: per(&|r| q(r, |x| &x.raycast)),
        },
        Target {
            name: "parse + add_tile / alloc+init+addTile".into(),
            bound: 3.0,
            values: per(&|r| r.meshes.onav_add.ratio(&r.meshes.detour_add)),
        },
        Target {
            name: "restore Full into a new mesh / init+addTile".into(),
            bound: 3.0,
            values: per(&|r| r.meshes.restore_full.ratio(&r.meshes.detour_add)),
        },
        Target {
            name: "restore Referenced into a new mesh / init+addTile (tiles already parsed, in the library)".into(),
            bound: 3.0,
            values: per(&|r| r.meshes.restore_ref.ratio(&r.meshes.detour_add)),
        },
        Target {
            name: "read_mesh / init+addTile".into(),
            bound: 3.0,
            values: per(&|r| r.meshes.read_mesh.ratio(&r.meshes.detour_add)),
        },
        Target {
            name: "rollback Referenced (every 7th polygon) / restoreTileState loop".into(),
            bound: 1.0,
            values: per(&|r| r.state.rollback[1].ratios().0),
        },
        Target {
            name: "rollback Full (every 7th polygon) / restoreTileState loop".into(),
            bound: 1.0,
            values: per(&|r| r.state.rollback[1].ratios().1),
        },
        Target {
            name: "rollback Referenced (every polygon) / restoreTileState loop".into(),
            bound: 1.0,
            values: per(&|r| r.state.rollback[2].ratios().0),
        },
    ];
    let mem = |u: &alloc::Usage| {
        let x = u.peak as f64 / u.kept as f64;
        timing::Ratio { median: x, min: x }
    };
    targets.push(Target {
        name: "peak memory of a Full restore / its mesh (not a time)".into(),
        bound: 2.0,
        values: per(&|r| mem(&r.state.mem_full)),
    });
    report::print_targets(&names, &targets);
    let w = world.rollback.ratio(&world.full);
    println!(
        "\nrollback / full restore at {} tiles of onav's generated world: {:.3} ({:.3}); target ≤ 0.05: {}",
        world.tiles,
        w.median,
        w.min,
        if world.tiles == 1024 && w.median <= 0.05 { "met" } else if world.tiles != 1024 { "not judged (not 1024 tiles)" } else { "missed" }
    );
    for k in 0..all.first().map_or(0, |r| r.cache.len()) {
        let ts = all[0].cache[k].tile_size;
        let target = if ts == 48 { 70 } else { 40 };
        let mut t = table(&format!("## DetourTileCache at {ts}-cell tiles (cheap settings: layers, no detail; build3d-tilecache-anchors.md §4.1)"), all);
        let cr = |r: &Results| r.cache[k].clone();
        row(
            &mut t,
            "layer tiles (raw KiB) / polygons of the cache's mesh",
            all,
            |r| {
                let x = cr(r);
                format!(
                    "{} ({:.0}) / {}",
                    x.layers,
                    x.layer_bytes as f64 / 1024.0,
                    x.polys
                )
            },
        );
        row(&mut t, "bake all layers, ms", all, |r| {
            time(&cr(r).bake, 1e6)
        });
        row(&mut t, "cylinder add + settle, µs", all, |r| {
            time(&cr(r).add, US)
        });
        row(&mut t, "cylinder remove + settle, µs", all, |r| {
            time(&cr(r).remove, US)
        });
        row(&mut t, "per rebuilt layer, µs", all, |r| {
            time(&cr(r).per_layer, US)
        });
        row(
            &mut t,
            "mean layers touched; obstacles touching none",
            all,
            |r| {
                let x = cr(r);
                format!("{:.2}; {} of {}", x.touched, x.untouched.0, x.untouched.1)
            },
        );
        row(
            &mut t,
            "100 requested at once: accepted / refused / update calls to settle",
            all,
            |r| {
                let x = cr(r).burst;
                format!("{} / {} / {}", x.0, x.1, x.2)
            },
        );
        row(
            &mut t,
            &format!("onav: cylinder add + settle, µs (issue 15 target ≤ {target})"),
            all,
            |r| time(&cr(r).onav.add, US),
        );
        row(&mut t, "onav: cylinder remove + settle, µs", all, |r| {
            time(&cr(r).onav.remove, US)
        });
        row(&mut t, "onav: per rebuilt tile cell, µs", all, |r| {
            time(&cr(r).onav.per_cell, US)
        });
        row(
            &mut t,
            "onav: tiles / polygons; cached KiB; create ms",
            all,
            |r| {
                let o = cr(r).onav;
                format!(
                    "{} / {}; {:.0}; {:.1}",
                    o.tiles.0,
                    o.tiles.1,
                    o.cached_bytes as f64 / 1024.0,
                    o.create / 1e6
                )
            },
        );
        row(
            &mut t,
            "onav: mean cells rebuilt; obstacles queuing none",
            all,
            |r| {
                let o = cr(r).onav;
                format!("{:.2}; {} of {}", o.touched, o.untouched.0, o.untouched.1)
            },
        );
        row(
            &mut t,
            "onav: 100 at once: accepted / cells rebuilt / update calls / ms",
            all,
            |r| {
                let b = cr(r).onav.burst;
                format!("{} / {} / {} / {:.2}", b.0, b.1, b.2, b.3 / 1e6)
            },
        );
        row(
            &mut t,
            "onav: ONTK Referenced write / memcpy of its output (target ≤ 1.2)",
            all,
            |r| {
                let (w, m, n) = cr(r).onav.write;
                let (we, me, ne) = cr(r).onav.write_empty;
                let (q, qe) = (w.ratio(&m), we.ratio(&me));
                format!(
                    "100 obstacles: {:.2} ({:.2}), {} B, {:.0} ns; none: {:.2} ({:.2}), {} B, {:.0} ns",
                    q.median, q.min, n, w.median, qe.median, qe.min, ne, we.median
                )
            },
        );
        row(
            &mut t,
            "onav: ONTK restore / restore of its mesh snapshot + memcpy of its lists (target ≤ 1.1)",
            all,
            |r| {
                let (a, b) = cr(r).onav.restore;
                let (ae, be) = cr(r).onav.restore_empty;
                let (q, qe) = (a.ratio(&b), ae.ratio(&be));
                format!(
                    "100 obstacles: {:.2} ({:.2}), {:.1} vs {:.1} µs; none: {:.2} ({:.2}), {:.1} vs {:.1} µs",
                    q.median,
                    q.min,
                    a.median / 1e3,
                    b.median / 1e3,
                    qe.median,
                    qe.min,
                    ae.median / 1e3,
                    be.median / 1e3
                )
            },
        );
        t.print();
    }
}

fn pct(a: usize, b: usize) -> f64 {
    100.0 * a as f64 / b.max(1) as f64
}
