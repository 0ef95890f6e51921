//! The decision log of one traced run, filtered and cut into pages.
//!
//! A run's log holds every `select_task_rq_fair()` and every `load_balance()` pass: tens of
//! thousands of entries for a few simulated seconds. The log stays in the worker; the page asks
//! for one page at a time ([`DecisionQuery`]) and gets back at most [`MAX_PAGE_SIZE`] entries, so a
//! long log never reaches, let alone freezes, the page.
//!
//! Each entry's headline is the core's own text (`Decision::to_text`, what `schedlab explain`
//! prints); the groups of a balance pass come as rows with the kernel's names (`group_type`,
//! `migration_type`) so the page can lay them out as a table.

use schedlab_core::experiment::RunTrace;
use schedlab_core::sched::balance::{GroupType, MigrationType};
use schedlab_core::sched::log::{BalanceDecision, Decision, GroupLog};
use serde::{Deserialize, Serialize};

/// Entries per page unless the query asks otherwise.
pub const DEFAULT_PAGE_SIZE: usize = 50;
/// Most entries one page may hold.
pub const MAX_PAGE_SIZE: usize = 200;

/// The kinds of decision a query selects (a bit set).
pub mod kind {
    /// Wake-ups of sleeping tasks.
    pub const WAKEUP: u8 = 1;
    /// Placements of new tasks (`wake_up_new_task()`).
    pub const FORK: u8 = 2;
    /// Balance passes that found an imbalance (whatever they then managed to move).
    pub const BALANCE: u8 = 4;
    /// Balance passes that found nothing to do (`should_we_balance()` said no, or balanced):
    /// the bulk of any log, which `schedlab explain` hides unless given `--all`.
    pub const QUIET: u8 = 8;
    /// Frequency decisions (`schedlab explain --kind freq`).
    pub const FREQ: u8 = 16;
    /// What `schedlab explain` shows by default.
    pub const DEFAULT: u8 = WAKEUP | FORK | BALANCE;
    pub const ALL: u8 = WAKEUP | FORK | BALANCE | QUIET | FREQ;
}

/// Which entries of the log to show.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct DecisionQuery {
    /// Only decisions involving this CPU (as `schedlab explain --cpu`: a wake-up's target, previous
    /// or waker CPU; a balance pass's CPU or source CPU).
    pub cpu: Option<usize>,
    /// A set of [`kind`] bits.
    pub kinds: u8,
    /// Only balance passes whose busiest group has this type.
    pub busiest: Option<GroupType>,
    /// Zero-based page number.
    pub page: usize,
    pub page_size: usize,
    /// When set, show the page holding the first selected entry at or after this time instead
    /// of `page` (the timeline's "what happened here").
    pub at_ns: Option<u64>,
}

impl Default for DecisionQuery {
    fn default() -> DecisionQuery {
        DecisionQuery {
            cpu: None,
            kinds: kind::DEFAULT,
            busiest: None,
            page: 0,
            page_size: DEFAULT_PAGE_SIZE,
            at_ns: None,
        }
    }
}

/// One row of a balance pass's group statistics (`struct sg_lb_stats`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GroupRowVm {
    /// "local", "busiest" or empty.
    pub role: String,
    pub cpus: String,
    /// The kernel's name: `group_has_spare`, ..., `group_overloaded`.
    pub group_type: String,
    pub nr_running: usize,
    pub idle_cpus: usize,
    pub load: u64,
    pub util: u64,
    pub runnable: u64,
    pub capacity: u64,
    pub misfit_task_load: u64,
    pub avg_load: u64,
}

/// One decision as the page lists it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DecisionEntryVm {
    /// Position in the whole log.
    pub index: usize,
    pub t_ns: u64,
    /// "wakeup", "fork", "balance", "quiet" or "freq".
    pub kind: String,
    /// The CPU the decision is about: a wake-up's target, a balance pass's (destination) CPU.
    pub cpu: usize,
    /// The first line of the core's text for it.
    pub headline: String,
    /// The kernel's `migration_type` name (`migrate_load`, ...), for a balance pass that found one.
    pub migration_type: Option<String>,
    pub imbalance: Option<i64>,
    /// The kernel's `group_type` of the busiest group, for a balance pass that found one.
    pub busiest_type: Option<String>,
    /// Before v5.5 (no migration type): how the imbalance was set (`check_asym_packing`,
    /// `force_balance`, `calculate_imbalance`, with `+ fix_small_imbalance` when that set it).
    pub imbalance_path: Option<String>,
    /// Empty for wake-ups.
    pub groups: Vec<GroupRowVm>,
}

