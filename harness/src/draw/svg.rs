//! A small SVG writer whose text depends on its input only: every number goes through [`num`]
//! (fixed decimals, no exponent, no negative zero, nothing locale dependent), attributes are
//! written in the order given, and text is escaped for XML.

use std::fmt::Write as _;

/// A number with two decimals, as SVG coordinates are written: `{:.2}` of Rust's formatter is
/// correctly rounded and locale free; `-0.00` becomes `0.00`, and what is not finite becomes
/// `0.00` (the scene clamps coordinates before they get here, so this is a last guard).
pub fn num(v: f64) -> String {
    fixed(v, 2)
}

/// `v` with `decimals` fixed decimals, as [`num`] (world coordinates in labels use 3).
pub fn fixed(v: f64, decimals: usize) -> String {
    if !v.is_finite() {
        return format!("{:.*}", decimals, 0.0);
    }
    let s = format!("{v:.decimals$}");
    if s.starts_with('-') && s[1..].bytes().all(|b| b == b'0' || b == b'.') {
        s[1..].to_owned()
    } else {
        s
    }
}

/// Escapes `&`, `<`, `>`, `"` and `'`, and drops characters XML 1.0 does not allow.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\t' | '\n' | '\r' => out.push(' '),
            c if (c as u32) < 0x20 || c == '\u{fffe}' || c == '\u{ffff}' => out.push('?'),
            c => out.push(c),
        }
    }
    out
}

/// An SVG document being written.
pub struct Svg {
    out: String,
    open: Vec<&'static str>,
}

/// An attribute value.
#[derive(Clone, Copy)]
pub enum A<'a> {
    /// A number, written by [`num`].
    N(f64),
    /// Text, escaped.
    S(&'a str),
}

impl From<f64> for A<'_> {
    fn from(v: f64) -> Self {
        A::N(v)
    }
}

impl<'a> From<&'a str> for A<'a> {
    fn from(v: &'a str) -> Self {
        A::S(v)
    }
}

impl<'a> From<&'a String> for A<'a> {
    fn from(v: &'a String) -> Self {
        A::S(v)
    }
}

fn attrs(out: &mut String, a: &[(&str, A<'_>)]) {
    for (k, v) in a {
        let _ = match v {
            A::N(x) => write!(out, " {k}=\"{}\"", num(*x)),
            A::S(s) => write!(out, " {k}=\"{}\"", escape(s)),
        };
    }
}

impl Svg {
    /// A document `w` × `h` pixels with a white background.
    pub fn new(w: f64, h: f64) -> Self {
        let mut s = Svg {
            out: String::new(),
            open: Vec::new(),
        };
        s.out
            .push_str("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        let _ = writeln!(
            s.out,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" font-family=\"sans-serif\">",
            w = num(w),
            h = num(h)
        );
        s.open.push("svg");
        s.leaf(
            "rect",
            &[
                ("width", w.into()),
                ("height", h.into()),
                ("fill", "#ffffff".into()),
            ],
        );
        s
    }

    /// A raw line (a `<defs>` block written by the caller; it must be well formed).
    pub fn raw(&mut self, s: &str) {
        self.out.push_str(s);
        self.out.push('\n');
    }

    /// An empty element.
    pub fn leaf(&mut self, name: &str, a: &[(&str, A<'_>)]) {
        self.out.push('<');
        self.out.push_str(name);
        attrs(&mut self.out, a);
        self.out.push_str("/>\n");
    }

    /// An element holding escaped text.
    pub fn text(&mut self, name: &str, a: &[(&str, A<'_>)], text: &str) {
        self.out.push('<');
        self.out.push_str(name);
        attrs(&mut self.out, a);
        let _ = writeln!(self.out, ">{}</{name}>", escape(text));
    }

    /// Opens an element (a group); [`Svg::close`] ends it.
    pub fn open(&mut self, name: &'static str, a: &[(&str, A<'_>)]) {
        self.out.push('<');
        self.out.push_str(name);
        attrs(&mut self.out, a);
        self.out.push_str(">\n");
        self.open.push(name);
    }

    /// Closes the innermost open element.
    pub fn close(&mut self) {
        if let Some(n) = self.open.pop() {
            let _ = writeln!(self.out, "</{n}>");
        }
    }

    /// The document, every element closed.
    pub fn finish(mut self) -> String {
        while !self.open.is_empty() {
            self.close();
        }
        self.out
    }
}

/// Points as an SVG `points` list.
pub fn points(p: &[[f64; 2]]) -> String {
    let mut s = String::new();
    for (i, q) in p.iter().enumerate() {
        if i > 0 {
            s.push(' ');
        }
        let _ = write!(s, "{},{}", num(q[0]), num(q[1]));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_fixed_and_never_negative_zero() {
        assert_eq!(num(1.0), "1.00");
        assert_eq!(num(-0.0), "0.00");
        assert_eq!(num(-0.001), "0.00");
        assert_eq!(num(-0.006), "-0.01");
        assert_eq!(num(1e21), "1000000000000000000000.00");
        assert_eq!(num(f64::NAN), "0.00");
        assert_eq!(num(f64::NEG_INFINITY), "0.00");
        assert_eq!(fixed(2.0006, 3), "2.001");
        assert_eq!(fixed(0.125, 2), "0.12");
    }

    #[test]
    fn text_is_escaped() {
        assert_eq!(escape("a<b & \"c\"\u{1}"), "a&lt;b &amp; &quot;c&quot;?");
        let mut s = Svg::new(10.0, 5.0);
        s.open("g", &[("id", "x&y".into())]);
        s.text("text", &[("x", 1.5.into())], "<hi>");
        let out = s.finish();
        assert!(
            out.contains("<g id=\"x&amp;y\">\n<text x=\"1.50\">&lt;hi&gt;</text>\n</g>\n</svg>\n")
        );
    }
}
