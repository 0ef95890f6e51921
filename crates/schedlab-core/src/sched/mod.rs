//! The fair scheduling class: runqueues and tasks ([`rq`]), wake-up placement ([`wakeup`]) and load
//! balancing ([`balance`]), as methods on the [`World`] the engine owns.
//!
//! Only SCHED_NORMAL tasks exist in the model and there are no task groups, so `h_nr_running` equals
//! `nr_running` and `task_h_load()` is the task's own `load_avg`; rt/irq pressure is absent, so
//! `capacity_of()` equals `capacity_orig_of()` (which before v5.0 is smt_gain-scaled on SMT
//! threads, see [`crate::domains::capacity_orig`]).

pub mod balance;
mod cfs_tasks;
pub mod delayed;
pub mod eas;
pub mod eevdf;
pub mod idle_cores;
pub mod lb_v4;
pub mod log;
pub mod reweight;
pub mod rq;
pub mod sis;
pub mod tracepoints;
pub mod uclamp;
#[cfg(test)]
mod uclamp_tests;
pub mod wakeup;

use crate::cpumask::CpuMask;
use crate::domains::SchedDomains;
use crate::kernel::KernelConfig;
use crate::pelt::{ClockPelt, SchedAvg};
use crate::topology::Topology;
use crate::trace::Counters;
use crate::units::{Nanos, Work};
use std::cell::Cell;

pub type TaskId = usize;

/// `SCHED_FIXEDPOINT_SHIFT`: 64-bit kernels keep `load.weight` this many bits finer than the
/// `scale_load_down()`d weights the model uses.
pub const SCHED_FIXEDPOINT_SHIFT: u32 = 10;

/// `NICE_0_LOAD` after `scale_load_down()`.
pub const NICE_0_LOAD: u64 = 1024;

/// `sched_prio_to_weight[]` (kernel/sched/core.c): weight of nice -20..19; each step is ~1.25x,
/// so a nice level is worth ~10% of CPU time against a nice-0 neighbour.
pub const SCHED_PRIO_TO_WEIGHT: [u64; 40] = [
    88761, 71755, 56483, 46273, 36291, 29154, 23254, 18705, 14949, 11916, 9548, 7620, 6100, 4904,
    3906, 3121, 2501, 1991, 1586, 1277, 1024, 820, 655, 526, 423, 335, 272, 215, 172, 137, 110, 87,
    70, 56, 45, 36, 29, 23, 18, 15,
];

