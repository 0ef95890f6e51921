//! A plotly chart of any figure (`{data, layout, config}`), with optional click handling and
//! PNG/SVG downloads of what it shows.

use yew::prelude::*;

use crate::export;
use crate::plotly::{self, Click, Figure};

#[derive(Properties, PartialEq)]
pub struct PlotProps {
    /// The element id (tests and image downloads find the chart by it).
    pub id: AttrValue,
    pub figure: Figure,
    /// Called with the clicked point, if given.
    #[prop_or_default]
    pub on_click: Option<Callback<Click>>,
    /// File name stem of the image downloads; no download buttons when empty.
    #[prop_or_default]
    pub image_name: AttrValue,
    #[prop_or_default]
    pub class: Classes,
}

#[component]
pub fn Plot(props: &PlotProps) -> Html {
    let node = use_node_ref();
    let error = use_state(|| None::<String>);
    let handler = use_mut_ref(|| None::<plotly::ClickHandler>);
    // The figure (and its click handler) waiting for its draw after the next paint (only the
    // latest is drawn: results that stream in faster than frames are coalesced), and whether the
    // chart is still on the page when that draw comes.
    let pending = use_mut_ref(|| None::<(Figure, Option<Callback<Click>>)>);
    let mounted = use_mut_ref(|| true);
    {
        let node = node.clone();
        let error = error.clone();
        let on_click = props.on_click.clone();
        let mounted = mounted.clone();
        use_effect_with(props.figure.clone(), move |figure| {
            let latest = (figure.clone(), on_click);
            let scheduled = pending.borrow_mut().replace(latest).is_some();
            if !scheduled {
                plotly::after_paint(move || {
                    let Some((figure, on_click)) = pending.borrow_mut().take() else {
                        return;
                    };
                    if !*mounted.borrow() {
                        return;
                    }
                    if let Some(el) = node.cast::<web_sys::Element>() {
                        let mut result = plotly::draw(&el, &figure.0);
                        if let (Ok(()), Some(cb)) = (&result, on_click) {
                            match plotly::on_click(&el, move |c| cb.emit(c)) {
                                Ok(h) => *handler.borrow_mut() = Some(h),
                                Err(e) => result = Err(e),
                            }
                        }
                        error.set(result.err());
                    }
                });
            }
        });
    }
    {
        let node = node.clone();
        use_effect_with((), move |_| {
            move || {
                *mounted.borrow_mut() = false;
                if let Some(el) = node.cast::<web_sys::Element>() {
                    plotly::clear(&el);
                }
            }
        });
    }
    let download = |format: &'static str| {
        let node = node.clone();
        let error = error.clone();
        let name = props.image_name.to_string();
        Callback::from(move |_: MouseEvent| {
            let Some(el) = node.cast::<web_sys::Element>() else {
                return;
            };
            let error = error.clone();
            let name = name.clone();
            wasm_bindgen_futures::spawn_local(async move {
                if let Err(e) = export::download_chart(&el, format, &name).await {
                    error.set(Some(e));
                }
            });
        })
    };
    html! {
        <div class={classes!("chart-wrap", props.class.clone())}>
            <div id={props.id.clone()} class="chart" ref={node.clone()}></div>
            if !props.image_name.is_empty() {
                <div class="chart-tools">
                    <button type="button" class="secondary small" data-format="png"
                        onclick={download("png")}>{"PNG"}</button>
                    <button type="button" class="secondary small" data-format="svg"
                        onclick={download("svg")}>{"SVG"}</button>
                </div>
            }
            if let Some(e) = (*error).clone() {
                <p class="error chart-error">{ e }</p>
            }
        </div>
    }
}
