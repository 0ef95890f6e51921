//! The decision log: why each wake-up went where it went, and what each load-balance pass saw
//! (group statistics and types, migration type, imbalance) and did. Recorded only when a run is
//! traced, so the hot loop pays one `Option` test per decision otherwise.

use super::balance::{CpuIdleType, GroupType, MigrationType};
use super::wakeup::Placement;
use crate::cpumask::CpuMask;
use crate::domains::SdLevel;
use crate::kernel::Eas;
use serde::{Deserialize, Serialize};

/// One scheduler decision.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(tag = "decision", rename_all = "snake_case")]
pub enum Decision {
    Wakeup(WakeDecision),
    Balance(BalanceDecision),
    Freq(FreqDecision),
}

/// Why a policy's frequency request or its clock's delivered frequency changed, or why a change
/// was held back.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum FreqWhy {
    /// The governor's formula on the utilization (schedutil `get_next_freq()`; performance,
    /// powersave: the end they pin).
    Util,
    /// schedutil's iowait boost raised the utilization the request came from.
    IowaitBoost,
    /// Held back: `sugov_should_update_freq()` within `rate_limit_us` of the last change (`req`
    /// is what the utilization alone would have asked for; the boost is not evaluated).
    RateLimited,
    /// Held back: `sugov_cpu_is_busy()` kept a busy single-CPU policy from lowering its request.
    BusyHold,
    /// The hardware re-capped the clock: the package's number of active cores changed its turbo
    /// bin (no governor ran).
    TurboCap,
    /// The HWP model's autonomous choice.
    HwpRamp,
    /// HWP dynamic boost (`intel_pstate_hwp_boost_up/down()`).
    HwpBoost,
    /// The rq's uclamp values (v5.3+) moved the utilization the request came from; `util` is the
    /// clamped value.
    Uclamp,
}

impl FreqWhy {
    pub fn name(self) -> &'static str {
        match self {
            FreqWhy::Util => "util",
            FreqWhy::IowaitBoost => "iowait boost",
            FreqWhy::RateLimited => "rate limited",
            FreqWhy::BusyHold => "busy hold",
            FreqWhy::TurboCap => "turbo cap",
            FreqWhy::HwpRamp => "hwp ramp",
            FreqWhy::HwpBoost => "hwp boost",
            FreqWhy::Uclamp => "uclamp",
        }
    }
}

/// One frequency decision of a cpufreq policy (or of the hardware, for [`FreqWhy::TurboCap`]).
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct FreqDecision {
    pub t: u64,
    /// Index of the cpufreq policy (`Topology::policies`).
    pub policy: usize,
    /// The CPU whose update ran the governor (the clock's first CPU for a turbo cap).
    pub cpu: usize,
    /// The utilization and capacity the request was computed from (after the iowait boost;
    /// schedutil); for HWP, the core's activity in 1/1024 and 1024; else 0.
    pub util: u64,
    pub max: u64,
    /// The reference frequency, kHz: `policy->cpuinfo.max_freq` with frequency invariance,
    /// `policy->cur` without (schedutil); HWP max for HWP; else 0.
    pub ref_khz: u32,
    /// What the policy asks for (or, held back, would have asked for), kHz.
    pub req_khz: u32,
    /// What the clock delivers after the decision, kHz: the highest request of the policies
    /// sharing it, capped by the turbo bin of the package's active cores.
    pub granted_khz: u32,
    pub why: FreqWhy,
}

/// `select_task_rq_fair()` for one wake-up or fork.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct WakeDecision {
    pub t: u64,
    pub task: usize,
    /// A fork (`wake_up_new_task()`) rather than a wake-up.
    pub fork: bool,
    /// An exec (`sched_exec()`): the task re-placed from the CPU it runs on.
    #[serde(default)]
    pub exec: bool,
    pub prev_cpu: usize,
    /// The CPU the waker (or parent) runs on; None for a timer.
    pub waker_cpu: Option<usize>,
    pub task_util: u64,
    pub wake_wide: bool,
    /// `wake_cap()` said the task does not fit (2016-era wake-up path only).
    pub wake_cap: bool,
    pub want_affine: bool,
    /// What `wake_affine()` chose, when it was asked.
    pub affine_cpu: Option<usize>,
    pub path: Placement,
    /// The level the slow path started from.
    pub slow_path_level: Option<SdLevel>,
    pub target: usize,
    /// `find_energy_efficient_cpu()`'s figures, when it placed the task.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub eas: Option<EasLog>,
}

