//! Running the cases: in process under each thread count (a difference between the runs of one
//! case fails it), or once each against a testee; a case needing a feature the backend lacks is
//! `unsupported`, and a panic in process is a `crash`.

use std::collections::BTreeSet;
use std::io::IsTerminal as _;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use rayon::prelude::*;
use serde_json::Value;

use super::compare::Divergence;
use super::locate::Location;
use super::watch::{Watch, Watched};
use crate::exec::{self, hello, CaseRun, Status};
use crate::limits::MAX_THREADS;
use crate::protocol::Backend;
use crate::scenario::{Case, Class};
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
    /// A thread count outside 1 ..= [`MAX_THREADS`].
    #[error("thread count {threads} is not in 1 ..= {MAX_THREADS}")]
    ThreadCount {
        /// The count.
        threads: usize,
    },
    /// No thread count to run at.
    #[error("no thread count to run at")]
    NoThreads,
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

/// How [`run_with`] runs the cases.
#[derive(Debug, Clone, Default)]
pub struct Settings {
    /// Thread counts of an in-process run (each 1 ..= [`MAX_THREADS`]).
    pub threads: Vec<usize>,
    /// Show a progress counter on standard error when it is a terminal.
    pub progress: bool,
    /// Keep each case's requests and replies (`--trace`; the first thread count's in process).
    pub record: bool,
    /// Compare each testee reply with the in-process reference's (`--compare-reference`).
    pub compare: bool,
    /// A testee run stops after this many cases ended in a timeout; the rest are not run (0:
    /// never).
    pub give_up_after: u32,
    /// A testee run starts no case after this instant; the rest are not run (`--run-timeout`).
    pub deadline: Option<Instant>,
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
    /// The case's file, and the step it stopped at with that step's line.
    pub at: Location,
    /// The case's spec anchors.
    pub spec: Vec<String>,
    /// The features the case needs that the testee lacks (a skipped case).
    pub missing: Vec<String>,
    /// The op the testee does not list or answered `unsupported` (a skipped case).
    pub missing_op: Option<String>,
    /// True when the failure is a golden output that differs from the store.
    pub golden: bool,
    /// True when the case was not run because the run gave up or ran out of time.
    pub not_run: bool,
    /// The first reply that differs from the reference's (`--compare-reference`).
    pub divergence: Option<Divergence>,
    /// Its requests and replies, one object each (`--trace`).
    pub exchanges: Vec<Value>,
}

impl CaseResult {
    /// The result of `case` from one run of it.
    pub fn new(case: &Case, run: CaseRun, threads: &[usize]) -> Self {
        Self {
            message: run.message().to_owned(),
            threads: threads.to_vec(),
            spec: case.scenario.spec.clone(),
            ..Self::bare(case.id.clone(), case.area.clone(), run, Location::of(case))
        }
    }

    /// The result of case `id` in `area` from `run`, with no message, thread counts, spec
    /// anchors, trace or mark.
    fn bare(id: String, area: String, run: CaseRun, at: Location) -> Self {
        Self {
            id,
            area,
            status: run.status(),
            message: String::new(),
            threads: Vec::new(),
            run,
            expected: false,
            at,
            spec: Vec::new(),
            missing: Vec::new(),
            missing_op: None,
            golden: false,
            not_run: false,
            divergence: None,
            exchanges: Vec::new(),
        }
    }

    /// A skipped case: the testee lacks a feature or an op it needs (`spec/conformance.md` §4.3).
    /// It neither passes nor fails.
    pub fn skipped(&self) -> bool {
        self.status == Status::Unsupported
    }

    /// True when the case counts as failed: it did not pass, was not skipped and the failure
    /// list did not expect it.
    pub fn failed(&self) -> bool {
        self.status != Status::Pass && !self.skipped() && !self.expected
    }

    /// A result of a case `id` with `status`, for tests of what consumes results.
    #[cfg(test)]
    pub(crate) fn for_test(id: &str, status: Status) -> Self {
        let at = Location {
            file: format!("scenarios/{id}.yaml"),
            ..Location::default()
        };
        let area = id.split('/').next().unwrap_or_default().into();
        Self {
            status,
            ..Self::bare(id.into(), area, CaseRun::default(), at)
        }
    }

    /// A case not run, with why.
    fn not_run(case: &Case, why: &str) -> Self {
        let mut r = Self::new(case, CaseRun::default(), &[]);
        r.status = Status::Error;
        r.message = format!("not run: {why}");
        r.not_run = true;
        r
    }
}

