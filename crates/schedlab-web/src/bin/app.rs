//! The page's entry point (trunk: `data-bin="app" data-type="main"`).

fn main() {
    yew::Renderer::<schedlab_web::app::App>::with_root(
        app_root().expect("index.html has a <div id=\"app\">"),
    )
    .render();
}

fn app_root() -> Option<web_sys::Element> {
    web_sys::window()?.document()?.get_element_by_id("app")
}
