//! Glob patterns for case ids: `*` matches any run of characters (including `/`), `?` one
//! character; everything else matches itself.

/// True when `text` matches `pattern`.
pub fn matches(pattern: &str, text: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let t: Vec<char> = text.chars().collect();
    // Iterative matching with one backtrack point for the last `*`: linear in practice.
    let (mut pi, mut ti) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while ti < t.len() {
        if pi < p.len() && (p[pi] == '?' || p[pi] == t[ti]) {
            pi += 1;
            ti += 1;
        } else if pi < p.len() && p[pi] == '*' {
            star = Some((pi, ti));
            pi += 1;
        } else if let Some((sp, st)) = star {
            pi = sp + 1;
            ti = st + 1;
            star = Some((sp, st + 1));
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|&c| c == '*')
}

#[cfg(test)]
mod tests {
    use super::matches;

    #[test]
    fn globs() {
        assert!(matches("snapshot/*", "snapshot/n_magic"));
        assert!(matches("*magic*", "snapshot/n_magic"));
        assert!(matches("*", ""));
        assert!(matches("tile/n_?agic", "tile/n_magic"));
        assert!(!matches("tile/*", "snapshot/n_magic"));
        assert!(!matches("snapshot/n_magic", "snapshot/n_magic2"));
        assert!(matches("*/y_*", "navmesh/y_slots"));
        assert!(!matches("a*b*c", "abab"));
    }
}
