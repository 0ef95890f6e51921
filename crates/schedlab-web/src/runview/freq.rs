//! The frequency rows of the timeline: a line per frequency domain (per cluster when there are
//! many), and a heat strip per CPU beside its lane, coloured by MHz.
//!
//! Both come from the trace's frequency events (`cpu_frequency`, one per domain change). A CPU's
//! frequency is its domain's (`Topology::cpus[c].freq_domain`): with per-CPU policies (one
//! domain per CPU) each CPU's strip is its own. The strip is binned so it stays drawable at 96
//! CPUs: each CPU gets at most [`MAX_FREQ_CELLS`] / CPUs time bins, each coloured by the
//! time-weighted mean frequency over the bin (its tooltip gives the lowest and highest too), and
//! neighbouring bins of one constant frequency are drawn as one cell.

use schedlab_core::topology::Topology;
use schedlab_core::trace::TraceEvent;
use serde::{Deserialize, Serialize};

use super::timeline::LineVm;

/// Most points per frequency line.
pub const MAX_FREQ_POINTS: usize = 1200;
/// With more frequency domains than this, lines are drawn per cluster instead (the mean of the
/// cluster's domains), so a 48-domain machine stays readable.
pub const MAX_LINES: usize = 8;
/// Most time bins of the per-CPU frequency strips over all CPUs (before merging equal ones).
pub const MAX_FREQ_CELLS: usize = 4800;
/// Most time bins of one CPU's strip (a few CPUs need no more to read).
pub const MAX_BINS_PER_CPU: usize = 300;

/// A stretch of one CPU's frequency strip.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FreqCellVm {
    pub cpu: usize,
    pub start_ns: u64,
    pub end_ns: u64,
    /// Time-weighted mean over the stretch, MHz.
    pub mhz: f64,
    pub min_mhz: f64,
    pub max_mhz: f64,
}

/// How the lines group CPUs: each frequency domain, or each cluster when there are too many
/// domains. Returns (label, the domains of the group, the CPUs of the group).
pub(super) fn line_groups(topo: &Topology) -> Vec<(String, Vec<usize>, Vec<usize>)> {
    let nfd = topo.freq_domains.len();
    if nfd <= MAX_LINES {
        return topo
            .freq_domains
            .iter()
            .enumerate()
            .map(|(i, fd)| {
                let cpus: Vec<usize> = fd.cpus.iter().collect();
                let cluster = cpus
                    .first()
                    .map(|&c| topo.cluster_name(c).to_string())
                    .unwrap_or_default();
                (format!("{cluster} CPUs {}", fd.cpus), vec![i], cpus)
            })
            .collect();
    }
    (0..topo.clusters.len())
        .map(|cl| {
            let cpus: Vec<usize> = topo.clusters[cl].iter().collect();
            let mut fds: Vec<usize> = cpus.iter().map(|&c| topo.cpus[c].freq_domain).collect();
            fds.sort_unstable();
            fds.dedup();
            let name = cpus
                .first()
                .map(|&c| topo.cluster_name(c).to_string())
                .unwrap_or_default();
            (
                format!(
                    "{name} CPUs {} (mean of {} domains)",
                    topo.clusters[cl],
                    fds.len()
                ),
                fds,
                cpus,
            )
        })
        .collect()
}

/// The frequency of each group over time, in MHz (a group of several domains: their mean; a
/// domain counts at its first recorded frequency before that).
pub(super) fn freq_lines(
    events: &[TraceEvent],
    topo: &Topology,
    groups: &[(String, Vec<usize>, Vec<usize>)],
) -> Vec<LineVm> {
    let nfd = topo.freq_domains.len();
    let mut first = vec![None::<u32>; nfd];
    for e in events {
        if let TraceEvent::Frequency { domain, khz, .. } = *e {
            if domain < nfd && first[domain].is_none() {
                first[domain] = Some(khz);
            }
        }
    }
    let mut cur: Vec<u32> = first.iter().map(|k| k.unwrap_or(0)).collect();
    let mut lines: Vec<LineVm> = groups
        .iter()
        .map(|(label, _, _)| LineVm {
            label: label.clone(),
            t_ns: Vec::new(),
            y: Vec::new(),
        })
        .collect();
    let group_of: Vec<Option<usize>> = (0..nfd)
        .map(|fd| groups.iter().position(|(_, fds, _)| fds.contains(&fd)))
        .collect();
    for e in events {
        if let TraceEvent::Frequency { t, domain, khz } = *e {
            let Some(Some(g)) = group_of.get(domain) else {
                continue;
            };
            cur[domain] = khz;
            let fds = &groups[*g].1;
            let known: Vec<u32> = fds
                .iter()
                .filter(|&&d| first[d].is_some())
                .map(|&d| cur[d])
                .collect();
            let mean = known.iter().map(|&k| k as f64).sum::<f64>() / known.len().max(1) as f64;
            let line = &mut lines[*g];
            if line.t_ns.last() == Some(&t) {
                line.y.pop();
                line.t_ns.pop();
            }
            line.t_ns.push(t);
            line.y.push(mean / 1000.0);
        }
    }
    lines.retain(|l| !l.t_ns.is_empty());
    lines
}

