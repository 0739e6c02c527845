//! Mutant schemata: every mutant of one source file written into that file at once, each behind
//! a run-time switch (`__schemata::on(id)`), so one build holds all of them.
//!
//! A mutant is placed at the syntax node cargo-mutants named (by its span) and only ever adds
//! text around the original, which stays in place as the branch taken when the mutant is off:
//! - a function value: the body `{ … }` becomes `{ if on(a) { A } else if … else { … } }`;
//! - an operator (binary, compound assignment, unary) or a match guard replaced by `true` /
//!   `false`: the enclosing expression `E` becomes `(if on(a) { E_a } else … else { E })`,
//!   where `E_a` is E's original text with that one token or guard replaced. The mutated copies
//!   hold the original text, so mutants nested inside E are instrumented once (in the `else`
//!   branch) and the file grows linearly with nesting depth;
//! - a deleted match arm: the arm gets the guard `!on(a)` (`!on(a) && (g)` with a guard `g`).
//!
//! A mutant is reached exactly when its `on` is called: for an arm, when its pattern matched.
//! Mutants in const contexts (`const fn`, consts, statics, array lengths) cannot call `on` and
//! are left out, as are mutants whose span matches no node (inside macro calls).

use std::collections::BTreeMap;

use proc_macro2::{LineColumn, Span};
use syn::spanned::Spanned;
use syn::visit::Visit;

/// One mutant as listed by `cargo mutants --list --json`.
#[derive(Debug, Clone)]
pub struct Mutant {
    /// Our number, 1 … n (0 is "no mutant").
    pub id: u32,
    /// cargo-mutants' name, e.g. `impl/onav/src/x.rs:10:5: replace + with - in f`.
    pub name: String,
    /// Path from the repository root.
    pub file: String,
    /// `FnValue`, `BinaryOperator`, `UnaryOperator`, `MatchArm`, `MatchArmGuard`, …
    pub genre: String,
    /// 1-based line and 1-based column of the span's start.
    pub start: (usize, usize),
    /// The text that replaces the span.
    pub replacement: String,
}

/// Why a mutant is not in the schemata.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Left {
    /// In a const context: `on` cannot be called there.
    Const,
    /// Its span names no node this rewriter knows (inside a macro call, or another genre).
    Unplaced,
    /// A function value of a function returning `impl Trait`: the replacement has another
    /// concrete type than the body, so both cannot stand in one function.
    ImplTrait,
}

/// The rewritten file and where each placed mutant's mutated text landed in it.
pub struct Rewritten {
    pub text: String,
    /// Per placed mutant id, the byte range of its mutated branch in `text`.
    pub regions: BTreeMap<u32, (usize, usize)>,
    pub left: BTreeMap<u32, Left>,
}

/// Byte offsets of line starts, to turn (line, column in chars) into byte offsets.
struct Lines<'a> {
    src: &'a str,
    starts: Vec<usize>,
}

impl<'a> Lines<'a> {
    fn new(src: &'a str) -> Self {
        let mut starts = vec![0];
        starts.extend(src.match_indices('\n').map(|(i, _)| i + 1));
        Self { src, starts }
    }

    /// Byte offset of 1-based `line`, 0-based char `col`.
    fn byte(&self, line: usize, col: usize) -> usize {
        let s = self.starts[line - 1];
        self.src[s..]
            .char_indices()
            .nth(col)
            .map_or(self.src.len(), |(i, _)| s + i)
    }

    fn at(&self, lc: LineColumn) -> usize {
        self.byte(lc.line, lc.column)
    }

    fn range(&self, span: Span) -> (usize, usize) {
        (self.at(span.start()), self.at(span.end()))
    }
}

/// A node a mutant can be placed at, in byte offsets of the original file.
#[derive(Debug, Clone, Copy)]
enum Node {
    /// A function body block `[s, e)`.
    Body { s: usize, e: usize },
    /// An expression `[s, e)` with a token or sub-expression `[ts, te)` that mutants replace.
    Expr {
        s: usize,
        e: usize,
        ts: usize,
        te: usize,
    },
    /// A field of a struct expression with a base (`S { a: x, ..base }`): its value `[s, e)`
    /// (for a shorthand `a`, the name, and `short` is true), the member's name `[ms, me)` and
    /// the base expression `[bs, be)`. Deleting the field takes it from the base.
    Field {
        s: usize,
        e: usize,
        short: bool,
        ms: usize,
        me: usize,
        bs: usize,
        be: usize,
    },
    /// A match arm: its pattern ends at `pat_end`; its guard, if any, is `[gs, ge)`.
    Arm {
        pat_end: usize,
        guard: Option<(usize, usize)>,
    },
}

