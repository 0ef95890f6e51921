//! The Web Worker's entry point (trunk: `data-bin="worker" data-type="worker"`).

use yew_agent::Registrable;

fn main() {
    schedlab_web::agent::SimWorker::registrar().register();
}
