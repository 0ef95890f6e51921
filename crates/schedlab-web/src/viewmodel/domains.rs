//! The sched-domains diagram's view model: [`DomainsVm`], one variant's domains and CPUs as a tree
//! of boxes, with what a box's children share ([`AlikeChildren`], the chip line its CPUs have in
//! common) so that a big machine reads at a glance. Built in the check worker (`draft::check`)
//! from the core's `DomainsView` and sent to the page as JSON; `components::domains` renders it.

use schedlab_core::domains::{CpuDomainsView, DomainsView, LevelView};
use serde::{Deserialize, Serialize};

/// The sched-domain hierarchy as a tree of nested boxes: the top level's domains, inside each the
/// domains below it, down to the CPUs. Built from the core's per-CPU `DomainsView` alone, so the
/// worker can build it and send it to the page as JSON.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DomainsVm {
    pub machine: String,
    /// Level names, lowest first (SMT, MC, PKG/DIE, NUMA...), as they occur.
    pub levels: Vec<String>,
    pub nr_cpus: usize,
    /// The top of the hierarchy, by first CPU: the highest domains, and any CPU with no domain
    /// at all (a one-CPU machine, or a CPU whose every domain degenerated).
    pub roots: Vec<NodeVm>,
}

/// One box of the diagram: a domain or a CPU, with the capacity of the parent's sched group it
/// stands for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NodeVm {
    /// `sgc->capacity` of the parent domain's group whose span is this node's span; `None` at the
    /// top, or where the parent's groups are not its child spans (then its groups line lists them).
    pub group_capacity: Option<String>,
    pub kind: NodeKind,
}

/// A box holds domains of the levels below and, at the bottom, CPUs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum NodeKind {
    Domain(DomainBoxVm),
    Cpu(CpuLeafVm),
}

/// One sched domain, shared by the CPUs of its span.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DomainBoxVm {
    pub level: String,
    pub span: String,
    /// The CPUs whose hierarchy holds this domain, ascending: its span as numbers.
    pub cpus: Vec<usize>,
    /// `sd->imbalance_pct`: how much busier the busiest group must be before load balancing acts.
    pub imbalance_pct: String,
    pub flags: Vec<String>,
    /// `(span, capacity)` of each group in the kernel's order as the span's first CPU walks them
    /// (its local group first).
    pub groups: Vec<(String, String)>,
    /// The domains one level down and the CPUs with no lower domain, by first CPU.
    pub children: Vec<NodeVm>,
}

/// A CPU at the bottom of the diagram.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CpuLeafVm {
    pub cpu: usize,
    /// `capacity_orig` from the machine description.
    pub capacity: String,
    /// The name of its cluster (`A53`, `S0`, `P9`).
    pub cluster: String,
}

/// What the children of a domain box share when they are many domains alike: the diagram states
/// it once instead of in every child (the 48 SMT pairs of a 96-CPU machine).
#[derive(Debug, Clone, PartialEq)]
pub struct AlikeChildren<'a> {
    pub count: usize,
    pub level: &'a str,
    pub imbalance_pct: &'a str,
    pub flags: &'a [String],
    /// The capacity of each child's group, when they all have the same.
    pub group_capacity: Option<&'a str>,
}

/// Children needed before alike domains are folded: two or three boxes are read at a glance.
const ALIKE_MIN: usize = 4;

/// CPUs a box needs before one line says what all its CPUs share; below it every chip says it.
const UNIFORM_CPUS_MIN: usize = 9;

impl NodeVm {
    /// The CPUs under this node, ascending.
    pub fn cpus(&self) -> Vec<usize> {
        match &self.kind {
            NodeKind::Domain(d) => d.cpus.clone(),
            NodeKind::Cpu(c) => vec![c.cpu],
        }
    }

    fn first_cpu(&self) -> usize {
        match &self.kind {
            NodeKind::Domain(d) => d.cpus.first().copied().unwrap_or(usize::MAX),
            NodeKind::Cpu(c) => c.cpu,
        }
    }

    /// Visits every CPU leaf under this node.
    fn for_each_cpu<'a>(&'a self, f: &mut impl FnMut(&'a CpuLeafVm)) {
        match &self.kind {
            NodeKind::Domain(d) => d.children.iter().for_each(|c| c.for_each_cpu(f)),
            NodeKind::Cpu(c) => f(c),
        }
    }
}

impl CpuLeafVm {
    /// The chip's second line: `cap 462 · A53`.
    pub fn meta(&self) -> String {
        format!("cap {} · {}", self.capacity, self.cluster)
    }
}