/// One `find_energy_efficient_cpu()` evaluation. Energies are the energy model's units (see
/// [`crate::power::em`]: mW or uW times utilization over capacity): [`Eas::TotalEnergy`] gives
/// each candidate's energy over every perf domain, the later forms the delta over the perf
/// domain's base energy (the domain without the task).
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Default)]
pub struct EasLog {
    pub rule: Eas,
    /// Per perf domain, in `rd->pd` order.
    pub pds: Vec<EasPdLog>,
    /// prev_cpu's energy (or delta); None when it does not fit.
    pub prev: Option<u64>,
    /// The best candidate's energy (or delta) and CPU (prev_cpu when none beat it).
    pub best: Option<u64>,
    pub best_cpu: usize,
    /// v5.4-v5.19: the sum of the perf domains' base energies (the margin's `base_energy`).
    pub base_energy: u64,
    /// v5.x: the saving the best had to exceed (`prev >> 4`, or `(prev + base) >> 4`).
    pub margin: Option<u64>,
    /// v6.0+: a candidate's energy came out below the base ("CPU utilization has reversed the
    /// ordering"), so feec kept prev_cpu.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub reversed: bool,
    /// v6.2+ with uclamp, when some CPU fitted all but the task's uclamp_min
    /// (`util_fits_cpu()` -1): prev's and the best candidate's `fits` (1 fits, -1 only the
    /// boost misses), which rank before energy.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fits: Option<(i32, i32)>,
    pub target: usize,
}

/// One perf domain in a feec evaluation.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Default)]
pub struct EasPdLog {
    pub cpus: CpuMask,
    /// The domain's energy without the task (v5.4+).
    pub base: Option<u64>,
    /// prev_cpu's spare capacity (`capacity_of - util` with the task) and energy, if prev is here
    /// and fits.
    pub prev_spare: Option<u64>,
    pub prev: Option<u64>,
    /// The max-spare-capacity candidate: CPU, spare capacity, energy.
    pub candidate: Option<(usize, u64, u64)>,
}

impl EasLog {
    /// Compact text: `pd{0-3} base 120 prev +40 (spare 300) CPU2 +35 (spare 700); ...`.
    pub fn to_text(&self) -> String {
        let rule = match self.rule {
            Eas::None => "none",
            Eas::TotalEnergy => "v5.0 total energy",
            Eas::BaseEnergy => "v5.4 base energy",
            Eas::Eenv => "v6.0 eenv",
        };
        let mut parts = Vec::with_capacity(self.pds.len());
        for pd in &self.pds {
            let mut s = format!("pd{{{}}}", pd.cpus);
            if let Some(b) = pd.base {
                s += &format!(" base {b}");
            }
            if let (Some(e), Some(sp)) = (pd.prev, pd.prev_spare) {
                s += &format!(" prev {e} (spare {sp})");
            }
            if let Some((c, sp, e)) = pd.candidate {
                s += &format!(" CPU{c} {e} (spare {sp})");
            }
            parts.push(s);
        }
        let mut verdict = match (self.prev, self.best) {
            (Some(p), Some(b)) => format!("prev {p}, best CPU{} {b}", self.best_cpu),
            (None, Some(b)) => format!("prev does not fit, best CPU{} {b}", self.best_cpu),
            _ => "no candidate".to_string(),
        };
        if let Some(m) = self.margin {
            verdict += &format!(", margin {m}");
        }
        if self.reversed {
            verdict += ", ordering reversed";
        }
        if let Some((p, b)) = self.fits {
            verdict += &format!(", uclamp fits prev {p} best {b}");
        }
        format!("feec ({rule}): {}; {verdict}", parts.join("; "))
    }
}

/// One group as `update_sg_lb_stats()` saw it.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct GroupLog {
    pub cpus: CpuMask,
    pub group_type: GroupType,
    pub load: u64,
    pub util: u64,
    pub runnable: u64,
    pub capacity: u64,
    pub nr_running: usize,
    pub idle_cpus: usize,
    pub misfit_task_load: u64,
    /// avg_load where the kernel computes it (v5.5+: overloaded groups; before v5.5: every group),
    /// else 0.
    pub avg_load: u64,
}