/// Nodes by the (line, column) cargo-mutants gives for them: keyed by genre class and the start
/// of the span it reports (1-based line, 1-based column).
#[derive(Default)]
struct Finder<'a> {
    lines: Option<&'a Lines<'a>>,
    const_depth: usize,
    nodes: BTreeMap<(&'static str, usize, usize), (Node, bool)>,
    /// Bodies of functions returning `impl Trait` inside another type, by key.
    opaque: std::collections::BTreeSet<(usize, usize)>,
    /// Bodies of functions returning `impl Trait` itself, by key, with the boxed trait object
    /// type both branches are given (`Box<dyn Trait + '_>` is itself an `impl Trait`).
    boxed: BTreeMap<(usize, usize), String>,
}

impl Finder<'_> {
    fn key(lc: LineColumn) -> (usize, usize) {
        (lc.line, lc.column + 1)
    }

    fn add(&mut self, class: &'static str, at: LineColumn, node: Node) {
        let (l, c) = Self::key(at);
        let in_const = self.const_depth > 0;
        self.nodes.insert((class, l, c), (node, in_const));
    }

    fn lines(&self) -> &Lines<'_> {
        self.lines.expect("set")
    }

    /// Visits with the const-context depth raised (no switch may be called there).
    fn in_const(&mut self, f: impl FnOnce(&mut Self)) {
        self.const_depth += 1;
        f(self);
        self.const_depth -= 1;
    }

    fn body(&mut self, block: &syn::Block, sig: &syn::Signature) {
        let is_const = sig.constness.is_some();
        if let (syn::ReturnType::Type(_, t), Some(first)) = (&sig.output, block.stmts.first()) {
            use quote::ToTokens;
            let key = Self::key(first.span().start());
            if let syn::Type::ImplTrait(it) = &**t {
                let bounds = it.bounds.to_token_stream().to_string();
                let lifetime = it
                    .bounds
                    .iter()
                    .any(|b| matches!(b, syn::TypeParamBound::Lifetime(_)));
                // A trait object without a lifetime bound would be `'static`.
                let extra = if lifetime { "" } else { " + '_" };
                self.boxed
                    .insert(key, format!("::std::boxed::Box<dyn {bounds}{extra}>"));
            } else if t.to_token_stream().to_string().contains("impl") {
                self.opaque.insert(key);
            }
        }
        let (s, e) = self.lines().range(block.span());
        self.const_depth += usize::from(is_const);
        // cargo-mutants names a function value by the span of the body's statements.
        if let Some(first) = block.stmts.first() {
            self.add("body", first.span().start(), Node::Body { s, e });
        }
        self.visit_block(block);
        self.const_depth -= usize::from(is_const);
    }
}

