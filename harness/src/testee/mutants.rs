//! Mutant testees for the harness's self-tests: wrappers around a correct [`Backend`] that break
//! it in one known way, served by the hidden `onav testee --mutant NAME`. The suite must catch
//! every one of them: a runner that passes a mutant is broken.
//!
//! Two families. The *transport* mutants (`accept-every-restore` … `hang-on:OP`) break the
//! protocol or whole ops. The *rule* mutants ([`RULE_MUTANTS`]) each break one rule of the specs
//! the way a port could, by rewriting the reference's replies or checking in another order; each
//! names the scenarios that must catch it, and the tests below run the whole suite against every
//! one of them (`spec/conformance.md` §6.10).
//!
//! [`MutantKind::CrashOnOp`] and [`MutantKind::Hang`] end or block the process that runs them, so
//! they only make sense inside a testee process.

use std::str::FromStr;

use serde_json::Value;

use crate::files::decode::{decode, Value as DValue};
use crate::protocol::wire;
use crate::protocol::{Backend, BackendFailure, Reply, Request};

/// How a mutant misbehaves.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MutantKind {
    /// `accept-every-restore`: answers `ok` to every `restore` (with a fresh empty mesh whose
    /// parameters are the snapshot's, when they parse, or a one-slot default) and `restore_into`
    /// (leaving the mesh as it was), whatever the bytes.
    AcceptEveryRestore,
    /// `reject-every-restore`: answers every `restore` and `restore_into` with a format
    /// rejection of field `magic` at offset 0, whatever the bytes.
    RejectEveryRestore,
    /// `flip-snapshot-byte`: flips the lowest bit of the middle byte (index len / 2) of every
    /// `snapshot` reply.
    FlipSnapshotByte,
    /// `crash-on-op:K`: the process exits (status 86, without replying) when it receives its
    /// K-th request after `hello` (K ≥ 1). A restarted process counts from 1 again.
    CrashOnOp(u32),
    /// `hang-on:OP` (`hang` is `hang-on:snapshot`): never answers op OP (and so nothing after it).
    Hang(String),
    /// One of the rule mutants (`RULE_MUTANTS`), by name.
    Rule(Rule),
}

/// A rule mutant: one rule of the specs broken the way a port could break it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Rule {
    /// Speaks only protocol 1 (refuses `hello` 2); otherwise correct. Not a deviation: the runner
    /// must run it, without comparing offsets.
    Protocol1,
    /// Format and fingerprint rejections carry no offset.
    DropOffsets,
    /// Every offset one too large.
    OffsetPlusOne,
    /// Offsets of errors inside a nested tile are relative to that tile, not to the input.
    NestedOffsetsRelative,
    /// Off-mesh link ends named the other way round (`start` ↔ `end`).
    SwapLinkEnd,
    /// A portal link's `lo` and `hi` exchanged.
    SwapPortalLoHi,
    /// Every edge link reports edge 0.
    ZeroLinkEdge,
    /// A portal link names the opposite side.
    PortalSideOpposite,
    /// The fingerprint error of `add_tile` / `replace_tile` named `tile.params.settings_digest`
    /// without an offset (the old text of R7.1).
    FingerprintFieldTilePrefixed,
    /// A grid mismatch of `add_tile` / `replace_tile` reported as a format error at `params`
    /// (one reading of the old P7).
    ParamsMismatchAsFormat,
    /// `set_poly_area` checks the reference before the area.
    AreaCheckAfterRef,
    /// `add_tile` checks the position before the digest and the grid.
    PositionBeforeDigest,
    /// `add_tile` and `replace_tile` compare the grid before the digest.
    ParamsBeforeDigest,
    /// `replace_tile` looks for the tile at the position before the digest and the grid.
    NoTileFirst,
    /// `add_tile` checks for a free slot before the position.
    NoFreeSlotBeforePosition,
    /// `replace_tile` needs a free slot, as `add_tile` does (the old text of cf §6.6).
    ReplaceNeedsFreeSlot,
    /// `remove_tile` ignores the polygon bits of its reference.
    RemoveIgnoresPolygonBits,
    /// A tile on layer 255 is refused (T4 read as `< 255`).
    Layer255Rejected,
    /// A mesh of 1 048 575 slots is refused (P5 read as `< 1 048 575`).
    SlotsMaxRejected,
    /// A subnormal tile size is refused (P3 read as "normal and > 0").
    SubnormalSizeRejected,
    /// Area 63 is refused (R12 read as `< 63`).
    Area63Rejected,
    /// Queries check their references before the pool size (steps 1 and 3 of queries.md E1
    /// swapped).
    QueryRefBeforePoolSize,
    /// Queries check their references before the filter (steps 2 and 3 of E1 swapped).
    QueryRefBeforeFilter,
    /// Queries check their points before their references (steps 3 and 4 of E1 swapped).
    QueryPointsBeforeRefs,
    /// `find_straight_path` walks the corridor's pairs before checking its last polygon (steps 3
    /// and 5 of E1 swapped).
    StraightLinksBeforeLast,
    /// `find_straight_path` refuses an invalid polygon in the middle of a corridor as
    /// `InvalidRef` (E2 broken).
    CorridorMiddleInvalidRef,
    /// A reference of generation 0 given to `find_path` or `raycast` is `InvalidInput` (the
    /// reference testee's old answer; §1.3 says `InvalidRef`).
    GenerationZeroInvalidInput,
    /// A tile nested in a mesh file (`tile[i].length`, M7/M8) or an inline snapshot slot
    /// (`slot[i].tile_length`, S9) is delimited by its own counts (navmesh-format.md §3.2's
    /// length formula), not by its length prefix, and reading goes on after it.
    NestedTileIgnoresLength,
}