/// A line thinned to about `max` points: per time bin, its first, lowest and highest points.
pub fn thin_line(line: &LineVm, max: usize, span: u64) -> LineVm {
    let n = line.t_ns.len();
    if n <= max || max < 3 {
        return line.clone();
    }
    let bins = (max / 3).max(1) as u64;
    let width = span.div_ceil(bins).max(1);
    let mut keep: Vec<usize> = Vec::new();
    let mut i = 0;
    while i < n {
        let bin = line.t_ns[i] / width;
        let mut j = i;
        let (mut lo, mut hi) = (i, i);
        while j < n && line.t_ns[j] / width == bin {
            if line.y[j] < line.y[lo] {
                lo = j;
            }
            if line.y[j] > line.y[hi] {
                hi = j;
            }
            j += 1;
        }
        let mut k = [i, lo, hi];
        k.sort_unstable();
        for x in k {
            if keep.last() != Some(&x) {
                keep.push(x);
            }
        }
        i = j;
    }
    LineVm {
        label: line.label.clone(),
        t_ns: keep.iter().map(|&k| line.t_ns[k]).collect(),
        y: keep.iter().map(|&k| line.y[k]).collect(),
    }
}

/// Each domain's frequency as steps `(from t, kHz)`, from its first recorded frequency on (which
/// also stands for the time before it, as the lines have it); empty for a domain with no event.
fn domain_steps(events: &[TraceEvent], nfd: usize) -> Vec<Vec<(u64, u32)>> {
    let mut steps: Vec<Vec<(u64, u32)>> = vec![Vec::new(); nfd];
    for e in events {
        if let TraceEvent::Frequency { t, domain, khz } = *e {
            let Some(s) = steps.get_mut(domain) else {
                continue;
            };
            match s.last_mut() {
                Some(last) if last.0 == t => last.1 = khz,
                Some(last) if last.1 == khz => {}
                Some(_) => s.push((t, khz)),
                None => s.push((0, khz)),
            }
        }
    }
    steps
}

/// A bin of a domain's frequency: `(start, end, mean, min, max)`, times in ns, frequencies in kHz.
type FreqBin = (u64, u64, f64, u32, u32);

/// One domain's steps binned over `[0, span)` into `bins` bins, neighbouring bins of one
/// constant frequency merged.
fn bin_steps(steps: &[(u64, u32)], span: u64, bins: usize) -> Vec<FreqBin> {
    let mut out: Vec<FreqBin> = Vec::new();
    if steps.is_empty() || span == 0 {
        return out;
    }
    let bins = bins.clamp(1, span as usize);
    let width = span.div_ceil(bins as u64);
    let mut k = 0; // the step in force at the bin's start
    for b in 0..bins as u64 {
        let (lo, hi) = (b * width, ((b + 1) * width).min(span));
        if lo >= hi {
            break;
        }
        while k + 1 < steps.len() && steps[k + 1].0 <= lo {
            k += 1;
        }
        let (mut sum, mut min, mut max) = (0u128, u32::MAX, 0u32);
        let mut j = k;
        let mut t = lo;
        while t < hi {
            let until = steps.get(j + 1).map_or(hi, |s| s.0.min(hi));
            let khz = steps[j].1;
            sum += (until - t) as u128 * khz as u128;
            min = min.min(khz);
            max = max.max(khz);
            t = until;
            j += 1;
        }
        let mean = sum as f64 / (hi - lo) as f64;
        match out.last_mut() {
            Some(last) if last.3 == last.4 && min == max && last.3 == min => last.1 = hi,
            _ => out.push((lo, hi, mean, min, max)),
        }
    }
    out
}

