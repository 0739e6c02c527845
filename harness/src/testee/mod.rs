//! Implementations behind the testee protocol: the in-process [`reference`], the testee side
//! that serves a backend on stdin/stdout ([`server`]), the runner's client of a testee
//! subprocess ([`client`]) and deliberately broken backends for the harness's self-tests
//! ([`mutants`]).

pub mod client;
pub mod mutants;
pub mod reference;
pub mod server;
