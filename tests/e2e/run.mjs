// Browser end-to-end tests of the release page (dist/), in Debian's headless Chromium.
//
//   node tests/e2e/run.mjs        (cargo xtask test / cargo xtask e2e run it after the builds)
//
// Env: SCHEDLAB_DIST (default dist/), SCHEDLAB_BIN (the release CLI, for the numbers to match),
// E2E_FILTER (run only tests whose name contains it). Screenshots go to tests/e2e/screenshots/.
// The last line is "N passed, M failed"; the exit code is non-zero when M > 0.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { distDir, launch, serve } from './lib.mjs';

const HERE = path.dirname(new URL(import.meta.url).pathname);
const ROOT = path.resolve(HERE, '..', '..');
const SHOTS = path.join(HERE, 'screenshots');
const SCENARIO = 'hikey960-asym-packing';
const CLI = process.env.SCHEDLAB_BIN || path.join(ROOT, 'target', 'release', 'schedlab');
const RUN_TIMEOUT = 10 * 60 * 1000;

const tests = [];
const test = (name, fn) => tests.push({ name, fn });

function assert(cond, msg) {
  if (!cond) throw new Error(msg);
}

/** Opens the page, recording console errors, page errors and every request's host. */
async function open(ctx, base, query = `?scenario=${SCENARIO}`, viewport = { width: 1280, height: 900 }) {
  const page = await ctx.context.newPage();
  await page.setViewportSize(viewport);
  const errors = [];
  const foreign = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('response', (r) => {
    if (r.status() >= 400) errors.push(`HTTP ${r.status()} for ${r.url()}`);
  });
  page.on('request', (r) => {
    const u = new URL(r.url());
    if (!['blob:', 'data:'].includes(u.protocol) && u.hostname !== '127.0.0.1') foreign.push(r.url());
  });
  await page.goto(base + query);
  await page.waitForSelector('#run', { timeout: 30000 });
  await page.waitForSelector('#domains', { timeout: 30000 });
  return { page, errors, foreign };
}

/** Fills the form, presses Run and waits for the job to end in `final` (done|cancelled). */
async function runInPage(page, runs, seed) {
  await page.fill('#runs', String(runs));
  await page.fill('#seed', String(seed));
  await page.click('#run');
  await page.waitForSelector('#status[data-state="running"], #status[data-state="done"]', { timeout: 30000 });
}

async function waitDone(page) {
  await page.waitForSelector('#status[data-state="done"], #status[data-state="failed"]', { timeout: RUN_TIMEOUT });
  const state = await page.getAttribute('#status', 'data-state');
  const msg = await page.textContent('#status-message');
  assert(state === 'done', `the job ended in state ${state}: ${msg}`);
}

function cliTable(runs, seed) {
  assert(fs.existsSync(CLI), `${CLI} is missing: cargo build --release -p schedlab-cli`);
  const args = ['reproduce', SCENARIO, '--runs', String(runs), '--seed', String(seed), '--format', 'json'];
  const out = spawnSync(CLI, args, { encoding: 'utf8', maxBuffer: 64 << 20 });
  assert(out.status === 0, `schedlab ${args.join(' ')} failed (${out.status}): ${out.stderr}`);
  return JSON.parse(out.stdout);
}

/** Every mean cell of the page's comparison table, with its exact values. */
function pageCells(page) {
  return page.$$eval('#comparison td.mean', (tds) =>
    tds.map((td) => ({
      variant: td.dataset.variant,
      param: Number(td.dataset.param),
      mean: Number(td.dataset.mean),
      min: Number(td.dataset.min),
      max: Number(td.dataset.max),
      runs: Number(td.dataset.runs),
    })),
  );
}

test('the page loads with no console errors and nothing from outside 127.0.0.1', async (ctx, base) => {
  const { page, errors, foreign } = await open(ctx, base);
  await page.waitForTimeout(500);
  assert(errors.length === 0, `console errors: ${errors.join(' | ')}`);
  assert(foreign.length === 0, `requests outside the page's server: ${foreign.join(', ')}`);
  assert(await page.evaluate(() => typeof window.Plotly === 'object'), 'plotly.js is not loaded');
  const options = await page.$$eval('#scenario option', (os) => os.map((o) => o.value));
  assert(options.includes(SCENARIO), `scenario list ${options} lacks ${SCENARIO}`);
  assert(await page.isEnabled('#run'), 'Run is disabled on a fresh page');
  assert(await page.isDisabled('#cancel'), 'Cancel is enabled with nothing running');
  await page.close();
});