impl<'ast> Visit<'ast> for Finder<'_> {
    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        self.body(&f.block, &f.sig);
    }

    fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
        self.body(&f.block, &f.sig);
    }

    fn visit_trait_item_fn(&mut self, f: &'ast syn::TraitItemFn) {
        if let Some(b) = &f.default {
            self.body(b, &f.sig);
        }
    }

    fn visit_item_const(&mut self, i: &'ast syn::ItemConst) {
        self.in_const(|v| syn::visit::visit_item_const(v, i));
    }

    fn visit_item_static(&mut self, i: &'ast syn::ItemStatic) {
        self.in_const(|v| syn::visit::visit_item_static(v, i));
    }

    fn visit_impl_item_const(&mut self, i: &'ast syn::ImplItemConst) {
        self.in_const(|v| syn::visit::visit_impl_item_const(v, i));
    }

    fn visit_trait_item_const(&mut self, i: &'ast syn::TraitItemConst) {
        self.in_const(|v| syn::visit::visit_trait_item_const(v, i));
    }

    fn visit_type_array(&mut self, t: &'ast syn::TypeArray) {
        self.visit_type(&t.elem);
        self.in_const(|v| v.visit_expr(&t.len));
    }

    fn visit_expr_repeat(&mut self, r: &'ast syn::ExprRepeat) {
        self.visit_expr(&r.expr);
        self.in_const(|v| v.visit_expr(&r.len));
    }

    fn visit_expr_const(&mut self, c: &'ast syn::ExprConst) {
        self.in_const(|v| syn::visit::visit_expr_const(v, c));
    }

    fn visit_variant(&mut self, x: &'ast syn::Variant) {
        self.in_const(|v| syn::visit::visit_variant(v, x));
    }

    fn visit_generic_argument(&mut self, g: &'ast syn::GenericArgument) {
        let is_const = matches!(g, syn::GenericArgument::Const(_));
        self.const_depth += usize::from(is_const);
        syn::visit::visit_generic_argument(self, g);
        self.const_depth -= usize::from(is_const);
    }

    fn visit_expr_binary(&mut self, b: &'ast syn::ExprBinary) {
        let (s, e) = self.lines().range(b.span());
        let (ts, te) = self.lines().range(b.op.span());
        self.add("op", b.op.span().start(), Node::Expr { s, e, ts, te });
        syn::visit::visit_expr_binary(self, b);
    }

    fn visit_expr_unary(&mut self, u: &'ast syn::ExprUnary) {
        let (s, e) = self.lines().range(u.span());
        let (ts, te) = self.lines().range(u.op.span());
        self.add("op", u.op.span().start(), Node::Expr { s, e, ts, te });
        syn::visit::visit_expr_unary(self, u);
    }

    fn visit_expr_struct(&mut self, x: &'ast syn::ExprStruct) {
        if let Some(base) = &x.rest {
            let (bs, be) = self.lines().range(base.span());
            for f in &x.fields {
                let (s, e) = self.lines().range(f.expr.span());
                let (ms, me) = self.lines().range(f.member.span());
                let node = Node::Field {
                    s,
                    e,
                    short: f.colon_token.is_none(),
                    ms,
                    me,
                    bs,
                    be,
                };
                self.add("field", f.member.span().start(), node);
            }
        }
        syn::visit::visit_expr_struct(self, x);
    }

    fn visit_arm(&mut self, a: &'ast syn::Arm) {
        let pat_end = self.lines().at(a.pat.span().end());
        let guard = a.guard.as_ref().map(|(_, g)| self.lines().range(g.span()));
        // cargo-mutants names an arm by its pattern's start (attributes excluded).
        self.add("arm", a.pat.span().start(), Node::Arm { pat_end, guard });
        if let Some((_, g)) = &a.guard {
            let (s, e) = self.lines().range(g.span());
            self.add("guard", g.span().start(), Node::Expr { s, e, ts: s, te: e });
        }
        syn::visit::visit_arm(self, a);
    }
}

fn class_of(genre: &str) -> Option<&'static str> {
    Some(match genre {
        "FnValue" => "body",
        "BinaryOperator" | "UnaryOperator" => "op",
        "MatchArm" => "arm",
        "MatchArmGuard" => "guard",
        "StructField" => "field",
        _ => return None,
    })
}

/// One piece of text inserted at an offset of the original file, with its sort key (so that
/// wrappers nest: at one offset, closing texts before opening ones; openings outermost first,
/// closings innermost first).
struct Insert {
    at: usize,
    key: (u8, i64, i64),
    text: String,
    /// The mutant whose mutated branch this text holds, and where in `text` that branch is.
    branch: Vec<(u32, usize, usize)>,
}

/// Wraps `[s, e)` of the original: `open` (with its mutants' branches) before it, `close` after
/// it, nesting with the other wrappers by span length and then `rank`.
fn wrap(
    inserts: &mut Vec<Insert>,
    (s, e): (usize, usize),
    rank: i64,
    (open, branch): (String, Vec<(u32, usize, usize)>),
    close: String,
) {
    let len = (e - s) as i64;
    inserts.push(Insert {
        at: s,
        key: (1, -len, rank),
        text: open,
        branch,
    });
    inserts.push(Insert {
        at: e,
        key: (0, len, -rank),
        text: close,
        branch: Vec::new(),
    });
}

