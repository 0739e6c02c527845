//! The load-time checks: each refuses with its typed error, and the messages read as they did.

use super::*;
use crate::scenario::{load_str, LoadReason};

const OK: &str = "
schema: 1
id: snapshot/n_example
title: example
class: reject
spec: [snapshot.md#s1]
features: [navmesh, snapshot-full]
steps:
  - world: {name: w, columns: 1, rows: 1}
  - tile: {name: a, world: w, at: [0, 0, 0]}
  - new_mesh: {name: m, world: w, slots: 1}
  - add_tile: {mesh: m, tile: a, name: ra}
  - snapshot: {mesh: m, mode: full, name: s}
  - patch:
      from: s
      name: bad
      edits:
        - set: {field: magic, value: '0x58535058'}
  - restore: {bytes: bad, name: m2}
  - expect: {error: {class: format, field: magic, offset: 0}}
";

fn check_error(id: &str, text: &str) -> CheckError {
    match load_str(id, text) {
        Err(LoadReason::Check(e)) => e,
        other => panic!("{id}: expected a check error, got {other:?}"),
    }
}

fn step(step: usize, reason: impl Into<StepError>) -> CheckError {
    CheckError::Step {
        step,
        reason: reason.into(),
    }
}

#[test]
fn load_checks() {
    load_str("snapshot/n_example", OK).unwrap();
    let n = "snapshot/n_example";
    let cases = [
        (
            "snapshot/y_example",
            OK.replace("n_example", "y_example"),
            CheckError::Prefix {
                class: Class::Reject,
            },
        ),
        (
            "snapshot/n_other",
            OK.to_string(),
            CheckError::Id {
                id: n.into(),
                path: "snapshot/n_other".into(),
            },
        ),
        (
            n,
            OK.replace("schema: 1", "schema: 2"),
            CheckError::Schema { found: 2 },
        ),
        (
            n,
            OK.replace("[navmesh, snapshot-full]", "[navmesh]"),
            CheckError::Unlisted {
                feature: "snapshot-full",
            },
        ),
        (
            n,
            OK.replace("[navmesh, ", "[bogus, navmesh, "),
            CheckError::UnknownFeature {
                feature: "bogus".into(),
            },
        ),
        (
            n,
            OK.replace("bytes: bad", "bytes: nope"),
            step(
                7,
                NameError::Undefined {
                    name: "nope".into(),
                },
            ),
        ),
        (
            n,
            OK.replace(
                "{error: {class: format, field: magic, offset: 0}}",
                "{outcome: any}",
            ),
            CheckError::RejectWithoutError,
        ),
        (
            n,
            OK.replace("spec: [snapshot.md#s1]", "spec: [snapshot]"),
            CheckError::Anchor {
                anchor: "snapshot".into(),
            },
        ),
        (
            n,
            OK.replace("  - expect:", "  - expect: {outcome: ok}\n  - expect:"),
            step(9, StepError::ExpectFirst),
        ),
        (
            n,
            OK.replace("add_tile: {mesh: m,", "add_tile: {"),
            step(4, StepError::NeedsMesh { step: "add_tile" }),
        ),
        (
            n,
            OK.replace(
                "name: ra}",
                "name: ra}\n  - remove_tile: {mesh: m, ref: 'rb#1'}",
            ),
            step(5, NameError::Undefined { name: "rb".into() }),
        ),
        (
            n,
            OK.replace(
                "name: ra}",
                "name: ra}\n  - remove_tile: {mesh: m, ref: '0:0:0'}",
            ),
            step(
                5,
                RefError::Malformed {
                    text: "0:0:0".into(),
                },
            ),
        ),
        (
            n,
            OK.replace("value: '0x58535058'", "value: '0x58535058', hex: '58'"),
            step(
                6,
                StepError::ExactlyOne {
                    what: "set: value, add, hex or sha256_of",
                },
            ),
        ),
        (
            n,
            OK.replace("value: '0x58535058'}", "offset: 0, hex: '58'}"),
            step(
                6,
                StepError::ExactlyOne {
                    what: "set: field or offset",
                },
            ),
        ),
        (
            n,
            OK.replace("field: magic, value: '0x58535058'", "offset: 0, hex: '585'"),
            step(6, NumberError::OddHexDigits { count: 3 }),
        ),
        (
            n,
            OK.replace("field: magic, offset: 0}", "field: magic}"),
            step(
                8,
                StepError::OffsetNeeded {
                    class: "format".into(),
                },
            ),
        ),
        (
            n,
            OK.replace(
                "class: format, field: magic, offset: 0",
                "class: mesh, field: magic, offset: 0",
            ),
            step(
                8,
                StepError::OffsetNotCarried {
                    class: "mesh".into(),
                },
            ),
        ),
        (
            n,
            OK.replace(
                "class: format, field: magic",
                "class: formatt, field: magic",
            ),
            step(
                8,
                StepError::ErrorClass {
                    class: "formatt".into(),
                },
            ),
        ),
    ];
    for (id, text, want) in cases {
        assert_eq!(check_error(id, &text), want, "{id}");
    }
    // Link expectations state every field of their kind and no other.
    let links = |l: &str| {
        OK.replace(
            "name: ra}",
            &format!(
                "name: ra}}\n  - get_poly: {{mesh: m, poly: ra}}\n  - expect: {{links: [{l}]}}"
            ),
        )
        .replace("[navmesh, ", "[links, navmesh, ")
    };
    load_str(n, &links("{to: ra, kind: internal, edge: 2}")).unwrap();
    load_str(n, &links("{to: ra, kind: from_off_mesh, end: end}")).unwrap();
    for (l, want) in [
        (
            "{to: ra, kind: portal, edge: 1, side: '+x', lo: 0}",
            StepError::LinkFields {
                kind: "portal".into(),
                needs: "edge, side, lo and hi",
            },
        ),
        (
            "{to: ra, kind: internal, edge: 1, end: start}",
            StepError::LinkFields {
                kind: "internal".into(),
                needs: "edge",
            },
        ),
        (
            "{to: ra, kind: to_off_mesh}",
            StepError::LinkFields {
                kind: "to_off_mesh".into(),
                needs: "end",
            },
        ),
        (
            "{to: ra, kind: portal, edge: 1, side: 'x', lo: 0, hi: 1}",
            StepError::LinkValue {
                what: "side (+x, +z, -x, -z)",
                value: "x".into(),
            },
        ),
        (
            "{to: ra, kind: bridge}",
            StepError::LinkKind {
                kind: "bridge".into(),
            },
        ),
    ] {
        assert_eq!(check_error(n, &links(l)), step(6, want), "{l}");
    }
    // Errors the YAML reader gives, with line and column.
    for (text, want) in [
        (
            OK.replace("title: example", "title: example\nextra: 1"),
            "line 5 column 1: unknown field `extra`",
        ),
        (
            OK.replace("columns: 1", "columns: 1, colums: 2"),
            "line 9 column 34: unknown field `colums`",
        ),
    ] {
        match load_str(n, &text) {
            Err(e @ LoadReason::Yaml(_)) => {
                assert!(e.to_string().contains(want), "{e}");
            }
            other => panic!("expected a YAML error, got {other:?}"),
        }
    }
    // Messages read as they always have.
    assert_eq!(
        step(4, StepError::NeedsMesh { step: "add_tile" }).to_string(),
        "step 4: add_tile needs a mesh key"
    );
    assert_eq!(
        CheckError::Step {
            step: 3,
            reason: StepError::Operation {
                op: 2,
                reason: Box::new(
                    NameError::WrongKind {
                        name: "a".into(),
                        holds: Kind::Bytes,
                        wanted: Kind::Mesh
                    }
                    .into()
                )
            }
        }
        .to_string(),
        "step 3: operation 2: \"a\" is a Bytes, not a Mesh"
    );
}

const CACHE: &str = r#"
schema: 1
id: tilecache/y_example
title: example
class: accept
spec: [tilecache.md#tc2]
features: [tilecache]
steps:
  - bytes: {name: floor, text: "v 0 0 0\nv 0 0 1\nv 1 0 0\nf 1 2 3\n"}
  - settings: {name: s}
  - cache: {name: c, obj: floor, settings: s}
  - add_obstacle: {cache: c, shape: cylinder, values: [0, 0, 0, 1, 1]}
  - expect: {cache: {id: 1}}
  - update: {cache: c, max_tiles: 1}
  - expect: {cache: {cells: 1, remaining: 0}}
  - cache_snapshot: {cache: c, mode: full, name: k}
"#;

#[test]
fn cache_expectations_name_only_what_the_step_before_replies() {
    let id = "tilecache/y_example";
    load_str(id, CACHE).unwrap();
    let swap = |from: &str, to: &str| {
        assert!(CACHE.contains(from));
        CACHE.replacen(from, to, 1)
    };
    let reply = |step: &'static str, key: &str| StepError::CacheReply {
        step,
        key: key.into(),
    };
    let cases = [
        // An update replies counts, never an id: such an expectation could never pass.
        (
            swap("{cells: 1, remaining: 0}", "{id: 1}"),
            step(7, reply("update", "id")),
        ),
        (
            swap("{cells: 1, remaining: 0}", "{remaining: 0, id: 2}"),
            step(7, reply("update", "id")),
        ),
        // An add replies its id only.
        (
            swap("{cache: {id: 1}}", "{cache: {remaining: 0}}"),
            step(5, reply("add_obstacle", "remaining")),
        ),
        // Any other step replies none.
        (
            format!("{CACHE}  - expect: {{cache: {{id: 1}}}}\n"),
            step(9, reply("cache_snapshot", "id")),
        ),
        (
            swap("{cache: {id: 1}}", "{cache: {ids: 1}}"),
            step(5, reply("add_obstacle", "ids")),
        ),
    ];
    for (text, want) in cases {
        assert_eq!(check_error(id, &text), want, "{text}");
    }
    // Review item M2: ids and slot counts are u32 in a scenario as on the wire (§6.6), so a
    // scenario never sends a request outside the wire ranges; a larger value is a load error.
    for (step, ok) in [
        ("remove_obstacle: {cache: c, id: 4294967295}", true),
        ("remove_obstacle: {cache: c, id: 4294967296}", false),
        ("remove_volume: {cache: c, id: -1}", false),
        (
            "cache: {name: d, obj: floor, settings: s, slots: 4294967296}",
            false,
        ),
        ("update: {cache: c, max_tiles: 18446744073709551616}", false),
    ] {
        let text = format!("{CACHE}  - {step}\n");
        match load_str(id, &text) {
            Ok(_) => assert!(ok, "{step}"),
            Err(LoadReason::Yaml(_)) => assert!(!ok, "{step}"),
            Err(e) => panic!("{step}: {e:?}"),
        }
    }
    assert_eq!(
        reply("update", "id").to_string(),
        "update does not reply \"id\": expect cache names a reply field of the step before \
         (add_obstacle and add_volume reply id; update replies cells, added, replaced, removed, \
         unchanged, remaining)"
    );
}