test('every built-in scenario loads: its summary and sched domains show, with no errors', async (ctx, base) => {
  const { page, errors } = await open(ctx, base);
  const names = await page.$$eval('#scenario option', (os) => os.map((o) => o.value));
  for (const name of names) {
    await page.selectOption('#scenario', name);
    await page.waitForFunction((n) => document.querySelector('#scenario').value === n, name);
    await page.waitForSelector('#domains td.level', { timeout: 10000 });
    assert(await page.isEnabled('#run'), `${name}: Run is disabled (${await page.textContent('#controls')})`);
    assert((await page.textContent('#scenario-summary')).length > 0, `${name}: no summary`);
  }
  assert(errors.length === 0, `console errors: ${errors.join(' | ')}`);
  console.log(`    ${names.length} scenarios`);
  await page.close();
});

test('E1 with runs=3 seed=1 in the browser equals the CLI to the last bit', async (ctx, base) => {
  const { page, errors } = await open(ctx, base);
  await runInPage(page, 3, 1);
  await waitDone(page);
  const cli = cliTable(3, 1);
  const cells = await pageCells(page);
  let compared = 0;
  for (const row of cli.rows) {
    for (const c of row.cells) {
      const p = cells.find((x) => x.variant === c.variant && x.param === row.param);
      assert(p, `no page cell for ${c.variant} at ${cli.param_name || 'param'}=${row.param}`);
      for (const k of ['mean', 'min', 'max']) {
        assert(Object.is(p[k], c[k]), `${c.variant} @ ${row.param}: page ${k} ${p[k]} != CLI ${c[k]}`);
      }
      assert(p.runs === c.runs.length, `${c.variant} @ ${row.param}: ${p.runs} runs in the page, ${c.runs.length} in the CLI`);
      compared++;
    }
  }
  assert(compared > 0 && compared === cells.length, `compared ${compared} CLI cells, the page has ${cells.length}`);
  const done = await page.getAttribute('#progress-text', 'data-done');
  const total = await page.getAttribute('#progress-text', 'data-total');
  assert(done === total && Number(total) > 0, `progress ${done}/${total} at the end`);
  // The chart: one plotly trace per variant.
  const traces = await page.$$eval('#chart .scatterlayer .trace', (t) => t.length);
  assert(traces === cli.variants.length, `the chart has ${traces} traces for ${cli.variants.length} variants`);
  // The link reproduces the run.
  const q = new URL(page.url()).searchParams;
  assert(q.get('runs') === '3' && q.get('seed') === '1' && q.get('scenario') === SCENARIO, `URL ${page.url()}`);
  assert(errors.length === 0, `console errors: ${errors.join(' | ')}`);
  console.log(`    ${compared} cells (mean, min, max) equal to the CLI's`);
  await page.close();
});

test('Cancel stops a long run (runs=32) below the total', async (ctx, base) => {
  const { page, errors } = await open(ctx, base);
  await runInPage(page, 32, 7);
  await page.waitForFunction(() => Number(document.querySelector('#progress-text')?.dataset.done) >= 1, null, {
    timeout: RUN_TIMEOUT,
  });
  // The page stays responsive while the worker computes.
  const t0 = Date.now();
  await page.evaluate(() => document.title);
  const lag = Date.now() - t0;
  assert(lag < 1000, `the page took ${lag} ms to answer during a run`);
  const before = await page.getAttribute('#status', 'data-state');
  assert(before === 'running', `the job was already ${before} before Cancel could be pressed`);
  await page.click('#cancel', { timeout: 5000 });
  await page.waitForSelector('#status[data-state="cancelled"]', { timeout: 60000 });
  const done = Number(await page.getAttribute('#progress-text', 'data-done'));
  const total = Number(await page.getAttribute('#progress-text', 'data-total'));
  assert(done < total, `cancelled at ${done}/${total}`);
  await page.waitForTimeout(1000);
  const later = Number(await page.getAttribute('#progress-text', 'data-done'));
  assert(later === done, `progress moved after cancel: ${done} -> ${later}`);
  assert(await page.isEnabled('#run'), 'Run is not enabled again after cancel');
  assert(errors.length === 0, `console errors: ${errors.join(' | ')}`);
  console.log(`    stopped at ${done}/${total}`);
  await page.close();
});

