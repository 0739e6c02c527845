//! Goldens (`spec/conformance.md`, "Goldens"): `golden/manifest.tsv` (sorted lines
//! `case/label<TAB>length<TAB>sha256`) and `golden/bytes/<case>/<label>.bin`, the canonical bytes
//! other ports restore. The run checks them; `onav bless` writes them after an independent check.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use onav::{NavMeshSnapshot, NavTile, SnapshotMode, TileLibrary};

use crate::files::decode::{decode, FileKind};
use crate::files::diff::first_difference;
use crate::hex::sha256_hex;

/// Why a manifest line is not `case/label<TAB>length<TAB>sha256` in order.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ManifestLineError {
    /// Not three fields separated by tabs.
    #[error("line {line}: expected case/label, length and sha256 separated by tabs")]
    Fields {
        /// The line, from 1.
        line: usize,
    },
    /// A length that is not a number.
    #[error("line {line}: length {text:?}")]
    Length {
        /// The line, from 1.
        line: usize,
        /// The length as written.
        text: String,
    },
    /// A SHA-256 that is not 64 lowercase hex digits.
    #[error("line {line}: sha256 must be 64 lowercase hex digits")]
    Sha256 {
        /// The line, from 1.
        line: usize,
    },
    /// A key out of order or repeated.
    #[error("line {line}: {key} is not in sorted order or repeats")]
    Order {
        /// The line, from 1.
        line: usize,
        /// The key.
        key: String,
    },
}

/// A manifest that cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum ManifestError {
    /// The file could not be read.
    #[error("{}: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A line is malformed.
    #[error("{}: {source}", path.display())]
    Line {
        /// The file.
        path: PathBuf,
        /// Which line and why.
        source: ManifestLineError,
    },
}

/// One manifest line's values.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// Length in bytes.
    pub length: u64,
    /// SHA-256, 64 lowercase hex digits.
    pub sha256: String,
}

impl Entry {
    /// The entry of these bytes.
    pub fn of(bytes: &[u8]) -> Self {
        Self {
            length: bytes.len() as u64,
            sha256: sha256_hex(bytes),
        }
    }
}

/// The manifest: key `case/label` to entry.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Manifest {
    /// Entries by key.
    pub entries: BTreeMap<String, Entry>,
}

impl Manifest {
    /// Parses manifest text. Lines must be sorted and unique.
    pub fn parse(text: &str) -> Result<Self, ManifestLineError> {
        let mut m = Manifest::default();
        let mut prev: Option<String> = None;
        for (i, line) in text.lines().enumerate() {
            let n = i + 1;
            let parts: Vec<&str> = line.split('\t').collect();
            let [key, len, sha] = parts[..] else {
                return Err(ManifestLineError::Fields { line: n });
            };
            let length = len.parse::<u64>().map_err(|_| ManifestLineError::Length {
                line: n,
                text: len.to_owned(),
            })?;
            if sha.len() != 64
                || !sha
                    .bytes()
                    .all(|c| c.is_ascii_digit() || (b'a'..=b'f').contains(&c))
            {
                return Err(ManifestLineError::Sha256 { line: n });
            }
            if prev.as_deref().is_some_and(|p| p >= key) {
                return Err(ManifestLineError::Order {
                    line: n,
                    key: key.to_owned(),
                });
            }
            prev = Some(key.to_owned());
            m.entries.insert(
                key.to_owned(),
                Entry {
                    length,
                    sha256: sha.to_owned(),
                },
            );
        }
        Ok(m)
    }

    /// Reads the manifest (an absent file is an empty manifest).
    pub fn read(path: &Path) -> Result<Self, ManifestError> {
        match std::fs::read_to_string(path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Self::default()),
            other => Self::read_existing(path, other),
        }
    }

    /// Reads a manifest that must exist.
    pub fn read_required(path: &Path) -> Result<Self, ManifestError> {
        Self::read_existing(path, std::fs::read_to_string(path))
    }

    fn read_existing(path: &Path, text: std::io::Result<String>) -> Result<Self, ManifestError> {
        let text = text.map_err(|source| ManifestError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        Self::parse(&text).map_err(|source| ManifestError::Line {
            path: path.to_path_buf(),
            source,
        })
    }

    /// The manifest text: sorted lines.
    pub fn render(&self) -> String {
        self.entries
            .iter()
            .map(|(k, e)| format!("{k}\t{}\t{}\n", e.length, e.sha256))
            .collect()
    }
}

