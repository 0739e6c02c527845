//! Goldens (`spec/conformance.md`, "Goldens"): `golden/manifest.tsv` (sorted lines
//! `case/label<TAB>length<TAB>sha256`) and `golden/bytes/<case>/<label>.bin`, the canonical bytes
//! other ports restore. The run checks them; `onav bless` writes them after an independent check.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use onav::{NavMeshSnapshot, NavTile, SnapshotMode, TileLibrary};

use crate::files::decode::{decode, FileKind};
use crate::files::diff::first_difference;
use crate::hex::sha256_hex;

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
    pub fn parse(text: &str) -> Result<Self, String> {
        let mut m = Manifest::default();
        let mut prev: Option<String> = None;
        for (i, line) in text.lines().enumerate() {
            let n = i + 1;
            let parts: Vec<&str> = line.split('\t').collect();
            let [key, len, sha] = parts[..] else {
                return Err(format!(
                    "line {n}: expected case/label, length and sha256 separated by tabs"
                ));
            };
            let length = len
                .parse::<u64>()
                .map_err(|_| format!("line {n}: length {len:?}"))?;
            if sha.len() != 64
                || !sha
                    .bytes()
                    .all(|c| c.is_ascii_digit() || (b'a'..=b'f').contains(&c))
            {
                return Err(format!("line {n}: sha256 must be 64 lowercase hex digits"));
            }
            if prev.as_deref().is_some_and(|p| p >= key) {
                return Err(format!("line {n}: {key} is not in sorted order or repeats"));
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
    pub fn read(path: &Path) -> Result<Self, String> {
        match std::fs::read_to_string(path) {
            Ok(t) => Self::parse(&t).map_err(|e| format!("{}: {e}", path.display())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Self::default()),
            Err(e) => Err(format!("{}: {e}", path.display())),
        }
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

/// What is wrong with one produced golden, if anything.
pub fn check_output(store: &Store, manifest: &Manifest, key: &str, bytes: &[u8]) -> Option<String> {
    let now = Entry::of(bytes);
    let Some(want) = manifest.entries.get(key) else {
        return Some(format!(
            "pending golden {key} ({} bytes, {}): not in the manifest; run onav bless",
            now.length, now.sha256
        ));
    };
    if *want != now {
        let diff = std::fs::read(store.bytes_path(key))
            .map(|g| format!("; {}", first_difference(&g, bytes)))
            .unwrap_or_default();
        return Some(format!(
            "stale golden {key}: manifest has {} bytes {}, the run gives {} bytes {}{diff}",
            want.length, want.sha256, now.length, now.sha256
        ));
    }
    match std::fs::read(store.bytes_path(key)) {
        Ok(g) if Entry::of(&g) == now => None,
        Ok(_) => Some(format!(
            "golden bytes file {} does not match the manifest",
            store.bytes_path(key).display()
        )),
        Err(_) => Some(format!(
            "golden bytes file {} is missing",
            store.bytes_path(key).display()
        )),
    }
}

/// Manifest entries and bytes files that no scenario declares.
pub fn orphans(store: &Store, manifest: &Manifest, declared: &BTreeSet<String>) -> Vec<String> {
    let mut out = Vec::new();
    for k in manifest.entries.keys() {
        if !declared.contains(k) {
            out.push(format!(
                "orphaned manifest entry {k}: no scenario declares it"
            ));
        }
    }
    for k in store.byte_files() {
        if !manifest.entries.contains_key(&k) {
            out.push(format!(
                "orphaned golden bytes file {}: not in the manifest",
                store.bytes_path(&k).display()
            ));
        }
    }
    out
}

/// Checks golden bytes by a route independent of the run that produced them: the harness's own
/// structural decoder must read every byte exactly once, in order, with nothing left over; then
/// onav must accept them and write them back identically (tiles parse and write back, mesh files
/// read and write back, snapshots restore — with `tiles` as the library — and snapshot back in
/// their mode). Returns a one-line account of what was checked.
pub fn verify(bytes: &[u8], tiles: &[Vec<u8>]) -> Result<String, String> {
    let d = decode(bytes);
    if let Some((at, why)) = &d.stopped {
        return Err(format!("the structural decode stops at byte {at}: {why}"));
    }
    let mut at = 0u64;
    for f in &d.fields {
        if f.offset != at {
            return Err(format!("the decode skips or overlaps bytes at {}", f.path));
        }
        at += f.size;
    }
    if at != bytes.len() as u64 {
        return Err("the decode does not cover every byte".into());
    }
    let n = d.fields.len();
    match d.kind {
        FileKind::Tile => {
            let t =
                NavTile::from_bytes(bytes).map_err(|e| format!("onav rejects the tile: {e}"))?;
            if t.to_bytes() != bytes {
                return Err("the tile does not write back identically".into());
            }
            Ok(format!(
                "tile: {n} fields decoded; parsed and written back identically"
            ))
        }
        FileKind::MeshFile => {
            let m =
                onav::read_mesh(bytes).map_err(|e| format!("onav rejects the mesh file: {e}"))?;
            if onav::write_mesh(&m) != bytes {
                return Err("the mesh file does not write back identically".into());
            }
            Ok(format!(
                "mesh file: {n} fields decoded; read and written back identically"
            ))
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
                (true, true) => return Err("a mixed snapshot is not canonical output".into()),
                (true, false) => vec![SnapshotMode::Full],
                (false, true) => vec![SnapshotMode::Referenced],
                (false, false) => vec![SnapshotMode::Full, SnapshotMode::Referenced],
            };
            let parsed: Vec<NavTile> = tiles
                .iter()
                .filter_map(|t| NavTile::from_bytes(t).ok())
                .collect();
            let lib = TileLibrary::from_tiles(&parsed);
            let m = NavMeshSnapshot::restore(bytes, &lib)
                .map_err(|e| format!("onav does not restore the snapshot: {e}"))?;
            if modes.iter().any(|&mode| m.snapshot(mode) != bytes) {
                return Err("the restored mesh does not snapshot back to the same bytes".into());
            }
            Ok(format!(
                "snapshot: {n} fields decoded; restored and snapshotted back identically ({} tiles)",
                m.tile_count()
            ))
        }
        FileKind::Unknown => Err("goldens are onav files (ONTL, ONMS, ONPS)".into()),
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
        assert!(Manifest::parse(&(b + &a)).is_err());
        assert!(Manifest::parse("a/x\t3\tABC\n").is_err());
    }

    #[test]
    fn verify_accepts_canonical_files_and_refuses_others() {
        let w = onav::WorldSpec {
            columns: 2,
            rows: 1,
            ..onav::WorldSpec::default()
        };
        let tiles = w.tiles();
        let mut m = onav::TiledNavMesh::new(w.params(3));
        for t in &tiles {
            m.add_tile(t.clone()).unwrap();
        }
        let raw: Vec<Vec<u8>> = tiles.iter().map(|t| t.as_built_bytes().to_vec()).collect();
        for b in [
            m.snapshot(SnapshotMode::Full),
            m.snapshot(SnapshotMode::Referenced),
            onav::write_mesh(&m),
            raw[0].clone(),
        ] {
            verify(&b, &raw).unwrap();
        }
        let mut bad = m.snapshot(SnapshotMode::Full);
        bad.push(0);
        assert!(verify(&bad, &raw).is_err());
        assert!(verify(&m.snapshot(SnapshotMode::Referenced), &[]).is_err());
    }
}
