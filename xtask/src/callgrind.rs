//! Reading callgrind's output files: each function's self cost (its first event, `Ir` by
//! default), by the function's name or, for code valgrind has no symbol for (V8's compiled wasm),
//! by the address of each instruction (`--dump-instr=yes`) looked up in a perf map file.
//!
//! The format (valgrind's "Callgrind Format Specification"): `fn=` starts a function's lines,
//! names are compressed (`fn=(12) name` once, `fn=(12)` after), each cost line is its positions
//! (as many as the `positions:` header names; absolute, `+n`, `-n` or `*`, relative to the
//! previous cost line's) and then the events, and the cost line after a `calls=` line is the
//! call's inclusive cost, not the caller's own.

use std::collections::{BTreeMap, HashMap};

/// Self costs of one callgrind part.
#[derive(Debug, Default)]
pub(crate) struct SelfCosts {
    /// The `summary:` line: the part's whole cost.
    pub(crate) summary: u64,
    /// Each function's self cost, by the name `name_of` gave it.
    pub(crate) functions: BTreeMap<String, u64>,
}

/// The self costs of `text` (a callgrind output file). `name_of(function, address)` names where
/// each cost line's cost goes: `function` is the `fn=` it is under, `address` its instruction's
/// address when the file has instruction positions.
pub(crate) fn self_costs(
    text: &str,
    mut name_of: impl FnMut(&str, Option<u64>) -> String,
) -> Result<SelfCosts, String> {
    let mut out = SelfCosts::default();
    let mut names: HashMap<String, String> = HashMap::new();
    let mut function = String::new();
    // Whether the first position column is the instruction; each column's last position (one
    // column, the line, unless the header says otherwise).
    let mut by_instr = false;
    let mut last = vec![0u64; 1];
    let mut after_calls = false;
    let mut sum = 0u64;
    for (n, line) in text.lines().enumerate() {
        let bad = |what: &str| format!("callgrind output, line {}: {what}: {line}", n + 1);
        if let Some(p) = line.strip_prefix("positions:") {
            let p: Vec<&str> = p.split_whitespace().collect();
            by_instr = p.first() == Some(&"instr");
            last = vec![0; p.len().max(1)];
            continue;
        }
        if let Some(s) = line.strip_prefix("summary:") {
            out.summary = s.trim().parse().map_err(|_| bad("not a count"))?;
            continue;
        }
        if let Some(f) = line.strip_prefix("fn=") {
            function = expand(&mut names, f);
            continue;
        }
        // A called function's name may be given first here; `fn=(id)` uses it later.
        if let Some(f) = line.strip_prefix("cfn=") {
            expand(&mut names, f);
            continue;
        }
        if line.starts_with("calls=") {
            after_calls = true;
            continue;
        }
        let Some(first) = line.bytes().next() else {
            continue;
        };
        if !(first.is_ascii_digit() || matches!(first, b'+' | b'-' | b'*')) {
            continue; // ob=, fl=, cfn= and the other headers
        }
        let mut fields = line.split_whitespace();
        for slot in last.iter_mut() {
            let field = fields.next().ok_or_else(|| bad("too few positions"))?;
            *slot = position(field, *slot).ok_or_else(|| bad("not a position"))?;
        }
        let cost: u64 = match fields.next() {
            Some(c) => c.parse().map_err(|_| bad("not a cost"))?,
            None => 0,
        };
        if std::mem::take(&mut after_calls) {
            continue;
        }
        sum += cost;
        let name = name_of(&function, by_instr.then_some(last[0]));
        *out.functions.entry(name).or_default() += cost;
    }
    if sum != out.summary {
        return Err(format!(
            "callgrind output: the functions' self costs add up to {sum}, its summary says {}",
            out.summary
        ));
    }
    Ok(out)
}

/// A compressed name `(id) name` or `(id)`, as its full name (kept for the next `(id)`).
fn expand(names: &mut HashMap<String, String>, field: &str) -> String {
    match field.split_once(')') {
        Some((id, rest)) if field.starts_with('(') => {
            let rest = rest.trim_start();
            if rest.is_empty() {
                names.get(id).cloned().unwrap_or_else(|| field.to_string())
            } else {
                names.insert(id.to_string(), rest.to_string());
                rest.to_string()
            }
        }
        _ => field.to_string(),
    }
}

