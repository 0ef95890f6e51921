//! The plotly chart of the comparison: mean per parameter value and variant, min/max bars (the
//! figure comes from the job worker, `results::ResultsVm::means_figure`). While a sweep runs the
//! chart is live: its draws are spaced (`plot::next_live_draw`).

use std::rc::Rc;

use yew::prelude::*;

use crate::components::plot::Plot;
use crate::plotly::Figure;
use crate::results::ResultsVm;

#[derive(Properties, PartialEq)]
pub struct ChartProps {
    pub results: Rc<ResultsVm>,
    /// File name stem of the PNG/SVG downloads (none when empty).
    #[prop_or_default]
    pub image_name: AttrValue,
}

#[component]
pub fn Chart(props: &ChartProps) -> Html {
    let figure = use_memo(props.results.clone(), |r| {
        Figure::from_json(r.means_figure.clone())
    });
    html! {
        <Plot id="chart" figure={(*figure).clone()} image_name={props.image_name.clone()}
            live={props.results.finished.is_none()} />
    }
}
