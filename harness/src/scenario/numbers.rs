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

/// A float of a query step or of an expected `cost` (`spec/conformance.md` §2.1, §2.3): an
/// [`Exact`] float, or `inf`, `-inf` or `nan`, the wire's strings for them (§6.3), so that a case
/// can send the non-finite inputs a query must refuse and expect a cost past the binary64 range.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WireFloat(pub f64);

impl<'de> Deserialize<'de> for WireFloat {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        match s.trim() {
            "inf" => Ok(Self(f64::INFINITY)),
            "-inf" => Ok(Self(f64::NEG_INFINITY)),
            "nan" => Ok(Self(f64::NAN)),
            t => parse_exact(t).map(Self).map_err(serde::de::Error::custom),
        }
    }
}

impl Serialize for WireFloat {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            x if x.is_nan() => s.serialize_str("nan"),
            x if x == f64::INFINITY => s.serialize_str("inf"),
            x if x == f64::NEG_INFINITY => s.serialize_str("-inf"),
            x => Exact(x).serialize(s),
        }
    }
}

/// A number or hex text that is not what the scenario format allows.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum NumberError {
    /// `0x` float bits with other than 16 digits.
    #[error("{text:?}: float bits need exactly 16 hex digits")]
    BitsDigits {
        /// The text.
        text: String,
    },
    /// `0x` float bits that are not hex.
    #[error("{text:?}: {reason}")]
    BadBits {
        /// The text.
        text: String,
        /// Why.
        reason: std::num::ParseIntError,
    },
    /// A NaN or an infinity (exact floats are finite).
    #[error("{text:?} is not finite")]
    NotFinite {
        /// The text.
        text: String,
    },
    /// Neither a decimal nor float bits.
    #[error("{text:?} is not a decimal number or 0x float bits")]
    NotDecimal {
        /// The text.
        text: String,
    },
    /// A decimal Rust does not read as a float.
    #[error("{text:?}: {reason}")]
    BadFloat {
        /// The text.
        text: String,
        /// Why.
        reason: std::num::ParseFloatError,
    },
    /// A decimal with more digits than the binary64 it rounds to needs.
    #[error(
        "{text:?} is not the shortest decimal of the binary64 it rounds to; write {value} or 0x{:016x}",
        value.to_bits()
    )]
    NotShortest {
        /// The text.
        text: String,
        /// The binary64 it rounds to.
        value: f64,
    },
    /// Not a decimal or `0x` integer (or out of the 128-bit range).
    #[error("{text:?} is not an integer")]
    NotInteger {
        /// The text.
        text: String,
    },
    /// A character of hex bytes that is not a hex digit.
    #[error("{digit:?} is not a hex digit")]
    HexDigit {
        /// The character.
        digit: char,
    },
    /// Hex bytes with an odd number of digits.
    #[error("odd number of hex digits ({count})")]
    OddHexDigits {
        /// How many digits.
        count: usize,
    },
}

/// Sign, significant digits (no leading or trailing zeros) and decimal exponent of a decimal
/// number written in the usual notations (`12`, `-0.5`, `1.25e-3`). `None` if it is not one (or
/// its exponent is beyond 64 bits).
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
    let point = i64::try_from(int.len())
        .ok()?
        .checked_sub(i64::try_from(lead).ok()?)?
        .checked_add(exp)?;
    Some((neg, sig, point))
}

