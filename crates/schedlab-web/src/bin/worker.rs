//! The Web Worker's entry point (trunk: `data-bin="worker" data-type="worker"`).

use yew_agent::Registrable;

fn main() {
    // Before anything can panic: a panic is reported to the page, not lost (see `crash`).
    schedlab_web::crash::install_worker_hook();
    schedlab_web::agent::SimWorker::registrar().register();
}