impl DomainBoxVm {
    /// `Some` when there are at least [`ALIKE_MIN`] children, all domains of one level with the
    /// same flags and imbalance_pct.
    pub fn alike_children(&self) -> Option<AlikeChildren<'_>> {
        let mut domains = self.children.iter().map(|c| match &c.kind {
            NodeKind::Domain(d) => Some(d),
            NodeKind::Cpu(_) => None,
        });
        let first = domains.next()??;
        let alike = |d: Option<&DomainBoxVm>| {
            d.is_some_and(|d| {
                d.level == first.level
                    && d.flags == first.flags
                    && d.imbalance_pct == first.imbalance_pct
            })
        };
        if self.children.len() < ALIKE_MIN || !domains.all(alike) {
            return None;
        }
        let caps = self.children.iter().map(|c| c.group_capacity.as_deref());
        let group_capacity = caps.reduce(|a, b| if a == b { a } else { None }).flatten();
        Some(AlikeChildren {
            count: self.children.len(),
            level: &first.level,
            imbalance_pct: &first.imbalance_pct,
            flags: &first.flags,
            group_capacity,
        })
    }

    /// Whether every child is a CPU: the chips then say the span and the box need not.
    pub fn holds_only_cpus(&self) -> bool {
        self.children
            .iter()
            .all(|c| matches!(c.kind, NodeKind::Cpu(_)))
    }

    /// The chip line every CPU under this box shares (`cap 1024 · S0`), when the box holds at
    /// least [`UNIFORM_CPUS_MIN`] CPUs: the box says it once and its chips show only CPU ids.
    pub fn uniform_cpu_meta(&self) -> Option<String> {
        let mut first: Option<&CpuLeafVm> = None;
        let mut same = true;
        let mut count = 0;
        for child in &self.children {
            child.for_each_cpu(&mut |c| {
                count += 1;
                match first {
                    None => first = Some(c),
                    Some(f) => same &= f.capacity == c.capacity && f.cluster == c.cluster,
                }
            });
        }
        (same && count >= UNIFORM_CPUS_MIN)
            .then_some(first)
            .flatten()
            .map(CpuLeafVm::meta)
    }

    /// Whether every group has a child box of the same span (then the child boxes carry the
    /// capacities and no groups line is needed).
    pub fn groups_are_children(&self) -> bool {
        self.groups
            .iter()
            .all(|(span, _)| self.children.iter().any(|c| node_span(c) == *span))
    }
}

/// A node's span as the core writes it (`0-3`, `5`).
fn node_span(node: &NodeVm) -> String {
    match &node.kind {
        NodeKind::Domain(d) => d.span.clone(),
        NodeKind::Cpu(c) => c.cpu.to_string(),
    }
}

/// One distinct domain of the view, found in the hierarchy of the CPUs of its span.
struct FoundDomain<'a> {
    level: &'a LevelView,
    cpus: Vec<usize>,
    /// Index of the domain above it, in the hierarchy of its first CPU.
    parent: Option<usize>,
}

/// The view's distinct domains, keyed as the core shares them (same level, same span), and for
/// each CPU of the view the index of its lowest domain.
fn find_domains(view: &DomainsView) -> (Vec<FoundDomain<'_>>, Vec<Option<usize>>) {
    let mut found: Vec<FoundDomain<'_>> = Vec::new();
    // Per CPU (in view order): its domains, bottom up, as indices into `found`.
    let mut chains: Vec<Vec<usize>> = Vec::with_capacity(view.cpus.len());
    for c in &view.cpus {
        let chain = c
            .levels
            .iter()
            .map(|l| {
                let i = found
                    .iter()
                    .position(|d| d.level.level == l.level && d.level.span == l.span)
                    .unwrap_or_else(|| {
                        found.push(FoundDomain {
                            level: l,
                            cpus: Vec::new(),
                            parent: None,
                        });
                        found.len() - 1
                    });
                found[i].cpus.push(c.cpu);
                i
            })
            .collect();
        chains.push(chain);
    }
    // A domain's parent is the next one up in the hierarchy of its first CPU; the first CPU to
    // reach it in view order is the one whose view `found` kept.
    let mut seen = vec![false; found.len()];
    for chain in &chains {
        for (k, &d) in chain.iter().enumerate() {
            if !std::mem::replace(&mut seen[d], true) {
                found[d].parent = chain.get(k + 1).copied();
            }
        }
    }
    for d in &mut found {
        d.cpus.sort_unstable();
    }
    let lowest = chains.iter().map(|chain| chain.first().copied()).collect();
    (found, lowest)
}

