//! Run reports (`spec/conformance.md` §4.2): human (default), JSON lines, JUnit XML. Every format
//! carries the same counts; the human report's last line is exactly `N passed, N failed`, with
//! `, N skipped` when a case was skipped.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde_json::json;

use crate::exec::Status;
use crate::scenario::LoadError;
use crate::suite::CaseResult;
use crate::testee::client::Hello;

/// Report format.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Lines for people.
    #[default]
    Human,
    /// One JSON object per case, then a summary object.
    Json,
    /// JUnit XML, one testsuite per area.
    Junit,
}

/// What answered a run, for the report's header.
#[derive(Debug, Clone, Default)]
pub struct TargetInfo {
    /// What answered: `onav-reference (in process)`, or the testee's `impl` and command.
    pub name: String,
    /// The testee's `hello` answer: its `impl`, ops and features (`None` in process).
    pub hello: Option<Hello>,
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
    pub target: TargetInfo,
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
        self.results
            .iter()
            .filter(|r| r.expected && !r.skipped())
            .count()
    }

    /// Cases skipped: the testee lacks a feature or op they need (`spec/conformance.md` §4.3).
    pub fn skipped(&self) -> usize {
        self.results.iter().filter(|r| r.skipped()).count()
    }

    /// Unexpected outcomes: failing cases not expected, load errors, golden store problems.
    pub fn failed(&self) -> usize {
        self.results.iter().filter(|r| r.failed()).count()
            + self.load_errors.len()
            + self.golden_problems.len()
    }

    /// Cases that ran: every case neither skipped nor left out (`spec/conformance.md` §4.5).
    pub fn ran(&self) -> usize {
        self.results
            .iter()
            .filter(|r| !r.skipped() && !r.not_run)
            .count()
    }

    /// The last line: `N passed, N failed`, and `, N skipped` when a case was skipped.
    pub fn counts_line(&self) -> String {
        let mut line = format!("{} passed, {} failed", self.passed(), self.failed());
        if self.skipped() > 0 {
            let _ = write!(line, ", {} skipped", self.skipped());
        }
        line
    }

    /// Every feature a skipped case lacks, with the number of skipped cases needing it and the
    /// number for which it is the only one missing; then every other reason for a skip (an op),
    /// with its count. Most-needed first: what a port implements next.
    pub fn blocked(&self) -> Vec<(String, usize, usize)> {
        let mut by: BTreeMap<String, (usize, usize)> = BTreeMap::new();
        for r in self.results.iter().filter(|r| r.skipped()) {
            if r.missing.is_empty() {
                let why = match &r.missing_op {
                    Some(op) => format!("op {op}"),
                    None => r.message.clone(),
                };
                by.entry(why).or_default().0 += 1;
            }
            for f in &r.missing {
                let e = by.entry(format!("feature {f}")).or_default();
                e.0 += 1;
                e.1 += usize::from(r.missing.len() == 1);
            }
        }
        let mut v: Vec<(String, usize, usize)> =
            by.into_iter().map(|(k, (n, only))| (k, n, only)).collect();
        v.sort_by(|a, b| b.1.cmp(&a.1).then(b.2.cmp(&a.2)).then(a.0.cmp(&b.0)));
        v
    }
}

