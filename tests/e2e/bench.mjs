// The wasm benchmark: the release page (dist/) in headless Chromium runs the whole E1 sweep in its
// Web Worker (?bench=1: no yielding, no per-run messages) and reports the worker's wall time.
// Before that, from a cold cache, the time a visitor waits from loading E1 to its first results.
// Then, in one page, the bench matrix's cells one after another in the job worker
// (`window.schedlabBench(name)`: $SCHEDLAB_BENCH_CELLS, comma-separated, from `schedlab bench
// --list`), and the whole E2 suite as a visitor runs it ($SCHEDLAB_BENCH_E2=0 skips it).
// Every figure is also printed as one `BENCH {json}` line, which `cargo xtask bench` reads into
// its table.
//   node tests/e2e/bench.mjs     (cargo xtask bench runs it after `trunk build --release`)
import { distDir, launch, serve } from './lib.mjs';

const scenario = process.env.SCHEDLAB_SCENARIO || 'hikey960-asym-packing';
const cells = (process.env.SCHEDLAB_BENCH_CELLS || '').split(',').filter((n) => n);
// Each cell runs this many times; the fastest counts (the machine is shared), as natively.
const repeat = Number(process.env.SCHEDLAB_BENCH_REPEAT || 3);
const e2Suite = ['cascadelake-fi-tbench', 'cascadelake-fi-kernbench', 'cascadelake-fi-gitsource'];

/** One figure for `cargo xtask bench`. */
function report(fields) {
  console.log('BENCH ' + JSON.stringify(fields));
}

/**
 * The bench matrix's cells in one page, one after another, in the job worker: each is opened by
 * name in the worker (`Opening::Named`, as the check worker opens a `?scenario=` name) and timed
 * there, like the ?bench=1 sweep; the fastest of `repeat` runs counts.
 */
async function benchCells(ctx, url, names) {
  const page = await ctx.context.newPage();
  page.on('pageerror', (e) => console.error('page error:', String(e)));
  await page.goto(`${url}?scenario=${scenario}`);
  await page.waitForSelector('#controls[data-checking="false"] #run:not([disabled])', { timeout: 60000 });
  console.log(`bench matrix in the page's job worker, ${names.length} cells:`);
  // Round by round over the cells, as natively, so a busy spell does not take all of one's samples.
  const best = new Map();
  for (let i = 0; i < repeat; i++) {
    for (const name of names) {
      const job = await page.evaluate((n) => window.schedlabBench(n), name);
      if (!job) throw new Error(`schedlabBench('${name}') started nothing`);
      const sel = `#bench-result[data-job="${job}"]`;
      await page.waitForSelector(`${sel}[data-state="done"], ${sel}[data-state="failed"]`, {
        timeout: 10 * 60 * 1000,
      });
      if ((await page.getAttribute(sel, 'data-state')) !== 'done') {
        throw new Error(`${name}: ${await page.textContent(sel)}`);
      }
      const ms = Number(await page.getAttribute(sel, 'data-elapsed-ms'));
      if (!best.has(name) || ms < best.get(name).elapsed_ms) {
        best.set(name, {
          kind: 'cell',
          scenario: name,
          runs: Number(await page.getAttribute(sel, 'data-runs')),
          elapsed_ms: ms,
          events: Number(await page.getAttribute(sel, 'data-events')),
          busy_cpu_ns: Number(await page.getAttribute(sel, 'data-busy-cpu-ns')),
        });
      }
    }
  }
  for (const name of names) {
    const b = best.get(name);
    console.log(`  ${name}: ${(b.elapsed_ms / 1000).toFixed(3)} s (fastest of ${repeat}), ${b.events} events`);
    report(b);
  }
  await page.close();
}

/** The whole E2 suite as a visitor runs it: each member opened, Run, until its table is done. */
async function e2SuiteTiming(ctx, url) {
  const page = await ctx.context.newPage();
  page.on('pageerror', (e) => console.error('page error:', String(e)));
  let total = 0;
  for (const name of e2Suite) {
    const t0 = Date.now();
    await page.goto(`${url}?scenario=${name}`);
    await page.waitForSelector('#controls[data-checking="false"] #run:not([disabled])', { timeout: 60000 });
    await page.click('#run');
    await page.waitForSelector('#status[data-state="done"]', { timeout: 20 * 60 * 1000 });
    const ms = Date.now() - t0;
    const runs = await page.getAttribute('#progress-text', 'data-total');
    console.log(`  ${name}, ${runs} runs as shipped: ${(ms / 1000).toFixed(3)} s (load to whole table)`);
    report({ kind: 'page', what: `${name}`, runs: Number(runs), ms });
    total += ms;
  }
  console.log(`whole E2 suite in the page: ${(total / 1000).toFixed(3)} s`);
  report({ kind: 'page', what: 'E2 suite', ms: total });
  await page.close();
}
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
    report({ kind: 'page', what: 'E1 cold', runs: Number(runs), ready_ms: ready, first_ms: first, done_ms: done });
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
  report({ kind: 'sweep', scenario, runs, elapsed_ms: ms, cpu_s_per_s: rate });
  await page.close();
  if (cells.length) await benchCells(ctx, server.url, cells);
  if (process.env.SCHEDLAB_BENCH_E2 !== '0') await e2SuiteTiming(ctx, server.url);
} finally {
  await ctx.close();
  await server.close();
}
