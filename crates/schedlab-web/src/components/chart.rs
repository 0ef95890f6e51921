//! The plotly chart of the comparison: mean per parameter value and variant, min/max bars.

use std::rc::Rc;

use yew::prelude::*;

use crate::plotly;
use crate::viewmodel::TableVm;

#[derive(Properties, PartialEq)]
pub struct ChartProps {
    pub vm: Rc<TableVm>,
}

#[component]
pub fn Chart(props: &ChartProps) -> Html {
    let node = use_node_ref();
    let error = use_state(|| None::<String>);
    {
        let node = node.clone();
        let error = error.clone();
        use_effect_with(props.vm.clone(), move |vm| {
            if let Some(el) = node.cast::<web_sys::Element>() {
                let result = plotly::draw(&el, &vm.figure());
                error.set(result.err());
            }
        });
    }
    {
        let node = node.clone();
        use_effect_with((), move |_| {
            move || {
                if let Some(el) = node.cast::<web_sys::Element>() {
                    plotly::clear(&el);
                }
            }
        });
    }
    html! {
        <div class="chart-wrap">
            <div id="chart" class="chart" ref={node}></div>
            if let Some(e) = (*error).clone() {
                <p class="error" id="chart-error">{ e }</p>
            }
        </div>
    }
}
