//! Running the cases: in process under each thread count (a difference between the runs of one
//! case fails it), or once each against a testee; a case needing a feature the backend lacks is
//! `unsupported`, and a panic in process is a `crash`.

use std::collections::BTreeSet;
use std::io::IsTerminal as _;
use std::sync::atomic::{AtomicUsize, Ordering};

use rayon::prelude::*;

use crate::exec::{hello, run_scenario, CaseRun, Status};
use crate::protocol::Backend;
use crate::scenario::Case;
use crate::testee::reference::Reference;

/// Why the cases could not run at all.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The in-process reference did not answer `hello`.
    #[error("{message}")]
    Hello {
        /// How the handshake ended.
        status: Status,
        /// What it said.
        message: String,
    },
    /// A thread pool of this many threads could not be built.
    #[error("a pool of {threads} threads: {source}")]
    ThreadPool {
        /// Thread count.
        threads: usize,
        /// Why.
        source: rayon::ThreadPoolBuildError,
    },
}

/// Which implementation answers.
pub enum Target<'a> {
    /// The in-process reference, run under each thread count.
    Reference,
    /// An external testee (thread counts do not apply).
    Testee(&'a mut dyn Backend),
}

/// The merged result of one case.
#[derive(Debug, Clone)]
pub struct CaseResult {
    /// Case id.
    pub id: String,
    /// Area (folder).
    pub area: String,
    /// Final status after merging runs and checking goldens.
    pub status: Status,
    /// Why it did not pass.
    pub message: String,
    /// Thread counts it ran under (empty for a testee).
    pub threads: Vec<usize>,
    /// The first run (outputs, lowered steps, blobs).
    pub run: CaseRun,
    /// True when the failure list expected this status.
    pub expected: bool,
}

fn run_guarded(c: &Case, backend: &mut dyn Backend) -> CaseRun {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        run_scenario(&c.id, &c.scenario, backend, &c.dir)
    })) {
        Ok(r) => r,
        Err(p) => {
            let msg = p
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| (*s).to_owned()))
                .unwrap_or_default();
            CaseRun {
                stop: Some((Status::Crash, format!("panicked: {msg}"))),
                ..CaseRun::default()
            }
        }
    }
}

fn missing_feature(c: &Case, backend: &dyn Backend) -> Option<String> {
    c.scenario
        .features
        .iter()
        .find(|f| !backend.has_feature(f))
        .cloned()
}

struct Progress {
    on: bool,
    done: AtomicUsize,
    total: usize,
}

impl Progress {
    fn new(total: usize, on: bool) -> Self {
        Self {
            on: on && std::io::stderr().is_terminal(),
            done: AtomicUsize::new(0),
            total,
        }
    }
    fn tick(&self) {
        if self.on {
            let n = self.done.fetch_add(1, Ordering::Relaxed) + 1;
            eprint!("\r{n}/{} ", self.total);
        }
    }
    fn finish(&self) {
        if self.on {
            eprint!("\r{:width$}\r", "", width = 24);
        }
    }
}

/// Runs the cases; each case's runs are merged (a difference between thread counts fails it).
pub fn run_cases(
    cases: &[Case],
    threads: &[usize],
    target: Target<'_>,
    progress: bool,
) -> Result<Vec<CaseResult>, RunError> {
    match target {
        Target::Reference => {
            hello(&mut Reference::new())
                .map_err(|(status, message)| RunError::Hello { status, message })?;
            let p = Progress::new(cases.len() * threads.len(), progress);
            let mut per_thread: Vec<Vec<CaseRun>> = Vec::new();
            for &t in threads {
                let pool = rayon::ThreadPoolBuilder::new()
                    .num_threads(t)
                    .build()
                    .map_err(|source| RunError::ThreadPool { threads: t, source })?;
                let runs: Vec<CaseRun> = pool.install(|| {
                    cases
                        .par_iter()
                        .map(|c| {
                            let mut backend = Reference::new();
                            let r = match missing_feature(c, &backend) {
                                Some(f) => CaseRun {
                                    stop: Some((Status::Unsupported, format!("needs feature {f}"))),
                                    ..CaseRun::default()
                                },
                                None => run_guarded(c, &mut backend),
                            };
                            p.tick();
                            r
                        })
                        .collect()
                });
                per_thread.push(runs);
            }
            p.finish();
            Ok(cases
                .iter()
                .enumerate()
                .map(|(i, c)| {
                    let runs: Vec<&CaseRun> = per_thread.iter().map(|v| &v[i]).collect();
                    merge(c, threads, &runs)
                })
                .collect())
        }
        Target::Testee(backend) => {
            // The client did the hello handshake when it started the testee; its answers
            // (ops and features) come back through `supports` and `has_feature`.
            let p = Progress::new(cases.len(), progress);
            let out = cases
                .iter()
                .map(|c| {
                    let r = match missing_feature(c, backend) {
                        Some(f) => CaseRun {
                            stop: Some((Status::Unsupported, format!("needs feature {f}"))),
                            ..CaseRun::default()
                        },
                        None => run_guarded(c, backend),
                    };
                    p.tick();
                    merge(c, &[], &[&r])
                })
                .collect();
            p.finish();
            Ok(out)
        }
    }
}

fn merge(c: &Case, threads: &[usize], runs: &[&CaseRun]) -> CaseResult {
    let first = runs[0];
    let mut status = first.status();
    let mut message = first.message().to_owned();
    for (k, r) in runs.iter().enumerate().skip(1) {
        let same = r.status() == first.status()
            && r.message() == first.message()
            && r.trace == first.trace
            && r.goldens == first.goldens;
        if !same {
            status = Status::Fail;
            let what = if r.goldens != first.goldens {
                "golden outputs"
            } else if r.trace != first.trace {
                "replies"
            } else {
                "outcomes"
            };
            message = format!(
                "{what} differ between {} and {} threads ({:?} vs {:?})",
                threads[0],
                threads[k],
                first.message(),
                r.message()
            );
            break;
        }
    }
    CaseResult {
        id: c.id.clone(),
        area: c.area.clone(),
        status,
        message,
        threads: threads.to_vec(),
        run: first.clone(),
        expected: false,
    }
}

/// The thread counts of a run: the list given, else 1, 2 and the machine's, without repeats.
pub fn thread_counts(given: Option<&[usize]>) -> Vec<usize> {
    let mut v: Vec<usize> = match given {
        Some(g) => g.to_vec(),
        None => {
            let n = std::thread::available_parallelism().map_or(1, |n| n.get());
            vec![1, 2, n]
        }
    };
    let mut seen = BTreeSet::new();
    v.retain(|t| *t > 0 && seen.insert(*t));
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thread_counts_dedupe() {
        assert_eq!(thread_counts(Some(&[1, 2, 2, 0, 4])), vec![1, 2, 4]);
        let d = thread_counts(None);
        assert_eq!(d[0], 1);
    }
}