/// One position field against the previous one: absolute (decimal, or hex with `0x`), `+n`,
/// `-n` or `*` (the same).
fn position(field: &str, last: u64) -> Option<u64> {
    if field == "*" {
        Some(last)
    } else if let Some(d) = field.strip_prefix('+') {
        last.checked_add(parse_number(d)?)
    } else if let Some(d) = field.strip_prefix('-') {
        last.checked_sub(parse_number(d)?)
    } else {
        parse_number(field)
    }
}

fn parse_number(s: &str) -> Option<u64> {
    match s.strip_prefix("0x") {
        Some(hex) => u64::from_str_radix(hex, 16).ok(),
        None => s.parse().ok(),
    }
}

/// A perf map (`/tmp/perf-PID.map`, one `START SIZE NAME` line per piece of generated code,
/// addresses in hex), to name the function an address is in.
pub(crate) struct PerfMap {
    /// (start, end, name), by start.
    ranges: Vec<(u64, u64, String)>,
}

impl PerfMap {
    pub(crate) fn parse(text: &str) -> PerfMap {
        let mut ranges: Vec<(u64, u64, String)> = text
            .lines()
            .filter_map(|l| {
                let mut f = l.splitn(3, ' ');
                let start = u64::from_str_radix(f.next()?, 16).ok()?;
                let size = u64::from_str_radix(f.next()?, 16).ok()?;
                Some((start, start + size, f.next()?.to_string()))
            })
            .collect();
        ranges.sort_by_key(|r| r.0);
        PerfMap { ranges }
    }

    /// The name of the code `address` is in: of the latest range starting at or before it (V8
    /// logs code again when it moves or is replaced), if that range holds it.
    pub(crate) fn name(&self, address: u64) -> Option<&str> {
        let i = self.ranges.partition_point(|r| r.0 <= address);
        let (_, end, name) = self.ranges.get(i.checked_sub(1)?)?;
        (address < *end).then_some(name.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A file in callgrind's format with instruction positions, compressed names, relative
    /// positions and a call (whose inclusive cost is not its caller's own).
    const FILE: &str = "# callgrind format
version: 1
positions: instr
events: Ir
summary: 55

ob=(1) /usr/bin/node
fn=(3) Builtins_CallFunction
0x1000 5
+2 5
cfn=(4) jit
calls=1 0x2000
* 45
fn=(4)
0x2000 10
+4 20
-2 15
";

    #[test]
    fn self_costs_by_function_and_by_address() {
        let by_fn = self_costs(FILE, |f, _| f.to_string()).unwrap();
        assert_eq!(by_fn.summary, 55);
        assert_eq!(by_fn.functions["Builtins_CallFunction"], 10);
        assert_eq!(by_fn.functions["jit"], 45);
        let mut seen = Vec::new();
        self_costs(FILE, |_, a| {
            seen.push(a.unwrap());
            String::new()
        })
        .unwrap();
        // The call's cost line (`*` after +2) is skipped; the positions still follow it.
        assert_eq!(seen, [0x1000, 0x1002, 0x2000, 0x2004, 0x2002]);
    }

    #[test]
    fn a_file_whose_costs_do_not_add_up_is_refused() {
        let wrong = FILE.replace("summary: 55", "summary: 56");
        let e = self_costs(&wrong, |f, _| f.to_string()).unwrap_err();
        assert!(e.contains("add up to 55"), "{e}");
    }

    #[test]
    fn a_perf_map_names_the_code_an_address_is_in() {
        let map = PerfMap::parse(
            "2000 10 JS:f-1-turbofan\n1000 100 Builtin:A\n3000 8 JS:g::h0123456789abcdef-2-turbofan\n",
        );
        assert_eq!(map.name(0x1000), Some("Builtin:A"));
        assert_eq!(map.name(0x10ff), Some("Builtin:A"));
        assert_eq!(map.name(0x1100), None);
        assert_eq!(map.name(0x200f), Some("JS:f-1-turbofan"));
        assert_eq!(map.name(0x3008), None);
        assert_eq!(map.name(0xfff), None);
    }
}
