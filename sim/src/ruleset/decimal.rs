//! Numbers in data files, read once into the sim's fixed point.
//!
//! A ruleset or scenario may write `0.8`, `"0.8"` or `1`. A decimal string is converted exactly
//! (rounded to the nearest 1/65536); a TOML float literal goes through the TOML parser's binary
//! value and is rounded to the nearest 1/65536, which is deterministic on every machine and
//! agrees with the decimal for every value a data file writes. No arithmetic is ever done on
//! the parsed float: it is a carrier from the text to [`Fx`], nothing more.

use crate::position::Fx;
use serde::{Deserialize, Serialize};

/// A number read from a data file, already in fixed point.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "toml::Value", into = "String")]
pub struct Decimal(pub Fx);

impl From<Decimal> for String {
    fn from(d: Decimal) -> String {
        d.0.to_string()
    }
}

impl TryFrom<toml::Value> for Decimal {
    type Error = String;

    fn try_from(v: toml::Value) -> Result<Decimal, String> {
        match v {
            toml::Value::Integer(i) => Fx::checked_from_num(i)
                .map(Decimal)
                .ok_or_else(|| format!("{i} is out of range")),
            toml::Value::Float(f) => Fx::checked_from_num(f)
                .map(Decimal)
                .ok_or_else(|| format!("{f} is out of range or not a number")),
            toml::Value::String(s) => parse_decimal(&s).map(Decimal),
            other => Err(format!("expected a number, found {}", other.type_str())),
        }
    }
}

/// Parses `[-]digits[.digits]` exactly into [`Fx`], rounding to the nearest 1/65536.
pub fn parse_decimal(s: &str) -> Result<Fx, String> {
    let t = s.trim();
    let (neg, body) = match t.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, t),
    };
    let (int_part, frac_part) = body.split_once('.').unwrap_or((body, ""));
    let digits_ok = |p: &str| p.bytes().all(|b| b.is_ascii_digit());
    if int_part.is_empty() && frac_part.is_empty() || !digits_ok(int_part) || !digits_ok(frac_part)
    {
        return Err(format!("`{s}` is not a decimal number"));
    }
    let whole: i64 = if int_part.is_empty() {
        0
    } else {
        int_part
            .parse()
            .map_err(|_| format!("`{s}` is out of range"))?
    };
    // Fraction: keep up to 18 digits, scale to 16 fraction bits with rounding.
    let frac_digits = &frac_part[..frac_part.len().min(18)];
    let mut num: i128 = 0;
    let mut den: i128 = 1;
    for b in frac_digits.bytes() {
        num = num * 10 + i128::from(b - b'0');
        den *= 10;
    }
    let frac_bits = ((num << 16) + den / 2) / den;
    let bits = (i128::from(whole) << 16) + frac_bits;
    let bits = if neg { -bits } else { bits };
    i64::try_from(bits)
        .map(Fx::from_bits)
        .map_err(|_| format!("`{s}` is out of range"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::position::{fx, fx_ratio};

    #[test]
    fn decimals_parse_exactly() {
        assert_eq!(parse_decimal("1").unwrap(), fx(1));
        assert_eq!(parse_decimal("0.5").unwrap(), fx_ratio(1, 2));
        assert_eq!(parse_decimal("-2.25").unwrap(), -fx_ratio(9, 4));
        assert_eq!(parse_decimal("0.7").unwrap().to_bits(), 45875);
        assert!(parse_decimal("abc").is_err());
        assert!(parse_decimal(".").is_err());
    }

    #[test]
    fn float_literals_agree_with_decimal_strings() {
        for s in ["0.2", "0.8", "0.96", "1.35", "0.39", "0.7", "1.43", "2.0"] {
            let v: toml::Value =
                toml::from_str::<toml::Table>(&format!("v = {s}")).unwrap()["v"].clone();
            assert_eq!(
                Decimal::try_from(v).unwrap().0,
                parse_decimal(s).unwrap(),
                "{s}"
            );
        }
    }
}
