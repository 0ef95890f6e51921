//! A traced run as a file for another tool: the one function the CLI (`schedlab trace --format
//! perfetto|trace-cmd`) and the page's downloads both call, so their files are the same bytes.

use crate::error::Result;
use crate::experiment::Plan;
use serde::{Deserialize, Serialize};

/// The formats of [`trace_file`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FileFormat {
    /// A Perfetto protobuf trace ([`super::perfetto`]).
    Perfetto,
    /// `trace-cmd report -N -t -R` text with LISA's events ([`super::text`]).
    TraceCmd,
}

impl FileFormat {
    /// The file name's ending.
    pub fn extension(self) -> &'static str {
        match self {
            FileFormat::Perfetto => "perfetto-trace",
            FileFormat::TraceCmd => "trace-cmd.txt",
        }
    }

    pub fn mime(self) -> &'static str {
        match self {
            FileFormat::Perfetto => "application/octet-stream",
            FileFormat::TraceCmd => "text/plain",
        }
    }
}

/// Run `index` of `plan`, traced with signals, as a file in `format`.
pub fn trace_file(plan: &Plan, index: usize, format: FileFormat) -> Result<Vec<u8>> {
    let t = plan.run_traced_with(index, true)?;
    Ok(match format {
        FileFormat::Perfetto => t.to_perfetto(),
        FileFormat::TraceCmd => t.to_text(super::text::Style::TraceCmd, true).into_bytes(),
    })
}