/// Every rule mutant: its name, what it breaks, and the cases that must catch it.
pub const RULE_MUTANTS: &[(Rule, &str, &[&str])] = &[
    (Rule::Protocol1, "protocol-1", &[]),
    (
        Rule::DropOffsets,
        "drop-offsets",
        &["tile/n_magic", "navmesh/n_add-fingerprint"],
    ),
    (
        Rule::OffsetPlusOne,
        "offset-plus-one",
        &["tile/n_version", "snapshot/n_kind"],
    ),
    (
        Rule::NestedOffsetsRelative,
        "nested-offsets-relative",
        &["snapshot/n_inline-tile-invalid", "meshfile/n_tile-invalid"],
    ),
    (
        Rule::SwapLinkEnd,
        "swap-link-end",
        &["navmesh/y_off-mesh-link-landings"],
    ),
    (
        Rule::SwapPortalLoHi,
        "swap-portal-lo-hi",
        &["navmesh/y_stitch-four-sides"],
    ),
    (
        Rule::ZeroLinkEdge,
        "zero-link-edge",
        &["navmesh/y_stitch-internal-links"],
    ),
    (
        Rule::PortalSideOpposite,
        "portal-side-opposite",
        &["navmesh/y_stitch-four-sides"],
    ),
    (
        Rule::FingerprintFieldTilePrefixed,
        "fingerprint-field-tile-prefixed",
        &["navmesh/n_add-fingerprint", "navmesh/n_replace-fingerprint"],
    ),
    (
        Rule::ParamsMismatchAsFormat,
        "params-mismatch-as-format",
        &[
            "navmesh/n_add-params-mismatch",
            "navmesh/n_replace-params-mismatch",
        ],
    ),
    (
        Rule::AreaCheckAfterRef,
        "area-check-after-ref",
        &["navmesh/n_set-area-above-63-stale"],
    ),
    (
        Rule::PositionBeforeDigest,
        "position-before-digest",
        &[
            "navmesh/n_add-fingerprint-before-position",
            "navmesh/n_add-params-before-position",
        ],
    ),
    (
        Rule::ParamsBeforeDigest,
        "params-before-digest",
        &["navmesh/n_add-fingerprint-before-params"],
    ),
    (
        Rule::NoTileFirst,
        "no-tile-first",
        &["navmesh/n_replace-fingerprint-before-no-tile"],
    ),
    (
        Rule::NoFreeSlotBeforePosition,
        "no-free-slot-before-position",
        &["navmesh/n_add-position-before-no-free-slot"],
    ),
    (
        Rule::ReplaceNeedsFreeSlot,
        "replace-needs-free-slot",
        &["navmesh/y_replace-in-full-mesh"],
    ),
    (
        Rule::RemoveIgnoresPolygonBits,
        "remove-ignores-polygon-bits",
        &["navmesh/n_remove-with-polygon-bits"],
    ),
    (
        Rule::Layer255Rejected,
        "layer-255-rejected",
        &["tile/y_layer-255"],
    ),
    (
        Rule::SlotsMaxRejected,
        "slots-max-rejected",
        &["navmesh/y_new-mesh-slot-count-max"],
    ),
    (
        Rule::SubnormalSizeRejected,
        "subnormal-size-rejected",
        &["navmesh/y_new-mesh-tile-size-subnormal"],
    ),
    (
        Rule::Area63Rejected,
        "area-63-rejected",
        &["navmesh/y_area-flags-edits"],
    ),
    (
        Rule::QueryRefBeforePoolSize,
        "query-ref-before-pool-size",
        &["query/n_order-pool-size-before-ref"],
    ),
    (
        Rule::QueryRefBeforeFilter,
        "query-ref-before-filter",
        &[
            "query/n_order-filter-before-ref",
            "query/n_order-raycast-cost-before-ref",
        ],
    ),
    (
        Rule::QueryPointsBeforeRefs,
        "query-points-before-refs",
        &[
            "query/n_order-path-ref-before-position",
            "query/n_order-raycast-ref-before-position",
            "query/n_order-straight-ref-before-position",
        ],
    ),
    (
        Rule::StraightLinksBeforeLast,
        "straight-links-before-last",
        &["query/n_order-straight-last-ref-before-links"],
    ),
    (
        Rule::CorridorMiddleInvalidRef,
        "corridor-middle-invalid-ref",
        &[
            "query/n_straight-stale-middle",
            "query/n_straight-forged-middle",
            "query/n_straight-generation-zero-middle",
        ],
    ),
    (
        Rule::GenerationZeroInvalidInput,
        "generation-zero-invalid-input",
        &["query/n_path-generation-zero-start"],
    ),
    (
        Rule::NestedTileIgnoresLength,
        "nested-tile-ignores-length",
        &[
            "meshfile/n_tile-trailing-byte",
            "snapshot/n_inline-tile-trailing-byte",
        ],
    ),
];

