//! Parsers of the command-line values that clap cannot range-check alone (`spec/conformance.md`
//! §4.1). Each gives the message clap prints beside the argument's name, with exit status 2.

use std::time::Duration;

use crate::limits::{MAX_THREADS, MAX_TIMEOUT_SECONDS};

/// A thread count of `--threads`: 1 ..= `limits::MAX_THREADS` (1024).
pub fn thread_count(s: &str) -> Result<usize, String> {
    let n: usize = s
        .trim()
        .parse()
        .map_err(|_| format!("{s:?} is not a thread count (1 to {MAX_THREADS})"))?;
    if (1..=MAX_THREADS).contains(&n) {
        Ok(n)
    } else {
        Err(format!("{n} is not a thread count of 1 to {MAX_THREADS}"))
    }
}

/// A time in seconds (`--timeout`, `--run-timeout`): a number above 0 and at most
/// `limits::MAX_TIMEOUT_SECONDS` (a day), fractions allowed (`0.5`).
pub fn seconds(s: &str) -> Result<Duration, String> {
    let bad =
        || format!("{s:?} is not a number of seconds above 0 and at most {MAX_TIMEOUT_SECONDS}");
    let x: f64 = s.trim().parse().map_err(|_| bad())?;
    if x.is_finite() && x > 0.0 && x <= MAX_TIMEOUT_SECONDS as f64 {
        Duration::try_from_secs_f64(x).map_err(|_| bad())
    } else {
        Err(bad())
    }
}

/// A count of cases (`--give-up-after`): 0 ..= u32::MAX.
pub fn count(s: &str) -> Result<u32, String> {
    s.trim()
        .parse()
        .map_err(|_| format!("{s:?} is not a count (0 or more)"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_range_checked() {
        assert_eq!(thread_count("4"), Ok(4));
        assert_eq!(thread_count("1024"), Ok(1024));
        for bad in ["0", "1025", "100000", "-1", "abc", "", "1.5"] {
            assert!(thread_count(bad).is_err(), "{bad}");
        }
        assert_eq!(seconds("0.5"), Ok(Duration::from_millis(500)));
        assert_eq!(seconds("20"), Ok(Duration::from_secs(20)));
        for bad in ["0", "-1", "nan", "inf", "1e300", "abc", ""] {
            assert!(seconds(bad).is_err(), "{bad}");
        }
        assert_eq!(count("0"), Ok(0));
        assert!(count("-3").is_err());
    }
}