/// The load weight of a nice value, clamped to -20..19.
pub fn nice_to_weight(nice: i32) -> u64 {
    SCHED_PRIO_TO_WEIGHT[(nice.clamp(-20, 19) + 20) as usize]
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TaskState {
    /// On a runqueue (queued or running).
    Runnable,
    /// Asleep until a timer.
    Sleeping,
    /// Waiting on a gate, its children, or another task.
    Blocked,
    Exited,
}

/// A task (`struct task_struct` with its `sched_entity`).
#[derive(Clone, Debug)]
pub struct Task {
    pub id: TaskId,
    pub state: TaskState,
    /// `task_cpu(p)`: where it runs, or ran last.
    pub cpu: usize,
    pub weight: u64,
    pub vruntime: u64,
    /// EEVDF's `se->deadline`: the virtual time its current request (slice) ends (v6.6+).
    pub deadline: u64,
    /// EEVDF's `se->vlag`: the lag saved at dequeue (`update_entity_lag()`), or, while the task
    /// runs, its deadline at the pick (RUN_TO_PARITY's stash in `set_next_entity()`).
    pub vlag: i64,
    /// EEVDF's `se->slice`: the request size in wall ns (`sysctl_sched_base_slice`, v6.6+).
    pub slice: u64,
    /// `se->custom_slice` (v6.12+): `slice` was asked for with `sched_attr.sched_runtime`.
    pub custom_slice: bool,
    /// `se->sched_delayed` (v6.12+ DELAY_DEQUEUE): asleep, but still on its runqueue (see
    /// [`crate::sched::delayed`]); `state` says it sleeps.
    pub sched_delayed: bool,
    /// `se->vprot` (v6.17+, [`crate::kernel::KernelConfig::protect_slice`]): the vruntime up to
    /// which curr is protected from wake-up preemption (`set_protect_slice()`).
    pub vprot: u64,
    /// `se->rel_deadline` (v6.12+ PLACE_REL_DEADLINE): `deadline` holds `deadline - vruntime`
    /// since a dequeue that was not a sleep.
    pub rel_deadline: bool,
    pub sum_exec_runtime: u64,
    pub prev_sum_exec_runtime: u64,
    pub exec_start: Nanos,
    /// When it last stopped running (for `task_hot()`).
    pub last_ran: Nanos,
    pub avg: SchedAvg,
    /// `util_est.enqueued`: util_avg at the last dequeue for sleep.
    pub util_est_enqueued: u64,
    /// `util_est.ewma`.
    pub util_est_ewma: u64,
    /// `p->cpus_ptr`.
    pub allowed: CpuMask,
    pub last_wakee: Option<TaskId>,
    pub wakee_flips: u32,
    pub wakee_flip_decay_ts: u64,
    pub recent_used_cpu: usize,
    pub nr_migrations: u64,
    // Program state (see crate::workload).
    pub program: usize,
    pub pc: usize,
    /// Work left in the current `Run` op.
    pub work_left: Work,
    pub parent: Option<TaskId>,
    pub live_children: u32,
    /// `p->in_iowait`: the task sleeps in `io_schedule()` (an [`crate::workload::Op::IoSleep`]);
    /// its wake-up enqueue asks cpufreq for an update with `SCHED_CPUFREQ_IOWAIT`.
    pub in_iowait: bool,
    /// The CPU whose `rq->nr_iowait` counts the task while it sleeps in I/O.
    pub iowait_cpu: usize,
    /// `p->uclamp_req[]` and `p->uclamp[]` (v5.3+, [`uclamp`]).
    pub uclamp: uclamp::TaskUclamp,
}

impl Task {
    /// A new nice-0 task that has not run yet, last seen on `cpu`.
    pub fn new(
        id: TaskId,
        cpu: usize,
        allowed: CpuMask,
        program: usize,
        parent: Option<TaskId>,
        now: Nanos,
    ) -> Task {
        Task {
            id,
            state: TaskState::Blocked,
            cpu,
            weight: NICE_0_LOAD,
            vruntime: 0,
            deadline: 0,
            vlag: 0,
            slice: 0,
            custom_slice: false,
            sched_delayed: false,
            vprot: 0,
            rel_deadline: false,
            sum_exec_runtime: 0,
            prev_sum_exec_runtime: 0,
            exec_start: now,
            last_ran: 0,
            avg: SchedAvg::default(),
            util_est_enqueued: 0,
            util_est_ewma: 0,
            allowed,
            last_wakee: None,
            wakee_flips: 0,
            wakee_flip_decay_ts: 0,
            recent_used_cpu: cpu,
            nr_migrations: 0,
            program,
            pc: 0,
            work_left: 0,
            parent,
            live_children: 0,
            in_iowait: false,
            iowait_cpu: 0,
            uclamp: uclamp::TaskUclamp::default(),
        }
    }
}

/// A CPU's runqueue (`struct rq` with its root `cfs_rq`).
#[derive(Clone, Debug)]
pub struct Rq {
    pub cpu: usize,
    pub curr: Option<TaskId>,
    /// Queued tasks other than curr, sorted by (vruntime, id): the rbtree.
    pub queue: Vec<(u64, TaskId)>,
    /// `rq->cfs_tasks` order: most recently picked first; `detach_tasks()` walks from the tail.
    pub cfs_tasks: Vec<TaskId>,
    pub nr_running: usize,
    /// `cfs_rq->h_nr_delayed` (v6.12+): how many of `nr_running` are delayed-dequeued tasks.
    pub h_nr_delayed: usize,
    /// `cfs_rq->load.weight`.
    pub load_weight: u64,
    pub min_vruntime: u64,
    /// `cfs_rq->avg_vruntime`: sum over the queued tasks (curr excluded) of
    /// `(vruntime - min_vruntime) * weight` (v6.6+; kept for every era, it is cheap).
    pub avg_vruntime: i64,
    /// `cfs_rq->avg_load`: sum of the queued tasks' weights (curr excluded).
    pub avg_load: u64,
    /// The cfs_rq's PELT signals.
    pub avg: SchedAvg,
    pub clock_pelt: ClockPelt,
    /// `rq->idle_stamp`, as the kernel keeps it: set when `newidle_balance()` starts (the CPU is
    /// about to go idle), cleared (0) when that balance pulls a task and when a wake-up lands here
    /// (`ttwu_do_wakeup()`, which first feeds the idle time to [`Rq::avg_idle`]). So on an idle
    /// CPU it is when the CPU went idle, which is what `find_idlest_group_cpu()` ranks idle CPUs
    /// by (v4.9-v6.8: most recently idle first, without cpuidle states). A CPU that left idle by
    /// a migration keeps it until the next wake-up. Before the run, the CPUs' history sets it (see
    /// the engine's `draw_idle_history`).
    pub idle_stamp: Nanos,
    /// `rq->avg_idle` (ns): `update_avg()` EWMA (1/8 per sample) of how long the CPU stayed idle,
    /// sampled at each wake-up onto it while `idle_stamp` is set and capped at
    /// `2 * max_idle_balance_cost`; starts at `2 * sysctl_sched_migration_cost` (`sched_init()`).
    /// `newidle_balance()` compares it with the cost of balancing.
    pub avg_idle: u64,
    /// `rq->max_idle_balance_cost` (ns): the most a whole `newidle_balance()` cost, floored at
    /// `sysctl_sched_migration_cost` when `rebalance_domains()` decays it.
    pub max_idle_balance_cost: u64,
    /// `rq->has_blocked_load`: set when the CPU enters tickless idle, cleared once
    /// `update_blocked_averages()` finds its load and utilization decayed to 0.
    pub has_blocked_load: bool,
    /// `rq->last_blocked_load_update_tick`, jiffies.
    pub last_blocked_load_update_tick: u64,
    /// `rq->next_balance` in jiffies.
    pub next_balance: u64,
    pub misfit_task_load: u64,
    /// `cfs_rq->avg.util_est.enqueued`: sum of the enqueued tasks' estimates.
    pub util_est_enqueued: u64,
    /// `cfs_rq->skip`: the task that yielded.
    pub skip: Option<TaskId>,
    /// `cfs_rq->next`: the next buddy (a woken task that preempted curr).
    pub next: Option<TaskId>,
    /// `cfs_rq->last`: the last buddy (the curr it preempted, LAST_BUDDY).
    pub last: Option<TaskId>,
    /// An active balance is queued for this CPU's stopper.
    pub active_balance: bool,
    // Work accounting of curr.
    pub rate: u64,
    pub last_account: Nanos,
    /// The sequence number of curr's pending completion event (0 for none): an event with
    /// another is stale (curr changed, or its completion time did).
    pub run_done_seq: u64,
    pub tick_armed: bool,
    /// `rq->uclamp[]` and `rq->uclamp_flags` (v5.3+, [`uclamp`]).
    pub uclamp: uclamp::UclampRq,
}

/// Per-CPU copy of a sched domain's balancing state (`sd->balance_interval`, ...).
#[derive(Clone, Copy, Debug)]
pub struct SdState {
    /// ms.
    pub balance_interval: u64,
    pub nr_balance_failed: u32,
    /// jiffies.
    pub last_balance: u64,
    /// `sd->max_newidle_lb_cost` (ns): the most one newly-idle balance at this level cost,
    /// decayed by 253/256 once a second.
    pub max_newidle_lb_cost: u64,
    /// jiffies of the last decay of `max_newidle_lb_cost` (`sd->last_decay_max_lb_cost`, v5.16+;
    /// v3.x-v5.15 keep `next_decay_max_lb_cost`, which is this plus HZ).
    pub last_decay_max_lb_cost: u64,
}

/// A clock domain's state: what the hardware delivers.
#[derive(Clone, Debug)]
pub struct Clock {
    /// The frequency the CPUs run at: the highest request of the clock's policies, capped by what
    /// the hardware grants now (the turbo bin for the package's active cores). What APERF/MPERF
    /// measure.
    pub cur_khz: u32,
    /// `arch_scale_freq_capacity()` at `cur_khz` by the invariance formula (see
    /// [`World::freq_scale`]), computed when the frequency changes ([`World::set_clock_khz`]):
    /// PELT reads it on every update.
    pub freq_scale: u64,
}

/// A cpufreq policy's state (`struct cpufreq_policy` with `struct sugov_policy`).
#[derive(Clone, Debug)]
pub struct Policy {
    /// The governor's last request (`policy->cur` as the kernel knows it: the driver reports the
    /// P-state it asked for, not what the hardware delivered).
    pub req_khz: u32,
    pub last_update: Nanos,
    pub updated_once: bool,
    /// `last_update` has been set (schedutil: by a frequency change, or by any evaluation without
    /// `schedutil_rate_limit_on_change`); before that the rate limit does not apply.
    pub rate_limited: bool,
    /// `sg_cpu->saved_idle_calls` for the busy hold of single-CPU policies.
    pub idle_calls: u64,
    /// `sg_policy->freq_update_delay_ns`: schedutil's rate limit, from the driver at
    /// `sugov_init()` or the sysfs override ([`crate::cpufreq::CpufreqDriverSpec`]).
    pub freq_update_delay_ns: Nanos,
    /// `policy_is_shared()`: more than one CPU, so schedutil runs `sugov_update_shared()` rather
    /// than `sugov_update_single()` (chosen once, at `sugov_start()`).
    pub shared: bool,
    /// The policy's first (for an unshared policy, only) CPU.
    pub cpu: usize,
}

/// The clocks a change of a package's number of active cores may re-cap.
#[derive(Clone, Debug)]
pub struct PackageTurbo {
    /// The package's clock domains with turbo bins, ascending.
    pub clocks: Vec<usize>,
    /// All of them have the same bins, so one lookup tells whether the cap moved.
    pub same_bins: bool,
}

/// The simulated machine and everything on it.
pub struct World {
    pub topo: Topology,
    pub sd: SchedDomains,
    pub config: KernelConfig,
    /// `TICK_NSEC`, [`KernelConfig::tick_ns`] of `config` kept with it: [`World::jiffies`] reads
    /// it on every event, and the kernel's is a constant, not a division per read. The engine's
    /// `verify()` checks it against `config`.
    pub(crate) tick_ns: u64,
    /// The jiffy [`World::jiffies`] last computed: its start (ns) and its number. The kernel's
    /// `jiffies` is a counter the tick advances; here it follows `now`, which the engine and tests
    /// set, so it is derived on read, and the division only when `now` has left that jiffy.
    jiffy: Cell<(Nanos, u64)>,
    pub tasks: Vec<Task>,
    pub rqs: Vec<Rq>,
    /// `[cpu * levels + level]`, levels = the CPU's domains bottom up.
    pub sd_state: Vec<SdState>,
    pub sd_state_stride: usize,
    /// Indexed like [`Topology::policies`].
    pub policies: Vec<Policy>,
    /// Indexed like [`Topology::freq_domains`].
    pub clocks: Vec<Clock>,
    /// schedutil's per-CPU state (iowait boost).
    pub sg_cpu: Vec<crate::cpufreq::SugovCpu>,
    /// `rq->nr_iowait` per CPU: tasks that blocked in I/O there and have not been woken
    /// (`io_schedule()` / `try_to_wake_up()`); the menu governor's `nr_iowait_cpu()`.
    pub nr_iowait: Vec<u32>,
    /// Per-CPU APERF/MPERF stand-ins and `arch_freq_scale` (`freq_scale_tick`).
    pub freq_tick: Vec<crate::cpufreq::FreqTick>,
    /// A frequency decision waiting for its granted frequency, when the run is traced.
    pub(crate) freq_pending: Option<log::FreqDecision>,
    pub now: Nanos,
    /// `rd->overload`.
    pub rd_overload: bool,
    /// `rd->pd`: the perf domains with their energy models, empty where EAS is off
    /// ([`eas::build_perf_domains`]).
    pub pd: Vec<crate::power::em::EmPerfDomain>,
    /// Why EAS is off, if it is.
    pub eas_off: Option<eas::EasOff>,
    /// `rd->overutilized` (EAS systems, v5.0+).
    pub rd_overutilized: bool,
    /// The last feec evaluation's figures, for the wake-up's decision (traced runs only).
    pub eas_log: Option<log::EasLog>,
    /// `max_load_balance_interval` (fair.c, `update_max_interval()`: `HZ * num_online_cpus() /
    /// 10` jiffies, set when CPUs come online), at least 1: the cap of
    /// `get_sd_balance_interval()`.
    pub max_load_balance_interval: u64,
    /// `nohz.next_balance` in jiffies.
    pub nohz_next_balance: u64,
    /// `nohz.has_blocked`: some tickless idle CPU may have blocked load to decay.
    pub nohz_has_blocked: bool,
    /// `nohz.next_blocked` in jiffies: when the blocked load of idle CPUs is due an update.
    pub nohz_next_blocked: u64,
    /// `nohz_flags(cpu)` of each CPU: the `NOHZ_*_KICK` bits of an ILB kick on its way to it.
    pub nohz_kick_flags: Vec<u8>,
    /// CPUs whose curr must be re-picked (`resched_curr()`); the engine drains it.
    pub need_resched: CpuMask,
    /// Active balances to run: (busiest CPU, destination CPU).
    pub pending_active: Vec<(usize, usize)>,
    pub smt_active: bool,
    /// `arch_scale_cpu_capacity(NULL, cpu)` of each CPU: what PELT and schedutil scale by.
    pub arch_capacity: Vec<u64>,
    /// `capacity_orig_of()` of each CPU (`update_cpu_capacity()`, with smt_gain where it applies).
    pub capacity_orig: Vec<u64>,
    /// `sgc->imbalance` of each group of each domain.
    pub group_imbalance: Vec<Vec<bool>>,
    /// CPUs with nothing running or queued (`idle_cpu()`), kept up to date by the runqueue code.
    pub idle_mask: CpuMask,
    /// Wholly and partly idle cores, following `idle_mask` ([`idle_cores::IdleCores`]).
    pub idle_cores: idle_cores::IdleCores,
    /// Per LLC, indexed by `sd_llc_id` (the LLC's first CPU): `sd_llc_shared` and the LLC
    /// domain's `avg_scan_cost` (see [`sis::LlcShared`]).
    pub llc_shared: Vec<sis::LlcShared>,
    /// The smallest hardware capacity: CPUs above it are "big".
    pub min_capacity_orig: u64,
    /// When each CPU last started running something (None while idle).
    pub busy_since: Vec<Option<Nanos>>,
    /// Threads of each core with `busy_since` set, kept by [`World::set_cpu_busy`].
    pub core_busy_threads: Vec<u32>,
    /// Busy time of each CPU up to `busy_since`.
    pub busy_ns: Vec<u64>,
    /// How often each CPU went idle (`idle_calls` of the nohz tick code).
    pub idle_calls: Vec<u64>,
    /// Energy of the cores, then of the clusters' shared domains (see [`crate::power`]).
    pub energy: crate::power::EnergyMeter,
    /// Idle states of the CPUs and the clusters' awake cores (see [`crate::power::cpuidle`]).
    pub idle: crate::power::cpuidle::IdleTracker,
    /// Active cores of each package (the turbo budget's input).
    pub active_cores: Vec<u32>,
    /// Each package's clock domains with turbo bins (derived from the topology at boot).
    pub turbo: Vec<PackageTurbo>,
    /// The HWP model: each core's activity, each CPU's dynamic boost ([`crate::hwp`]).
    pub hwp: crate::hwp::HwpState,
    pub counters: Counters,
    /// The decision log, when the run is traced.
    pub log: Option<Vec<log::Decision>>,
    /// Tasks moved by `detach_tasks()` (task, from, to), when the run is traced: the engine turns
    /// them into `sched_migrate_task` events after each balance call.
    pub balance_moves: Option<Vec<(TaskId, usize, usize)>>,
    /// The signal events (PELT, util_est, overutilized, energy) of a run traced with signals,
    /// pushed where the kernel's tracepoints fire ([`tracepoints`]); the engine moves them into
    /// its trace in order.
    pub signals: Option<Vec<crate::trace::TraceEvent>>,
    /// Scratch space for the groups of the balance pass being logged.
    pub(crate) lb_groups: Vec<log::GroupLog>,
    /// The legacy balancer's imbalance figures of the pass being logged.
    pub(crate) lb_legacy: Option<log::LegacyImbalance>,
    /// sched_latency, min_granularity, wakeup_granularity after `update_sysctl()` scaling.
    pub sched_latency: u64,
    pub sched_min_granularity: u64,
    pub sched_wakeup_granularity: u64,
    /// `sched_nr_latency`: how many tasks fit in `sched_latency` at `sched_min_granularity` each
    /// (a variable the kernel sets with the sysctls, not a division per `__sched_period()`).
    pub(crate) sched_nr_latency: usize,
}

impl World {
    pub fn new(topo: Topology, sd: SchedDomains, config: KernelConfig) -> World {
        let n = topo.nr_cpus();
        // update_sysctl(), SCHED_TUNABLESCALING_LOG: factor = 1 + ilog2(min(ncpus, 8)).
        let factor = 1 + (n.clamp(1, 8) as u64).ilog2() as u64;
        let stride = sd.per_cpu.iter().map(|d| d.len()).max().unwrap_or(0).max(1);
        let mut sd_state = Vec::with_capacity(n * stride);
        for cpu in 0..n {
            for l in 0..stride {
                let interval = sd.per_cpu[cpu]
                    .get(l)
                    .map_or(1, |&d| sd.domains[d].span_weight as u64);
                sd_state.push(SdState {
                    balance_interval: interval,
                    nr_balance_failed: 0,
                    last_balance: 0,
                    max_newidle_lb_cost: 0,
                    last_decay_max_lb_cost: 0,
                });
            }
        }
        let policies: Vec<Policy> = topo
            .policies
            .iter()
            .map(|p| Policy {
                req_khz: p.init_khz,
                last_update: 0,
                updated_once: false,
                rate_limited: false,
                idle_calls: 0,
                freq_update_delay_ns: p.driver.freq_update_delay_ns(&config),
                shared: p.cpus.weight() > 1,
                cpu: p.cpus.first().unwrap_or(0),
            })
            .collect();
        // Before any governor ran: the highest boot request of the clock's policies, uncapped
        // (no core is active yet).
        let clocks = topo
            .freq_domains
            .iter()
            .map(|fd| Clock {
                cur_khz: fd
                    .policies
                    .iter()
                    .map(|&p| policies[p].req_khz)
                    .max()
                    .unwrap_or(fd.reference_khz()),
                freq_scale: 0,
            })
            .collect();
        let turbo = (0..topo.packages.len())
            .map(|pkg| {
                let clocks: Vec<usize> = (0..topo.freq_domains.len())
                    .filter(|&d| {
                        let dom = &topo.freq_domains[d];
                        dom.package == pkg && !dom.turbo_bins.is_empty()
                    })
                    .collect();
                let same_bins = clocks.windows(2).all(|w| {
                    topo.freq_domains[w[0]].turbo_bins == topo.freq_domains[w[1]].turbo_bins
                });
                PackageTurbo { clocks, same_bins }
            })
            .collect();
        let smt_active = topo.cores.iter().any(|c| c.weight() > 1);
        let ncores = topo.cores.len();
        let npackages = topo.packages.len();
        let nclusters = topo.spec.clusters.len();
        let hwp = crate::hwp::HwpState::new(&topo);
        let max_load_balance_interval = (config.hz as u64 * n as u64 / 10).max(1);
        let group_imbalance = sd
            .domains
            .iter()
            .map(|d| vec![false; d.groups.len()])
            .collect();
        let min_capacity_orig = topo.capacities().first().copied().unwrap_or(1024) as u64;
        let arch_capacity: Vec<u64> = (0..n)
            .map(|c| crate::domains::arch_scale_cpu_capacity(&topo, &config, c))
            .collect();
        let (pd, eas_off) = match eas::build_perf_domains(&topo, &sd, &config, &arch_capacity) {
            Ok(pd) => (pd, None),
            Err(why) => (Vec::new(), Some(why)),
        };
        let capacity_orig = (0..n)
            .map(|c| crate::domains::capacity_orig(&topo, &config, c))
            .collect();
        let rqs = (0..n)
            .map(|cpu| Rq {
                cpu,
                curr: None,
                queue: Vec::with_capacity(16),
                cfs_tasks: Vec::with_capacity(16),
                nr_running: 0,
                h_nr_delayed: 0,
                load_weight: 0,
                min_vruntime: rq::VRUNTIME_ORIGIN,
                avg_vruntime: 0,
                avg_load: 0,
                avg: SchedAvg::default(),
                clock_pelt: ClockPelt::default(),
                // Every CPU has gone idle once since boot (`newidle_balance()` set its stamp):
                // an idle CPU's stamp is never 0, and `find_idlest_group_cpu()` skips a 0.
                idle_stamp: 1,
                avg_idle: 2 * config.sched_migration_cost_ns,
                max_idle_balance_cost: config.sched_migration_cost_ns,
                has_blocked_load: false,
                last_blocked_load_update_tick: 0,
                next_balance: 0,
                misfit_task_load: 0,
                skip: None,
                next: None,
                last: None,
                util_est_enqueued: 0,
                active_balance: false,
                rate: 0,
                last_account: 0,
                run_done_seq: 0,
                tick_armed: false,
                uclamp: uclamp::UclampRq::default(),
            })
            .collect();
        let llc_shared = (0..n)
            .map(|cpu| sis::LlcShared::idle_machine(sd.llc_size[cpu], smt_active))
            .collect();
        let idle_cores = idle_cores::IdleCores::new(&topo, &CpuMask::first_n(n));
        let mut w = World {
            llc_shared,
            sched_latency: config.sched_latency_ns * factor,
            sched_min_granularity: config.sched_min_granularity_ns * factor,
            sched_wakeup_granularity: config.sched_wakeup_granularity_ns * factor,
            sched_nr_latency: (config.sched_latency_ns * factor
                / (config.sched_min_granularity_ns * factor))
                .max(1) as usize,
            topo,
            sd,
            tick_ns: config.tick_ns(),
            jiffy: Cell::new((0, 0)),
            config,
            tasks: Vec::new(),
            rqs,
            sd_state,
            sd_state_stride: stride,
            policies,
            clocks,
            sg_cpu: vec![crate::cpufreq::SugovCpu::default(); n],
            nr_iowait: vec![0; n],
            freq_tick: vec![crate::cpufreq::FreqTick::default(); n],
            freq_pending: None,
            now: 0,
            rd_overload: false,
            pd,
            eas_off,
            rd_overutilized: false,
            eas_log: None,
            max_load_balance_interval,
            nohz_next_balance: 0,
            nohz_has_blocked: false,
            nohz_next_blocked: 0,
            nohz_kick_flags: vec![0; n],
            need_resched: CpuMask::EMPTY,
            pending_active: Vec::with_capacity(8),
            smt_active,
            min_capacity_orig,
            idle_mask: CpuMask::first_n(n),
            idle_cores,
            group_imbalance,
            arch_capacity,
            capacity_orig,
            busy_since: vec![None; n],
            core_busy_threads: vec![0; ncores],
            busy_ns: vec![0; n],
            idle_calls: vec![0; n],
            energy: crate::power::EnergyMeter::new(ncores + nclusters),
            idle: Default::default(),
            active_cores: vec![0; npackages],
            turbo,
            hwp,
            counters: Counters::default(),
            log: None,
            balance_moves: None,
            signals: None,
            lb_groups: Vec::new(),
            lb_legacy: None,
        };
        w.init_idle_states();
        for fd in 0..w.clocks.len() {
            w.set_clock_khz(fd, w.clocks[fd].cur_khz);
        }
        w
    }

    pub fn nr_cpus(&self) -> usize {
        self.rqs.len()
    }

    /// `jiffies`.
    pub fn jiffies(&self) -> u64 {
        let (start, j) = self.jiffy.get();
        // Unsigned: a `now` before `start` (a test moving time back) is far past the jiffy too.
        if self.now.wrapping_sub(start) < self.tick_ns {
            return j;
        }
        let j = self.now / self.tick_ns;
        self.jiffy.set((j * self.tick_ns, j));
        j
    }

    /// `msecs_to_jiffies()`.
    pub fn msecs_to_jiffies(&self, ms: u64) -> u64 {
        (ms * self.config.hz as u64).div_ceil(1000)
    }

    /// `idle_cpu()` / `available_idle_cpu()`: nothing running or queued.
    pub fn idle_cpu(&self, cpu: usize) -> bool {
        self.idle_mask.test(cpu)
    }

    /// `capacity_of()`: no rt/irq pressure in the model, so `capacity_orig_of()`.
    pub fn capacity_of(&self, cpu: usize) -> u64 {
        self.capacity_orig[cpu]
    }

    /// `capacity_orig_of()`: see [`crate::domains::capacity_orig`].
    pub fn capacity_orig_of(&self, cpu: usize) -> u64 {
        self.capacity_orig[cpu]
    }

    /// `arch_scale_cpu_capacity(NULL, cpu)`: what the kernel believes (see
    /// [`crate::domains::arch_scale_cpu_capacity`]); without smt_gain, which needs a domain.
    pub fn arch_scale_cpu_capacity(&self, cpu: usize) -> u64 {
        self.arch_capacity[cpu]
    }

    /// `arch_scale_freq_capacity()`: cur/max frequency in 1/1024 with invariance (max as
    /// [`World::freq_invariance_max_khz`] says, clamped to 1024), else 1024. With
    /// `freq_scale_tick` (x86), the value `arch_scale_freq_tick()` set at the CPU's last tick.
    pub fn freq_scale(&self, cpu: usize) -> u64 {
        if !self.config.frequency_invariance {
            return 1024;
        }
        if self.config.freq_scale_tick {
            return self.freq_tick[cpu].scale;
        }
        self.clocks[self.topo.cpus[cpu].freq_domain].freq_scale
    }

    /// The clock `fd` now runs at `khz`: what APERF/MPERF measure and the scale PELT reads follow.
    pub(crate) fn set_clock_khz(&mut self, fd: usize, khz: u32) {
        self.clocks[fd].cur_khz = khz;
        self.clocks[fd].freq_scale = self.freq_scale_at(fd, khz);
    }

    /// `arch_scale_freq_capacity()` of clock `fd` running at `khz`, with frequency invariance
    /// computed from the frequency (not from the tick).
    pub(crate) fn freq_scale_at(&self, fd: usize, khz: u32) -> u64 {
        let cur = khz as u64;
        let scale = match self.config.freq_invariance_max {
            crate::kernel::FreqInvarianceMax::PolicyMax => {
                cur * 1024 / self.freq_invariance_max_khz(fd).max(1)
            }
            crate::kernel::FreqInvarianceMax::TurboGroup { .. } => {
                // arch_scale_freq_tick() (v5.7): (acnt << 20) / (mcnt * arch_max_freq_ratio), with
                // the ratio floor(turbo_ratio * 1024 / base_ratio) of 100 MHz MSR ratios.
                let (base_khz, ratio) = self.arch_max_freq_ratio(fd);
                (cur << 20) / (base_khz * ratio)
            }
        };
        scale.min(1024)
    }

    /// x86 (v5.7+): the base frequency (kHz, a whole 100 MHz ratio) and `arch_max_freq_ratio` =
    /// floor(turbo_ratio * 1024 / base_ratio) (`skx_set_max_freq_ratio()`).
    pub fn arch_max_freq_ratio(&self, fd: usize) -> (u64, u64) {
        let base_ratio = (self.topo.freq_domains[fd].reference_khz() as u64 / 100_000).max(1);
        let turbo_ratio = self.freq_invariance_max_khz(fd) / 100_000;
        (
            base_ratio * 100_000,
            (turbo_ratio * 1024 / base_ratio).max(1),
        )
    }

    /// Busy time of `cpu` up to now.
    pub fn busy_ns_until_now(&self, cpu: usize) -> u64 {
        self.busy_ns[cpu] + self.busy_since[cpu].map_or(0, |s| self.now - s)
    }

    /// A CPU started (`busy`) or stopped running something: account its busy time and its core's
    /// power.
    pub fn set_cpu_busy(&mut self, cpu: usize, busy: bool) {
        let core = self.topo.cpus[cpu].core;
        let core_was_busy = self.core_busy(core);
        self.freq_tick_account(cpu);
        match (busy, self.busy_since[cpu]) {
            (true, None) => {
                self.busy_since[cpu] = Some(self.now);
                self.core_busy_threads[core] += 1;
            }
            (false, Some(s)) => {
                self.busy_ns[cpu] += self.now - s;
                self.busy_since[cpu] = None;
                self.idle_calls[cpu] += 1;
                self.core_busy_threads[core] -= 1;
            }
            _ => {}
        }
        let package = self.topo.cpus[cpu].package;
        match (core_was_busy, self.core_busy(core)) {
            (false, true) => self.active_cores[package] += 1,
            (true, false) => self.active_cores[package] -= 1,
            _ => {}
        }
        if core_was_busy != self.core_busy(core) {
            self.hwp_core_transition(core, core_was_busy);
        }
        self.update_core_power(core);
    }

    /// A core is active (C0) while any of its threads runs something.
    pub(crate) fn core_busy(&self, core: usize) -> bool {
        self.core_busy_threads[core] > 0
    }

    pub fn sd_state(&self, cpu: usize, level: usize) -> &SdState {
        &self.sd_state[cpu * self.sd_state_stride + level]
    }

    pub fn sd_state_mut(&mut self, cpu: usize, level: usize) -> &mut SdState {
        &mut self.sd_state[cpu * self.sd_state_stride + level]
    }

    /// The `rq->avg_idle` update of `ttwu_do_wakeup()` (v4.9-v5.x; `ttwu_do_activate()` in v6.x):
    /// a task woke onto `cpu`; if the CPU had gone idle (`idle_stamp` set), feed the time since
    /// into the EWMA, cap it at `2 * max_idle_balance_cost`, and clear the stamp.
    pub fn ttwu_update_avg_idle(&mut self, cpu: usize) {
        let div = self.config.update_avg_div;
        let rq = &mut self.rqs[cpu];
        if rq.idle_stamp == 0 {
            return;
        }
        let delta = self.now.saturating_sub(rq.idle_stamp);
        let max = 2 * rq.max_idle_balance_cost;
        rq.avg_idle = update_avg(rq.avg_idle, delta, div);
        if rq.avg_idle > max {
            rq.avg_idle = max;
        }
        rq.idle_stamp = 0;
    }

    /// `resched_curr()`.
    pub fn resched(&mut self, cpu: usize) {
        self.need_resched.set(cpu);
    }
}

/// `update_avg()`: `avg + (sample - avg) / 8` on the kernel's u64/s64 arithmetic. `div` is the
/// v5.7+ form (`diff / 8`, truncating towards zero); without it the v4.x-v5.6 `diff >> 3`
/// (arithmetic shift, rounding towards minus infinity).
pub fn update_avg(avg: u64, sample: u64, div: bool) -> u64 {
    let diff = sample.wrapping_sub(avg) as i64;
    let step = if div { diff / 8 } else { diff >> 3 };
    avg.wrapping_add(step as u64)
}

#[cfg(test)]
mod baseline_tests;
#[cfg(test)]
mod delayed_tests;
#[cfg(test)]
mod eas_tests;
#[cfg(test)]
mod eevdf_tests;
#[cfg(test)]
mod idle_span_tests;
#[cfg(test)]
mod lb_era_tests;
#[cfg(test)]
mod sis_tests;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_signals;