/// Rewrites `src` (the file `mutants` all belong to) with every mutant that can be placed.
/// `skip` are mutants known not to compile (left out as unviable).
pub fn rewrite(
    src: &str,
    mutants: &[&Mutant],
    skip: &dyn Fn(u32) -> bool,
) -> Result<Rewritten, syn::Error> {
    let file = syn::parse_file(src)?;
    let lines = Lines::new(src);
    let mut finder = Finder {
        lines: Some(&lines),
        ..Default::default()
    };
    finder.visit_file(&file);

    let mut left = BTreeMap::new();
    // Mutants per node, in id order.
    let mut per_node: BTreeMap<(&'static str, usize, usize), Vec<&Mutant>> = BTreeMap::new();
    for m in mutants {
        let Some(class) = class_of(&m.genre) else {
            left.insert(m.id, Left::Unplaced);
            continue;
        };
        let key = (class, m.start.0, m.start.1);
        match finder.nodes.get(&key) {
            None => {
                left.insert(m.id, Left::Unplaced);
            }
            Some((_, true)) => {
                left.insert(m.id, Left::Const);
            }
            Some(_) if class == "body" && finder.opaque.contains(&m.start) => {
                left.insert(m.id, Left::ImplTrait);
            }
            Some((_, false)) if skip(m.id) => {}
            Some((_, false)) => per_node.entry(key).or_default().push(m),
        }
    }

    let on = |id: u32| format!("crate::__schemata::on({id})");
    let mut inserts = Vec::new();
    for (key, ms) in &per_node {
        let (node, _) = finder.nodes[key];
        // Rank: for equal spans, a guard wraps its own operator mutants.
        let rank = i64::from(key.0 != "guard");
        match node {
            Node::Body { s, e } => {
                let boxed = finder.boxed.get(&(key.1, key.2));
                let mut text = String::from("{ ");
                let mut branch = Vec::new();
                for m in ms {
                    text.push_str(&format!("if {} ", on(m.id)));
                    let b0 = text.len();
                    // cargo-mutants gives the expression that replaces the body's statements.
                    match boxed {
                        Some(ty) => text.push_str(&format!(
                            "{{ ::std::boxed::Box::new({}) as {ty} }}",
                            m.replacement
                        )),
                        None => text.push_str(&format!("{{ {} }}", m.replacement)),
                    }
                    branch.push((m.id, b0, text.len()));
                    text.push_str(" else ");
                }
                let close = match boxed {
                    Some(ty) => {
                        text.push_str("{ ::std::boxed::Box::new(");
                        format!(") as {ty} }} }}")
                    }
                    None => " }".to_string(),
                };
                wrap(&mut inserts, (s, e), rank, (text, branch), close);
            }
            Node::Expr { s, e, ts, te } => {
                let mut text = String::from("(");
                let mut branch = Vec::new();
                for m in ms {
                    text.push_str(&format!("if {} {{ ", on(m.id)));
                    let b0 = text.len();
                    text.push_str(&src[s..ts]);
                    text.push_str(&m.replacement);
                    text.push_str(&src[te..e]);
                    branch.push((m.id, b0, text.len()));
                    text.push_str(" } else ");
                }
                text.push_str("{ ");
                wrap(&mut inserts, (s, e), rank, (text, branch), " })".into());
            }
            Node::Field {
                s,
                e,
                short,
                ms: m0,
                me: m1,
                bs,
                be,
            } => {
                let m = ms[0];
                let name = &src[m0..m1];
                let taken = format!("({}).{name}", &src[bs..be]);
                let mut text = String::new();
                if short {
                    text.push_str(name);
                    text.push_str(": ");
                }
                text.push_str(&format!("(if {} ", on(m.id)));
                let b0 = text.len();
                text.push_str(&format!("{{ {taken} }}"));
                let b1 = text.len();
                text.push_str(" else { ");
                let len = (e - s) as i64;
                inserts.push(Insert {
                    at: s,
                    key: (1, -len, rank),
                    text,
                    branch: vec![(m.id, b0, b1)],
                });
                inserts.push(Insert {
                    at: e,
                    key: (0, len, -rank),
                    text: " })".into(),
                    branch: Vec::new(),
                });
            }
            Node::Arm { pat_end, guard } => {
                let m = ms[0];
                match guard {
                    None => inserts.push(Insert {
                        at: pat_end,
                        key: (1, 0, 0),
                        text: format!(" if !{}", on(m.id)),
                        branch: vec![(m.id, 0, 0)],
                    }),
                    // Rank −1: outside a guard replacement of the same span (rank 0).
                    Some(g) => wrap(
                        &mut inserts,
                        g,
                        -1,
                        (format!("!{} && (", on(m.id)), vec![(m.id, 0, 0)]),
                        ")".into(),
                    ),
                }
            }
        }
    }
    inserts.sort_by_key(|i| (i.at, i.key));

    let mut text = String::with_capacity(src.len() * 2);
    let mut regions = BTreeMap::new();
    let mut from = 0;
    for ins in &inserts {
        text.push_str(&src[from..ins.at]);
        from = ins.at;
        let base = text.len();
        text.push_str(&ins.text);
        for &(id, b0, b1) in &ins.branch {
            // An arm's whole guard insertion is its region.
            let (r0, r1) = if b1 > b0 {
                (base + b0, base + b1)
            } else {
                (base, text.len())
            };
            regions.insert(id, (r0, r1));
        }
    }
    text.push_str(&src[from..]);
    Ok(Rewritten {
        text,
        regions,
        left,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(id: u32, genre: &str, start: (usize, usize), replacement: &str) -> Mutant {
        Mutant {
            id,
            name: format!("m{id}"),
            file: "x.rs".into(),
            genre: genre.into(),
            start,
            replacement: replacement.into(),
        }
    }

    const SRC: &str = "fn f(a: u32, b: u32) -> u32 {\n    let c = a + b * 2;\n    match c {\n        0 => 1,\n        n if n > 3 => !n,\n        _ => c,\n    }\n}\nconst K: usize = 2 + 3;\nfn g(v: &[u8]) -> impl Iterator<Item = &u8> {\n    v.iter()\n}\nfn h() -> Option<impl Iterator<Item = u8>> {\n    None::<std::iter::Empty<u8>>\n}\nfn k(b: u8) -> S {\n    S { a: 1, b, ..S::default() }\n}\n";

    #[test]
    fn every_genre_is_wrapped_and_the_original_stays_in_the_else_branch() {
        let ms = [
            m(1, "FnValue", (2, 5), "0"),
            m(2, "BinaryOperator", (2, 15), "-"),
            m(3, "BinaryOperator", (2, 19), "+"),
            m(4, "MatchArm", (4, 9), ""),
            m(5, "MatchArmGuard", (5, 14), "false"),
            m(6, "BinaryOperator", (5, 16), "<"),
            m(7, "UnaryOperator", (5, 23), ""),
            m(8, "BinaryOperator", (9, 20), "-"),
            m(9, "StructField", (1, 1), ""),
            m(10, "FnValue", (11, 5), "::std::iter::empty()"),
            m(11, "FnValue", (14, 5), "None"),
            m(12, "StructField", (17, 9), ""),
            m(13, "StructField", (17, 15), ""),
        ];
        let refs: Vec<&Mutant> = ms.iter().collect();
        let r = rewrite(SRC, &refs, &|id| id == 3).unwrap();
        let on = |i: u32| format!("crate::__schemata::on({i})");
        let t = &r.text;
        syn::parse_file(t).expect("the rewritten file parses");
        assert!(t.contains(&format!("if {} {{ 0 }} else {{", on(1))), "{t}");
        // The outer operator's mutated copy holds the original inner text.
        assert!(
            t.contains(&format!(
                "(if {} {{ a - b * 2 }} else {{ a + b * 2 }})",
                on(2)
            )),
            "{t}"
        );
        assert!(t.contains(&format!("0 if !{} => 1", on(4))), "{t}");
        assert!(
            t.contains(&format!(
                "if {} {{ false }} else {{ (if {} {{ n < 3 }} else {{ n > 3 }}) }}",
                on(5),
                on(6)
            )),
            "{t}"
        );
        assert!(
            t.contains(&format!("(if {} {{ n }} else {{ !n }})", on(7))),
            "{t}"
        );
        // Skipped (unviable), const context, unknown genre.
        assert!(!t.contains(&on(3)));
        assert_eq!(r.left.get(&8), Some(&Left::Const));
        assert_eq!(r.left.get(&9), Some(&Left::Unplaced));
        // A deleted field is taken from the base; a shorthand field gets its name.
        assert!(
            t.contains(&format!(
                "S {{ a: (if {} {{ (S::default()).a }} else {{ 1 }}), b: (if {} {{ (S::default()).b }} else {{ b }}), ..S::default() }}",
                on(12),
                on(13)
            )),
            "{t}"
        );
        assert_eq!(r.left.get(&11), Some(&Left::ImplTrait));
        // Both branches of an `impl Trait` function are one boxed trait object type.
        let ty = "::std::boxed::Box<dyn Iterator < Item = & u8 > + '_>";
        assert!(
            t.contains(&format!(
                "{{ if {} {{ ::std::boxed::Box::new(::std::iter::empty()) as {ty} }} else {{ ::std::boxed::Box::new({{\n    v.iter()\n}}) as {ty} }} }}",
                on(10)
            )),
            "{t}"
        );
        // A deleted arm with a guard is guarded outside the guard's own mutants.
        let arm = [
            m(14, "MatchArm", (5, 9), ""),
            m(5, "MatchArmGuard", (5, 14), "false"),
        ];
        let refs: Vec<&Mutant> = arm.iter().collect();
        let g = rewrite(SRC, &refs, &|_| false).unwrap().text;
        syn::parse_file(&g).expect("the rewritten file parses");
        assert!(
            g.contains(&format!(
                "n if !{} && ((if {} {{ false }} else {{ n > 3 }})) =>",
                on(14),
                on(5)
            )),
            "{g}"
        );
        // A region is the mutated branch's text.
        let (a, b) = r.regions[&2];
        assert_eq!(&t[a..b], "a - b * 2");
    }
}
