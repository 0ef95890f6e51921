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

/// Text shown on one line: control characters (a newline inside a quoted key or name from the
/// input, say) are written as escapes, so every message stays one line whatever it quotes.
struct OneLine<'a>(&'a str);

impl fmt::Display for OneLine<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for c in self.0.chars() {
            if c.is_control() {
                write!(f, "{}", c.escape_debug())?;
            } else {
                fmt::Write::write_char(f, c)?;
            }
        }
        Ok(())
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Topology(m) => write!(f, "invalid machine: {}", OneLine(m)),
            Error::Config(m) => write!(f, "invalid kernel configuration: {}", OneLine(m)),
            Error::Workload(m) => write!(f, "invalid workload: {}", OneLine(m)),
            Error::Scenario(m) => write!(f, "invalid scenario: {}", OneLine(m)),
            Error::Unknown { kind, name, known } => write!(
                f,
                "unknown {kind} '{}'; known: {}",
                OneLine(name),
                known.join(", ")
            ),
            Error::Limit(m) => write!(f, "limit exceeded: {}", OneLine(m)),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_message_is_one_line_whatever_it_quotes() {
        let e = Error::Workload("rt-app: expected ':' after the key \"run\n  \"sleep\"".into());
        assert_eq!(
            e.to_string(),
            "invalid workload: rt-app: expected ':' after the key \"run\\n  \"sleep\""
        );
        let u = Error::Unknown {
            kind: "machine preset",
            name: "tc\r\n2".into(),
            known: vec!["tc2".into()],
        };
        assert_eq!(
            u.to_string(),
            "unknown machine preset 'tc\\r\\n2'; known: tc2"
        );
    }
}