/// A mutant name `onav testee --mutant` does not know.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MutantError {
    /// `crash-on-op:K` with K not a count from 1.
    #[error("crash-on-op needs a count ≥ 1, not {count:?}")]
    Count {
        /// K as written.
        count: String,
    },
    /// `hang-on:OP` with an op the protocol does not have.
    #[error("hang-on: unknown op {op:?}")]
    Op {
        /// OP as written.
        op: String,
    },
    /// No mutant of that name.
    #[error("unknown mutant {name:?}; known: {}", mutant_names().join(", "))]
    Unknown {
        /// The name.
        name: String,
    },
}

impl FromStr for MutantKind {
    type Err = MutantError;

    fn from_str(s: &str) -> Result<Self, MutantError> {
        Ok(match s {
            "accept-every-restore" => Self::AcceptEveryRestore,
            "reject-every-restore" => Self::RejectEveryRestore,
            "flip-snapshot-byte" => Self::FlipSnapshotByte,
            "hang" => Self::Hang("snapshot".into()),
            _ if RULE_MUTANTS.iter().any(|m| m.1 == s) => Self::Rule(
                RULE_MUTANTS
                    .iter()
                    .find(|m| m.1 == s)
                    .map(|m| m.0)
                    .unwrap_or(Rule::Protocol1),
            ),
            _ => {
                if let Some(k) = s.strip_prefix("crash-on-op:") {
                    match k.parse() {
                        Ok(k @ 1..) => Self::CrashOnOp(k),
                        _ => {
                            return Err(MutantError::Count {
                                count: k.to_owned(),
                            })
                        }
                    }
                } else if let Some(op) = s.strip_prefix("hang-on:") {
                    if !crate::protocol::OPS.contains(&op) {
                        return Err(MutantError::Op { op: op.to_owned() });
                    }
                    Self::Hang(op.into())
                } else {
                    return Err(MutantError::Unknown { name: s.to_owned() });
                }
            }
        })
    }
}

/// The transport mutant names `onav testee --mutant` accepts (and every name of
/// [`RULE_MUTANTS`]).
pub const MUTANT_NAMES: &[&str] = &[
    "accept-every-restore",
    "reject-every-restore",
    "flip-snapshot-byte",
    "crash-on-op:K",
    "hang-on:OP",
    "hang",
    "RULE (see RULE_MUTANTS)",
];

/// Every name `onav testee --mutant` accepts.
pub fn mutant_names() -> Vec<&'static str> {
    MUTANT_NAMES[..MUTANT_NAMES.len() - 1]
        .iter()
        .copied()
        .chain(RULE_MUTANTS.iter().map(|m| m.1))
        .collect()
}

/// A backend broken in one known way.
#[derive(Debug)]
pub struct Mutant<B: Backend> {
    inner: B,
    kind: MutantKind,
    ops: u32,
}

impl<B: Backend> Mutant<B> {
    /// Wraps `inner`.
    pub fn new(inner: B, kind: MutantKind) -> Self {
        Self {
            inner,
            kind,
            ops: 0,
        }
    }

    /// A fresh mesh for the accepting mutant: the snapshot's parameters if they parse, else a
    /// one-slot mesh of tile size 1.
    fn fresh_mesh(&mut self, bytes: &str) -> Result<Reply, BackendFailure> {
        let b = wire::unb64("bytes", bytes).unwrap_or_default();
        let block = b
            .get(8..8 + onav::MeshParams::LEN)
            .filter(|p| onav::MeshParams::read(&mut onav::bytes::Reader::new(p, 8)).is_ok());
        let params = match block {
            Some(p) => p.to_vec(),
            None => wire::params_block([0.0; 3], 1.0, 1, [0; 32]),
        };
        self.inner.call(&Request::NewMesh {
            params: wire::b64(&params),
        })
    }
}

impl<B: Backend> Backend for Mutant<B> {
    fn supports(&self, op: &str) -> bool {
        self.inner.supports(op)
    }

