//! How a case ended ([`Status`], `spec/conformance.md` §4.3) and what one run of it produced
//! ([`CaseRun`]).

use serde_json::Value;

use crate::draw::CaseState;

/// How a case ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Every expectation held.
    Pass,
    /// An expectation did not hold.
    Fail,
    /// The testee does not support a feature or op the case needs.
    Unsupported,
    /// A protocol error, or a scenario the runner could not carry out.
    Error,
    /// The testee crashed (or, in process, panicked).
    Crash,
    /// The testee did not answer in time.
    Timeout,
}

impl Status {
    /// The name used in reports and failure lists.
    pub fn name(self) -> &'static str {
        match self {
            Status::Pass => "pass",
            Status::Fail => "fail",
            Status::Unsupported => "unsupported",
            Status::Error => "error",
            Status::Crash => "crash",
            Status::Timeout => "timeout",
        }
    }

    /// The status of a name.
    pub fn from_name(s: &str) -> Option<Self> {
        [
            Status::Pass,
            Status::Fail,
            Status::Unsupported,
            Status::Error,
            Status::Crash,
            Status::Timeout,
        ]
        .into_iter()
        .find(|x| x.name() == s)
    }
}

/// The result of running one case once.
#[derive(Debug, Clone, Default)]
pub struct CaseRun {
    /// How it ended (`None` is a pass).
    pub stop: Option<(Status, String)>,
    /// Golden outputs: label and bytes.
    pub goldens: Vec<(String, Vec<u8>)>,
    /// One line per step answered: op and a digest of the reply, for comparing runs.
    pub trace: Vec<String>,
    /// The steps lowered for `onav compile`.
    pub lowered: Vec<Value>,
    /// Bytes computed by the runner (generated, inline and edited tiles), by name.
    pub blobs: Vec<(String, Vec<u8>)>,
    /// The expected and the observed state of the first failing state or `links` expectation
    /// (`Options::pictures`), for the pictures of a traced case.
    pub pictures: Option<(CaseState, CaseState)>,
}

impl CaseRun {
    /// The status.
    pub fn status(&self) -> Status {
        self.stop.as_ref().map_or(Status::Pass, |s| s.0)
    }

    /// The message of a case that did not pass.
    pub fn message(&self) -> &str {
        self.stop.as_ref().map_or("", |s| s.1.as_str())
    }
}