/// The view and its distinct domains, for building the boxes top down.
struct Tree<'a> {
    view: &'a DomainsView,
    found: &'a [FoundDomain<'a>],
    lowest: &'a [Option<usize>],
}

impl Tree<'_> {
    /// The box of domain `d` with everything below it; `group_capacity` is filled by the caller.
    /// `depth` stops a malformed view (a parent loop) from recursing forever: a real hierarchy
    /// is never deeper than it has domains.
    fn domain_node(&self, d: usize, depth: usize) -> NodeVm {
        let found = &self.found[d];
        let l = found.level;
        let groups: Vec<(String, String)> = l
            .groups
            .iter()
            .map(|g| (g.span.clone(), g.capacity.to_string()))
            .collect();
        let mut children: Vec<NodeVm> = Vec::new();
        if depth < self.found.len() {
            children.extend(
                (0..self.found.len())
                    .filter(|&c| self.found[c].parent == Some(d))
                    .map(|c| self.domain_node(c, depth + 1)),
            );
        }
        children.extend(self.cpus_whose_lowest_is(Some(d)));
        children.sort_by_key(NodeVm::first_cpu);
        for child in &mut children {
            let span = node_span(child);
            child.group_capacity = groups
                .iter()
                .find(|(s, _)| *s == span)
                .map(|(_, cap)| cap.clone());
        }
        NodeVm {
            group_capacity: None,
            kind: NodeKind::Domain(DomainBoxVm {
                level: l.level.clone(),
                span: l.span.clone(),
                cpus: found.cpus.clone(),
                imbalance_pct: l.imbalance_pct.to_string(),
                flags: l.flags.clone(),
                groups,
                children,
            }),
        }
    }

    /// Leaves for the CPUs whose lowest domain is `d` (`None`: CPUs with no domain).
    fn cpus_whose_lowest_is(&self, d: Option<usize>) -> impl Iterator<Item = NodeVm> + '_ {
        self.view
            .cpus
            .iter()
            .zip(self.lowest)
            .filter(move |(_, low)| **low == d)
            .map(|(c, _)| cpu_node(c))
    }
}

fn cpu_node(c: &CpuDomainsView) -> NodeVm {
    NodeVm {
        group_capacity: None,
        kind: NodeKind::Cpu(CpuLeafVm {
            cpu: c.cpu,
            capacity: c.capacity_orig.to_string(),
            cluster: c.cluster.clone(),
        }),
    }
}