    fn has_feature(&self, feature: &str) -> bool {
        self.inner.has_feature(feature)
    }

    fn protocol(&self) -> u32 {
        match self.kind {
            MutantKind::Rule(Rule::Protocol1) => 1,
            _ => self.inner.protocol(),
        }
    }

    fn call(&mut self, req: &Request) -> Result<Reply, BackendFailure> {
        if !matches!(req, Request::Hello { .. }) {
            self.ops = self.ops.saturating_add(1);
        }
        let restore = matches!(req, Request::Restore { .. } | Request::RestoreInto { .. });
        match &self.kind {
            MutantKind::CrashOnOp(k) if self.ops == *k => {
                eprintln!("mutant crash-on-op:{k}: exiting at {}", req.op());
                std::process::exit(86);
            }
            MutantKind::Hang(op) if req.op() == op => {
                eprintln!("mutant hang-on:{op}: not answering");
                loop {
                    std::thread::park();
                }
            }
            MutantKind::AcceptEveryRestore if restore => match req {
                Request::Restore { bytes, .. } => self.fresh_mesh(bytes),
                _ => Ok(Reply::ok([])),
            },
            MutantKind::RejectEveryRestore if restore => Ok(Reply::Rejected {
                class: "format".into(),
                field: "magic".into(),
                offset: Some(0),
                message: "mutant reject-every-restore".into(),
            }),
            MutantKind::FlipSnapshotByte if matches!(req, Request::Snapshot { .. }) => {
                let mut r = self.inner.call(req)?;
                if let Reply::Ok { fields } = &mut r {
                    if let Some(Value::String(s)) = fields.get_mut("bytes") {
                        if let Ok(mut b) = wire::unb64("bytes", s) {
                            let mid = b.len() / 2;
                            if let Some(x) = b.get_mut(mid) {
                                *x ^= 1;
                            }
                            *s = wire::b64(&b);
                        }
                    }
                }
                Ok(r)
            }
            MutantKind::Rule(rule) => {
                let rule = *rule;
                self.rule_call(rule, req)
            }
            _ => self.inner.call(req),
        }
    }
}

/// The rejection a reply carries, mutably.
fn rejection(r: &mut Reply) -> Option<(&mut String, &mut String, &mut Option<u64>)> {
    match r {
        Reply::Rejected {
            class,
            field,
            offset,
            ..
        } => Some((class, field, offset)),
        _ => None,
    }
}

/// A `mesh` rejection of kind `field`.
fn mesh_rejection(field: &str) -> Reply {
    Reply::Rejected {
        class: "mesh".into(),
        field: field.into(),
        offset: None,
        message: format!("mutant: {field}"),
    }
}

/// A `format` rejection of `field` at `offset`.
fn format_rejection(field: &str, offset: u64) -> Reply {
    Reply::Rejected {
        class: "format".into(),
        field: field.into(),
        offset: Some(offset),
        message: format!("mutant: {field}"),
    }
}

/// A tile position: column, row, layer.
type Position = (i64, i64, u64);

/// The position written in tile bytes.
fn tile_position(tile: &[u8]) -> Option<Position> {
    let d = decode(tile);
    match (
        &d.field("position.column")?.value,
        &d.field("position.row")?.value,
        &d.field("position.layer")?.value,
    ) {
        (DValue::I(c), DValue::I(r), DValue::U(l)) => Some((*c, *r, *l)),
        _ => None,
    }
}

impl<B: Backend> Mutant<B> {
    /// A mesh's Full snapshot.
    fn mesh_snapshot(&mut self, mesh: &Value) -> Option<Vec<u8>> {
        let r = self
            .inner
            .call(&Request::Snapshot {
                mesh: mesh.clone(),
                mode: "full".into(),
            })
            .ok()?;
        let Reply::Ok { fields } = r else { return None };
        wire::unb64("bytes", fields.get("bytes")?.as_str()?).ok()
    }

    /// The positions of the tiles of a mesh and its count of free slots, from its Full snapshot.
    fn mesh_positions(&mut self, mesh: &Value) -> Option<(Vec<Position>, usize)> {
        let b = self.mesh_snapshot(mesh)?;
        // One pass over the decoded fields (a mesh may have 1 048 575 slots): a slot's `kind`
        // comes before its tile's position fields.
        let mut positions = Vec::new();
        let mut free = 0;
        let (mut column, mut row) = (None, None);
        for f in decode(&b).fields {
            let Some(rest) = f.path.strip_prefix("slot[") else {
                continue;
            };
            let Some((_, key)) = rest.split_once("].") else {
                continue;
            };
            match (key, &f.value) {
                ("kind", DValue::U(0)) => free += 1,
                ("tile.position.column", DValue::I(c)) => column = Some(*c),
                ("tile.position.row", DValue::I(r)) => row = Some(*r),
                ("tile.position.layer", DValue::U(l)) => {
                    if let (Some(c), Some(r)) = (column.take(), row.take()) {
                        positions.push((c, r, *l));
                    }
                }
                _ => {}
            }
        }
        Some((positions, free))
    }

