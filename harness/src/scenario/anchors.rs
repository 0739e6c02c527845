//! Spec anchors (`file.md#t12`, `file.md#6.2`) and whether a spec text names them.

/// True for a spec anchor of the right form: `file.md#id`, where id is a rule id in lower case
/// (`t12`, `s3`, `tc29`) or a section number (`3`, `6.2`).
pub(super) fn is_anchor(a: &str) -> bool {
    a.split_once('#').is_some_and(|(file, id)| {
        let stem = file.strip_suffix(".md").unwrap_or("");
        !stem.is_empty()
            && stem
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
            && (is_rule_id(id) || is_section(id))
    })
}

/// A rule id: lower-case letters, then digits (`t12`, `s3`, `tc29`).
fn is_rule_id(id: &str) -> bool {
    let digits = id.trim_start_matches(|c: char| c.is_ascii_lowercase());
    digits.len() < id.len() && !digits.is_empty() && digits.chars().all(|d| d.is_ascii_digit())
}

fn is_section(id: &str) -> bool {
    !id.is_empty()
        && id
            .split('.')
            .all(|p| !p.is_empty() && p.chars().all(|d| d.is_ascii_digit()))
}

/// Whether anchor `id` names something in spec text `text`: a paragraph opening with the rule
/// id in bold (`**T12.`), or a heading numbered with the section (`## 6.` or `### 6.2 `).
pub fn anchor_in(text: &str, id: &str) -> bool {
    if is_rule_id(id) {
        let bold = format!("**{}.", id.to_uppercase());
        text.lines().any(|l| l.starts_with(&bold))
    } else {
        text.lines().any(|l| {
            let h = l.trim_start_matches('#');
            h.len() < l.len()
                && h.strip_prefix(' ')
                    .and_then(|r| r.strip_prefix(id))
                    .is_some_and(|r| r.starts_with(['.', ' ']))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rule ids are lower-case letters then digits (`t12`, `tc29`); sections are numbers.
    #[test]
    fn anchors_name_rules_of_one_or_more_letters_and_sections() {
        for ok in ["a.md#t12", "tilecache.md#tc29", "b.md#6.2", "c.md#3"] {
            assert!(is_anchor(ok), "{ok}");
        }
        for bad in [
            "a.md#t", "a.md#12t", "a.md#tc", "a.md#T12", "a.md#t1x", "a.md#", "a.md#6.",
        ] {
            assert!(!is_anchor(bad), "{bad}");
        }
        let text = "**TC29. Validation order.** …\n### 6.2 Reading\n";
        assert!(anchor_in(text, "tc29"));
        assert!(!anchor_in(text, "tc2"));
        assert!(anchor_in(text, "6.2"));
    }
}