/// How many decisions of each kind a log holds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DecisionCounts {
    pub wakeups: usize,
    pub forks: usize,
    pub balance: usize,
    pub quiet: usize,
    #[serde(default)]
    pub freq: usize,
}

/// One page of the selected entries.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DecisionPageVm {
    /// The query this page answers, with `page` set to the page shown.
    pub query: DecisionQuery,
    /// Entries in the whole log.
    pub total: usize,
    /// Entries the query selects.
    pub matching: usize,
    pub pages: usize,
    pub entries: Vec<DecisionEntryVm>,
}

/// The kernel's name of a serde-named enum value: `prefix` + its snake_case name.
fn kernel_name<T: Serialize>(prefix: &str, value: &T) -> String {
    match serde_json::to_value(value) {
        Ok(serde_json::Value::String(s)) => format!("{prefix}{s}"),
        _ => prefix.trim_end_matches('_').to_string(),
    }
}

pub fn group_type_name(t: GroupType) -> String {
    kernel_name("group_", &t)
}

pub fn migration_type_name(t: MigrationType) -> String {
    kernel_name("migrate_", &t)
}

/// The [`kind`] bit of a decision.
pub fn kind_of(d: &Decision) -> u8 {
    match d {
        Decision::Wakeup(w) if w.fork => kind::FORK,
        Decision::Wakeup(_) => kind::WAKEUP,
        Decision::Balance(_) if d.is_quiet() => kind::QUIET,
        Decision::Balance(_) => kind::BALANCE,
        Decision::Freq(_) => kind::FREQ,
    }
}

fn kind_name(bit: u8) -> &'static str {
    match bit {
        kind::FORK => "fork",
        kind::WAKEUP => "wakeup",
        kind::QUIET => "quiet",
        kind::FREQ => "freq",
        _ => "balance",
    }
}

/// `schedlab explain --cpu`'s rule for "involves this CPU".
pub fn involves(d: &Decision, cpu: usize) -> bool {
    match d {
        Decision::Wakeup(w) => w.target == cpu || w.prev_cpu == cpu || w.waker_cpu == Some(cpu),
        Decision::Balance(b) => b.cpu == cpu || b.src_cpu == Some(cpu),
        Decision::Freq(f) => f.cpu == cpu,
    }
}

fn busiest_type(b: &BalanceDecision) -> Option<GroupType> {
    b.busiest
        .and_then(|i| b.groups.get(i))
        .map(|g| g.group_type)
}

impl DecisionQuery {
    pub fn selects(&self, d: &Decision) -> bool {
        if self.kinds & kind_of(d) == 0 {
            return false;
        }
        if let Some(cpu) = self.cpu {
            if !involves(d, cpu) {
                return false;
            }
        }
        match (self.busiest, d) {
            (None, _) => true,
            (Some(want), Decision::Balance(b)) => busiest_type(b) == Some(want),
            (Some(_), Decision::Wakeup(_) | Decision::Freq(_)) => false,
        }
    }

    fn page_size(&self) -> usize {
        self.page_size.clamp(1, MAX_PAGE_SIZE)
    }
}

pub fn counts(decisions: &[Decision]) -> DecisionCounts {
    let mut c = DecisionCounts::default();
    for d in decisions {
        match kind_of(d) {
            kind::WAKEUP => c.wakeups += 1,
            kind::FORK => c.forks += 1,
            kind::QUIET => c.quiet += 1,
            kind::FREQ => c.freq += 1,
            _ => c.balance += 1,
        }
    }
    c
}

fn group_row(b: &BalanceDecision, i: usize, g: &GroupLog) -> GroupRowVm {
    let role = if i == 0 {
        "local"
    } else if b.busiest == Some(i) {
        "busiest"
    } else {
        ""
    };
    GroupRowVm {
        role: role.to_string(),
        cpus: g.cpus.to_string(),
        group_type: group_type_name(g.group_type),
        nr_running: g.nr_running,
        idle_cpus: g.idle_cpus,
        load: g.load,
        util: g.util,
        runnable: g.runnable,
        capacity: g.capacity,
        misfit_task_load: g.misfit_task_load,
        avg_load: g.avg_load,
    }
}

