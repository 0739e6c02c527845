//! Run reports: human (default), JSON lines, JUnit XML. Every format ends with the same counts;
//! the human report's last line is exactly `N passed, N failed`.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde_json::json;

use crate::exec::Status;
use crate::scenario::LoadError;
use crate::suite::CaseResult;

/// Report format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Lines for people.
    Human,
    /// One JSON object per case, then a summary object.
    Json,
    /// JUnit XML, one testsuite per area.
    Junit,
}

/// Everything a report shows.
#[derive(Debug)]
pub struct Summary<'a> {
    /// Case results.
    pub results: &'a [CaseResult],
    /// Scenario files that did not load.
    pub load_errors: &'a [LoadError],
    /// Problems with the golden store as a whole (orphans).
    pub golden_problems: &'a [String],
    /// What answered.
    pub target: String,
}

impl Summary<'_> {
    /// Cases that passed.
    pub fn passed(&self) -> usize {
        self.results
            .iter()
            .filter(|r| r.status == Status::Pass)
            .count()
    }

    /// Cases that failed as the failure list expects.
    pub fn expected(&self) -> usize {
        self.results.iter().filter(|r| r.expected).count()
    }

    /// Unexpected outcomes: failing cases not expected, load errors, golden store problems.
    pub fn failed(&self) -> usize {
        self.results
            .iter()
            .filter(|r| r.status != Status::Pass && !r.expected)
            .count()
            + self.load_errors.len()
            + self.golden_problems.len()
    }

    /// The last line.
    pub fn counts_line(&self) -> String {
        format!("{} passed, {} failed", self.passed(), self.failed())
    }
}

/// Renders a report.
pub fn render(s: &Summary<'_>, format: Format) -> String {
    match format {
        Format::Human => human(s),
        Format::Json => jsonl(s),
        Format::Junit => junit(s),
    }
}

fn human(s: &Summary<'_>) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "target: {}", s.target);
    for e in s.load_errors {
        let _ = writeln!(out, "LOAD  {e}");
    }
    for r in s.results {
        if r.status == Status::Pass {
            continue;
        }
        let tag = if r.expected { "XFAIL" } else { "FAIL " };
        let _ = writeln!(out, "{tag} {} [{}]: {}", r.id, r.status.name(), r.message);
    }
    for g in s.golden_problems {
        let _ = writeln!(out, "GOLD  {g}");
    }
    let mut areas: BTreeMap<&str, (usize, usize, usize)> = BTreeMap::new();
    for r in s.results {
        let e = areas.entry(r.area.as_str()).or_default();
        match (r.status, r.expected) {
            (Status::Pass, _) => e.0 += 1,
            (_, true) => e.2 += 1,
            _ => e.1 += 1,
        }
    }
    if let Some(r) = s.results.first() {
        if !r.threads.is_empty() {
            let t: Vec<String> = r.threads.iter().map(ToString::to_string).collect();
            let _ = writeln!(out, "thread counts: {}", t.join(", "));
        }
    }
    for (a, (p, f, x)) in &areas {
        let xs = if *x > 0 {
            format!(", {x} expected failures")
        } else {
            String::new()
        };
        let _ = writeln!(out, "{a:<10} {p} passed, {f} failed{xs}");
    }
    if !s.load_errors.is_empty() {
        let _ = writeln!(
            out,
            "{:<10} {} files did not load",
            "(load)",
            s.load_errors.len()
        );
    }
    if !s.golden_problems.is_empty() {
        let _ = writeln!(
            out,
            "{:<10} {} problems",
            "(golden)",
            s.golden_problems.len()
        );
    }
    if s.expected() > 0 {
        let _ = writeln!(out, "{} expected failures (failure list)", s.expected());
    }
    let _ = writeln!(out, "{}", s.counts_line());
    out
}

fn jsonl(s: &Summary<'_>) -> String {
    let mut out = String::new();
    for e in s.load_errors {
        let _ = writeln!(
            out,
            "{}",
            json!({"load_error": e.path, "message": e.reason.to_string()})
        );
    }
    for r in s.results {
        let _ = writeln!(
            out,
            "{}",
            json!({
                "case": r.id, "area": r.area, "status": r.status.name(),
                "expected": r.expected, "message": r.message, "threads": r.threads,
            })
        );
    }
    for g in s.golden_problems {
        let _ = writeln!(out, "{}", json!({"golden_problem": g}));
    }
    let _ = writeln!(
        out,
        "{}",
        json!({"summary": {
            "target": s.target, "passed": s.passed(), "failed": s.failed(), "expected": s.expected(),
        }})
    );
    out
}

