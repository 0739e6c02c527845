//! Exact numbers and hex bytes as scenarios write them (`spec/conformance.md` §1.2).

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A binary64 written exactly: the shortest decimal that round-trips to it, or `0x` and 16 hex
/// digits of its bits. Always finite.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Exact(pub f64);

impl<'de> Deserialize<'de> for Exact {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        parse_exact(&s).map(Exact).map_err(serde::de::Error::custom)
    }
}

impl Serialize for Exact {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&format!("0x{:016x}", self.0.to_bits()))
    }
}

/// Sign, significant digits (no leading or trailing zeros) and decimal exponent of a decimal
/// number written in the usual notations (`12`, `-0.5`, `1.25e-3`). `None` if it is not one.
fn decimal_parts(s: &str) -> Option<(bool, String, i64)> {
    let (neg, body) = match s.as_bytes().first()? {
        b'-' => (true, &s[1..]),
        b'+' => (false, &s[1..]),
        _ => (false, s),
    };
    let (mant, exp) = match body.find(['e', 'E']) {
        Some(i) => (&body[..i], body[i + 1..].parse::<i64>().ok()?),
        None => (body, 0),
    };
    let (int, frac) = match mant.find('.') {
        Some(i) => (&mant[..i], &mant[i + 1..]),
        None => (mant, ""),
    };
    if int.is_empty() && frac.is_empty()
        || !int.bytes().chain(frac.bytes()).all(|c| c.is_ascii_digit())
    {
        return None;
    }
    let digits: String = format!("{int}{frac}");
    let lead = digits.len() - digits.trim_start_matches('0').len();
    let sig = digits
        .trim_start_matches('0')
        .trim_end_matches('0')
        .to_owned();
    if sig.is_empty() {
        return Some((neg, String::new(), 0));
    }
    let point = int.len() as i64 - lead as i64 + exp;
    Some((neg, sig, point))
}

/// Parses an exact float: `0x` + 16 hex digits (bits), or the shortest round-trip decimal.
pub fn parse_exact(text: &str) -> Result<f64, String> {
    let s = text.trim();
    if let Some(h) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        if h.len() != 16 {
            return Err(format!("{s:?}: float bits need exactly 16 hex digits"));
        }
        let bits = u64::from_str_radix(h, 16).map_err(|e| format!("{s:?}: {e}"))?;
        let v = f64::from_bits(bits);
        return if v.is_finite() {
            Ok(v)
        } else {
            Err(format!("{s:?} is not finite"))
        };
    }
    let Some(parts) = decimal_parts(s) else {
        return Err(format!("{s:?} is not a decimal number or 0x float bits"));
    };
    let v: f64 = s.parse().map_err(|e| format!("{s:?}: {e}"))?;
    if !v.is_finite() {
        return Err(format!("{s:?} is not finite"));
    }
    let shortest = format!("{v:e}");
    if decimal_parts(&shortest) != Some(parts) {
        return Err(format!(
            "{s:?} is not the shortest decimal of the binary64 it rounds to; write {v} or 0x{:016x}",
            v.to_bits()
        ));
    }
    Ok(v)
}

/// Parses an integer written in decimal (optionally signed) or `0x` hex.
pub fn parse_int(text: &str) -> Result<i128, String> {
    let s = text.trim();
    let (neg, body) = match s.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, s),
    };
    let v = match body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
        Some(h) => i128::from_str_radix(h, 16),
        None => body.parse::<i128>(),
    }
    .map_err(|_| format!("{s:?} is not an integer"))?;
    Ok(if neg { -v } else { v })
}

/// Parses hex bytes: whitespace is ignored and `#` starts a comment to the end of the line, so
/// long blobs can be written as commented chunks.
pub fn parse_hex(text: &str) -> Result<Vec<u8>, String> {
    let mut digits = Vec::new();
    for line in text.lines() {
        let code = line.split('#').next().unwrap_or("");
        for c in code.chars().filter(|c| !c.is_whitespace()) {
            let d = c
                .to_digit(16)
                .ok_or_else(|| format!("{c:?} is not a hex digit"))?;
            digits.push(d as u8);
        }
    }
    if digits.len() % 2 != 0 {
        return Err(format!("odd number of hex digits ({})", digits.len()));
    }
    Ok(digits.chunks(2).map(|p| p[0] << 4 | p[1]).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_floats_accept_shortest_decimals_and_bits_only() {
        for (s, v) in [
            ("16", 16.0),
            ("16.0", 16.0),
            ("0.1", 0.1),
            ("-0.5", -0.5),
            ("1e-3", 0.001),
            ("0.30000000000000004", 0.1 + 0.2),
            ("0x3fb999999999999a", 0.1),
            ("-0", -0.0),
            ("0.02", 0.02),
        ] {
            let got = parse_exact(s).unwrap();
            assert_eq!(got.to_bits(), f64::to_bits(v), "{s}");
        }
        for s in [
            "0.1000000000000000055511151231257827",
            "0.30000000000000000001",
            "nan",
            "inf",
            "0x7ff0000000000000",
            "0x12",
            "1/3",
            "",
        ] {
            assert!(parse_exact(s).is_err(), "{s}");
        }
    }

    #[test]
    fn hex_ignores_whitespace_and_comments() {
        assert_eq!(
            parse_hex("4f4e 544c   # magic\n0200 # version\n").unwrap(),
            b"ONTL\x02\x00"
        );
        assert!(parse_hex("4f4").is_err());
        assert!(parse_hex("zz").is_err());
    }
}