    /// Whether `raw` is a valid polygon reference of `mesh` now (`is_valid_ref`).
    fn ref_valid(&mut self, mesh: &Value, raw: u64) -> Result<bool, BackendFailure> {
        let r = self.inner.call(&Request::IsValidRef {
            mesh: mesh.clone(),
            poly_ref: crate::protocol::ref_to_hex(raw),
        })?;
        Ok(matches!(&r, Reply::Ok { fields } if fields.get("valid") == Some(&Value::Bool(true))))
    }

    /// A query answered with one step of the check order (`queries.md` E1, E2) broken, or `None`
    /// to answer it as the reference does.
    fn query_rule(&mut self, rule: Rule, req: &Request) -> Result<Option<Reply>, BackendFailure> {
        use crate::protocol::query::{Args, Op};
        let (Some((mesh, args)), op) = (query_request(req), req.op()) else {
            return Ok(None);
        };
        let Ok(a) = Args::parse(op, args) else {
            return Ok(None);
        };
        let refs: Vec<u64> = match a.op {
            Op::Nearest => vec![],
            Op::Path => vec![a.start_ref, a.end_ref],
            Op::Raycast => vec![a.start_ref],
            Op::StraightPath | Op::CorridorCost => a
                .corridor
                .first()
                .into_iter()
                .chain(a.corridor.last())
                .copied()
                .collect(),
        };
        let mut some_ref_invalid = false;
        for &r in &refs {
            some_ref_invalid |= !self.ref_valid(mesh, r)?;
        }
        let pool_bad = a.max_nodes == 0 || a.max_nodes > onav::limits::MAX_QUERY_NODES;
        let takes_filter = matches!(
            a.op,
            Op::Nearest | Op::Path | Op::Raycast | Op::CorridorCost
        );
        let filter_bad = takes_filter
            && a.area_costs
                .iter()
                .any(|&(area, c)| area > 63 || !c.is_finite() || c < 0.0);
        let points: &[[f64; 3]] = match a.op {
            Op::Nearest => &[a.center, a.half_extents],
            _ => &[a.start_pos, a.end_pos],
        };
        let points_bad = points.iter().flatten().any(|c| !c.is_finite());
        let query = |field: &str| {
            Some(Reply::Rejected {
                class: "query".into(),
                field: field.into(),
                offset: None,
                message: format!("mutant: {field}"),
            })
        };
        Ok(match rule {
            Rule::QueryRefBeforePoolSize if pool_bad && some_ref_invalid => query("invalid_ref"),
            Rule::QueryRefBeforeFilter if !pool_bad && filter_bad && some_ref_invalid => {
                query("invalid_ref")
            }
            Rule::QueryPointsBeforeRefs if !pool_bad && !filter_bad && points_bad => {
                query("invalid_input")
            }
            Rule::StraightLinksBeforeLast
                if a.op == Op::StraightPath && a.corridor.len() >= 3 && some_ref_invalid =>
            {
                // The pairs walked first: the corridor without its last polygon.
                let mut head = args.clone();
                head["corridor"] = a.corridor[..a.corridor.len() - 1]
                    .iter()
                    .map(|&r| Value::from(crate::protocol::ref_to_hex(r)))
                    .collect();
                let r = self.inner.call(&Request::FindStraightPath {
                    mesh: mesh.clone(),
                    args: head,
                })?;
                match rejection(&mut r.clone()) {
                    Some((_, field, _)) if field == "invalid_input" => query("invalid_input"),
                    _ => None,
                }
            }
            Rule::CorridorMiddleInvalidRef if a.op == Op::StraightPath && a.corridor.len() >= 3 => {
                let mut middle_invalid = false;
                for &r in &a.corridor[1..a.corridor.len() - 1] {
                    middle_invalid |= !self.ref_valid(mesh, r)?;
                }
                if middle_invalid && !pool_bad && !some_ref_invalid {
                    query("invalid_ref")
                } else {
                    None
                }
            }
            Rule::GenerationZeroInvalidInput
                if matches!(a.op, Op::Path | Op::Raycast)
                    && !pool_bad
                    && !filter_bad
                    && refs.iter().any(|&r| r >> 40 == 0) =>
            {
                query("invalid_input")
            }
            _ => None,
        })
    }