/// Parses an exact float: `0x` + 16 hex digits (bits), or the shortest round-trip decimal.
pub fn parse_exact(text: &str) -> Result<f64, NumberError> {
    let s = text.trim();
    let text = || s.to_owned();
    if let Some(h) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        if h.len() != 16 {
            return Err(NumberError::BitsDigits { text: text() });
        }
        let bits = u64::from_str_radix(h, 16).map_err(|reason| NumberError::BadBits {
            text: text(),
            reason,
        })?;
        let v = f64::from_bits(bits);
        return if v.is_finite() {
            Ok(v)
        } else {
            Err(NumberError::NotFinite { text: text() })
        };
    }
    let Some(parts) = decimal_parts(s) else {
        return Err(NumberError::NotDecimal { text: text() });
    };
    let v: f64 = s.parse().map_err(|reason| NumberError::BadFloat {
        text: text(),
        reason,
    })?;
    if !v.is_finite() {
        return Err(NumberError::NotFinite { text: text() });
    }
    let shortest = format!("{v:e}");
    if decimal_parts(&shortest) != Some(parts) {
        return Err(NumberError::NotShortest {
            text: text(),
            value: v,
        });
    }
    Ok(v)
}

/// Parses an integer written in decimal (optionally signed) or `0x` hex.
pub fn parse_int(text: &str) -> Result<i128, NumberError> {
    let s = text.trim();
    let bad = || NumberError::NotInteger { text: s.to_owned() };
    let (neg, body) = match s.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, s),
    };
    if body.starts_with('-') {
        return Err(bad());
    }
    let v = match body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
        Some(h) => i128::from_str_radix(h, 16),
        None => body.parse::<i128>(),
    }
    .map_err(|_| bad())?;
    if neg {
        v.checked_neg().ok_or_else(bad)
    } else {
        Ok(v)
    }
}

/// Parses hex bytes: whitespace is ignored and `#` starts a comment to the end of the line, so
/// long blobs can be written as commented chunks.
pub fn parse_hex(text: &str) -> Result<Vec<u8>, NumberError> {
    let mut digits = Vec::new();
    for line in text.lines() {
        let code = line.split('#').next().unwrap_or("");
        for c in code.chars().filter(|c| !c.is_whitespace()) {
            let d = c.to_digit(16).ok_or(NumberError::HexDigit { digit: c })?;
            digits.push(d as u8);
        }
    }
    if digits.len() % 2 != 0 {
        return Err(NumberError::OddHexDigits {
            count: digits.len(),
        });
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
        assert_eq!(
            parse_exact("0.1000000000000000055511151231257827"),
            Err(NumberError::NotShortest {
                text: "0.1000000000000000055511151231257827".into(),
                value: 0.1
            })
        );
        assert_eq!(
            parse_exact("0x12").unwrap_err().to_string(),
            "\"0x12\": float bits need exactly 16 hex digits"
        );
    }

    /// Exponents and signs at the ends of their ranges are errors, never an overflow.
    #[test]
    fn extreme_numbers_are_errors() {
        for s in [
            "1e9223372036854775807",
            "0.0001e-9223372036854775808",
            "1e99999999999999999999",
        ] {
            assert!(parse_exact(s).is_err(), "{s}");
        }
        let min = "-170141183460469231731687303715884105728";
        // i128::MIN itself is out of reach: its magnitude does not fit before the sign applies.
        assert!(parse_int(min).is_err());
        assert_eq!(
            parse_int(&min[1..]),
            Err(NumberError::NotInteger {
                text: min[1..].into()
            })
        );
        assert_eq!(
            parse_int("-170141183460469231731687303715884105727"),
            Ok(-i128::MAX)
        );
        for s in [format!("-{min}"), "--5".into(), "+-5".into()] {
            assert_eq!(
                parse_int(&s),
                Err(NumberError::NotInteger { text: s.clone() }),
                "{s}"
            );
        }
        assert_eq!(parse_int("-0x10"), Ok(-16));
        assert_eq!(parse_int("+5"), Ok(5));
    }

    #[test]
    fn hex_ignores_whitespace_and_comments() {
        assert_eq!(
            parse_hex("4f4e 544c   # magic\n0200 # version\n").unwrap(),
            b"ONTL\x02\x00"
        );
        assert_eq!(
            parse_hex("4f4"),
            Err(NumberError::OddHexDigits { count: 3 })
        );
        assert_eq!(parse_hex("zz"), Err(NumberError::HexDigit { digit: 'z' }));
    }
}
