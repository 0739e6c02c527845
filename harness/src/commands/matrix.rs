//! `onav matrix` (`spec/conformance.md` §5): every hashed output (golden) under each thread
//! count, in one process, written as a matrix file for `matrix-compare`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use serde_json::{json, Value};

use super::{reference_results, write_file, Outcome};
use crate::error::HarnessError;
use crate::exec::Status;
use crate::golden::Entry;
use crate::suite;

/// The environment a matrix job ran in.
pub fn environment(threads: &[usize]) -> Value {
    json!({
        "os": std::env::consts::OS,
        "arch": std::env::consts::ARCH,
        "endianness": if cfg!(target_endian = "little") { "little" } else { "big" },
        "pointer_width": usize::BITS,
        "threads": threads,
    })
}

/// `onav matrix`: the hashes of every golden output at each of `threads` (default 1, 2, 4),
/// written to `out` when given. Fails when a case fails or a hash differs between thread counts.
pub fn run(
    root: &Path,
    threads: Option<&[usize]>,
    out: Option<&Path>,
) -> Result<Outcome, HarnessError> {
    let threads = suite::thread_counts(Some(threads.unwrap_or(&[1, 2, 4])))?;
    super::check_root(root)?;
    if let Some(p) = out {
        super::check_output(p, super::OutputKind::File)?;
    }
    let mut suite = suite::load(root, &[], None);
    suite
        .cases
        .retain(|c| !suite::declared_goldens(c).is_empty());
    let mut jobs = Vec::new();
    let mut per_job: Vec<BTreeMap<String, Entry>> = Vec::new();
    let mut failed = 0;
    for &t in &threads {
        let Some(results) = reference_results(&suite, &[t])? else {
            return Ok(Outcome::Fail);
        };
        let mut cases = BTreeMap::new();
        for r in &results {
            if r.status != Status::Pass {
                outln!("FAIL {} at {t} threads: {}", r.id, r.message);
                failed += 1;
            }
            for (label, bytes) in &r.run.goldens {
                cases.insert(format!("{}/{label}", r.id), Entry::of(bytes));
            }
        }
        jobs.push(json!({
            "threads": t,
            "cases": cases
                .iter()
                .map(|(k, e)| (k.clone(), json!({"length": e.length, "sha256": e.sha256})))
                .collect::<serde_json::Map<_, _>>(),
        }));
        per_job.push(cases);
    }
    let keys: BTreeSet<&String> = per_job.iter().flat_map(|m| m.keys()).collect();
    for k in &keys {
        let vals: Vec<Option<&Entry>> = per_job.iter().map(|m| m.get(*k)).collect();
        if vals.iter().any(|v| *v != vals[0]) {
            failed += 1;
            let shown: Vec<String> = threads
                .iter()
                .zip(&vals)
                .map(|(t, v)| match v {
                    Some(e) => format!("{t} threads: {} {}", e.length, &e.sha256[..16]),
                    None => format!("{t} threads: missing"),
                })
                .collect();
            outln!("DIFFERS {k}: {}", shown.join("; "));
        }
    }
    let doc = json!({
        "schema": 1,
        "impl": "onav-reference",
        "environment": environment(&threads),
        "jobs": jobs,
    });
    if let Some(p) = out {
        let text = serde_json::to_string_pretty(&doc).unwrap_or_default() + "\n";
        write_file(p, text.as_bytes())?;
    }
    outln!(
        "{} hashed outputs x {} thread counts ({}): {}",
        keys.len(),
        threads.len(),
        threads
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join(", "),
        if failed == 0 {
            "all identical"
        } else {
            "DIFFERENCES"
        }
    );
    Ok(Outcome::pass_if(failed == 0))
}