fn xml(s: &str) -> String {
    s.chars()
        .map(|c| match c {
            '&' => "&amp;".into(),
            '<' => "&lt;".into(),
            '>' => "&gt;".into(),
            '"' => "&quot;".into(),
            '\'' => "&apos;".into(),
            c if (c as u32) < 0x20 && c != '\n' && c != '\t' => format!("&#{};", c as u32),
            c => c.to_string(),
        })
        .collect()
}

fn junit(s: &Summary<'_>) -> String {
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        out,
        "<testsuites name=\"onav conformance\" tests=\"{}\" failures=\"{}\">",
        s.results.len() + s.load_errors.len() + s.golden_problems.len(),
        s.failed()
    );
    let mut areas: BTreeMap<&str, Vec<&CaseResult>> = BTreeMap::new();
    for r in s.results {
        areas.entry(r.area.as_str()).or_default().push(r);
    }
    for (a, rs) in areas {
        let failures = rs
            .iter()
            .filter(|r| r.status != Status::Pass && !r.expected)
            .count();
        let _ = writeln!(
            out,
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{failures}\">",
            xml(a),
            rs.len()
        );
        for r in rs {
            let _ = write!(
                out,
                "    <testcase classname=\"{}\" name=\"{}\"",
                xml(a),
                xml(&r.id)
            );
            if r.status == Status::Pass {
                out.push_str("/>\n");
            } else if r.expected {
                let _ = writeln!(
                    out,
                    "><skipped message=\"expected {}\"/></testcase>",
                    r.status.name()
                );
            } else {
                let _ = writeln!(
                    out,
                    "><failure type=\"{}\" message=\"{}\"/></testcase>",
                    r.status.name(),
                    xml(&r.message)
                );
            }
        }
        out.push_str("  </testsuite>\n");
    }
    if !s.load_errors.is_empty() || !s.golden_problems.is_empty() {
        let n = s.load_errors.len() + s.golden_problems.len();
        let _ = writeln!(
            out,
            "  <testsuite name=\"harness\" tests=\"{n}\" failures=\"{n}\">"
        );
        for e in s.load_errors {
            let _ = writeln!(
                out,
                "    <testcase classname=\"load\" name=\"{}\"><failure type=\"load\" message=\"{}\"/></testcase>",
                xml(&e.path),
                xml(&e.reason.to_string())
            );
        }
        for g in s.golden_problems {
            let _ = writeln!(
                out,
                "    <testcase classname=\"golden\" name=\"store\"><failure type=\"golden\" message=\"{}\"/></testcase>",
                xml(g)
            );
        }
        out.push_str("  </testsuite>\n");
    }
    out.push_str("</testsuites>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::CaseRun;

    fn r(id: &str, status: Status, expected: bool) -> CaseResult {
        CaseResult {
            id: id.into(),
            area: id.split('/').next().unwrap().into(),
            status,
            message: "m <&>".into(),
            threads: vec![1, 2],
            run: CaseRun::default(),
            expected,
        }
    }

    #[test]
    fn reports_count_and_end_with_the_counts_line() {
        let rs = [
            r("tile/y_a", Status::Pass, false),
            r("tile/n_b", Status::Fail, false),
            r("snapshot/n_c", Status::Unsupported, true),
        ];
        let s = Summary {
            results: &rs,
            load_errors: &[],
            golden_problems: &["orphan".into()],
            target: "onav-reference".into(),
        };
        let h = render(&s, Format::Human);
        assert_eq!(h.lines().last().unwrap(), "1 passed, 2 failed");
        assert!(h.contains("tile       1 passed, 1 failed"));
        let j = render(&s, Format::Json);
        assert_eq!(j.lines().count(), 5);
        for l in j.lines() {
            serde_json::from_str::<serde_json::Value>(l).unwrap();
        }
        let x = render(&s, Format::Junit);
        assert!(x.contains("m &lt;&amp;&gt;"));
        assert!(x.contains("<skipped"));
    }
}