/// Where the goldens of a repository live.
#[derive(Debug, Clone)]
pub struct Store {
    /// `golden/`.
    pub dir: PathBuf,
}

impl Store {
    /// The store below a repository root.
    pub fn at(root: &Path) -> Self {
        Self {
            dir: root.join("golden"),
        }
    }

    /// `golden/manifest.tsv`.
    pub fn manifest_path(&self) -> PathBuf {
        self.dir.join("manifest.tsv")
    }

    /// `golden/bytes/<case>/<label>.bin` of a key `case/label`.
    pub fn bytes_path(&self, key: &str) -> PathBuf {
        self.dir.join("bytes").join(format!("{key}.bin"))
    }

    /// Every key that has a bytes file.
    pub fn byte_files(&self) -> Vec<String> {
        let base = self.dir.join("bytes");
        let mut out = Vec::new();
        let mut stack = vec![base.clone()];
        while let Some(d) = stack.pop() {
            let Ok(rd) = std::fs::read_dir(&d) else {
                continue;
            };
            for e in rd.flatten() {
                let p = e.path();
                if p.is_dir() {
                    stack.push(p);
                } else if p.extension().is_some_and(|x| x == "bin") {
                    if let Ok(rel) = p.with_extension("").strip_prefix(&base) {
                        let key = rel
                            .components()
                            .map(|c| c.as_os_str().to_string_lossy().into_owned())
                            .collect::<Vec<_>>()
                            .join("/");
                        out.push(key);
                    }
                }
            }
        }
        out.sort();
        out
    }
}

/// A problem with a produced golden or with the store.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GoldenProblem {
    /// An output the manifest does not list yet.
    #[error("pending golden {key} ({} bytes, {}): not in the manifest; run onav bless", now.length, now.sha256)]
    Pending {
        /// `case/label`.
        key: String,
        /// What the run gives.
        now: Entry,
    },
    /// An output that differs from the manifest's entry.
    #[error(
        "stale golden {key}: manifest has {} bytes {}, the run gives {} bytes {}{}",
        want.length, want.sha256, now.length, now.sha256,
        difference.as_ref().map(|d| format!("; {d}")).unwrap_or_default()
    )]
    Stale {
        /// `case/label`.
        key: String,
        /// The manifest's entry.
        want: Entry,
        /// What the run gives.
        now: Entry,
        /// The first difference from the bytes file, when there is one.
        difference: Option<String>,
    },
    /// A bytes file that does not match its manifest entry.
    #[error("golden bytes file {} does not match the manifest", path.display())]
    Damaged {
        /// The file.
        path: PathBuf,
    },
    /// A manifest entry without its bytes file.
    #[error("golden bytes file {} is missing", path.display())]
    Missing {
        /// The file.
        path: PathBuf,
    },
    /// A manifest entry no scenario declares.
    #[error("orphaned manifest entry {key}: no scenario declares it")]
    OrphanEntry {
        /// `case/label`.
        key: String,
    },
    /// A bytes file the manifest does not list.
    #[error("orphaned golden bytes file {}: not in the manifest", path.display())]
    OrphanFile {
        /// The file.
        path: PathBuf,
    },
}

/// What is wrong with one produced golden, if anything.
pub fn check_output(
    store: &Store,
    manifest: &Manifest,
    key: &str,
    bytes: &[u8],
) -> Option<GoldenProblem> {
    let now = Entry::of(bytes);
    let Some(want) = manifest.entries.get(key) else {
        return Some(GoldenProblem::Pending {
            key: key.to_owned(),
            now,
        });
    };
    if *want != now {
        return Some(GoldenProblem::Stale {
            key: key.to_owned(),
            want: want.clone(),
            now,
            difference: std::fs::read(store.bytes_path(key))
                .ok()
                .map(|g| first_difference(&g, bytes)),
        });
    }
    let path = store.bytes_path(key);
    match std::fs::read(&path) {
        Ok(g) if Entry::of(&g) == now => None,
        Ok(_) => Some(GoldenProblem::Damaged { path }),
        Err(_) => Some(GoldenProblem::Missing { path }),
    }
}

