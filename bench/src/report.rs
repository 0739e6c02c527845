//! Plain markdown tables for the bench's output, and the issue-13 targets beside the ratios.

use crate::timing::{Ratio, Stats};

/// A markdown table with a title line.
pub struct Table {
    title: String,
    head: Vec<String>,
    rows: Vec<Vec<String>>,
}

impl Table {
    /// A table with column headings.
    pub fn new(title: impl Into<String>, head: &[&str]) -> Self {
        Self {
            title: title.into(),
            head: head.iter().map(|s| s.to_string()).collect(),
            rows: Vec::new(),
        }
    }

    /// Appends a row (missing cells print empty).
    pub fn row(&mut self, cells: Vec<String>) {
        self.rows.push(cells);
    }

    /// Prints the table to stdout.
    pub fn print(&self) {
        println!("\n{}\n", self.title);
        println!("| {} |", self.head.join(" | "));
        let align: Vec<&str> = (0..self.head.len())
            .map(|i| if i == 0 { "---" } else { "---:" })
            .collect();
        println!("|{}|", align.join("|"));
        for r in &self.rows {
            let mut cells = r.clone();
            cells.resize(self.head.len(), String::new());
            println!("| {} |", cells.join(" | "));
        }
    }
}

/// A number with 3 significant digits or more, no exponent.
pub fn num(v: f64) -> String {
    let a = v.abs();
    if !v.is_finite() {
        format!("{v}")
    } else if a >= 100.0 {
        format!("{v:.0}")
    } else if a >= 10.0 {
        format!("{v:.1}")
    } else if a >= 1.0 {
        format!("{v:.2}")
    } else {
        format!("{v:.3}")
    }
}

/// "median (min)" of timings in ns, shown divided by `scale` (1e3 for µs, 1e6 for ms).
pub fn time(s: &Stats, scale: f64) -> String {
    format!("{} ({})", num(s.median / scale), num(s.min / scale))
}

/// "median (min)" of a ratio.
pub fn ratio(r: &Ratio) -> String {
    format!("{:.2} ({:.2})", r.median, r.min)
}

/// One issue-13 target: a bound on a ratio, per mesh.
pub struct Target {
    /// What is bounded.
    pub name: String,
    /// The bound (ratio ≤ bound).
    pub bound: f64,
    /// The measured ratio per mesh (None: not measured there).
    pub values: Vec<Option<Ratio>>,
}

/// Prints the targets table: each ratio's median (min) per mesh, and whether the median meets the
/// bound on every mesh measured.
pub fn print_targets(meshes: &[String], targets: &[Target]) {
    let mut head = vec!["ratio (median (min) over rounds)", "target"];
    head.extend(meshes.iter().map(String::as_str));
    head.push("met (medians)");
    let mut t = Table::new(
        "## Issue-13 targets: onav / Detour on the same tiles (lower is better)",
        &head,
    );
    for tg in targets {
        let mut row = vec![tg.name.clone(), format!("≤ {}", tg.bound)];
        let mut met = true;
        let mut worst: f64 = 0.0;
        let mut any = false;
        for v in &tg.values {
            match v {
                Some(r) => {
                    any = true;
                    met &= r.median <= tg.bound;
                    worst = worst.max(r.median);
                    row.push(ratio(r));
                }
                None => row.push("–".into()),
            }
        }
        row.push(if !any {
            "not measured".into()
        } else if met {
            "yes".into()
        } else {
            format!("no (worst {:.2}× the bound)", worst / tg.bound)
        });
        t.row(row);
    }
    t.print();
}
