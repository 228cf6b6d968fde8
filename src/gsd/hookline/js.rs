//! The few JavaScript value rules GSD's statusline hook depends on: truthiness, `String(x)`,
//! `Number(x)`, number printing, `Math.round`, `parseInt`, and Node's POSIX `path.dirname` /
//! `path.basename`. Each is what the hook's output hangs on, so each follows the language's
//! definition rather than Rust's nearest equivalent.

use crate::gsd::compat::{is_js_line_end, is_js_space, js_trim};
use serde_json::Value;

/// JavaScript truthiness of a JSON value (`undefined` is `None`).
pub fn truthy(v: Option<&Value>) -> bool {
    match v {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(Value::Number(n)) => n.as_f64().is_some_and(|f| f != 0.0 && !f.is_nan()),
        Some(Value::String(s)) => !s.is_empty(),
        Some(Value::Array(_)) | Some(Value::Object(_)) => true,
    }
}

/// `String(x)` (and a template literal's `${x}`).
pub fn to_string(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => number_to_string(n.as_f64().unwrap_or(f64::NAN)),
        Value::String(s) => s.clone(),
        Value::Array(items) => items
            .iter()
            .map(|i| match i {
                Value::Null => String::new(),
                other => to_string(other),
            })
            .collect::<Vec<_>>()
            .join(","),
        Value::Object(_) => "[object Object]".into(),
    }
}

/// `Number(x)`.
pub fn to_number(v: &Value) -> f64 {
    match v {
        Value::Null => 0.0,
        Value::Bool(b) => f64::from(u8::from(*b)),
        Value::Number(n) => n.as_f64().unwrap_or(f64::NAN),
        Value::String(s) => string_to_number(s),
        Value::Array(items) => match items.as_slice() {
            [] => 0.0,
            [one] => string_to_number(&to_string(one)),
            _ => f64::NAN,
        },
        Value::Object(_) => f64::NAN,
    }
}

/// `Number(string)`: surrounding white space ignored, "" is 0, decimal literals, `Infinity`, and
/// `0x` / `0o` / `0b` integers; anything else is NaN.
pub fn string_to_number(s: &str) -> f64 {
    let t = js_trim(s);
    if t.is_empty() {
        return 0.0;
    }
    let radix = |prefix: [&str; 2], radix: u32| {
        prefix.iter().find_map(|p| t.strip_prefix(p)).map(|digits| {
            if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
                f64::NAN
            } else {
                digits.chars().fold(0.0, |acc, c| {
                    acc * f64::from(radix) + f64::from(c.to_digit(radix).unwrap_or(0))
                })
            }
        })
    };
    if let Some(n) = radix(["0x", "0X"], 16)
        .or_else(|| radix(["0o", "0O"], 8))
        .or_else(|| radix(["0b", "0B"], 2))
    {
        return n;
    }
    let (sign, body) = match t.as_bytes()[0] {
        b'-' => (-1.0, &t[1..]),
        b'+' => (1.0, &t[1..]),
        _ => (1.0, t),
    };
    if body == "Infinity" {
        return sign * f64::INFINITY;
    }
    // Rust also reads `inf`, `nan` and the like; JavaScript's grammar is digits, one point,
    // an exponent.
    let decimal = body
        .bytes()
        .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'E' | b'+' | b'-'))
        && body.bytes().any(|b| b.is_ascii_digit())
        && !body.starts_with(['e', 'E', '+', '-']);
    if !decimal {
        return f64::NAN;
    }
    body.parse::<f64>().map_or(f64::NAN, |f| sign * f)
}

/// `Number.prototype.toString()`: the shortest digits that read back as the same number, plain
/// below 1e21 and above 1e-7, else in exponent form (`1e+21`, `1.5e-7`).
pub fn number_to_string(x: f64) -> String {
    if x.is_nan() {
        return "NaN".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "Infinity" } else { "-Infinity" }.into();
    }
    if x == 0.0 {
        return "0".into();
    }
    let sign = if x < 0.0 { "-" } else { "" };
    // `{:e}` prints the shortest round-trip digits: "1.2345e3".
    let sci = format!("{:e}", x.abs());
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let k = digits.len() as i64;
    let n = exp.parse::<i64>().unwrap_or(0) + 1; // the decimal point sits after n digits
    let body = if k <= n && n <= 21 {
        format!("{digits}{}", "0".repeat((n - k) as usize))
    } else if 0 < n && n <= 21 {
        format!("{}.{}", &digits[..n as usize], &digits[n as usize..])
    } else if -6 < n && n <= 0 {
        format!("0.{}{digits}", "0".repeat((-n) as usize))
    } else {
        let e = n - 1;
        let e = if e >= 0 {
            format!("+{e}")
        } else {
            e.to_string()
        };
        if k == 1 {
            format!("{digits}e{e}")
        } else {
            format!("{}.{}e{e}", &digits[..1], &digits[1..])
        }
    };
    format!("{sign}{body}")
}

/// `Math.round`: halves go up (towards +∞).
pub fn round(x: f64) -> f64 {
    if !x.is_finite() {
        return x;
    }
    let f = x.floor();
    if x - f >= 0.5 { f + 1.0 } else { f }
}

/// `Math.max(a, b)` / `Math.min(a, b)`: NaN wins.
pub fn max(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else {
        a.max(b)
    }
}

/// See [`max`].
pub fn min(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else {
        a.min(b)
    }
}