/// Manifest entries and bytes files that no scenario declares.
pub fn orphans(
    store: &Store,
    manifest: &Manifest,
    declared: &BTreeSet<String>,
) -> Vec<GoldenProblem> {
    let mut out = Vec::new();
    for k in manifest.entries.keys() {
        if !declared.contains(k) {
            out.push(GoldenProblem::OrphanEntry { key: k.clone() });
        }
    }
    for k in store.byte_files() {
        if !manifest.entries.contains_key(&k) {
            out.push(GoldenProblem::OrphanFile {
                path: store.bytes_path(&k),
            });
        }
    }
    out
}

/// Why golden bytes fail the independent check of [`verify`].
#[derive(Debug, thiserror::Error)]
pub enum VerifyError {
    /// The structural decode stops before the end.
    #[error("the structural decode stops at byte {at}: {why}")]
    DecodeStops {
        /// Where.
        at: u64,
        /// Why.
        why: String,
    },
    /// The decode leaves a gap or reads bytes twice.
    #[error("the decode skips or overlaps bytes at {path}")]
    Gap {
        /// The field after the gap.
        path: String,
    },
    /// The decode does not reach the end.
    #[error("the decode does not cover every byte")]
    Uncovered,
    /// `ONQA` bytes that do not decode (`spec/conformance.md` §3, "Query answers").
    #[error("the query answer does not decode: {0}")]
    Answer(crate::exec::answer::AnswerError),
    /// `ONQA` bytes that decode to an answer encoding otherwise.
    #[error("the query answer does not encode back identically")]
    AnswerRewrite,
    /// onav rejects the tile.
    #[error("onav rejects the tile: {0}")]
    Tile(onav::FormatError),
    /// The tile does not write back to the same bytes.
    #[error("the tile does not write back identically")]
    TileRewrite,
    /// onav rejects the mesh file.
    #[error("onav rejects the mesh file: {0}")]
    MeshFile(onav::RestoreError),
    /// The mesh file does not write back to the same bytes.
    #[error("the mesh file does not write back identically")]
    MeshFileRewrite,
    /// A snapshot with inline and referenced tiles (no writer gives one).
    #[error("a mixed snapshot is not canonical output")]
    MixedSnapshot,
    /// onav does not restore the snapshot.
    #[error("onav does not restore the snapshot: {0}")]
    Snapshot(onav::RestoreError),
    /// The restored mesh snapshots to other bytes.
    #[error("the restored mesh does not snapshot back to the same bytes")]
    SnapshotRewrite,
    /// onav-tilecache refuses the `ONTK` snapshot (the checks that need no cache).
    #[error("onav-tilecache refuses the ONTK snapshot: {0}")]
    CacheSnapshot(onav::RestoreError),
    /// The mesh snapshot inside an `ONTK` snapshot fails its own check.
    #[error("the ONTK's mesh snapshot: {0}")]
    CacheMesh(Box<VerifyError>),
    /// Not an onav file.
    #[error("goldens are onav files (ONTL, ONMS, ONPS, ONTK)")]
    NotOnav,
}

/// What [`verify`] checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verified {
    /// An `ONTK` snapshot of this many decoded fields, obstacles, volumes and queued cells, and
    /// how its mesh snapshot was verified.
    CacheSnapshot {
        /// Fields decoded.
        fields: usize,
        /// Obstacles.
        obstacles: usize,
        /// Volumes.
        volumes: usize,
        /// Queued cells.
        queue: usize,
        /// The mesh snapshot's verification.
        mesh: Box<Verified>,
    },
    /// A tile of this many decoded fields.
    Tile {
        /// Fields decoded.
        fields: usize,
    },
    /// A mesh file of this many decoded fields.
    MeshFile {
        /// Fields decoded.
        fields: usize,
    },
    /// A query answer of this op and this many reply keys.
    QueryAnswer {
        /// The query op.
        op: &'static str,
        /// Reply keys decoded.
        keys: usize,
    },
    /// A snapshot of this many decoded fields, restoring to this many tiles.
    Snapshot {
        /// Fields decoded.
        fields: usize,
        /// Tiles restored.
        tiles: usize,
    },
}

