//! The comparison table, mmtests layout: rows = parameter values; per variant mean, ± spread,
//! min, max and (after the baseline) the % difference to the baseline.
//!
//! Each mean cell carries the exact values as data attributes (`data-variant`, `data-param`,
//! `data-mean`, `data-min`, `data-max`, `data-stddev`, `data-runs`, and `data-significant` after
//! the baseline) for the end-to-end tests. A difference that Welch's t-test at 95% finds
//! significant is marked with a star after it, as mmtests marks it.

use std::rc::Rc;

use yew::prelude::*;

use crate::viewmodel::{exact, TableVm};

#[derive(Properties, PartialEq)]
pub struct TableProps {
    pub vm: Rc<TableVm>,
    /// A click on a mean cell: (parameter value, variant index). No clicks when absent.
    #[prop_or_default]
    pub on_cell: Option<Callback<(u64, usize)>>,
}

/// The mark after a difference: a star where it is significant, a faint `~` where the runs cannot
/// tell it from noise, nothing where there are too few runs to test.
fn significance(significant: Option<bool>) -> Html {
    match significant {
        Some(true) => html! {
            <span class="sig yes" title="significant: Welch's t-test at 95% (mmtests' '*')"
                aria-label="significant">{"*"}</span>
        },
        Some(false) => html! {
            <span class="sig no" title="not significant: Welch's t-test at 95% cannot tell it from run-to-run noise"
                aria-label="not significant">{"~"}</span>
        },
        None => html! {},
    }
}

#[component]
pub fn ComparisonTableView(props: &TableProps) -> Html {
    let vm = &props.vm;
    let head_groups = vm.variants.iter().enumerate().map(|(i, v)| {
        let span = if i == 0 { "4" } else { "5" };
        html! { <th colspan={span} class="variant" scope="colgroup">{ v.clone() }</th> }
    });
    let head_cols = vm.variants.iter().enumerate().map(|(i, _)| {
        html! { <>
            <th class="num">{"mean"}</th>
            <th class="num">{"±spread"}</th>
            <th class="num">{"min"}</th>
            <th class="num">{"max"}</th>
            if i > 0 { <th class="num diff">{"diff"}</th> }
        </> }
    });
    let rows = vm.rows.iter().map(|row| {
        let param = row.param as u64;
        let cells = row.cells.iter().enumerate().map(|(i, cell)| match cell {
            Some(c) => html! { <>
                <td class={classes!("num", "mean", c.verdict.class(), props.on_cell.is_some().then_some("pickable"))}
                    data-variant={c.variant.clone()} data-param={exact(row.param)}
                    data-significant={c.significant.map(|s| s.to_string())}
                    data-mean={exact(c.mean)} data-min={exact(c.min)} data-max={exact(c.max)}
                    data-stddev={exact(c.stddev)} data-runs={c.runs.to_string()}>
                    // A button, so the keyboard reaches every cell's run as the mouse does.
                    if let Some(cb) = &props.on_cell {
                        <button type="button" class="cell-pick" onclick={cb.reform(move |_: MouseEvent| (param, i))}
                            title="trace a run of this cell"
                            aria-label={format!("{}: trace a run of {} at {} {}", c.mean_text, c.variant, vm.param_name, row.param)}>
                            { c.mean_text.clone() }
                        </button>
                    } else {
                        { c.mean_text.clone() }
                    }
                </td>
                <td class="num spread">{ c.spread_text.clone() }</td>
                <td class="num">{ c.min_text.clone() }</td>
                <td class="num">{ c.max_text.clone() }</td>
                if i > 0 {
                    <td class={classes!("num", "diff", c.verdict.class())}>
                        { c.diff_text.clone().unwrap_or_default() }
                        { significance(c.significant) }
                    </td>
                }
            </> },
            None => html! { <>
                <td class="num pending" colspan={if i == 0 { "4" } else { "5" }}>{"…"}</td>
            </> },
        });
        html! {
            <tr data-param={exact(row.param)}>
                <th scope="row" class="param">{ row.param_text.clone() }</th>
                { for cells }
            </tr>
        }
    });
    html! {
        <div class="table-scroll">
            <table class="comparison" id="comparison">
                <caption>{ vm.caption() }</caption>
                <thead>
                    <tr><th rowspan="2" class="param" scope="col">{ vm.row_heading() }</th>{ for head_groups }</tr>
                    <tr>{ for head_cols }</tr>
                </thead>
                <tbody>{ for rows }</tbody>
            </table>
        </div>
    }
}
