//! onav files for people and patches: the one structural decoder ([`decode`]), annotated decodes
//! ([`inspect`]), structural differences ([`diff`]) and byte edits by field path ([`patch`]).

pub mod decode;
pub mod diff;
pub mod inspect;
pub mod patch;