impl DomainsVm {
    /// The tree of `view`'s domains. Each domain is the one the core shares between the CPUs
    /// of its span; its parent is the next domain up in its first CPU's hierarchy.
    pub fn new(view: &DomainsView) -> DomainsVm {
        let mut levels: Vec<String> = Vec::new();
        for cpu in &view.cpus {
            for l in &cpu.levels {
                if !levels.contains(&l.level) {
                    levels.push(l.level.clone());
                }
            }
        }
        let (found, lowest) = find_domains(view);
        let tree = Tree {
            view,
            found: &found,
            lowest: &lowest,
        };
        let mut roots: Vec<NodeVm> = (0..found.len())
            .filter(|&d| found[d].parent.is_none())
            .map(|d| tree.domain_node(d, 0))
            .chain(tree.cpus_whose_lowest_is(None))
            .collect();
        roots.sort_by_key(NodeVm::first_cpu);
        DomainsVm {
            machine: view.machine.clone(),
            levels,
            nr_cpus: view.cpus.len(),
            roots,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use schedlab_core::domains::SchedDomains;
    use schedlab_core::kernel::{build_config, Governor};
    use schedlab_core::topology::{presets, Topology};
    use serde_json::json;

    /// The diagram of a preset machine under a baseline kernel and patches, as the page builds it.
    fn domains_of(machine: &str, baseline: &str, patches: &[&str]) -> DomainsVm {
        let spec = presets::preset(machine).expect("a preset");
        let topo = Topology::build(&spec).expect("a preset builds");
        let patches: Vec<String> = patches.iter().map(|p| p.to_string()).collect();
        let config = build_config(baseline, &patches, None, Governor::Performance)
            .expect("a baseline and its patches");
        let domains = SchedDomains::build(&topo, &config).expect("domains build");
        DomainsVm::new(&domains.view(&topo))
    }

    /// `0-3,8` as the core writes CPU masks.
    fn ranges(cpus: &[usize]) -> String {
        let mut parts: Vec<String> = Vec::new();
        let mut i = 0;
        while i < cpus.len() {
            let mut j = i;
            while j + 1 < cpus.len() && cpus[j + 1] == cpus[j] + 1 {
                j += 1;
            }
            parts.push(if i == j {
                cpus[i].to_string()
            } else {
                format!("{}-{}", cpus[i], cpus[j])
            });
            i = j + 1;
        }
        parts.join(",")
    }

    fn domain(node: &NodeVm) -> &DomainBoxVm {
        match &node.kind {
            NodeKind::Domain(d) => d,
            NodeKind::Cpu(c) => panic!("CPU{} where a domain was expected", c.cpu),
        }
    }

    /// The structure every diagram must have: the roots partition the machine's CPUs; in each
    /// domain the children partition its span, in CPU order, child domains are of lower levels,
    /// the span text names its CPUs, and the first group is the local group of the first CPU.
    fn check_tree(vm: &DomainsVm) {
        let mut all: Vec<usize> = vm.roots.iter().flat_map(NodeVm::cpus).collect();
        all.sort_unstable();
        assert_eq!(
            all,
            (0..vm.nr_cpus).collect::<Vec<_>>(),
            "roots of {}",
            vm.machine
        );
        vm.roots.iter().for_each(|n| check_node(vm, n));
    }

    fn check_node(vm: &DomainsVm, node: &NodeVm) {
        let NodeKind::Domain(d) = &node.kind else {
            return;
        };
        assert_eq!(d.span, ranges(&d.cpus), "{} span", d.level);
        let level = vm
            .levels
            .iter()
            .position(|l| *l == d.level)
            .expect("a level");
        let firsts: Vec<usize> = d.children.iter().map(|c| c.cpus()[0]).collect();
        assert!(
            firsts.windows(2).all(|w| w[0] < w[1]),
            "{} {}: children out of order",
            d.level,
            d.span
        );
        let mut under: Vec<usize> = d.children.iter().flat_map(NodeVm::cpus).collect();
        under.sort_unstable();
        assert_eq!(
            under, d.cpus,
            "{} {}: the children do not partition the span",
            d.level, d.span
        );
        assert!(
            d.children.len() >= 2,
            "{} {} kept with a single child",
            d.level,
            d.span
        );
        for child in &d.children {
            if let NodeKind::Domain(c) = &child.kind {
                let below = vm
                    .levels
                    .iter()
                    .position(|l| *l == c.level)
                    .expect("a level");
                assert!(below < level, "{} inside {}", c.level, d.level);
            }
            assert!(
                child.group_capacity.is_some(),
                "{} {}: a child is not a group",
                d.level,
                d.span
            );
            check_node(vm, child);
        }
        assert!(d.groups_are_children());
        assert_eq!(d.groups.len(), d.children.len());
        assert_eq!(
            d.groups[0].0,
            node_span(&d.children[0]),
            "the local group comes first"
        );
    }

    #[test]
    fn classic_hikey960_is_die_over_an_mc_per_cluster() {
        let vm = domains_of("hikey960", "v4.16", &[]);
        check_tree(&vm);
        assert_eq!(vm.levels, ["MC", "DIE"]);
        assert_eq!(vm.roots.len(), 1);
        let die = domain(&vm.roots[0]);
        assert_eq!((die.level.as_str(), die.span.as_str()), ("DIE", "0-7"));
        let mcs: Vec<&str> = die
            .children
            .iter()
            .map(|c| domain(c).span.as_str())
            .collect();
        assert_eq!(mcs, ["0-3", "4-7"]);
        let little = domain(&die.children[0]);
        assert_eq!(little.children.len(), 4);
        let NodeKind::Cpu(cpu0) = &little.children[0].kind else {
            panic!("MC 0-3 holds CPUs");
        };
        assert_eq!(cpu0.meta(), "cap 462 · A53");
        // Four chips are read at a glance: no shared line, no folding.
        assert_eq!(little.uniform_cpu_meta(), None);
        assert_eq!(die.alike_children(), None);
        assert_eq!(
            die.children[1].group_capacity.as_deref(),
            Some(&*die.groups[1].1)
        );
    }

    #[test]
    fn dynamiq_hikey960_is_one_mc_of_eight_cpus() {
        let vm = domains_of("hikey960-dynamiq", "v6.8", &["dynamiq-asym-packing"]);
        check_tree(&vm);
        assert_eq!(vm.levels, ["MC"]);
        assert_eq!(vm.roots.len(), 1);
        let mc = domain(&vm.roots[0]);
        assert_eq!(mc.span, "0-7");
        assert_eq!(mc.children.len(), 8);
        assert!(mc
            .children
            .iter()
            .all(|c| matches!(c.kind, NodeKind::Cpu(_))));
        assert!(
            mc.flags.iter().any(|f| f == "SD_ASYM_PACKING"),
            "{:?}",
            mc.flags
        );
        // Littles and bigs differ: every chip says its own capacity.
        assert_eq!(mc.uniform_cpu_meta(), None);
    }

    #[test]
    fn cascade_lake_is_numa_over_two_packages_of_24_smt_pairs() {
        let vm = domains_of("cascadelake-8260l", "v5.6", &[]);
        check_tree(&vm);
        assert_eq!(vm.nr_cpus, 96);
        assert_eq!(vm.levels, ["SMT", "MC", "NUMA"]);
        assert_eq!(vm.roots.len(), 1);
        let numa = domain(&vm.roots[0]);
        assert_eq!(numa.span, "0-95");
        let packages: Vec<&str> = numa
            .children
            .iter()
            .map(|c| domain(c).span.as_str())
            .collect();
        assert_eq!(packages, ["0-23,48-71", "24-47,72-95"]);
        assert_eq!(numa.uniform_cpu_meta(), None, "S0 and S1 differ");
        let s0 = domain(&numa.children[0]);
        assert_eq!(s0.uniform_cpu_meta().as_deref(), Some("cap 1024 · S0"));
        let alike = s0.alike_children().expect("24 SMT pairs alike");
        assert_eq!((alike.count, alike.level), (24, "SMT"));
        // x86 capacities are all 1024 to the scheduler: a pair's group is 2048.
        assert_eq!(alike.group_capacity, Some("2048"));
        assert!(domain(&s0.children[0]).holds_only_cpus());
        assert!(!s0.holds_only_cpus());
        assert!(alike.flags.iter().any(|f| f == "SD_SHARE_CPUCAPACITY"));
        for (core, pair) in s0.children.iter().enumerate() {
            assert_eq!(domain(pair).cpus, [core, core + 48]);
        }
        assert_eq!(
            numa.alike_children(),
            None,
            "two packages are shown in full"
        );
    }

    #[test]
    fn power9_smt8_is_smt_under_each_big_core_or_small_core() {
        let big = domains_of("power9-smt8", "v4.16", &[]);
        check_tree(&big);
        assert_eq!(big.levels, ["SMT", "MC"]);
        let mc = domain(&big.roots[0]);
        assert_eq!(mc.span, "0-15");
        let cores: Vec<&str> = mc
            .children
            .iter()
            .map(|c| domain(c).span.as_str())
            .collect();
        assert_eq!(cores, ["0-7", "8-15"]);
        assert_eq!(mc.uniform_cpu_meta().as_deref(), Some("cap 1024 · P9"));

        let small = domains_of("power9-smt8", "v4.16", &["power-smallcore-smt"]);
        check_tree(&small);
        let mc = domain(&small.roots[0]);
        let cores: Vec<&str> = mc
            .children
            .iter()
            .map(|c| domain(c).span.as_str())
            .collect();
        assert_eq!(cores, ["0,2,4,6", "1,3,5,7", "8,10,12,14", "9,11,13,15"]);
        assert_eq!(mc.alike_children().map(|a| a.count), Some(4));
    }

    #[test]
    fn a_cpu_without_domains_is_a_root_and_the_vm_round_trips_as_json() {
        let view: DomainsView = serde_json::from_value(json!({
            "machine": "odd",
            "cpus": [
                {"cpu": 0, "capacity_orig": 462, "cluster": "little", "levels": [
                    {"level": "MC", "span": "0-1", "flags": ["SD_ASYM_CPUCAPACITY"], "imbalance_pct": 117,
                     "groups": [{"span": "0", "capacity": 462}, {"span": "1", "capacity": 462}]}]},
                {"cpu": 1, "capacity_orig": 462, "cluster": "little", "levels": [
                    {"level": "MC", "span": "0-1", "flags": ["SD_ASYM_CPUCAPACITY"], "imbalance_pct": 117,
                     "groups": [{"span": "1", "capacity": 462}, {"span": "0", "capacity": 462}]}]},
                {"cpu": 2, "capacity_orig": 1024, "cluster": "big", "levels": []}
            ]
        }))
        .expect("the domains JSON of the CLI");
        let vm = DomainsVm::new(&view);
        check_tree(&vm);
        assert_eq!(vm.roots.len(), 2);
        assert!(matches!(&vm.roots[1].kind, NodeKind::Cpu(c) if c.cpu == 2));
        // The groups as CPU0 walks them: its own first.
        assert_eq!(domain(&vm.roots[0]).groups[0].0, "0");
        let json = serde_json::to_string(&vm).expect("serialises");
        let back: DomainsVm = serde_json::from_str(&json).expect("deserialises");
        assert_eq!(back, vm);
    }
}