    /// A request answered by the reference with one rule broken.
    fn rule_call(&mut self, rule: Rule, req: &Request) -> Result<Reply, BackendFailure> {
        if let Some(r) = self.query_rule(rule, req)? {
            return Ok(r);
        }
        match (rule, req) {
            (Rule::Protocol1, Request::Hello { protocol }) if *protocol != 1 => {
                return Ok(wire::error(format!(
                    "protocol {protocol} not spoken; only 1"
                )))
            }
            (Rule::AreaCheckAfterRef, Request::SetPolyArea { mesh, poly_ref, .. }) => {
                let valid = self.inner.call(&Request::IsValidRef {
                    mesh: mesh.clone(),
                    poly_ref: poly_ref.clone(),
                })?;
                if matches!(&valid, Reply::Ok { fields } if fields.get("valid") == Some(&Value::Bool(false)))
                {
                    return Ok(mesh_rejection("invalid_poly_ref"));
                }
            }
            (
                Rule::PositionBeforeDigest | Rule::NoFreeSlotBeforePosition,
                Request::AddTile { mesh, tile },
            ) => {
                let pos = wire::unb64("tile", tile)
                    .ok()
                    .and_then(|b| tile_position(&b));
                if let (Some(pos), Some((taken, free))) = (pos, self.mesh_positions(mesh)) {
                    if rule == Rule::NoFreeSlotBeforePosition && free == 0 {
                        return Ok(mesh_rejection("no_free_slot"));
                    }
                    if rule == Rule::PositionBeforeDigest && taken.contains(&pos) {
                        return Ok(mesh_rejection("position_taken"));
                    }
                }
            }
            (
                Rule::ParamsBeforeDigest,
                Request::AddTile { mesh, tile } | Request::ReplaceTile { mesh, tile },
            ) => {
                let grid = wire::unb64("tile", tile)
                    .ok()
                    .and_then(|b| b.get(8..40).map(<[u8]>::to_vec));
                if let (Some(g), Some(m)) = (grid, self.mesh_snapshot(mesh)) {
                    if m.get(8..40) != Some(&g[..]) {
                        return Ok(mesh_rejection("params_mismatch"));
                    }
                }
            }
            (
                Rule::Layer255Rejected,
                Request::TileRoundtrip { tile }
                | Request::ContentId { tile }
                | Request::AddTile { tile, .. }
                | Request::ReplaceTile { tile, .. },
            ) if wire::unb64("tile", tile)
                .ok()
                .and_then(|b| tile_position(&b))
                .is_some_and(|(_, _, layer)| layer == 255) =>
            {
                return Ok(format_rejection("position.layer", 80));
            }
            (Rule::SlotsMaxRejected | Rule::SubnormalSizeRejected, Request::NewMesh { params }) => {
                // The 68-byte block: origin 0..24, tile size 24..32, slot count 32..36; a file
                // places it at 8.
                let b = wire::unb64("params", params).unwrap_or_default();
                let size = b
                    .get(24..32)
                    .map(|x| f64::from_le_bytes(x.try_into().unwrap()));
                let slots = b
                    .get(32..36)
                    .map(|x| u32::from_le_bytes(x.try_into().unwrap()));
                if rule == Rule::SlotsMaxRejected && slots == Some(1_048_575) {
                    return Ok(format_rejection("params.slot_count", 40));
                }
                if rule == Rule::SubnormalSizeRejected && size.is_some_and(f64::is_subnormal) {
                    return Ok(format_rejection("params.tile_size", 32));
                }
            }
            (
                Rule::NestedTileIgnoresLength,
                Request::Restore { .. } | Request::RestoreInto { .. } | Request::ReadMesh { .. },
            ) => {
                if let Some(req) = lengths_from_counts(req) {
                    return self.inner.call(&req);
                }
            }
            (Rule::Area63Rejected, Request::SetPolyArea { area: 63, .. }) => {
                return Ok(mesh_rejection("area_out_of_range"));
            }
            (Rule::NoTileFirst, Request::ReplaceTile { mesh, tile }) => {
                let pos = wire::unb64("tile", tile)
                    .ok()
                    .and_then(|b| tile_position(&b));
                if let (Some(pos), Some((taken, _))) = (pos, self.mesh_positions(mesh)) {
                    if !taken.contains(&pos) {
                        return Ok(mesh_rejection("no_tile_at"));
                    }
                }
            }
            (Rule::ReplaceNeedsFreeSlot, Request::ReplaceTile { mesh, .. })
                if self.mesh_positions(mesh).is_some_and(|(_, free)| free == 0) =>
            {
                return Ok(mesh_rejection("no_free_slot"));
            }
            (Rule::RemoveIgnoresPolygonBits, Request::RemoveTile { mesh, tile_ref }) => {
                if let Some(raw) = crate::protocol::ref_from_hex(tile_ref) {
                    return self.inner.call(&Request::RemoveTile {
                        mesh: mesh.clone(),
                        tile_ref: crate::protocol::ref_to_hex(raw & !0xf_ffff),
                    });
                }
            }
            _ => {}
        }
        let mut r = self.inner.call(req)?;
        let is_tile_op = matches!(req, Request::AddTile { .. } | Request::ReplaceTile { .. });
        if let Some((class, field, offset)) = rejection(&mut r) {
            let located = class == "format" || class == "fingerprint";
            match rule {
                Rule::DropOffsets if located => *offset = None,
                Rule::OffsetPlusOne if located => *offset = offset.map(|o| o + 1),
                Rule::NestedOffsetsRelative if located => {
                    if let Some(base) = nested_base(req, field) {
                        *offset = offset.map(|o| o.saturating_sub(base));
                    }
                }
                Rule::FingerprintFieldTilePrefixed if is_tile_op && class == "fingerprint" => {
                    *field = "tile.params.settings_digest".into();
                    *offset = None;
                }
                Rule::ParamsMismatchAsFormat if is_tile_op && field == "params_mismatch" => {
                    *class = "format".into();
                    *field = "params".into();
                    *offset = Some(8);
                }
                _ => {}
            }
        }
        if let (Request::GetPoly { .. }, Reply::Ok { fields }) = (req, &mut r) {
            if let Some(Value::Array(links)) = fields.get_mut("links") {
                for l in links.iter_mut().filter_map(Value::as_object_mut) {
                    rewrite_link(rule, l);
                }
            }
        }
        Ok(r)
    }
}