/// `1 case`, `N cases`.
fn cases(n: usize) -> String {
    if n == 1 {
        "1 case".into()
    } else {
        format!("{n} cases")
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

/// A case's line: `FAIL  id [status] file:line: message (spec: anchors)`.
fn case_line(r: &CaseResult) -> String {
    let tag = if r.expected { "XFAIL" } else { "FAIL " };
    let spec = if r.spec.is_empty() {
        String::new()
    } else {
        format!(" (spec: {})", r.spec.join(", "))
    };
    format!(
        "{tag} {} [{}] {}: {}{spec}",
        r.id,
        r.status.name(),
        r.at.file_line(),
        r.message
    )
}

fn human(s: &Summary<'_>) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "target: {}", s.target.name);
    if let Some(h) = &s.target.hello {
        let list = |v: &std::collections::BTreeSet<String>| {
            if v.is_empty() {
                "(none)".to_owned()
            } else {
                v.iter().cloned().collect::<Vec<_>>().join(", ")
            }
        };
        let _ = writeln!(out, "  ops: {}", list(&h.ops));
        let _ = writeln!(out, "  features: {}", list(&h.features));
    }
    for e in s.load_errors {
        let _ = writeln!(out, "LOAD  {e}");
    }
    // Golden mismatches first: they say which bytes differ, the most precise finding.
    let failing = |golden: bool| {
        s.results.iter().filter(move |r| {
            r.status != Status::Pass && !r.skipped() && !r.not_run && r.golden == golden
        })
    };
    for r in failing(true) {
        let _ = writeln!(out, "{}", case_line(r));
    }
    for g in s.golden_problems {
        let _ = writeln!(out, "GOLD  {g}");
    }
    for r in failing(false) {
        let _ = writeln!(out, "{}", case_line(r));
    }
    let not_run: Vec<&CaseResult> = s.results.iter().filter(|r| r.not_run).collect();
    if let (Some(first), Some(last)) = (not_run.first(), not_run.last()) {
        let _ = writeln!(
            out,
            "NOTRUN {} cases, {} to {}: {}",
            not_run.len(),
            first.id,
            last.id,
            first
                .message
                .strip_prefix("not run: ")
                .unwrap_or(&first.message)
        );
    }
    let mut areas: BTreeMap<&str, [usize; 4]> = BTreeMap::new();
    for r in s.results {
        let e = areas.entry(r.area.as_str()).or_default();
        let k = if r.status == Status::Pass {
            0
        } else if r.skipped() {
            3
        } else if r.expected {
            2
        } else {
            1
        };
        e[k] += 1;
    }
    if let Some(r) = s.results.first() {
        if !r.threads.is_empty() {
            let t: Vec<String> = r.threads.iter().map(ToString::to_string).collect();
            let _ = writeln!(out, "thread counts: {}", t.join(", "));
        }
    }
    for (a, [p, f, x, k]) in &areas {
        let ks = if *k > 0 {
            format!(", {k} skipped")
        } else {
            String::new()
        };
        let xs = if *x > 0 {
            format!(", {x} expected failures")
        } else {
            String::new()
        };
        let _ = writeln!(out, "{a:<10} {p} passed, {f} failed{ks}{xs}");
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
    let blocked = s.blocked();
    if !blocked.is_empty() {
        let _ = writeln!(
            out,
            "{:<10} {} cases need what the testee lacks (most needed first):",
            "(skipped)",
            s.skipped()
        );
        let width = blocked.iter().map(|b| b.0.len()).max().unwrap_or(0);
        for (what, n, only) in &blocked {
            let alone = if *only > 0 {
                format!(" (the only thing missing for {only})")
            } else {
                String::new()
            };
            let _ = writeln!(out, "           {what:<width$}  {}{alone}", cases(*n));
        }
    }
    if s.expected() > 0 {
        let _ = writeln!(out, "{} expected failures (failure list)", s.expected());
    }
    let _ = writeln!(out, "{}", s.counts_line());
    out
}

/// A case as the JSON report and the transcripts write it.
pub fn case_json(r: &CaseResult) -> serde_json::Value {
    json!({
        "case": r.id, "area": r.area, "status": r.status.name(),
        "expected": r.expected, "skipped": r.skipped(), "not_run": r.not_run,
        "message": r.message, "threads": r.threads,
        "file": r.at.file, "step": r.at.step, "line": r.at.line, "spec": r.spec,
        "golden": r.golden, "missing": r.missing, "missing_op": r.missing_op,
        "divergence": r.divergence.as_ref().map(ToString::to_string),
    })
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
        let _ = writeln!(out, "{}", case_json(r));
    }
    for g in s.golden_problems {
        let _ = writeln!(out, "{}", json!({"golden_problem": g}));
    }
    let mut summary = json!({
        "target": s.target.name, "passed": s.passed(), "failed": s.failed(),
        "skipped": s.skipped(), "expected": s.expected(),
    });
    if let Some(h) = &s.target.hello {
        summary["impl"] = json!(h.implementation);
        summary["ops"] = json!(h.ops);
        summary["features"] = json!(h.features);
    }
    let _ = writeln!(out, "{}", json!({ "summary": summary }));
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

/// The text of a failing case for the body of its JUnit element: the message, where it
/// stopped and its anchors, one per line (attributes fold lines together).
fn junit_text(r: &CaseResult) -> String {
    let mut t = format!("{}\nat {}", r.message, r.at.file_line());
    if let Some(step) = r.at.step {
        let _ = write!(t, " (step {step})");
    }
    if !r.spec.is_empty() {
        let _ = write!(t, "\nspec: {}", r.spec.join(", "));
    }
    t
}

fn junit(s: &Summary<'_>) -> String {
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let skipped_of = |rs: &[&CaseResult]| rs.iter().filter(|r| r.skipped() || r.expected).count();
    let all: Vec<&CaseResult> = s.results.iter().collect();
    let _ = writeln!(
        out,
        "<testsuites name=\"onav conformance\" tests=\"{}\" failures=\"{}\" skipped=\"{}\">",
        s.results.len() + s.load_errors.len() + s.golden_problems.len(),
        s.failed(),
        skipped_of(&all)
    );
    let mut areas: BTreeMap<&str, Vec<&CaseResult>> = BTreeMap::new();
    for r in s.results {
        areas.entry(r.area.as_str()).or_default().push(r);
    }
    for (a, rs) in areas {
        let failures = rs.iter().filter(|r| r.failed()).count();
        let _ = writeln!(
            out,
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{failures}\" skipped=\"{}\">",
            xml(a),
            rs.len(),
            skipped_of(&rs)
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
            } else if r.skipped() {
                let _ = writeln!(
                    out,
                    "><skipped message=\"{}\"/></testcase>",
                    xml(&r.message)
                );
            } else if r.expected {
                let _ = writeln!(
                    out,
                    "><skipped message=\"expected {}\"/></testcase>",
                    r.status.name()
                );
            } else {
                let _ = writeln!(
                    out,
                    "><failure type=\"{}\" message=\"{}\">{}</failure></testcase>",
                    r.status.name(),
                    // An attribute folds lines together: its first line, the whole in the body.
                    xml(r.message.lines().next().unwrap_or_default()),
                    xml(&junit_text(r))
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

    fn r(id: &str, status: Status, expected: bool) -> CaseResult {
        let mut r = CaseResult::for_test(id, status);
        r.message = "m <&>".into();
        r.threads = vec![1, 2];
        r.expected = expected;
        r
    }

    fn summary<'a>(rs: &'a [CaseResult], golden: &'a [String]) -> Summary<'a> {
        Summary {
            results: rs,
            load_errors: &[],
            golden_problems: golden,
            target: TargetInfo {
                name: "onav-reference".into(),
                hello: None,
            },
        }
    }

    #[test]
    fn reports_count_and_end_with_the_counts_line() {
        let rs = [
            r("tile/y_a", Status::Pass, false),
            r("tile/n_b", Status::Fail, false),
            r("snapshot/n_c", Status::Timeout, true),
        ];
        let golden = ["orphan".to_owned()];
        let s = summary(&rs, &golden);
        let h = render(&s, Format::Human);
        assert_eq!(h.lines().last().unwrap(), "1 passed, 2 failed");
        assert!(h.contains("tile       1 passed, 1 failed\n"));
        assert!(h.contains("snapshot   0 passed, 0 failed, 1 expected failures\n"));
        let j = render(&s, Format::Json);
        assert_eq!(j.lines().count(), 5);
        for l in j.lines() {
            serde_json::from_str::<serde_json::Value>(l).unwrap();
        }
        let x = render(&s, Format::Junit);
        assert!(x.contains("m &lt;&amp;&gt;"));
        assert!(x.contains("<skipped message=\"expected timeout\"/>"));
        assert!(x.contains("failures=\"2\" skipped=\"1\">"));
    }

    #[test]
    fn skipped_cases_are_counted_apart_in_every_format() {
        let mut a = r("tile/n_a", Status::Unsupported, false);
        a.message = "needs feature tile".into();
        a.missing = vec!["tile".into()];
        let mut b = r("navmesh/y_b", Status::Unsupported, false);
        b.message = "needs feature navmesh (and 1 more: tile)".into();
        b.missing = vec!["navmesh".into(), "tile".into()];
        let mut c = r("navmesh/y_c", Status::Unsupported, false);
        c.message = "step 5 (get_poly): the testee does not list get_poly in hello".into();
        c.missing_op = Some("get_poly".into());
        // A failure list entry `unsupported` for a skipped case leaves it skipped.
        c.expected = true;
        let rs = [a, b, c, r("tile/y_d", Status::Pass, false)];
        let s = summary(&rs, &[]);
        assert_eq!(
            (s.passed(), s.failed(), s.skipped(), s.expected()),
            (1, 0, 3, 0)
        );
        assert_eq!(s.ran(), 1);
        assert_eq!(
            s.blocked(),
            [
                ("feature tile".to_owned(), 2, 1),
                ("feature navmesh".to_owned(), 1, 0),
                ("op get_poly".to_owned(), 1, 0),
            ]
        );
        let h = render(&s, Format::Human);
        assert_eq!(h.lines().last().unwrap(), "1 passed, 0 failed, 3 skipped");
        assert!(
            h.contains("navmesh    0 passed, 0 failed, 2 skipped\n"),
            "{h}"
        );
        assert!(!h.contains("FAIL"), "{h}");
        assert!(
            h.contains("(skipped)  3 cases need what the testee lacks (most needed first):\n           feature tile   "),
            "{h}"
        );
        assert!(
            h.contains("  2 cases (the only thing missing for 1)\n"),
            "{h}"
        );
        assert!(h.contains("  1 case\n"), "{h}");
        let j = render(&s, Format::Json);
        let last: serde_json::Value = serde_json::from_str(j.lines().last().unwrap()).unwrap();
        assert_eq!(last["summary"]["skipped"], 3);
        assert_eq!(last["summary"]["failed"], 0);
        let first: serde_json::Value = serde_json::from_str(j.lines().next().unwrap()).unwrap();
        assert_eq!(first["skipped"], true);
        let x = render(&s, Format::Junit);
        assert!(
            x.contains("<skipped message=\"needs feature tile\"/>"),
            "{x}"
        );
        assert!(
            x.contains("tests=\"4\" failures=\"0\" skipped=\"3\""),
            "{x}"
        );
        assert!(!x.contains("<failure"));
    }

    #[test]
    fn fail_lines_name_file_line_and_anchors_with_golden_mismatches_first() {
        let mut a = r("tile/n_a", Status::Fail, false);
        a.at.line = Some(14);
        a.at.step = Some(4);
        a.spec = vec!["navmesh-format.md#t5".into()];
        a.message = "step 4 (parse_tile): accepted".into();
        let mut g = r("tile/y_z", Status::Fail, false);
        g.golden = true;
        g.message = "stale golden tile/y_z/out".into();
        let rs = [a, g];
        let golden = ["orphaned manifest entry x".to_owned()];
        let s = summary(&rs, &golden);
        let h = render(&s, Format::Human);
        let lines: Vec<&str> = h.lines().collect();
        assert_eq!(
            lines[1],
            "FAIL  tile/y_z [fail] scenarios/tile/y_z.yaml: stale golden tile/y_z/out"
        );
        assert_eq!(lines[2], "GOLD  orphaned manifest entry x");
        assert_eq!(
            lines[3],
            "FAIL  tile/n_a [fail] scenarios/tile/n_a.yaml:14: step 4 (parse_tile): accepted \
             (spec: navmesh-format.md#t5)"
        );
        let j = render(&s, Format::Json);
        let first: serde_json::Value = serde_json::from_str(j.lines().next().unwrap()).unwrap();
        assert_eq!(first["file"], "scenarios/tile/n_a.yaml");
        assert_eq!(first["line"], 14);
        assert_eq!(first["step"], 4);
        assert_eq!(first["spec"][0], "navmesh-format.md#t5");
        let x = render(&s, Format::Junit);
        assert!(
            x.contains(">step 4 (parse_tile): accepted\nat scenarios/tile/n_a.yaml:14 (step 4)\nspec: navmesh-format.md#t5</failure>"),
            "{x}"
        );
    }

    #[test]
    fn the_header_shows_the_testee_hello_and_not_run_cases_are_one_line() {
        let mut rs: Vec<CaseResult> = ["tile/a", "tile/b", "tile/c"]
            .iter()
            .map(|id| {
                let mut r = r(id, Status::Error, false);
                r.not_run = true;
                r.message = "not run: the testee timed out in 5 cases".into();
                r
            })
            .collect();
        rs.insert(0, r("meshfile/x", Status::Timeout, false));
        let mut s = summary(&rs, &[]);
        s.target = TargetInfo {
            name: "fake 0.1 (testee ./fake)".into(),
            hello: Some(Hello {
                implementation: "fake 0.1".into(),
                ops: ["hello".to_owned(), "bye".to_owned()].into(),
                features: Default::default(),
                protocol: 2,
            }),
        };
        let h = render(&s, Format::Human);
        assert!(
            h.starts_with(
                "target: fake 0.1 (testee ./fake)\n  ops: bye, hello\n  features: (none)\n"
            ),
            "{h}"
        );
        assert!(
            h.contains("\nNOTRUN 3 cases, tile/a to tile/c: the testee timed out in 5 cases\n"),
            "{h}"
        );
        assert_eq!(h.matches("FAIL").count(), 1, "{h}");
        assert_eq!(h.lines().last().unwrap(), "0 passed, 4 failed");
        let j = render(&s, Format::Json);
        let last: serde_json::Value = serde_json::from_str(j.lines().last().unwrap()).unwrap();
        assert_eq!(last["summary"]["impl"], "fake 0.1");
        assert_eq!(last["summary"]["ops"][0], "bye");
    }

    #[test]
    fn junit_keeps_a_multi_line_message_in_the_body() {
        let mut a = r("tile/n_a", Status::Fail, false);
        a.message = "step 2 (parse_tile): first line\n  ^ caret line".into();
        let rs = [a];
        let x = render(&summary(&rs, &[]), Format::Junit);
        assert!(
            x.contains("message=\"step 2 (parse_tile): first line\">"),
            "{x}"
        );
        assert!(x.contains("first line\n  ^ caret line\nat "), "{x}");
    }
}