test('the domain view shows SD_ASYM_PACKING at MC for the patched variant only', async (ctx, base) => {
  const { page } = await open(ctx, base);
  const variants = await page.$$eval('#domains-variant option', (os) => os.map((o) => o.value));
  assert(variants.length >= 2, `variants ${variants}`);
  const mcFlags = () =>
    page.$$eval('#domains td.level[data-level="MC"]', (tds) => tds.map((td) => td.dataset.flags.split(' ')));
  const results = {};
  for (const v of variants) {
    await page.selectOption('#domains-variant', v);
    await page.waitForSelector(`#domains[data-variant="${v}"]`);
    const flags = await mcFlags();
    assert(flags.length > 0, `no MC level shown for ${v}`);
    results[v] = flags.filter((f) => f.includes('SD_ASYM_PACKING')).length;
    fs.mkdirSync(SHOTS, { recursive: true });
    await page.locator('#topology').screenshot({ path: path.join(SHOTS, `domains-${v}.png`) });
  }
  const [mainline, ...patched] = variants;
  assert(results[mainline] === 0, `mainline (${mainline}) has SD_ASYM_PACKING at MC on ${results[mainline]} CPUs`);
  assert(patched.some((v) => results[v] > 0), `no patched variant has SD_ASYM_PACKING at MC: ${JSON.stringify(results)}`);
  const text = await page.textContent('#domains');
  assert(text.includes('SD_ASYM_PACKING'), 'the flag name is not shown as text');
  await page.close();
});

test('New seed draws a different seed; a link with runs and seed fills the form', async (ctx, base) => {
  const { page } = await open(ctx, base, `?scenario=${SCENARIO}&runs=5&seed=123`);
  assert((await page.inputValue('#runs')) === '5', 'runs from the URL');
  assert((await page.inputValue('#seed')) === '123', 'seed from the URL');
  await page.click('#new-seed');
  const seed = await page.inputValue('#seed');
  assert(/^\d+$/.test(seed) && seed !== '123', `new seed ${seed}`);
  await page.fill('#runs', '0');
  assert(await page.isDisabled('#run'), 'Run is enabled with runs=0');
  assert((await page.textContent('#input-error')).includes('Runs per cell'), 'no explanation for runs=0');
  await page.close();
});

test('the bench hook reports elapsed ms (?bench=1)', async (ctx, base) => {
  const { page, errors } = await open(ctx, base, `?scenario=${SCENARIO}&bench=1&runs=1`);
  await page.waitForSelector('#bench-result[data-state="done"], #bench-result[data-state="failed"]', {
    timeout: RUN_TIMEOUT,
  });
  const state = await page.getAttribute('#bench-result', 'data-state');
  assert(state === 'done', `bench ${state}: ${await page.textContent('#bench-result')}`);
  const ms = Number(await page.getAttribute('#bench-result', 'data-elapsed-ms'));
  assert(ms > 0 && Number.isFinite(ms), `elapsed ${ms}`);
  assert(errors.length === 0, `console errors: ${errors.join(' | ')}`);
  await page.close();
});

test('screenshots at 1280x900 and 390x844, no sideways scrolling on a phone', async (ctx, base) => {
  fs.mkdirSync(SHOTS, { recursive: true });
  for (const [name, viewport] of [
    ['desktop-1280x900', { width: 1280, height: 900 }],
    ['phone-390x844', { width: 390, height: 844 }],
  ]) {
    const { page, errors } = await open(ctx, base, undefined, viewport);
    await runInPage(page, 3, 1);
    await waitDone(page);
    await page.waitForTimeout(300);
    await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
    await page.screenshot({ path: path.join(SHOTS, `${name}-top.png`) });
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert(overflow <= 0, `${name}: the page is ${overflow}px wider than the screen`);
    assert(errors.length === 0, `console errors: ${errors.join(' | ')}`);
    await page.close();
  }
  console.log(`    written to ${path.relative(ROOT, SHOTS)}/`);
});

async function main() {
  const filter = process.env.E2E_FILTER || '';
  const selected = tests.filter((t) => t.name.includes(filter));
  const server = await serve(distDir());
  const ctx = await launch();
  let passed = 0;
  let failed = 0;
  console.log(`e2e: ${selected.length} tests against ${server.url} (CLI: ${CLI})`);
  try {
    for (const t of selected) {
      const t0 = Date.now();
      try {
        await t.fn(ctx, server.url);
        passed++;
        console.log(`ok   ${t.name} (${Date.now() - t0} ms)`);
      } catch (e) {
        failed++;
        console.log(`FAIL ${t.name} (${Date.now() - t0} ms)\n     ${String(e && e.stack ? e.stack : e).split('\n').join('\n     ')}`);
      }
    }
  } finally {
    await ctx.close();
    await server.close();
  }
  console.log(`${passed} passed, ${failed} failed`);
  process.exitCode = failed > 0 ? 1 : 0;
}

main().catch((e) => {
  console.error(e);
  console.log('0 passed, 1 failed');
  process.exitCode = 1;
});