/// The mesh and `args` of a query request.
fn query_request(req: &Request) -> Option<(&Value, &Value)> {
    match req {
        Request::FindNearestPoly { mesh, args }
        | Request::FindPath { mesh, args }
        | Request::FindStraightPath { mesh, args }
        | Request::Raycast { mesh, args }
        | Request::CorridorCost { mesh, args } => Some((mesh, args)),
        _ => None,
    }
}

/// The offset of the nested tile an error at `field` lies in (`slot[i].tile.…` of a snapshot,
/// `tile[i].…` of a mesh file), from the request's bytes.
fn nested_base(req: &Request, field: &str) -> Option<u64> {
    let bytes = match req {
        Request::Restore { bytes, .. }
        | Request::RestoreInto { bytes, .. }
        | Request::ReadMesh { bytes } => wire::unb64("bytes", bytes).ok()?,
        _ => return None,
    };
    let tile = if field.starts_with("slot[") {
        field.split_once(".tile.")?.0.to_owned() + ".tile"
    } else if field.starts_with("tile[") {
        field.split_once("].")?.0.to_owned() + "]"
    } else {
        return None;
    };
    decode(&bytes)
        .field(&format!("{tile}.magic"))
        .map(|f| f.offset)
}

/// The request with each nested tile's length prefix (`tile[i].length` of a mesh file,
/// `slot[i].tile_length` of a snapshot) replaced by the length the tile's own counts give
/// (navmesh-format.md §3.2: 132 + 24·V + 71·G + 67·L + 24·DV + 4·DT), where they differ and the
/// counts lie in the input: the reference then reads the input as a port would that takes a
/// nested tile's extent from its counts and reads on after it. `None` when no prefix changes.
fn lengths_from_counts(req: &Request) -> Option<Request> {
    let (Request::Restore { bytes, .. }
    | Request::RestoreInto { bytes, .. }
    | Request::ReadMesh { bytes }) = req
    else {
        return None;
    };
    let mut b = wire::unb64("bytes", bytes).ok()?;
    let prefixes: Vec<u64> = decode(&b)
        .fields
        .iter()
        .filter(|f| {
            f.path.ends_with(".tile_length")
                || (f.path.starts_with("tile[") && f.path.ends_with("].length"))
        })
        .map(|f| f.offset)
        .collect();
    let mut changed = false;
    for at in prefixes {
        let at = usize::try_from(at).ok()?;
        let u32_at = |b: &[u8], i: usize| -> Option<u64> {
            Some(u64::from(u32::from_le_bytes(
                b.get(i..i + 4)?.try_into().ok()?,
            )))
        };
        let counts = at + 4 + 108;
        let n: Option<Vec<u64>> = (0..5).map(|k| u32_at(&b, counts + 4 * k)).collect();
        let Some([v, g, l, dv, dt]) = n.as_deref().map(|n| [n[0], n[1], n[2], n[3], n[4]]) else {
            continue;
        };
        let own = 132 + 24 * v + 71 * g + 67 * l + 24 * dv + 4 * dt;
        let Ok(own32) = u32::try_from(own) else {
            continue;
        };
        if u32_at(&b, at) != Some(own) {
            b[at..at + 4].copy_from_slice(&own32.to_le_bytes());
            changed = true;
        }
    }
    let bytes = wire::b64(&b);
    changed.then(|| match req {
        Request::Restore { library, .. } => Request::Restore {
            bytes,
            library: library.clone(),
        },
        Request::RestoreInto { mesh, library, .. } => Request::RestoreInto {
            mesh: mesh.clone(),
            bytes,
            library: library.clone(),
        },
        _ => Request::ReadMesh { bytes },
    })
}