fn run_guarded(c: &Case, backend: &mut dyn Backend, pictures: bool) -> CaseRun {
    let opts = exec::Options {
        pictures,
        ..exec::Options::in_dir(&c.dir)
    };
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        exec::run(&c.id, &c.scenario, backend, &opts)
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

/// The features of `c` that `backend` lacks, in the case's order.
fn missing_features(c: &Case, backend: &dyn Backend) -> Vec<String> {
    c.scenario
        .features
        .iter()
        .filter(|f| !backend.has_feature(f))
        .cloned()
        .collect()
}

/// One run of one case.
struct OneRun {
    run: CaseRun,
    watched: Watched,
    /// The features the backend lacks (the case was skipped).
    missing: Vec<String>,
}

/// One run of one case: skipped when the backend lacks a feature; else run, watched.
fn run_one(c: &Case, backend: &mut dyn Backend, record: bool, compare: bool) -> OneRun {
    let missing = missing_features(c, backend);
    if let Some(f) = missing.first() {
        let more = match missing.len() {
            1 => String::new(),
            n => format!(" (and {} more: {})", n - 1, missing[1..].join(", ")),
        };
        let run = CaseRun {
            stop: Some((Status::Unsupported, format!("needs feature {f}{more}"))),
            ..CaseRun::default()
        };
        return OneRun {
            run,
            watched: Watched::default(),
            missing,
        };
    }
    let mut w = Watch::new(backend, record, compare);
    // A recorded case (`--trace`) also keeps the states of its failure for its pictures.
    let run = run_guarded(c, &mut w, record);
    OneRun {
        run,
        watched: w.finish(),
        missing,
    }
}

/// The progress counter: cases done of the cases selected, per thread count in process.
struct Progress {
    on: bool,
    done: AtomicUsize,
    total: usize,
    label: String,
}

impl Progress {
    fn new(total: usize, on: bool) -> Self {
        Self {
            on: on && std::io::stderr().is_terminal(),
            done: AtomicUsize::new(0),
            total,
            label: String::new(),
        }
    }
    /// Counts afresh for pass `k` (from 0) of `of`, at `threads` threads.
    fn pass(&mut self, k: usize, of: usize, threads: usize) {
        self.done = AtomicUsize::new(0);
        self.label = format!("{threads} threads ({} of {of}): ", k + 1);
    }
    fn tick(&self) {
        if self.on {
            let n = self.done.fetch_add(1, Ordering::Relaxed) + 1;
            eprint!("\r{}{n}/{} cases ", self.label, self.total);
        }
    }
    fn finish(&self) {
        if self.on {
            eprint!("\r{:width$}\r", "", width = 64);
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
    let settings = Settings {
        threads: threads.to_vec(),
        progress,
        ..Settings::default()
    };
    run_with(cases, target, &settings)
}

/// Runs the cases as `settings` say.
pub fn run_with(
    cases: &[Case],
    target: Target<'_>,
    settings: &Settings,
) -> Result<Vec<CaseResult>, RunError> {
    match target {
        Target::Reference => run_in_process(cases, settings),
        Target::Testee(backend) => Ok(run_testee(cases, backend, settings)),
    }
}

fn run_in_process(cases: &[Case], settings: &Settings) -> Result<Vec<CaseResult>, RunError> {
    let threads = &settings.threads;
    if threads.is_empty() {
        return Err(RunError::NoThreads);
    }
    if let Some(&t) = threads.iter().find(|t| !(1..=MAX_THREADS).contains(*t)) {
        return Err(RunError::ThreadCount { threads: t });
    }
    hello(&mut Reference::new())
        .map_err(|(status, message)| RunError::Hello { status, message })?;
    let mut p = Progress::new(cases.len(), settings.progress);
    let mut per_thread: Vec<Vec<OneRun>> = Vec::new();
    for (k, &t) in threads.iter().enumerate() {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(t)
            .build()
            .map_err(|source| RunError::ThreadPool { threads: t, source })?;
        let record = settings.record && k == 0;
        p.pass(k, threads.len(), t);
        let p = &p;
        let runs: Vec<OneRun> = pool.install(|| {
            cases
                .par_iter()
                .map(|c| {
                    let r = run_one(c, &mut Reference::new(), record, false);
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
            let runs: Vec<&OneRun> = per_thread.iter().map(|v| &v[i]).collect();
            let mut r = merge(c, threads, &runs);
            // The reference has every feature and op: a skip in process is the runner's bug.
            if r.status == Status::Unsupported {
                r.status = Status::Error;
                r.message = format!(
                    "the in-process reference skipped this case, a harness bug: {}",
                    r.message
                );
            }
            r
        })
        .collect())
}

fn run_testee(cases: &[Case], backend: &mut dyn Backend, settings: &Settings) -> Vec<CaseResult> {
    // The client did the hello handshake when it started the testee; its answers (ops and
    // features) come back through `supports` and `has_feature`.
    let p = Progress::new(cases.len(), settings.progress);
    let mut out = Vec::with_capacity(cases.len());
    let mut timeouts = 0;
    let mut stopped: Option<String> = None;
    for c in cases {
        if stopped.is_none() && settings.deadline.is_some_and(|d| Instant::now() >= d) {
            stopped = Some("the run reached its --run-timeout".into());
        }
        if let Some(why) = &stopped {
            out.push(CaseResult::not_run(c, why));
            continue;
        }
        let run = run_one(c, backend, settings.record, settings.compare);
        let mut r = merge(c, &[], &[&run]);
        diverged(c, &mut r);
        if r.status == Status::Timeout {
            timeouts += 1;
            if settings.deadline.is_some_and(|d| Instant::now() >= d) {
                r.message.push_str(" (the run reached its --run-timeout)");
            }
            if settings.give_up_after > 0 && timeouts >= settings.give_up_after {
                stopped = Some(format!(
                    "the testee timed out in {timeouts} cases, the first {} (--give-up-after {})",
                    out.iter()
                        .chain(std::iter::once(&r))
                        .find(|r: &&CaseResult| r.status == Status::Timeout)
                        .map_or("", |r| r.id.as_str()),
                    settings.give_up_after
                ));
            }
        }
        out.push(r);
        p.tick();
    }
    p.finish();
    out
}

/// A case whose testee left the reference (`--compare-reference`): a case that passed fails,
/// at the step where they differ (an `i_` case excepted: its outcomes are the implementation's
/// to choose); a case that failed says where they first differed.
fn diverged(c: &Case, r: &mut CaseResult) {
    let Some(d) = &r.divergence else { return };
    if r.status != Status::Pass {
        r.message = format!("{}; first difference from the reference: {d}", r.message);
    } else if c.scenario.class != Class::ImplementationDefined {
        r.status = Status::Fail;
        r.message = format!("differs from the reference: {d}");
        if let Some((step, _)) = d.step {
            r.at = Location::at(c, step);
        }
    }
}

fn merge(c: &Case, threads: &[usize], runs: &[&OneRun]) -> CaseResult {
    let one = runs[0];
    let (first, watched) = (&one.run, &one.watched);
    let mut r = CaseResult::new(c, first.clone(), threads);
    for (k, OneRun { run, .. }) in runs.iter().enumerate().skip(1) {
        let same = run.status() == first.status()
            && run.message() == first.message()
            && run.trace == first.trace
            && run.goldens == first.goldens;
        if !same {
            r.status = Status::Fail;
            let what = if run.goldens != first.goldens {
                "golden outputs"
            } else if run.trace != first.trace {
                "replies"
            } else {
                "outcomes"
            };
            r.message = format!(
                "{what} differ between {} and {} threads ({:?} vs {:?})",
                threads[0],
                threads[k],
                first.message(),
                run.message()
            );
            break;
        }
    }
    if r.status == Status::Unsupported {
        r.missing.clone_from(&one.missing);
        r.missing_op.clone_from(&watched.unsupported_op);
    }
    if let (Some(step), true) = (watched.step, r.status != Status::Pass) {
        r.at = Location::at(c, step);
    }
    r.exchanges.clone_from(&watched.exchanges);
    r.divergence.clone_from(&watched.divergence);
    r
}

/// The thread counts of a run: the list given, else 1, 2 and the machine's (at most
/// [`MAX_THREADS`]), without repeats. A count outside 1 ..= [`MAX_THREADS`], or no count at all,
/// is an error.
pub fn thread_counts(given: Option<&[usize]>) -> Result<Vec<usize>, RunError> {
    let mut v: Vec<usize> = match given {
        Some(g) => g.to_vec(),
        None => {
            let n = std::thread::available_parallelism().map_or(1, |n| n.get());
            vec![1, 2, n.min(MAX_THREADS)]
        }
    };
    if let Some(&threads) = v.iter().find(|t| !(1..=MAX_THREADS).contains(*t)) {
        return Err(RunError::ThreadCount { threads });
    }
    let mut seen = BTreeSet::new();
    v.retain(|t| seen.insert(*t));
    if v.is_empty() {
        return Err(RunError::NoThreads);
    }
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thread_counts_dedupe_and_are_checked() {
        assert_eq!(thread_counts(Some(&[1, 2, 2, 4])).unwrap(), vec![1, 2, 4]);
        let d = thread_counts(None).unwrap();
        assert_eq!(d[0], 1);
        assert!(d.iter().all(|t| (1..=MAX_THREADS).contains(t)));
        assert!(matches!(
            thread_counts(Some(&[1, 0])),
            Err(RunError::ThreadCount { threads: 0 })
        ));
        assert!(matches!(
            thread_counts(Some(&[MAX_THREADS + 1])),
            Err(RunError::ThreadCount { .. })
        ));
        assert!(matches!(thread_counts(Some(&[])), Err(RunError::NoThreads)));
        assert!(matches!(
            run_cases(&[], &[], Target::Reference, false),
            Err(RunError::NoThreads)
        ));
    }
}
