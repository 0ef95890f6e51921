//! The bundle sizes `cargo xtask dist` prints, and the page's wasm budget it holds.

use super::{Ctx, Result};
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Largest the page's own wasm may be, in bytes (it was 865 KB when the draft's checks moved to
/// the worker; 995 KB before; 898 KB before the results' figures and files moved to the job worker
/// and `Scenario::from_json` stopped going through `serde_json::Value`, 820 KB after; 906 501 B
/// before the share links' DEFLATE (`link::encode` / `decode`, miniz_oxide) moved to the check
/// worker, 878 533 B after; 896 390 B before the variant menu read the baselines' names from
/// `BASELINE_INFO`, not `BASELINES`, whose `config` function pointers linked every era's
/// constructor, 888 401 B after, with the live progress view in).
pub const APP_WASM_BUDGET: u64 = 900_000;

impl Ctx {
    pub(crate) fn print_sizes(&self) -> Result {
        let dist = self.root.join("dist");
        let mut files: Vec<PathBuf> = fs::read_dir(&dist)
            .map_err(|e| format!("{}: {e}", dist.display()))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| matches!(p.extension().and_then(|x| x.to_str()), Some("wasm" | "js")))
            .collect();
        files.sort();
        println!("{:<40} {:>22} {:>22}", "dist/", "bytes", "gzip -9 bytes");
        let (mut raw_total, mut gz_total) = (0, 0);
        for f in &files {
            let bytes = fs::read(f).map_err(|e| format!("{}: {e}", f.display()))?;
            let gz = gzip_len(&bytes);
            raw_total += bytes.len();
            gz_total += gz;
            let name = f.file_name().unwrap_or_default().to_string_lossy();
            println!("{name:<40} {:>22} {:>22}", human(bytes.len()), human(gz));
        }
        println!(
            "{:<40} {:>22} {:>22}",
            "total (wasm + js)",
            human(raw_total),
            human(gz_total)
        );
        let app = files.iter().find(|f| is_app_wasm(f));
        let app_len = match app {
            Some(f) => fs::metadata(f)
                .map_err(|e| format!("{}: {e}", f.display()))?
                .len(),
            None => return Err("dist/ has no app-*_bg.wasm: did trunk build the page?".into()),
        };
        check_app_budget(app_len)
    }
}

/// The page's own wasm (trunk names it `app-<hash>_bg.wasm`; the worker's is `worker_bg.wasm`).
fn is_app_wasm(path: &Path) -> bool {
    path.file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.starts_with("app-") && n.ends_with("_bg.wasm"))
}

/// The page's wasm must stay well under 1 MB: everything that builds or runs the model belongs in
/// the worker's (ARCHITECTURE.md, "The page and its workers").
fn check_app_budget(len: u64) -> Result {
    if len > APP_WASM_BUDGET {
        return Err(format!(
            "the page's wasm is {} bytes, over its budget of {APP_WASM_BUDGET}: move what grew into \
             the worker (see ARCHITECTURE.md), or measure with twiggy what did",
            len
        ));
    }
    println!("app wasm {len} bytes: within its budget of {APP_WASM_BUDGET}");
    Ok(())
}

fn gzip_len(bytes: &[u8]) -> usize {
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    enc.write_all(bytes).expect("writing to a Vec cannot fail");
    enc.finish().expect("writing to a Vec cannot fail").len()
}

/// `n` bytes, exactly and in KiB/MiB.
fn human(n: usize) -> String {
    if n >= 1024 * 1024 {
        format!("{n} ({:.2} MiB)", n as f64 / (1024.0 * 1024.0))
    } else {
        format!("{n} ({:.1} KiB)", n as f64 / 1024.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_app_wasm_is_told_from_the_worker_and_held_to_its_budget() {
        assert!(is_app_wasm(Path::new("dist/app-d11be9f3a362330f_bg.wasm")));
        assert!(!is_app_wasm(Path::new("dist/worker_bg.wasm")));
        assert!(!is_app_wasm(Path::new("dist/app-d11be9f3a362330f.js")));
        assert!(check_app_budget(APP_WASM_BUDGET).is_ok());
        assert!(check_app_budget(APP_WASM_BUDGET + 1)
            .unwrap_err()
            .contains("worker"));
    }

    #[test]
    fn gzip_shrinks_repetitive_bytes() {
        let bytes = vec![b'a'; 10_000];
        assert!(gzip_len(&bytes) < 100);
    }

    #[test]
    fn sizes_read_well() {
        assert_eq!(human(2048), "2048 (2.0 KiB)");
        assert_eq!(human(3 * 1024 * 1024), "3145728 (3.00 MiB)");
    }
}
