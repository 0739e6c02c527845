//! The per-process driver of a schemata run (tools/schemata), written into a copy of the tree as
//! an example of the harness: it runs conformance cases in process, as the harness test
//! `whole_suite_passes_in_process_at_several_thread_counts` does (the case's steps, then its
//! goldens), with one mutant switched on.
//!
//!   schemata_driver record OUT          every case at 1 thread, recording the mutants it reaches
//!   schemata_driver mutant ID T CASES   the cases named in file CASES (one id a line) at thread
//!                                       counts T (e.g. `1` or `1,2,3`), stopping at the first
//!                                       that does not pass: prints `caught<TAB>case<TAB>why`
//!                                       or `missed`
use std::io::Write;
use std::path::Path;
use std::sync::atomic::Ordering::Relaxed;
use std::time::Instant;

use onav::__schemata as sw;
use onav_harness::{check_goldens, load_suite, run_cases, Case, Status, Target};

fn verdict(root: &Path, c: &Case, threads: &[usize]) -> (bool, String) {
    let cases = std::slice::from_ref(c);
    let mut r = match run_cases(cases, threads, Target::Reference, false) {
        Ok(r) => r,
        Err(e) => return (false, format!("run error: {e}")),
    };
    if let Err(e) = check_goldens(root, cases, &mut r, false) {
        return (false, format!("golden manifest: {e}"));
    }
    let r = &r[0];
    let why = r.message.lines().next().unwrap_or("").to_string();
    (r.status == Status::Pass, format!("[{}] {why}", r.status.name()))
}

fn main() {
    std::panic::set_hook(Box::new(|_| {}));
    let args: Vec<String> = std::env::args().collect();
    let root = std::env::current_dir().expect("cwd");
    let suite = load_suite(&root, &[], None);
    assert!(suite.load_errors.is_empty(), "{:?}", suite.load_errors);
    let mut out = std::io::stdout().lock();
    match args.get(1).map(String::as_str) {
        Some("record") => {
            let mut f = std::fs::File::create(&args[2]).expect("out");
            sw::RECORD.store(true, Relaxed);
            for c in &suite.cases {
                sw::take_reached();
                let t = Instant::now();
                let (pass, why) = verdict(&root, c, &[1]);
                let ms = t.elapsed().as_secs_f64() * 1e3;
                let reached = sw::take_reached();
                let line = serde_json::json!({
                    "case": c.id, "pass": pass, "why": why, "ms": ms, "reached": reached,
                });
                writeln!(f, "{line}").expect("write");
            }
        }
        Some("mutant") => {
            let id: u32 = args[2].parse().expect("id");
            let threads: Vec<usize> = args[3].split(',').map(|t| t.parse().expect("t")).collect();
            let list = std::fs::read_to_string(&args[4]).expect("cases");
            sw::ACTIVE.store(id, Relaxed);
            for name in list.lines().filter(|l| !l.is_empty()) {
                let c = suite.cases.iter().find(|c| c.id == name).expect("case id");
                let (pass, why) = verdict(&root, c, &threads);
                if !pass {
                    writeln!(out, "caught\t{name}\t{why}").expect("write");
                    return;
                }
            }
            writeln!(out, "missed").expect("write");
        }
        _ => {
            eprintln!("usage: schemata_driver record OUT | mutant ID THREADS CASES");
            std::process::exit(2);
        }
    }
}