impl std::fmt::Display for Verified {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Verified::CacheSnapshot {
                fields,
                obstacles,
                volumes,
                queue,
                mesh,
            } => write!(
                f,
                "ONTK: {fields} fields decoded; accepted without a cache ({obstacles} obstacles, \
                 {volumes} volumes, {queue} queued cells); its {mesh}"
            ),
            Verified::Tile { fields } => write!(
                f,
                "tile: {fields} fields decoded; parsed and written back identically"
            ),
            Verified::MeshFile { fields } => write!(
                f,
                "mesh file: {fields} fields decoded; read and written back identically"
            ),
            Verified::QueryAnswer { op, keys } => write!(
                f,
                "query answer: {op}, {keys} reply keys decoded, every byte read once; encoded back identically"
            ),
            Verified::Snapshot { fields, tiles } => write!(
                f,
                "snapshot: {fields} fields decoded; restored and snapshotted back identically ({tiles} tiles)"
            ),
        }
    }
}

/// Checks golden bytes by a route independent of the run that produced them: the harness's own
/// structural decoder must read every byte exactly once, in order, with nothing left over; then
/// onav must accept them and write them back identically (tiles parse and write back, mesh files
/// read and write back, snapshots restore — with `tiles` as the library — and snapshot back in
/// their mode). A query answer (`ONQA`) has no structural decode: it must decode completely and
/// encode back identically.
pub fn verify(bytes: &[u8], tiles: &[Vec<u8>]) -> Result<Verified, VerifyError> {
    if bytes.starts_with(crate::exec::answer::MAGIC) {
        let (op, reply) = crate::exec::answer::decode(bytes).map_err(VerifyError::Answer)?;
        if crate::exec::answer::encode(op, &reply).map_err(VerifyError::Answer)? != bytes {
            return Err(VerifyError::AnswerRewrite);
        }
        return Ok(Verified::QueryAnswer {
            op,
            keys: reply.len(),
        });
    }
    let d = decode(bytes);
    if let Some((at, why)) = &d.stopped {
        return Err(VerifyError::DecodeStops {
            at: *at,
            why: why.clone(),
        });
    }
    let mut at = 0u64;
    for f in &d.fields {
        if f.offset != at {
            return Err(VerifyError::Gap {
                path: f.path.clone(),
            });
        }
        at += f.size;
    }
    if at != bytes.len() as u64 {
        return Err(VerifyError::Uncovered);
    }
    let fields = d.fields.len();
    match d.kind {
        FileKind::Tile => {
            let t = NavTile::from_bytes(bytes).map_err(VerifyError::Tile)?;
            if t.to_bytes() != bytes {
                return Err(VerifyError::TileRewrite);
            }
            Ok(Verified::Tile { fields })
        }
        FileKind::MeshFile => {
            let m = onav::read_mesh(bytes).map_err(VerifyError::MeshFile)?;
            if onav::write_mesh(&m) != bytes {
                return Err(VerifyError::MeshFileRewrite);
            }
            Ok(Verified::MeshFile { fields })
        }
        FileKind::Snapshot => {
            let kinds: BTreeSet<u64> = d
                .fields
                .iter()
                .filter(|f| f.path.starts_with("slot[") && f.path.ends_with("].kind"))
                .filter_map(|f| match f.value {
                    crate::files::decode::Value::U(k) if k != 0 => Some(k),
                    _ => None,
                })
                .collect();
            let modes: Vec<SnapshotMode> = match (kinds.contains(&1), kinds.contains(&2)) {
                (true, true) => return Err(VerifyError::MixedSnapshot),
                (true, false) => vec![SnapshotMode::Full],
                (false, true) => vec![SnapshotMode::Referenced],
                (false, false) => vec![SnapshotMode::Full, SnapshotMode::Referenced],
            };
            let parsed: Vec<NavTile> = tiles
                .iter()
                .filter_map(|t| NavTile::from_bytes(t).ok())
                .collect();
            let lib = TileLibrary::from_tiles(&parsed);
            let m = NavMeshSnapshot::restore(bytes, &lib).map_err(VerifyError::Snapshot)?;
            if modes.iter().any(|&mode| m.snapshot(mode) != bytes) {
                return Err(VerifyError::SnapshotRewrite);
            }
            Ok(Verified::Snapshot {
                fields,
                tiles: m.tile_count(),
            })
        }
        // `ONTK`: every check that needs no cache (`spec/tilecache.md` §6.6: stage A, the mesh
        // snapshot's own rules), then the mesh snapshot it holds verified as a snapshot golden
        // (restored, with `tiles` as the library, and snapshotted back identically).
        FileKind::CacheSnapshot => {
            let lib = TileLibrary::from_tiles(
                &tiles
                    .iter()
                    .filter_map(|t| NavTile::from_bytes(t).ok())
                    .collect::<Vec<_>>(),
            );
            let summary = onav_tilecache::check_without_cache(bytes, &lib)
                .map_err(VerifyError::CacheSnapshot)?;
            let len = d
                .field("mesh_length")
                .map(|f| (f.offset + f.size) as usize)
                .unwrap_or(bytes.len());
            let mesh =
                verify(&bytes[len..], tiles).map_err(|e| VerifyError::CacheMesh(Box::new(e)))?;
            Ok(Verified::CacheSnapshot {
                fields,
                obstacles: summary.obstacles,
                volumes: summary.volumes,
                queue: summary.queue,
                mesh: Box::new(mesh),
            })
        }
        FileKind::Unknown => Err(VerifyError::NotOnav),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn manifest_round_trips_and_rejects_disorder() {
        let a = "a/x\t3\t".to_owned() + &"0".repeat(64) + "\n";
        let b = "b/y\t4\t".to_owned() + &"f".repeat(64) + "\n";
        let m = Manifest::parse(&(a.clone() + &b)).unwrap();
        assert_eq!(m.render(), a.clone() + &b);
        assert_eq!(
            Manifest::parse(&(b + &a)),
            Err(ManifestLineError::Order {
                line: 2,
                key: "a/x".into()
            })
        );
        assert_eq!(
            Manifest::parse("a/x\t3\tABC\n"),
            Err(ManifestLineError::Sha256 { line: 1 })
        );
        assert_eq!(
            Manifest::parse("a/x\tthree\t\n"),
            Err(ManifestLineError::Length {
                line: 1,
                text: "three".into()
            })
        );
        assert_eq!(
            Manifest::parse("a/x 3\n"),
            Err(ManifestLineError::Fields { line: 1 })
        );
    }

    #[test]
    fn verify_accepts_canonical_files_and_refuses_others() {
        let w = onav::WorldSpec {
            columns: 2,
            rows: 1,
            ..onav::WorldSpec::default()
        };
        let tiles = w.tiles();
        let m = crate::files::mesh_of(&w, 3);
        let raw: Vec<Vec<u8>> = tiles.iter().map(|t| t.as_built_bytes().to_vec()).collect();
        for b in [
            m.snapshot(SnapshotMode::Full),
            m.snapshot(SnapshotMode::Referenced),
            onav::write_mesh(&m),
            raw[0].clone(),
        ] {
            verify(&b, &raw).unwrap();
        }
        assert_eq!(
            verify(&m.snapshot(SnapshotMode::Full), &raw).unwrap(),
            Verified::Snapshot {
                fields: decode(&m.snapshot(SnapshotMode::Full)).fields.len(),
                tiles: 2
            }
        );
        let mut bad = m.snapshot(SnapshotMode::Full);
        bad.push(0);
        assert!(matches!(
            verify(&bad, &raw),
            Err(VerifyError::DecodeStops { .. })
        ));
        assert!(matches!(
            verify(&m.snapshot(SnapshotMode::Referenced), &[]),
            Err(VerifyError::Snapshot(_))
        ));
        assert!(matches!(
            verify(b"nope", &[]),
            Err(VerifyError::DecodeStops { .. })
        ));
    }
}
