//! The plotly chart of the comparison: mean per parameter value and variant, min/max bars.

use std::rc::Rc;

use yew::prelude::*;

use crate::components::plot::Plot;
use crate::plotly::Figure;
use crate::viewmodel::TableVm;

#[derive(Properties, PartialEq)]
pub struct ChartProps {
    pub vm: Rc<TableVm>,
    /// File name stem of the PNG/SVG downloads (none when empty).
    #[prop_or_default]
    pub image_name: AttrValue,
}

#[component]
pub fn Chart(props: &ChartProps) -> Html {
    let figure = use_memo(props.vm.clone(), |vm| Figure::new(vm.figure()));
    html! {
        <Plot id="chart" figure={(*figure).clone()} image_name={props.image_name.clone()} />
    }
}