/// How the pre-v5.5 `find_busiest_group()` reached `env->imbalance`.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum LegacyImbalancePath {
    /// `check_asym_packing()` bypassed the load checks: the busiest group's whole load.
    CheckAsymPacking,
    /// `goto force_balance` (group_imbalanced, group_misfit_task, or an idle dst with capacity
    /// facing an overloaded group), then `calculate_imbalance()`.
    ForceBalance,
    /// The avg_load tests found an imbalance, then `calculate_imbalance()`.
    CalculateImbalance,
}

impl LegacyImbalancePath {
    /// The kernel's name for the path: the function or label that set the imbalance.
    pub fn kernel_name(self) -> &'static str {
        match self {
            LegacyImbalancePath::CheckAsymPacking => "check_asym_packing",
            LegacyImbalancePath::ForceBalance => "force_balance",
            LegacyImbalancePath::CalculateImbalance => "calculate_imbalance",
        }
    }
}

/// The figures of a pre-v5.5 imbalance computation (`calculate_imbalance()` and
/// `fix_small_imbalance()`), as that kernel's source names them.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
pub struct LegacyImbalance {
    pub path: LegacyImbalancePath,
    /// `sds->avg_load`: the domain's total load per capacity.
    pub avg_load: u64,
    pub local_avg_load: u64,
    pub busiest_avg_load: u64,
    /// `busiest->load_per_task`.
    pub load_per_task: u64,
    /// `fix_small_imbalance()` ran (Some), and whether it set the imbalance to one task's load.
    pub fix_small_imbalance: Option<bool>,
}

/// How a `load_balance()` pass ended.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum BalanceResult {
    /// `should_we_balance()`: another CPU of the group balances this level.
    NotThisCpu,
    /// `find_busiest_group()` found no imbalance worth fixing.
    Balanced,
    /// No runqueue of the busiest group qualified (`find_busiest_queue()`).
    NoBusiestQueue,
    /// Tasks were detached and attached here.
    Moved,
    /// Nothing could be detached (a single running task, cache-hot or too big tasks).
    NothingMoved,
    /// Nothing was detached and the busiest CPU's stopper will push its running task.
    ActiveBalance,
    /// Every candidate task was pinned elsewhere.
    AllPinned,
    /// `newidle_balance()` did not balance this level or any above: the CPU's expected idle time
    /// is too short for it (see [`BalanceDecision::newidle_skip`]).
    NewidleSkipped,
}

/// Why `newidle_balance()` stopped before a level (all times ns).
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(tag = "gate", rename_all = "snake_case")]
pub enum NewidleSkip {
    /// v3.x-v5.15: `avg_idle < sysctl_sched_migration_cost`, checked before any level.
    MigrationCost { avg_idle: u64, migration_cost: u64 },
    /// v5.16+: `avg_idle < sd->max_newidle_lb_cost` of the lowest level, checked before any level.
    MaxNewidleLbCost {
        avg_idle: u64,
        max_newidle_lb_cost: u64,
    },
    /// Every era: `avg_idle < curr_cost + sd->max_newidle_lb_cost` at this level, where
    /// `curr_cost` is what the levels below cost in this pass.
    DomainCost {
        avg_idle: u64,
        curr_cost: u64,
        max_newidle_lb_cost: u64,
    },
}

/// One `load_balance()` pass.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct BalanceDecision {
    pub t: u64,
    pub cpu: usize,
    pub level: SdLevel,
    pub idle: CpuIdleType,
    /// Groups in visiting order; the first is the local group.
    pub groups: Vec<GroupLog>,
    /// Index into `groups` of the busiest group, if any.
    pub busiest: Option<usize>,
    pub migration_type: Option<MigrationType>,
    pub imbalance: i64,
    pub src_cpu: Option<usize>,
    pub moved: usize,
    pub nr_balance_failed: u32,
    pub result: BalanceResult,
    /// With [`BalanceResult::NewidleSkipped`]: the gate that stopped it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub newidle_skip: Option<NewidleSkip>,
    /// The legacy balancer's imbalance figures (before v5.5, which has no migration type).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub legacy: Option<LegacyImbalance>,
}

