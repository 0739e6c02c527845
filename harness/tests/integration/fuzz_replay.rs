//! Replays the committed seeds and regressions of the `scenario_yaml` fuzz target through the
//! same entry point the fuzzer calls (`onav_harness::fuzzing::fuzz_scenario_yaml`).

use std::path::Path;

fn inputs(dir: &Path) -> Vec<Vec<u8>> {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut paths: Vec<_> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    paths
        .iter()
        .map(|p| std::fs::read(p).expect("readable seed"))
        .collect()
}

#[test]
fn scenario_yaml_seeds_and_regressions_replay() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz");
    let seeds = inputs(&root.join("seeds/scenario_yaml"));
    assert!(seeds.len() >= 50, "the seed corpus is committed");
    let mut loaded = 0;
    for s in seeds
        .iter()
        .chain(inputs(&root.join("regressions/scenario_yaml")).iter())
    {
        onav_harness::fuzzing::fuzz_scenario_yaml(s);
        let (id, text) = std::str::from_utf8(s)
            .expect("seeds are UTF-8")
            .split_once('\n')
            .expect("an id line");
        loaded += usize::from(onav_harness::scenario::load_str(id, text).is_ok());
    }
    // The seeds are real scenario files behind their id line: every one of them loads.
    assert_eq!(loaded, seeds.len());
}