/// Every CPU's frequency strip (CPUs in order, each strip in time order); empty when no
/// frequency was recorded.
pub fn cpu_freq_cells(events: &[TraceEvent], topo: &Topology, span: u64) -> Vec<FreqCellVm> {
    let nr = topo.nr_cpus();
    let steps = domain_steps(events, topo.freq_domains.len());
    let bins = (MAX_FREQ_CELLS / nr.max(1)).clamp(1, MAX_BINS_PER_CPU);
    let binned: Vec<Vec<FreqBin>> = steps.iter().map(|s| bin_steps(s, span, bins)).collect();
    let mut cells = Vec::new();
    for cpu in 0..nr {
        let Some(domain) = binned.get(topo.cpus[cpu].freq_domain) else {
            continue;
        };
        cells.extend(domain.iter().map(|&(lo, hi, mean, min, max)| FreqCellVm {
            cpu,
            start_ns: lo,
            end_ns: hi,
            mhz: mean / 1000.0,
            min_mhz: min as f64 / 1000.0,
            max_mhz: max as f64 / 1000.0,
        }));
    }
    cells
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_start_at_zero_and_drop_repeats() {
        let f = |t, domain, khz| TraceEvent::Frequency { t, domain, khz };
        let ev = [
            f(5, 0, 100),
            f(9, 0, 100),
            f(12, 0, 200),
            f(12, 0, 300),
            f(3, 1, 50),
        ];
        let s = domain_steps(&ev, 3);
        assert_eq!(s[0], vec![(0, 100), (12, 300)]);
        assert_eq!(s[1], vec![(0, 50)]);
        assert!(s[2].is_empty());
    }

    #[test]
    fn each_cpu_has_its_domains_strip_within_the_budget() {
        use schedlab_core::topology::presets;
        let topo = Topology::build(&presets::preset("hikey960").unwrap()).unwrap();
        let f = |t, domain, khz| TraceEvent::Frequency { t, domain, khz };
        // Domain 0 changes once; domain 1 steps every ns; the others never report.
        let mut ev = vec![f(0, 0, 533_000), f(500, 0, 1_844_000)];
        ev.extend((0..1000).map(|t| f(t, 1, 903_000 + (t as u32 % 2) * 1_000_000)));
        let cells = cpu_freq_cells(&ev, &topo, 1000);
        let of =
            |cpu: usize| -> Vec<&FreqCellVm> { cells.iter().filter(|c| c.cpu == cpu).collect() };
        for cpu in 0..topo.nr_cpus() {
            let mine = of(cpu);
            match topo.cpus[cpu].freq_domain {
                0 => {
                    // Exact steps: two cells meeting at the change.
                    assert_eq!(mine.len(), 2, "CPU{cpu}");
                    assert_eq!((mine[0].end_ns, mine[0].mhz), (500, 533.0));
                    assert_eq!((mine[1].start_ns, mine[1].mhz), (500, 1844.0));
                }
                1 => {
                    let bins = (MAX_FREQ_CELLS / topo.nr_cpus()).min(MAX_BINS_PER_CPU);
                    assert!(mine.len() <= bins, "CPU{cpu}: {}", mine.len());
                    assert!(mine
                        .iter()
                        .all(|c| c.min_mhz == 903.0 && c.max_mhz == 1903.0));
                    assert!(mine.iter().all(|c| (c.mhz - 1403.0).abs() < 1.0));
                    assert_eq!(mine.last().unwrap().end_ns, 1000);
                }
                _ => assert!(mine.is_empty()),
            }
        }
        assert!(cpu_freq_cells(&[], &topo, 1000).is_empty());
    }

    #[test]
    fn bins_are_time_weighted_and_constant_ones_merge() {
        // 1000 kHz to t=25, then 2000 kHz: bins of 10 over 40.
        let b = bin_steps(&[(0, 1000), (25, 2000)], 40, 4);
        assert_eq!(
            b,
            vec![
                (0, 20, 1000.0, 1000, 1000),
                (20, 30, 1500.0, 1000, 2000),
                (30, 40, 2000.0, 2000, 2000),
            ]
        );
        assert!(bin_steps(&[], 40, 4).is_empty());
        // More bins than nanoseconds: one per nanosecond at most.
        assert_eq!(bin_steps(&[(0, 7)], 3, 100), vec![(0, 3, 7.0, 7, 7)]);
    }
}
