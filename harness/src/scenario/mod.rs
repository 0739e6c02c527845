//! Scenario files (`spec/conformance.md` §1): the YAML model ([`model`]), exact numbers and hex
//! ([`numbers`]), references ([`refs`]), loading ([`load`]), the load-time checks ([`check`],
//! [`anchors`]) and the feature registry ([`features`]).
//!
//! Every struct denies unknown keys. Steps are externally tagged: `- add_tile: {mesh: m, tile: a}`.
//! Numbers that feed bytes are read as their source text so that they can be checked exactly.

pub mod anchors;
pub mod build;
pub mod cache;
pub mod check;
pub mod features;
pub mod load;
pub mod model;
pub mod numbers;
pub mod query;
pub mod refs;
pub mod world;

pub use anchors::anchor_in;
pub use features::FEATURES;
pub use load::{find_files, load_compiled, load_file, load_str, Case, LoadError, LoadReason};
pub use model::*;
pub use numbers::{parse_exact, parse_hex, parse_int};

/// The text of a scenario file for tests: the class from `id`'s prefix, one spec anchor, the
/// `features` (comma separated) and the `steps` (lines `  - step: {…}`).
#[cfg(test)]
pub(crate) fn test_text(id: &str, features: &str, steps: &str) -> String {
    let class = match id.rsplit('/').next().and_then(|f| f.get(..2)) {
        Some("n_") => "reject",
        Some("i_") => "implementation-defined",
        _ => "accept",
    };
    format!(
        "schema: 1\nid: {id}\ntitle: t\nclass: {class}\nspec: [conformance.md#1.6]\n\
         features: [{features}]\nsteps:\n{steps}"
    )
}