/// A task's name as `schedlab explain` prints it: `comm-pid`, pid = task id + 1.
pub fn task_label(names: &[String], task: usize) -> String {
    format!(
        "{}-{}",
        names.get(task).map_or("task", String::as_str),
        task + 1
    )
}

pub fn entry(trace: &RunTrace, index: usize) -> Option<DecisionEntryVm> {
    let d = trace.decisions.get(index)?;
    let name = |t: usize| task_label(&trace.task_names, t);
    let text = d.to_text(&name);
    let headline = text
        .lines()
        .next()
        .unwrap_or_default()
        .trim_start()
        .to_string();
    let kind = kind_name(kind_of(d)).to_string();
    Some(match d {
        Decision::Wakeup(w) => DecisionEntryVm {
            index,
            t_ns: w.t,
            kind,
            cpu: w.target,
            headline,
            migration_type: None,
            imbalance: None,
            busiest_type: None,
            imbalance_path: None,
            groups: Vec::new(),
        },
        Decision::Freq(f) => DecisionEntryVm {
            index,
            t_ns: f.t,
            kind,
            cpu: f.cpu,
            headline,
            migration_type: None,
            imbalance: None,
            busiest_type: None,
            imbalance_path: None,
            groups: Vec::new(),
        },
        Decision::Balance(b) => DecisionEntryVm {
            index,
            t_ns: b.t,
            kind,
            cpu: b.cpu,
            headline,
            migration_type: b.migration_type.map(migration_type_name),
            imbalance: (b.migration_type.is_some() || b.legacy.is_some()).then_some(b.imbalance),
            busiest_type: busiest_type(b).map(group_type_name),
            imbalance_path: b.legacy.as_ref().map(|l| match l.fix_small_imbalance {
                Some(true) => format!("{} + fix_small_imbalance", l.path.kernel_name()),
                _ => l.path.kernel_name().to_string(),
            }),
            groups: b
                .groups
                .iter()
                .enumerate()
                .map(|(i, g)| group_row(b, i, g))
                .collect(),
        },
    })
}

/// The indices of the log entries `query` selects, in log (time) order.
pub fn select(decisions: &[Decision], query: &DecisionQuery) -> Vec<usize> {
    decisions
        .iter()
        .enumerate()
        .filter(|(_, d)| query.selects(d))
        .map(|(i, _)| i)
        .collect()
}

