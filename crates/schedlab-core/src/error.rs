//! Errors are values: every bad input reachable from a scenario comes back as an [`Error`] whose
//! message says what to change, never as a panic.

use std::fmt;

/// Everything that can go wrong between a scenario and its results.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Error {
    /// A machine description that cannot exist (no CPUs, a duplicate CPU id, an empty OPP table...).
    Topology(String),
    /// A kernel configuration, patch or variant that cannot be built.
    Config(String),
    /// A workload description with a bad parameter.
    Workload(String),
    /// A scenario that does not parse or does not validate.
    Scenario(String),
    /// A name that is not one of the known presets, patches or scenarios.
    Unknown {
        kind: &'static str,
        name: String,
        known: Vec<String>,
    },
    /// A run exceeded one of the limits that keep the page responsive.
    Limit(String),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Topology(m) => write!(f, "invalid machine: {m}"),
            Error::Config(m) => write!(f, "invalid kernel configuration: {m}"),
            Error::Workload(m) => write!(f, "invalid workload: {m}"),
            Error::Scenario(m) => write!(f, "invalid scenario: {m}"),
            Error::Unknown { kind, name, known } => {
                write!(f, "unknown {kind} '{name}'; known: {}", known.join(", "))
            }
            Error::Limit(m) => write!(f, "limit exceeded: {m}"),
        }
    }
}

impl Error {
    /// The same error with `what` (the part of the input it concerns) in front of its message,
    /// keeping its kind, so the kind's words ("invalid kernel configuration: ...") are said once.
    pub fn context(self, what: &str) -> Error {
        let prefix = |m: String| format!("{what}: {m}");
        match self {
            Error::Topology(m) => Error::Topology(prefix(m)),
            Error::Config(m) => Error::Config(prefix(m)),
            Error::Workload(m) => Error::Workload(prefix(m)),
            Error::Scenario(m) => Error::Scenario(prefix(m)),
            Error::Limit(m) => Error::Limit(prefix(m)),
            unknown @ Error::Unknown { .. } => Error::Scenario(prefix(unknown.to_string())),
        }
    }
}

impl std::error::Error for Error {}

pub type Result<T> = std::result::Result<T, Error>;
