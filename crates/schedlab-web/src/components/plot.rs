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
    /// The figure is redrawn as results stream in (a running sweep's means chart): its draws are
    /// spaced by [`next_live_draw`]. A figure that is not live (the one a sweep ends with) is
    /// drawn after the next paint, at once.
    #[prop_or_default]
    pub live: bool,
}

/// A live figure is redrawn no sooner than this many times the last live redraw's cost after that
/// redraw began: plotly's own work then takes at most a twentieth of the page's thread while a
/// sweep streams its tables in (the layout and paint a draw causes come on top, about as much
/// again).
///
/// Why: the page's thread takes its time from the job workers when they hold every core. On a
/// 2-core machine, redrawing the means chart at every table (4 a second) took ~1.1 s of the
/// page's thread, and the paint and raster work it caused more of the renderer's, during a 6.4 s
/// sweep of E2a on 2 job workers, whose runs took ~10 s of CPU in all. Twenty is **[assumed]**:
/// a chart that stays live (every table for a chart that draws in 10 ms, about twice a second for
/// one that takes 25 ms) at a cost the sweep hardly feels.
pub const LIVE_DRAW_SPACING: f64 = 20.0;

/// When a live figure may be drawn next (ms, as `Date.now()`), given the last live draw's start
/// and cost.
pub fn next_live_draw(last_start_ms: f64, last_cost_ms: f64) -> f64 {
    last_start_ms + LIVE_DRAW_SPACING * last_cost_ms
}

#[component]
pub fn Plot(props: &PlotProps) -> Html {
    let node = use_node_ref();
    let error = use_state(|| None::<String>);
    let handler = use_mut_ref(|| None::<plotly::ClickHandler>);
    // The figure (with its click handler, and whether it is live) waiting for its draw after the
    // next paint (only the latest is drawn: results that stream in faster than frames, or than
    // the live draws' spacing, are coalesced), and whether the chart is still on the page when
    // that draw comes.
    let pending = use_mut_ref(|| None::<(Figure, Option<Callback<Click>>, bool)>);
    let mounted = use_mut_ref(|| true);
    // The last live draw's start and cost (ms), which space the next one. None after the chart's
    // first draw (plotly lays the whole chart out once: a one-off cost, not a redraw's) and after
    // a figure that is not live (a new sweep's first table is drawn at once).
    let last_live = use_mut_ref(|| None::<(f64, f64)>);
    let drawn = use_mut_ref(|| false);
    {
        let node = node.clone();
        let error = error.clone();
        let on_click = props.on_click.clone();
        let mounted = mounted.clone();
        let live = props.live;
        use_effect_with(props.figure.clone(), move |figure| {
            let latest = (figure.clone(), on_click, live);
            let scheduled = pending.borrow_mut().replace(latest).is_some();
            let last = *last_live.borrow();
            // The first chart of a page session waits for plotly.js (loaded on demand); the
            // figure is taken when it is drawn, so the figures that come meanwhile coalesce.
            let draw = move || {
                plotly::when_loaded(move |ready| {
                    if !*mounted.borrow() {
                        return;
                    }
                    if let Err(e) = ready {
                        return error.set(Some(e));
                    }
                    let Some((figure, on_click, live)) = pending.borrow_mut().take() else {
                        return;
                    };
                    let Some(el) = node.cast::<web_sys::Element>() else {
                        return;
                    };
                    let start = js_sys::Date::now();
                    let mut result = plotly::draw(&el, &figure.0);
                    let first = !std::mem::replace(&mut *drawn.borrow_mut(), true);
                    *last_live.borrow_mut() =
                        (live && !first).then(|| (start, js_sys::Date::now() - start));
                    if let (Ok(()), Some(cb)) = (&result, on_click) {
                        match plotly::on_click(&el, move |c| cb.emit(c)) {
                            Ok(h) => *handler.borrow_mut() = Some(h),
                            Err(e) => result = Err(e),
                        }
                    }
                    error.set(result.err());
                });
            };
            if !live {
                // At once, even when a live draw is waiting: that one then finds nothing to draw.
                plotly::after_paint(draw);
            } else if !scheduled {
                let wait = last.map_or(0.0, |(start, cost)| {
                    next_live_draw(start, cost) - js_sys::Date::now()
                });
                plotly::after_paint_in(wait, draw);
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