/// One page of the entries `query` selects. A page past the end shows the last page.
pub fn page(trace: &RunTrace, query: &DecisionQuery) -> DecisionPageVm {
    let selected = select(&trace.decisions, query);
    let size = query.page_size();
    let pages = selected.len().div_ceil(size).max(1);
    let page = match query.at_ns {
        Some(at) => selected.partition_point(|&i| trace.decisions[i].t() < at) / size,
        None => query.page,
    }
    .min(pages - 1);
    let entries = selected
        .iter()
        .skip(page * size)
        .take(size)
        .filter_map(|&i| entry(trace, i))
        .collect();
    DecisionPageVm {
        query: DecisionQuery {
            page,
            page_size: size,
            at_ns: None,
            ..*query
        },
        total: trace.decisions.len(),
        matching: selected.len(),
        pages,
        entries,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runview::tests::e1_trace;

    #[test]
    fn the_default_query_selects_what_schedlab_explain_prints() {
        let trace = e1_trace();
        for cpu in [None, Some(0), Some(5)] {
            let q = DecisionQuery {
                cpu,
                ..DecisionQuery::default()
            };
            let name = |t: usize| task_label(&trace.task_names, t);
            let mut text = String::new();
            for i in select(&trace.decisions, &q) {
                text.push_str(&trace.decisions[i].to_text(&name));
                text.push('\n');
            }
            assert_eq!(text, trace.explain(false, cpu, None), "cpu {cpu:?}");
        }
        let all = DecisionQuery {
            kinds: kind::ALL,
            ..DecisionQuery::default()
        };
        assert_eq!(select(&trace.decisions, &all).len(), trace.decisions.len());
    }

    #[test]
    fn pages_cover_the_selection_once_and_stay_small() {
        let trace = e1_trace();
        let q = DecisionQuery {
            kinds: kind::ALL,
            page_size: 10_000,
            ..DecisionQuery::default()
        };
        let first = page(trace, &q);
        assert_eq!(
            first.entries.len(),
            MAX_PAGE_SIZE.min(trace.decisions.len())
        );
        assert_eq!(first.query.page_size, MAX_PAGE_SIZE);
        let q = DecisionQuery { page_size: 7, ..q };
        let p0 = page(trace, &q);
        let mut seen = Vec::new();
        for n in 0..p0.pages {
            let p = page(trace, &DecisionQuery { page: n, ..q });
            assert_eq!(p.query.page, n);
            assert!(p.entries.len() <= 7);
            seen.extend(p.entries.iter().map(|e| e.index));
        }
        assert_eq!(seen, select(&trace.decisions, &q));
        // Past the end: the last page.
        let last = page(
            trace,
            &DecisionQuery {
                page: usize::MAX,
                ..q
            },
        );
        assert_eq!(last.query.page, p0.pages - 1);
    }

    #[test]
    fn filters_by_kind_cpu_and_busiest_group_type() {
        let trace = e1_trace();
        let c = counts(&trace.decisions);
        assert_eq!(
            c.wakeups + c.forks + c.balance + c.quiet + c.freq,
            trace.decisions.len()
        );
        assert!(c.forks > 0 && c.balance > 0 && c.quiet > 0, "{c:?}");
        let forks = DecisionQuery {
            kinds: kind::FORK,
            ..DecisionQuery::default()
        };
        let p = page(trace, &forks);
        assert_eq!(p.matching, c.forks);
        assert!(p.entries.iter().all(|e| e.kind == "fork"));
        let cpu4 = DecisionQuery {
            cpu: Some(4),
            kinds: kind::ALL,
            ..DecisionQuery::default()
        };
        for i in select(&trace.decisions, &cpu4) {
            assert!(involves(&trace.decisions[i], 4));
        }
        // The patched variant of E1 (v4.16's pre-v5.5 balancer) pulls work onto big CPUs by asym
        // packing: `check_asym_packing()` sets the imbalance of a group_other busiest group.
        let other = DecisionQuery {
            busiest: Some(GroupType::Other),
            page_size: MAX_PAGE_SIZE,
            ..DecisionQuery::default()
        };
        let p = page(trace, &other);
        let e = p
            .entries
            .iter()
            .find(|e| e.imbalance_path.as_deref() == Some("check_asym_packing"))
            .expect("no asym packing pass in run 193");
        assert_eq!(e.busiest_type.as_deref(), Some("group_other"));
        assert!(e.groups.iter().any(|g| g.role == "busiest"));
        assert_eq!(e.groups[0].role, "local");
        assert_eq!(e.migration_type, None, "v4.16 has no migration types");
        assert!(e.imbalance.is_some());
    }

    #[test]
    fn at_ns_jumps_to_the_page_of_that_time() {
        let trace = e1_trace();
        let q = DecisionQuery {
            kinds: kind::ALL,
            page_size: 20,
            ..DecisionQuery::default()
        };
        let selected = select(&trace.decisions, &q);
        let target = selected[selected.len() / 2];
        let t = trace.decisions[target].t();
        let p = page(
            trace,
            &DecisionQuery {
                at_ns: Some(t),
                ..q
            },
        );
        assert!(p.query.at_ns.is_none());
        let first_at = selected
            .iter()
            .position(|&i| trace.decisions[i].t() >= t)
            .unwrap();
        assert_eq!(p.query.page, first_at / 20);
        assert!(p.entries.iter().any(|e| e.t_ns >= t));
    }

    #[test]
    fn kernel_names() {
        assert_eq!(
            group_type_name(GroupType::AsymPacking),
            "group_asym_packing"
        );
        assert_eq!(group_type_name(GroupType::HasSpare), "group_has_spare");
        assert_eq!(migration_type_name(MigrationType::Misfit), "migrate_misfit");
    }
}
