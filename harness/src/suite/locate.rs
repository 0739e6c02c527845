//! Where a case is in its file, for reports and transcripts (`spec/conformance.md` §4.2): the
//! scenario file below the root and the line each step starts on.
//!
//! The loader keeps no source positions, so the lines come from the file's text: the items of the
//! top-level block sequence `steps:`. A file whose steps this scan cannot count exactly as the
//! loader did (a flow sequence, say) gets no lines rather than wrong ones.

use crate::scenario::Case;

/// Where a case stopped: its file, and the step (from 1, as in messages) and its line.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Location {
    /// The scenario file below the root: `scenarios/<id>.yaml`.
    pub file: String,
    /// The step, from 1.
    pub step: Option<usize>,
    /// The line of the file where that step starts, from 1.
    pub line: Option<usize>,
}

impl Location {
    /// The file alone.
    pub fn of(case: &Case) -> Self {
        Self {
            file: format!("scenarios/{}.yaml", case.id),
            step: None,
            line: None,
        }
    }

    /// The file and step `step` of `case` (from 1), with its line when the file is there.
    pub fn at(case: &Case, step: usize) -> Self {
        Self {
            step: Some(step),
            line: step_lines(case).and_then(|l| l.get(step.checked_sub(1)?).copied()),
            ..Self::of(case)
        }
    }

    /// `file:line`, or the file alone.
    pub fn file_line(&self) -> String {
        match self.line {
            Some(l) => format!("{}:{l}", self.file),
            None => self.file.clone(),
        }
    }
}

/// The line of every step of a case's file, or `None` when the file is not there (a compiled
/// suite) or its steps cannot be counted as the loader counted them.
pub fn step_lines(case: &Case) -> Option<Vec<usize>> {
    let name = case.id.rsplit('/').next()?;
    let text = std::fs::read_to_string(case.dir.join(format!("{name}.yaml"))).ok()?;
    let lines = lines_of_steps(&text)?;
    (lines.len() == case.scenario.steps.len()).then_some(lines)
}

/// The lines (from 1) where the items of the top-level block sequence `steps:` start.
fn lines_of_steps(text: &str) -> Option<Vec<usize>> {
    let mut lines = text.lines().enumerate();
    // The `steps:` key at column 0, with nothing after it but a comment.
    loop {
        let (_, l) = lines.next()?;
        if let Some(rest) = l.strip_prefix("steps:") {
            let rest = rest.trim();
            if rest.is_empty() || rest.starts_with('#') {
                break;
            }
            return None;
        }
    }
    let mut out = Vec::new();
    let mut indent = None;
    for (i, l) in lines {
        let body = l.trim_start_matches(' ');
        if body.is_empty() || body.starts_with('#') {
            continue;
        }
        let here = l.len() - body.len();
        let item = body == "-" || body.starts_with("- ");
        match indent {
            None if item => indent = Some(here),
            None => return None,
            Some(n) if here < n || (here == n && !item) => break,
            Some(_) => {}
        }
        if Some(here) == indent && item {
            out.push(i + 1);
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_are_found_at_any_indentation_and_end_at_the_next_key() {
        let t = "schema: 1\nsteps:\n  - world: {name: w}\n  # a comment\n\n  - patch:\n      from: t\n      edits:\n        - set: {field: x, value: 1}\n  - expect: {error: x}\nnotes: |\n  - not a step\n";
        assert_eq!(lines_of_steps(t), Some(vec![3, 6, 10]));
        let t = "steps:\n- a: 1\n- b:\n    c: 2\nid: x\n";
        assert_eq!(lines_of_steps(t), Some(vec![2, 3]));
        assert_eq!(lines_of_steps("steps: [a, b]\n"), None);
        assert_eq!(lines_of_steps("id: x\n"), None);
        assert_eq!(lines_of_steps("steps:\n  a: 1\n"), None);
    }

    #[test]
    fn every_scenario_of_the_suite_has_a_line_per_step_naming_it() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let s = crate::suite::load(&root, &[], None);
        assert!(s.cases.len() > 100);
        for c in &s.cases {
            let name = c.id.rsplit('/').next().unwrap();
            let text = std::fs::read_to_string(c.dir.join(format!("{name}.yaml"))).unwrap();
            let text: Vec<&str> = text.lines().collect();
            let lines = step_lines(c).unwrap_or_else(|| panic!("{}", c.id));
            for (k, (line, step)) in lines.iter().zip(&c.scenario.steps).enumerate() {
                let at = Location::at(c, k + 1);
                assert_eq!(at.line, Some(*line));
                assert!(
                    text[line - 1]
                        .trim_start()
                        .starts_with(&format!("- {}:", step.key())),
                    "{}:{line}: step {} is {}",
                    c.id,
                    k + 1,
                    step.key()
                );
            }
        }
    }
}
