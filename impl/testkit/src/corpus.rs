//! The committed fuzz corpus (`fuzz/seeds/<target>/`, `fuzz/regressions/<target>/`) as the
//! replay tests of every crate read it, and the check that the committed seeds are exactly what
//! a generator makes.

use std::path::{Path, PathBuf};

/// The workspace's `fuzz/` folder.
pub fn fuzz_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz")
}

/// The files of `dir`, sorted by name (none if it does not exist).
pub fn files(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    v.retain(|p| p.is_file());
    v.sort();
    v
}

/// The bytes of each file of `dir`, sorted by name (none if it does not exist).
pub fn inputs(dir: &Path) -> Vec<Vec<u8>> {
    files(dir)
        .iter()
        .map(|p| std::fs::read(p).expect("readable corpus file"))
        .collect()
}

/// Checks that `fuzz/seeds/` holds exactly the (target, file name, bytes) of `generated`, all
/// below `cap` bytes; with `ONAV_WRITE_SEEDS=1` writes them instead.
pub fn check_committed_seeds(generated: Vec<(&str, String, Vec<u8>)>, cap: usize) {
    let write = std::env::var_os("ONAV_WRITE_SEEDS").is_some_and(|v| v == "1");
    let mut total = 0;
    for (target, name, bytes) in generated {
        let path = fuzz_dir().join("seeds").join(target).join(&name);
        total += bytes.len();
        if write {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, &bytes).unwrap();
        } else {
            let on_disk = std::fs::read(&path).unwrap_or_else(|e| {
                panic!("{}: {e} (run with ONAV_WRITE_SEEDS=1)", path.display())
            });
            assert!(
                on_disk == bytes,
                "{} differs from the generator",
                path.display()
            );
        }
    }
    assert!(
        total < cap,
        "seed corpus must stay below {} MB, is {total} bytes",
        cap >> 20
    );
}
