//! Scenario files (`spec/conformance.md` §1): the YAML model ([`model`]), exact numbers and hex
//! ([`numbers`]), references ([`refs`]), loading ([`load`]), the load-time checks ([`check`],
//! [`anchors`]) and the feature registry ([`features`]).
//!
//! Every struct denies unknown keys. Steps are externally tagged: `- add_tile: {mesh: m, tile: a}`.
//! Numbers that feed bytes are read as their source text so that they can be checked exactly.

pub mod anchors;
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
