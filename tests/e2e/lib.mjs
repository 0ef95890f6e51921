// Shared by the e2e tests and the wasm benchmark: a tiny static server for dist/ on 127.0.0.1,
// and Debian's Chromium driven by playwright-core (no browser download, ever).
import http from 'node:http';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

const MIME = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.wasm': 'application/wasm',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
};

/**
 * Serves `root` on 127.0.0.1 at a free port; resolves to { url, close }. `prefix` (e.g.
 * '/some/dir/') serves it below a path, as a site in a sub-folder; `cacheable` lets the browser
 * keep what it fetched (the default, no-store, makes every test fetch afresh).
 */
export function serve(root, { prefix = '/', cacheable = false } = {}) {
  const base = path.resolve(root);
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, 'http://127.0.0.1');
    let rel = decodeURIComponent(url.pathname);
    if (!rel.startsWith(prefix)) {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not found: ' + rel);
      return;
    }
    rel = '/' + rel.slice(prefix.length);
    if (rel.endsWith('/')) rel += 'index.html';
    const file = path.resolve(base, '.' + rel);
    if (!file.startsWith(base + path.sep) || !fs.existsSync(file) || !fs.statSync(file).isFile()) {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not found: ' + rel);
      return;
    }
    res.writeHead(200, {
      'content-type': MIME[path.extname(file)] || 'application/octet-stream',
      'cache-control': cacheable ? 'max-age=3600' : 'no-store',
    });
    fs.createReadStream(file).pipe(res);
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      resolve({ url: `http://127.0.0.1:${port}${prefix}`, close: () => new Promise((r) => server.close(r)) });
    });
  });
}

/** Launches Chromium with a fresh profile (and `extraArgs`); resolves to { context, close }. */
export async function launch(extraArgs = []) {
  if (!fs.existsSync(CHROMIUM)) {
    throw new Error(`${CHROMIUM} is missing: run \`cargo xtask setup\` (Debian's chromium package)`);
  }
  const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'schedlab-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: [...CHROMIUM_ARGS, ...extraArgs],
    viewport: { width: 1280, height: 900 },
  });
  return {
    context,
    close: async () => {
      await context.close();
      fs.rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}

/** The dist/ directory to test: $SCHEDLAB_DIST or <repo>/dist. */
export function distDir() {
  const here = path.dirname(new URL(import.meta.url).pathname);
  const dist = process.env.SCHEDLAB_DIST || path.resolve(here, '..', '..', 'dist');
  if (!fs.existsSync(path.join(dist, 'index.html'))) {
    throw new Error(`${dist}/index.html is missing: run \`cargo xtask dist\` (trunk build --release) first`);
  }
  return dist;
}

/**
 * Runs the bench cell (or built-in scenario) `name` in the page's job worker
 * (`window.schedlabBench(name)`) and waits for it; resolves to the `#bench-result` element's
 * figures: { runs, elapsed_ms (the worker's own clock around the runs), events, busy_cpu_ns }.
 */
export async function benchInPage(page, name) {
  const job = await page.evaluate((n) => window.schedlabBench(n), name);
  if (!job) throw new Error(`schedlabBench('${name}') started nothing`);
  const sel = `#bench-result[data-job="${job}"]`;
  await page.waitForSelector(`${sel}[data-state="done"], ${sel}[data-state="failed"]`, {
    timeout: 10 * 60 * 1000,
  });
  if ((await page.getAttribute(sel, 'data-state')) !== 'done') {
    throw new Error(`${name}: ${await page.textContent(sel)}`);
  }
  const figure = async (attr) => Number(await page.getAttribute(sel, attr));
  return {
    runs: await figure('data-runs'),
    elapsed_ms: await figure('data-elapsed-ms'),
    events: await figure('data-events'),
    busy_cpu_ns: await figure('data-busy-cpu-ns'),
  };
}
