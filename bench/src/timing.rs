//! Interleaved timing (`shared/research/detour-figures.md`, "Caveats"): in every round each
//! contender runs one untimed warm-up batch and then one timed batch, the contenders taking turns
//! to go first; the figures are the median and the minimum over rounds. Every batch reports its
//! own time per item, so a batch may time whole loops or single calls.

use std::hint::black_box;
use std::time::Instant;

/// Median and minimum of a set of samples (ns per item).
#[derive(Debug, Clone, Copy, Default)]
pub struct Stats {
    /// Median over rounds.
    pub median: f64,
    /// Minimum over rounds.
    pub min: f64,
}

impl Stats {
    /// Statistics of `samples` (not empty).
    pub fn of(mut samples: Vec<f64>) -> Self {
        samples.sort_by(f64::total_cmp);
        let n = samples.len();
        let median = if n % 2 == 1 {
            samples[n / 2]
        } else {
            (samples[n / 2 - 1] + samples[n / 2]) / 2.0
        };
        Self {
            median,
            min: samples[0],
        }
    }

    /// `self / base`, medians over medians and minima over minima.
    pub fn ratio(&self, base: &Stats) -> Ratio {
        Ratio {
            median: self.median / base.median,
            min: self.min / base.min,
        }
    }
}

/// A ratio of two [`Stats`].
#[derive(Debug, Clone, Copy)]
pub struct Ratio {
    /// Of the medians.
    pub median: f64,
    /// Of the minima.
    pub min: f64,
}

/// One contender: a batch that returns its time per item in ns.
pub type Batch<'a> = &'a mut dyn FnMut() -> f64;

/// Runs `rounds` rounds over the contenders (see the module docs); one [`Stats`] per contender.
pub fn interleave(rounds: usize, contenders: &mut [Batch<'_>]) -> Vec<Stats> {
    let n = contenders.len();
    let mut samples = vec![Vec::with_capacity(rounds); n];
    for r in 0..rounds.max(1) {
        for k in 0..n {
            let i = (r + k) % n;
            black_box((contenders[i])());
            samples[i].push((contenders[i])());
        }
    }
    samples.into_iter().map(Stats::of).collect()
}

/// A contender timed in chunks: `f(k)` runs chunk k of its batch and returns the chunk's ns.
pub type Chunked<'a> = &'a mut dyn FnMut(usize) -> f64;

/// As [`interleave`] (each timed batch after an untimed one of the same contender, turns
/// alternating), but each timed batch is timed as `chunks` consecutive chunks. The figures sum,
/// over chunks, each chunk's median (or minimum) over rounds, divided by `items`: a preemption
/// by another process spoils one short chunk of one round, which the per-chunk median discards,
/// where it would have spoiled the whole batch of that round.
pub fn interleave_chunks(
    rounds: usize,
    chunks: usize,
    items: usize,
    contenders: &mut [Chunked<'_>],
) -> Vec<Stats> {
    let n = contenders.len();
    let mut samples = vec![vec![Vec::with_capacity(rounds); chunks]; n];
    for r in 0..rounds.max(1) {
        for j in 0..n {
            let i = (r + j) % n;
            let f = &mut contenders[i];
            (0..chunks).for_each(|k| {
                black_box(f(k));
            });
            for (k, s) in samples[i].iter_mut().enumerate() {
                s.push(f(k));
            }
        }
    }
    samples
        .into_iter()
        .map(|per_chunk| {
            let (mut median, mut min) = (0.0, 0.0);
            for s in per_chunk {
                let st = Stats::of(s);
                median += st.median;
                min += st.min;
            }
            Stats {
                median: median / items.max(1) as f64,
                min: min / items.max(1) as f64,
            }
        })
        .collect()
}

/// Times `reps` calls of `f` as one batch: ns per call.
pub fn per_call(reps: usize, mut f: impl FnMut()) -> f64 {
    let t = Instant::now();
    for _ in 0..reps {
        f();
    }
    t.elapsed().as_nanos() as f64 / reps as f64
}

/// The cost of one `Instant::now()` + `elapsed()` pair in ns (minimum of several batches).
pub fn timer_overhead() -> f64 {
    (0..21)
        .map(|_| {
            let n = 10_000;
            let t = Instant::now();
            let mut acc = 0u128;
            for _ in 0..n {
                let s = Instant::now();
                acc += s.elapsed().as_nanos();
            }
            black_box(acc);
            t.elapsed().as_nanos() as f64 / n as f64
        })
        .fold(f64::INFINITY, f64::min)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_and_min() {
        let s = Stats::of(vec![5.0, 1.0, 3.0]);
        assert_eq!((s.median, s.min), (3.0, 1.0));
        assert_eq!(Stats::of(vec![4.0, 2.0]).median, 3.0);
    }

    #[test]
    fn chunked_figures_sum_per_chunk_medians() {
        // Chunk 0 costs 10, chunk 1 costs 30, except one spoiled timed sample of chunk 1.
        let mut calls = 0;
        let mut f = |k: usize| {
            calls += 1;
            if k == 1 && calls == 8 {
                1000.0
            } else {
                [10.0, 30.0][k]
            }
        };
        let s = interleave_chunks(3, 2, 4, &mut [&mut f]);
        assert_eq!((s[0].median, s[0].min), (10.0, 10.0));
    }

    #[test]
    fn interleave_runs_each_contender_twice_per_round() {
        let (mut a, mut b) = (0, 0);
        let mut fa = || {
            a += 1;
            1.0
        };
        let mut fb = || {
            b += 1;
            2.0
        };
        let s = interleave(3, &mut [&mut fa, &mut fb]);
        assert_eq!((a, b), (6, 6));
        assert_eq!((s[0].median, s[1].median), (1.0, 2.0));
    }
}