/// What a decision is about, for filtering (`schedlab explain --kind`).
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum DecisionKind {
    Wakeup,
    Fork,
    /// A balance pass that found an imbalance.
    Balance,
    /// A balance pass that found nothing to do (see [`Decision::is_quiet`]).
    Quiet,
    /// A frequency decision.
    Freq,
    /// A wake-up placed by `find_energy_efficient_cpu()`.
    Eas,
}

impl Decision {
    pub fn kind(&self) -> DecisionKind {
        match self {
            Decision::Wakeup(w) if w.fork => DecisionKind::Fork,
            Decision::Wakeup(w) if w.eas.is_some() => DecisionKind::Eas,
            Decision::Wakeup(_) => DecisionKind::Wakeup,
            Decision::Balance(_) if self.is_quiet() => DecisionKind::Quiet,
            Decision::Balance(_) => DecisionKind::Balance,
            Decision::Freq(_) => DecisionKind::Freq,
        }
    }

    /// Whether the decision involves `cpu` (`schedlab explain --cpu`): a wake-up's target,
    /// previous or waker CPU; a balance pass's CPU or source CPU; a frequency decision's CPU or
    /// any CPU of its clock (`same_clock(c)`: whether CPU `c` shares `cpu`'s clock).
    pub fn involves(&self, cpu: usize, same_clock: &dyn Fn(usize) -> bool) -> bool {
        match self {
            Decision::Wakeup(w) => w.target == cpu || w.prev_cpu == cpu || w.waker_cpu == Some(cpu),
            Decision::Balance(b) => b.cpu == cpu || b.src_cpu == Some(cpu),
            Decision::Freq(f) => f.cpu == cpu || same_clock(f.cpu),
        }
    }

    pub fn t(&self) -> u64 {
        match self {
            Decision::Wakeup(w) => w.t,
            Decision::Balance(b) => b.t,
            Decision::Freq(f) => f.t,
        }
    }

    /// A balance pass that found nothing to do, or a newly-idle balance skipped for want of idle
    /// time (one per idle entry in some workloads): the bulk of any log, hidden by default.
    pub fn is_quiet(&self) -> bool {
        matches!(self, Decision::Balance(b) if matches!(b.result, BalanceResult::NotThisCpu | BalanceResult::Balanced | BalanceResult::NewidleSkipped))
    }

