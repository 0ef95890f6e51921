// The wasm benchmark: the release page (dist/) in headless Chromium runs the whole E1 sweep in its
// Web Worker (?bench=1: no yielding, no per-run messages) and reports the worker's wall time.
// Before that, from a cold cache, the time a visitor waits from loading E1 to its first results.
//   node tests/e2e/bench.mjs     (cargo xtask bench runs it after `trunk build --release`)
import { distDir, launch, serve } from './lib.mjs';

const scenario = process.env.SCHEDLAB_SCENARIO || 'hikey960-asym-packing';
const server = await serve(distDir());
const ctx = await launch();
try {
  {
    // What a visitor sees, with nothing cached: the page as shipped, Run as soon as the check
    // worker has answered, the first table row, the whole table (runs per cell as shipped).
    const page = await ctx.context.newPage();
    page.on('pageerror', (e) => console.error('page error:', String(e)));
    const t0 = Date.now();
    await page.goto(`${server.url}?scenario=${scenario}`);
    await page.waitForSelector('#controls[data-checking="false"] #run:not([disabled])', { timeout: 60000 });
    const ready = Date.now() - t0;
    await page.click('#run');
    await page.waitForSelector('#comparison td.mean', { timeout: 60000 });
    const first = Date.now() - t0;
    await page.waitForSelector('#status[data-state="done"]', { timeout: 10 * 60 * 1000 });
    const done = Date.now() - t0;
    const runs = await page.getAttribute('#progress-text', 'data-total');
    console.log(`page load (cold cache) to E1 results, ${runs} runs as shipped:`);
    console.log(`  Run ready after the check: ${(ready / 1000).toFixed(3)} s`);
    console.log(`  first results in the table: ${(first / 1000).toFixed(3)} s`);
    console.log(`  whole table: ${(done / 1000).toFixed(3)} s`);
    await page.close();
  }
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
