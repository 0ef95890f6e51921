// The wasm benchmark: the release page (dist/) in headless Chromium runs the whole E1 sweep in its
// Web Worker (?bench=1: no yielding, no per-run messages) and reports the worker's wall time.
//   node tests/e2e/bench.mjs     (cargo xtask bench runs it after `trunk build --release`)
import { distDir, launch, serve } from './lib.mjs';

const scenario = process.env.SCHEDLAB_SCENARIO || 'hikey960-asym-packing';
const server = await serve(distDir());
const ctx = await launch();
try {
  const page = await ctx.context.newPage();
  page.on('pageerror', (e) => console.error('page error:', String(e)));
  const t0 = Date.now();
  await page.goto(`${server.url}?scenario=${scenario}&bench=1`);
  await page.waitForSelector('#bench-result[data-state="done"], #bench-result[data-state="failed"]', {
    timeout: 30 * 60 * 1000,
  });
  const state = await page.getAttribute('#bench-result', 'data-state');
  const text = await page.textContent('#bench-result');
  if (state !== 'done') throw new Error(text);
  const ms = Number(await page.getAttribute('#bench-result', 'data-elapsed-ms'));
  const runs = Number(await page.getAttribute('#bench-result', 'data-runs'));
  const rate = Number(await page.getAttribute('#bench-result', 'data-cpu-s-per-s'));
  console.log(`wasm (Chromium ${ctx.context.browser()?.version() ?? ''}): ${scenario}, ${runs} runs`);
  console.log(`  wall time in the worker: ${(ms / 1000).toFixed(3)} s`);
  console.log(`  simulated CPU-seconds per wall second: ${rate.toFixed(1)}`);
  console.log(`  page load to result: ${((Date.now() - t0) / 1000).toFixed(3)} s`);
} finally {
  await ctx.close();
  await server.close();
}