/// One link of a `get_poly` reply, rewritten by a link mutant.
fn rewrite_link(rule: Rule, l: &mut serde_json::Map<String, Value>) {
    match rule {
        Rule::SwapLinkEnd => {
            if let Some(Value::String(e)) = l.get_mut("end") {
                *e = if e == "start" { "end" } else { "start" }.into();
            }
        }
        Rule::SwapPortalLoHi => {
            if let (Some(lo), Some(hi)) = (l.get("lo").cloned(), l.get("hi").cloned()) {
                l.insert("lo".into(), hi);
                l.insert("hi".into(), lo);
            }
        }
        Rule::ZeroLinkEdge => {
            if let Some(e) = l.get_mut("edge") {
                *e = Value::from(0);
            }
        }
        Rule::PortalSideOpposite => {
            if let Some(Value::String(side)) = l.get_mut("side") {
                let opposite = match side.as_str() {
                    "+x" => "-x",
                    "-x" => "+x",
                    "+z" => "-z",
                    _ => "+z",
                };
                *side = opposite.into();
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::{run_scenario, Status};
    use crate::scenario::{find_files, load_file, Case};
    use crate::testee::reference::Reference;
    use std::collections::BTreeSet;
    use std::path::Path;

    /// The suite without the builder's limit cases (`build3d/n_limit-*`): each builds a tile of
    /// about a million cells to reach its cap and ends in a class-`build` rejection, which carries
    /// no offset and involves no mesh, so no rule mutant (they change mesh, snapshot and query
    /// replies and the offsets of located rejections) can change its outcome. Running them once
    /// per mutant cost minutes of CI.
    fn suite() -> Vec<Case> {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios");
        find_files(&root)
            .unwrap()
            .iter()
            .map(|f| load_file(&root, f).unwrap())
            .filter(|c| !c.id.starts_with("build3d/n_limit-"))
            .collect()
    }

    /// The cases of the suite that do not pass against `backend()`.
    fn failing(cases: &[Case], backend: impl Fn() -> Mutant<Reference>) -> BTreeSet<String> {
        cases
            .iter()
            .filter(|c| {
                let r = run_scenario(&c.id, &c.scenario, &mut backend(), &c.dir);
                r.status() != Status::Pass
            })
            .map(|c| c.id.clone())
            .collect()
    }

    /// Every rule mutant fails the cases it names (and so the suite); `protocol-1` passes it all.
    /// With `ONAV_MUTANT_TABLE=FILE` the table of every mutant and the cases that catch it is
    /// written there.
    #[test]
    fn the_suite_catches_every_rule_mutant() {
        let cases = suite();
        let mut table = String::new();
        let mut problems = Vec::new();
        for &(rule, name, killers) in RULE_MUTANTS {
            let f = failing(&cases, || {
                Mutant::new(Reference::new(), MutantKind::Rule(rule))
            });
            table += &format!(
                "{name}\t{}\t{}\n",
                f.len(),
                f.iter().cloned().collect::<Vec<_>>().join(" ")
            );
            if rule == Rule::Protocol1 {
                if !f.is_empty() {
                    problems.push(format!("a version-1 testee fails {f:?}"));
                }
                continue;
            }
            if f.is_empty() {
                problems.push(format!("{name} passes the whole suite"));
            }
            for k in killers.iter().filter(|k| !f.contains(**k)) {
                problems.push(format!("{name} passes {k}"));
            }
        }
        if let Some(out) = std::env::var_os("ONAV_MUTANT_TABLE") {
            std::fs::write(out, table).unwrap();
        }
        assert!(problems.is_empty(), "{}", problems.join("\n"));
    }

    #[test]
    fn names_parse() {
        assert_eq!(
            "crash-on-op:3".parse::<MutantKind>(),
            Ok(MutantKind::CrashOnOp(3))
        );
        assert_eq!(
            "hang".parse::<MutantKind>(),
            Ok(MutantKind::Hang("snapshot".into()))
        );
        assert_eq!(
            "hang-on:add_tile".parse::<MutantKind>(),
            Ok(MutantKind::Hang("add_tile".into()))
        );
        for bad in ["crash-on-op:0", "crash-on-op:x", "hang-on:fly", "nope", ""] {
            assert!(bad.parse::<MutantKind>().is_err(), "{bad}");
        }
    }

    #[test]
    fn restore_mutants_answer_whatever_the_bytes() {
        let garbage = Request::Restore {
            bytes: wire::b64(b"garbage"),
            library: vec![],
        };
        let mut m = Mutant::new(Reference::new(), MutantKind::AcceptEveryRestore);
        assert!(
            matches!(m.call(&garbage), Ok(Reply::Ok { fields }) if fields.contains_key("mesh"))
        );
        let mut m = Mutant::new(Reference::new(), MutantKind::RejectEveryRestore);
        assert!(matches!(m.call(&garbage), Ok(Reply::Rejected { field, .. }) if field == "magic"));
    }
}