/// `parseInt(s, 10)`: leading white space, a sign, then as many digits as there are; NaN when
/// there are none.
pub fn parse_int(s: &str) -> f64 {
    let t = s.trim_start_matches(is_js_space);
    let (sign, body) = match t.as_bytes().first() {
        Some(b'-') => (-1.0, &t[1..]),
        Some(b'+') => (1.0, &t[1..]),
        _ => (1.0, t),
    };
    let digits: &str = &body[..body
        .bytes()
        .position(|b| !b.is_ascii_digit())
        .unwrap_or(body.len())];
    if digits.is_empty() {
        return f64::NAN;
    }
    sign * digits
        .bytes()
        .fold(0.0, |acc, b| acc * 10.0 + f64::from(b - b'0'))
}

/// `x.toFixed(1)` for a finite `x` below 1e21: the nearest tenth, a tie going up.
pub fn to_fixed_1(x: f64) -> String {
    let sign = if x < 0.0 { "-" } else { "" };
    let a = x.abs();
    // The exact decimal expansion of a double is finite; 60 places show every digit that can
    // make a tie at the second decimal.
    let exact = format!("{a:.60}");
    let (int, frac) = exact.split_once('.').unwrap_or((&exact, ""));
    let tie = frac.as_bytes().get(1) == Some(&b'5') && frac[2..].bytes().all(|b| b == b'0');
    let rounded = if tie {
        // Round up by hand: the value is exactly int.d5.
        let tenths: u128 = format!("{int}{}", &frac[..1]).parse().unwrap_or(0) + 1;
        format!("{}.{}", tenths / 10, tenths % 10)
    } else {
        format!("{a:.1}")
    };
    if rounded.bytes().all(|b| b == b'0' || b == b'.') {
        rounded
    } else {
        format!("{sign}{rounded}")
    }
}

/// The string length JavaScript sees: UTF-16 code units.
pub fn utf16_len(s: &str) -> usize {
    s.chars().map(char::len_utf16).sum()
}

/// Node's `path.posix.dirname`.
pub fn dirname(path: &str) -> String {
    let b = path.as_bytes();
    if b.is_empty() {
        return ".".into();
    }
    let has_root = b[0] == b'/';
    let mut end = None;
    let mut matched_slash = true;
    for i in (1..b.len()).rev() {
        if b[i] == b'/' {
            if !matched_slash {
                end = Some(i);
                break;
            }
        } else {
            matched_slash = false;
        }
    }
    match end {
        None => if has_root { "/" } else { "." }.into(),
        Some(1) if has_root => "//".into(),
        Some(e) => path[..e].to_string(),
    }
}

/// Node's `path.posix.basename` (no extension argument).
pub fn basename(path: &str) -> String {
    let b = path.as_bytes();
    let mut start = 0;
    let mut end = None;
    let mut matched_slash = true;
    for i in (0..b.len()).rev() {
        if b[i] == b'/' {
            if !matched_slash {
                start = i + 1;
                break;
            }
        } else if end.is_none() {
            matched_slash = false;
            end = Some(i + 1);
        }
    }
    match end {
        None => String::new(),
        Some(e) => path[start..e].to_string(),
    }
}

/// `s.replace(/[-+].*$/, '')`: cut at the first `-` or `+` after which no line ends.
pub fn cut_prerelease(s: &str) -> &str {
    for (i, c) in s.char_indices() {
        if (c == '-' || c == '+') && !s[i + 1..].chars().any(is_js_line_end) {
            return &s[..i];
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_print_as_javascript_prints_them() {
        for (x, s) in [
            (50.0, "50"),
            (12.25, "12.25"),
            (-5.0, "-5"),
            (1e21, "1e+21"),
            (1.5e-7, "1.5e-7"),
            (0.000001, "0.000001"),
            (123456789012345680000.0, "123456789012345680000"),
            (0.1 + 0.2, "0.30000000000000004"),
        ] {
            assert_eq!(number_to_string(x), s, "{x}");
        }
    }

    #[test]
    fn string_numbers() {
        assert_eq!(string_to_number(" 50 "), 50.0);
        assert_eq!(string_to_number(""), 0.0);
        assert_eq!(string_to_number("0x10"), 16.0);
        assert!(string_to_number("inf").is_nan());
        assert!(string_to_number("5px").is_nan());
        assert_eq!(string_to_number("-Infinity"), f64::NEG_INFINITY);
        assert_eq!(string_to_number(".5"), 0.5);
    }

    #[test]
    fn rounding_and_fixed() {
        assert_eq!(round(2.5), 3.0);
        assert_eq!(round(-2.5), -2.0);
        assert_eq!(to_fixed_1(1.25), "1.3");
        assert_eq!(to_fixed_1(0.9996), "1.0");
        assert_eq!(to_fixed_1(1.2345), "1.2");
        assert_eq!(parse_int(" 500000x"), 500000.0);
        assert!(parse_int("abc").is_nan());
    }

    #[test]
    fn paths_as_node_splits_them() {
        assert_eq!(dirname("/a/b/"), "/a");
        assert_eq!(dirname("/a//b"), "/a/");
        assert_eq!(dirname("a"), ".");
        assert_eq!(dirname("/"), "/");
        assert_eq!(dirname("//a"), "//");
        assert_eq!(basename("/a/b/"), "b");
        assert_eq!(basename("/"), "");
        assert_eq!(basename("rel/proj"), "proj");
        assert_eq!(cut_prerelease("2.0.0-beta+x"), "2.0.0");
    }
}