    /// One readable paragraph; `name` gives a task's name.
    pub fn to_text(&self, name: &dyn Fn(usize) -> String) -> String {
        match self {
            Decision::Wakeup(w) => {
                let what = match (w.fork, w.exec) {
                    (true, _) => "fork",
                    (_, true) => "exec",
                    _ => "wakeup",
                };
                let from = match w.waker_cpu {
                    Some(c) if w.fork => format!("parent on CPU{c}"),
                    Some(c) if w.exec => format!("running on CPU{c}"),
                    Some(c) => format!("waker on CPU{c}, prev CPU{}", w.prev_cpu),
                    None => format!("timer, prev CPU{}", w.prev_cpu),
                };
                let mut why = Vec::new();
                if w.wake_wide {
                    why.push("wake_wide".to_string());
                }
                if w.wake_cap {
                    why.push("wake_cap: does not fit".to_string());
                }
                if let Some(a) = w.affine_cpu {
                    why.push(format!("wake_affine -> CPU{a}"));
                }
                let path = match (w.path, w.slow_path_level) {
                    (Placement::SlowPath, Some(l)) => format!("find_idlest_cpu from {}", l.name()),
                    (Placement::SlowPath, None) => "find_idlest_cpu".to_string(),
                    (Placement::FastPath, _) => "select_idle_sibling".to_string(),
                    (Placement::Energy, _) => w
                        .eas
                        .as_ref()
                        .map_or("find_energy_efficient_cpu".to_string(), |e| e.to_text()),
                };
                format!(
                    "{:>12.6} {what} {} (util {}): {from}; {}{path} -> CPU{}",
                    w.t as f64 / 1e9,
                    name(w.task),
                    w.task_util,
                    if why.is_empty() {
                        String::new()
                    } else {
                        format!("{}; ", why.join(", "))
                    },
                    w.target
                )
            }
            Decision::Freq(f) => {
                let mhz = |k: u32| k / 1000;
                let mut s = format!(
                    "{:>12.6} CPU{} policy{} {}: ",
                    f.t as f64 / 1e9,
                    f.cpu,
                    f.policy,
                    f.why.name()
                );
                if matches!(f.why, FreqWhy::HwpRamp | FreqWhy::HwpBoost) {
                    // The HWP model's inputs: the core's activity and HWP max.
                    s.push_str(&format!(
                        "core activity {}/{} max {} MHz, ",
                        f.util,
                        f.max,
                        mhz(f.ref_khz)
                    ));
                } else if f.max > 0 {
                    s.push_str(&format!(
                        "util {}/{} ref {} MHz, ",
                        f.util,
                        f.max,
                        mhz(f.ref_khz)
                    ));
                }
                let verb = match f.why {
                    FreqWhy::RateLimited | FreqWhy::BusyHold => "would ask",
                    _ => "asks",
                };
                s.push_str(&format!(
                    "{verb} {} MHz, runs {} MHz",
                    mhz(f.req_khz),
                    mhz(f.granted_khz)
                ));
                s
            }
            Decision::Balance(b) => {
                let mut s = format!(
                    "{:>12.6} CPU{} load_balance {} ({:?}), nr_balance_failed {}: {:?}",
                    b.t as f64 / 1e9,
                    b.cpu,
                    b.level.name(),
                    b.idle,
                    b.nr_balance_failed,
                    b.result
                );
                match b.newidle_skip {
                    Some(NewidleSkip::MigrationCost {
                        avg_idle,
                        migration_cost,
                    }) => s.push_str(&format!(
                        ": avg_idle {avg_idle} ns < sysctl_sched_migration_cost {migration_cost} ns"
                    )),
                    Some(NewidleSkip::MaxNewidleLbCost {
                        avg_idle,
                        max_newidle_lb_cost,
                    }) => s.push_str(&format!(
                        ": avg_idle {avg_idle} ns < max_newidle_lb_cost {max_newidle_lb_cost} ns"
                    )),
                    Some(NewidleSkip::DomainCost {
                        avg_idle,
                        curr_cost,
                        max_newidle_lb_cost,
                    }) => s.push_str(&format!(
                        ": avg_idle {avg_idle} ns < curr_cost {curr_cost} + max_newidle_lb_cost {max_newidle_lb_cost} ns"
                    )),
                    None => {}
                }
                if let (Some(m), Some(src)) = (b.migration_type, b.src_cpu) {
                    s.push_str(&format!(
                        ", {m:?} imbalance {} from CPU{src}, moved {}",
                        b.imbalance, b.moved
                    ));
                } else if let Some(m) = b.migration_type {
                    s.push_str(&format!(", {m:?} imbalance {}", b.imbalance));
                } else if let Some(src) = b.src_cpu.filter(|_| b.legacy.is_some()) {
                    s.push_str(&format!(
                        ", imbalance {} (load) from CPU{src}, moved {}",
                        b.imbalance, b.moved
                    ));
                } else if b.legacy.is_some() {
                    s.push_str(&format!(", imbalance {} (load)", b.imbalance));
                }
                if let Some(l) = &b.legacy {
                    let path = l.path.kernel_name();
                    s.push_str(&format!(
                        "\n    {path}: avg_load sd {} local {} busiest {}, load_per_task {}",
                        l.avg_load, l.local_avg_load, l.busiest_avg_load, l.load_per_task
                    ));
                    match l.fix_small_imbalance {
                        Some(true) => s.push_str(", fix_small_imbalance: one task's load"),
                        Some(false) => s.push_str(", fix_small_imbalance: nothing to gain"),
                        None => {}
                    }
                }
                for (i, g) in b.groups.iter().enumerate() {
                    let role = if i == 0 {
                        "local  "
                    } else if Some(i) == b.busiest {
                        "busiest"
                    } else {
                        "       "
                    };
                    s.push_str(&format!(
                        "\n    {role} {{{}}} {}: nr {} idle {} load {} util {} runnable {} capacity {}{}{}",
                        g.cpus,
                        g.group_type.kernel_name(),
                        g.nr_running,
                        g.idle_cpus,
                        g.load,
                        g.util,
                        g.runnable,
                        g.capacity,
                        if g.misfit_task_load > 0 { format!(" misfit {}", g.misfit_task_load) } else { String::new() },
                        if g.avg_load > 0 { format!(" avg_load {}", g.avg_load) } else { String::new() },
                    ));
                }
                s
            }
        }
    }
}
