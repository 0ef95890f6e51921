//! Component tests in a real browser (headless Chromium through chromedriver):
//! `CHROMEDRIVER=/usr/bin/chromedriver cargo test -p schedlab-web --target wasm32-unknown-unknown`
//! (`cargo xtask test` runs them). Natively this file is empty: the view models behind these
//! components are tested natively in the library.
#![cfg(target_arch = "wasm32")]

use std::rc::Rc;
use std::time::Duration;

use schedlab_core::experiment::Plan;
use schedlab_core::scenarios;
use schedlab_web::components::domains::{Domains, DomainsProps};
use schedlab_web::components::table::{ComparisonTableView, TableProps};
use schedlab_web::viewmodel::{DomainsVm, TableVm};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

fn mount() -> web_sys::Element {
    let document = web_sys::window().unwrap().document().unwrap();
    let div = document.create_element("div").unwrap();
    document.body().unwrap().append_child(&div).unwrap();
    div
}

async fn settle() {
    yew::platform::time::sleep(Duration::from_millis(20)).await;
}

fn e1() -> (schedlab_core::experiment::Scenario, Plan) {
    let mut s = scenarios::builtin(scenarios::BUILTIN[0].name).unwrap();
    s.runs = 1;
    s.seed = 3;
    let plan = Plan::new(&s).unwrap();
    (s, plan)
}

#[wasm_bindgen_test]
async fn the_table_renders_every_cell_with_its_exact_values() {
    let (s, plan) = e1();
    // The core runs in this wasm module just as in the worker.
    let results: Vec<_> = (0..plan.len()).map(|i| plan.run(i).unwrap()).collect();
    let table = plan.table(&results);
    let vm = Rc::new(TableVm::new(&table));
    let root = mount();
    yew::Renderer::<ComparisonTableView>::with_root_and_props(
        root.clone(),
        TableProps { vm, on_cell: None },
    )
    .render();
    settle().await;
    let cells = root.query_selector_all("td.mean").unwrap();
    let expected: usize = table.rows.iter().map(|r| r.cells.len()).sum();
    assert_eq!(cells.length() as usize, expected);
    assert_eq!(expected, table.rows.len() * s.variants.len());
    let first = &table.rows[0].cells[0];
    let sel = format!("td.mean[data-variant=\"{}\"]", first.variant);
    let td = root
        .query_selector(&sel)
        .unwrap()
        .expect("a cell of the first variant");
    let mean: f64 = td.get_attribute("data-mean").unwrap().parse().unwrap();
    assert_eq!(mean.to_bits(), first.mean.to_bits());
    // One header per variant.
    assert_eq!(
        root.query_selector_all("th.variant").unwrap().length() as usize,
        s.variants.len()
    );
}

#[wasm_bindgen_test]
async fn the_domains_view_switches_variant() {
    let (s, plan) = e1();
    let views: Vec<_> = s
        .variants
        .iter()
        .enumerate()
        .map(|(i, v)| (v.name.clone(), DomainsVm::new(&plan.domains_view(i))))
        .collect();
    let root = mount();
    yew::Renderer::<Domains>::with_root_and_props(
        root.clone(),
        DomainsProps {
            views: Rc::new(views),
        },
    )
    .render();
    settle().await;
    let domains = root.query_selector("#domains").unwrap().unwrap();
    assert_eq!(
        domains.get_attribute("data-variant").as_deref(),
        Some(s.variants[0].name.as_str())
    );
    let levels = root.query_selector_all(".sd-box").unwrap().length();
    assert!(levels > 0, "no sched-domain level is shown");
    let options = root
        .query_selector_all("#domains-variant option")
        .unwrap()
        .length() as usize;
    assert_eq!(options, s.variants.len());
}

#[wasm_bindgen_test]
async fn the_decision_log_lays_out_a_page_with_group_tables_and_a_pager() {
    use schedlab_web::components::decisions::{DecisionLog, DecisionLogProps};
    use schedlab_web::runview::decisions::{counts, kind, page, DecisionQuery};
    let mut s = scenarios::builtin("hikey960-asym-packing").unwrap();
    s.runs = 1;
    let plan = Plan::new(&s).unwrap();
    // The patched variant at 4 threads.
    let index = (0..plan.len())
        .find(|&i| plan.run_ref(i) == (1, 3, 0))
        .unwrap();
    let trace = plan.run_traced(index).unwrap();
    let query = DecisionQuery {
        kinds: kind::ALL,
        page_size: 20,
        ..DecisionQuery::default()
    };
    let p = page(&trace, &query);
    let root = mount();
    yew::Renderer::<DecisionLog>::with_root_and_props(
        root.clone(),
        DecisionLogProps {
            page: Some(Rc::new(p.clone())),
            query: p.query,
            counts: counts(&trace.decisions),
            nr_cpus: 8,
            on_query: yew::Callback::noop(),
            loading: false,
        },
    )
    .render();
    settle().await;
    let items = root.query_selector_all("li.decision").unwrap().length() as usize;
    assert_eq!(items, p.entries.len());
    let balance = p.entries.iter().filter(|e| !e.groups.is_empty()).count();
    assert_eq!(
        root.query_selector_all("table.groups-table")
            .unwrap()
            .length() as usize,
        balance
    );
    let pager = root.query_selector("#log-page").unwrap().unwrap();
    assert_eq!(
        pager.get_attribute("data-pages").unwrap(),
        p.pages.to_string()
    );
    // CPU choices: all, then one per CPU.
    assert_eq!(
        root.query_selector_all("#log-cpu option").unwrap().length(),
        9
    );
}
