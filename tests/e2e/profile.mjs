// Where the job worker's time goes, per function: V8's sampling profiler attached to the page's
// workers while the job worker runs bench cells (`window.schedlabBench(name)`, as bench.mjs does).
// `cargo xtask profile` runs it on a page built with the worker's function names kept
// (wasm-opt -g) and sets the same cells beside `perf` natively; see xtask/src/profile.rs.
//
//   node --experimental-websocket tests/e2e/profile.mjs   (Node 20; WebSocket is global from 22)
//
// $SCHEDLAB_DIST: the page; $SCHEDLAB_PROFILE_CELLS: comma-separated names (`schedlab bench
// --list`, or a built-in scenario); $SCHEDLAB_PROFILE_REPEAT: profiled runs per cell (3), each
// after one run that is not profiled (V8 compiles a wasm function's optimised code once it is
// hot: the first run of a page pays for that, later ones do not).
//
// Playwright gives no CDP session of a dedicated worker, so the browser's own DevTools endpoint is
// used: `Target.attachToTarget` with flattened sessions, one per worker.
//
// Prints one `PROFILE {json}` line per cell: { cell, runs, elapsed_ms (the runs' own clocks, in
// the worker), functions: [[name, self ms over the runs], ...] } (every function sampled, idle
// left out).
import net from 'node:net';
import { benchInPage, distDir, launch, serve } from './lib.mjs';

const cells = (process.env.SCHEDLAB_PROFILE_CELLS || 'hikey960-asym-packing').split(',').filter((n) => n);
const repeat = Number(process.env.SCHEDLAB_PROFILE_REPEAT || 3);
// Microseconds between samples: fine enough for a cell of 0.2 s, coarse enough not to slow it.
const SAMPLING_US = 200;

if (typeof WebSocket !== 'function') {
  throw new Error('this Node has no WebSocket: run it with --experimental-websocket (Node 20-21)');
}

/** A DevTools connection to the browser: `send(method, params, sessionId)` resolves to `result`. */
async function devtools(port) {
  const version = await (await fetch(`http://127.0.0.1:${port}/json/version`)).json();
  const ws = new WebSocket(version.webSocketDebuggerUrl);
  await new Promise((resolve, reject) => {
    ws.onopen = resolve;
    ws.onerror = () => reject(new Error(`no DevTools connection on port ${port}`));
  });
  let id = 0;
  const pending = new Map();
  ws.onmessage = (m) => {
    const d = JSON.parse(m.data);
    const p = d.id && pending.get(d.id);
    if (!p) return;
    pending.delete(d.id);
    if (d.error) p.reject(new Error(`${p.method}: ${d.error.message}`));
    else p.resolve(d.result);
  };
  const send = (method, params = {}, sessionId = undefined) =>
    new Promise((resolve, reject) => {
      const i = ++id;
      pending.set(i, { resolve, reject, method });
      ws.send(JSON.stringify({ id: i, method, params, sessionId }));
    });
  return { send, close: () => ws.close() };
}

/** Self time (µs) per function name of a CDP profile, idle left out. */
function selfTimes(profile, into) {
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  for (let i = 0; i < profile.samples.length; i++) {
    const dt = profile.timeDeltas[i + 1] ?? 0;
    const frame = nodes.get(profile.samples[i]).callFrame;
    const name = frame.functionName || frame.url || '(anonymous)';
    if (name === '(idle)') continue;
    into.set(name, (into.get(name) || 0) + dt);
  }
}

const server = await serve(distDir());
// A free port for DevTools: the OS picks one for a moment's listener, then the browser takes it.
const port = await new Promise((resolve) => {
  const probe = net.createServer().listen(0, '127.0.0.1', () => {
    const p = probe.address().port;
    probe.close(() => resolve(p));
  });
});
const browser = await launch([`--remote-debugging-port=${port}`]);
let cdp;
try {
  const page = await browser.context.newPage();
  page.on('pageerror', (e) => console.error('page error:', String(e)));
  await page.goto(`${server.url}?autorun=0`);
  await page.waitForSelector('#controls[data-checking="false"] #run:not([disabled])', { timeout: 60000 });
  cdp = await devtools(port);
  const { targetInfos } = await cdp.send('Target.getTargets');
  const workers = targetInfos.filter((t) => t.type === 'worker');
  if (!workers.length) throw new Error('the page has no workers to profile');
  const sessions = [];
  for (const w of workers) {
    const { sessionId } = await cdp.send('Target.attachToTarget', { targetId: w.targetId, flatten: true });
    await cdp.send('Profiler.enable', {}, sessionId);
    await cdp.send('Profiler.setSamplingInterval', { interval: SAMPLING_US }, sessionId);
    sessions.push(sessionId);
  }
  for (const cell of cells) {
    await benchInPage(page, cell); // V8's optimised code for this cell's functions, not profiled
    for (const s of sessions) await cdp.send('Profiler.start', {}, s);
    let elapsed = 0;
    for (let i = 0; i < repeat; i++) elapsed += (await benchInPage(page, cell)).elapsed_ms;
    const self = new Map();
    for (const s of sessions) selfTimes((await cdp.send('Profiler.stop', {}, s)).profile, self);
    const functions = [...self].sort((a, b) => b[1] - a[1]).map(([n, us]) => [n, us / 1000]);
    console.log(`  ${cell}: ${repeat} runs profiled, ${(elapsed / repeat).toFixed(0)} ms a run`);
    console.log('PROFILE ' + JSON.stringify({ cell, runs: repeat, elapsed_ms: elapsed, functions }));
  }
} finally {
  cdp?.close();
  await browser.close();
  await server.close();
}
