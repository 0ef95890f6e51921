// The machine code V8's optimising compiler (TurboFan) makes of one function of the job worker's
// wasm, to read beside `objdump -d` of the native CLI when `cargo xtask profile` shows a function
// much slower in the page than natively. Node's V8 prints it: it is older than Chromium's, so
// read it for its shape (spills, checks, calls), not instruction by instruction.
//
//   node tests/e2e/wasm-code.mjs [WASM] NAME
//
// WASM: a worker built with its names (`cargo xtask profile` leaves one in
// target/profile/dist/worker_bg.wasm, the default). NAME: part of a function's name, e.g.
// `sugov_next_freq`; every function whose name contains it is printed.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { instantiateWithStubs } from './wasm-stubs.mjs';

const args = process.argv.slice(2);
if (args[0] === '--instantiate') {
  // The child: compile and instantiate with stub imports (nothing runs), V8's flags doing the
  // printing.
  instantiateWithStubs(args[1]);
  process.exit(0);
}
const [file, name] = args.length >= 2 ? args : ['target/profile/dist/worker_bg.wasm', args[0]];
if (!name) {
  console.error('usage: node tests/e2e/wasm-code.mjs [WASM] NAME');
  process.exit(2);
}
if (!fs.existsSync(file)) {
  console.error(`${file} is missing: \`cargo xtask profile\` builds it`);
  process.exit(2);
}

/** Function index -> name, from the module's `name` custom section (subsection 1). */
function functionNames(bytes) {
  let pos = 8;
  const leb = () => {
    let v = 0, shift = 0, b;
    do { b = bytes[pos++]; v += (b & 0x7f) * 2 ** shift; shift += 7; } while (b & 0x80);
    return v;
  };
  const str = () => { const n = leb(); const s = Buffer.from(bytes.subarray(pos, pos + n)).toString('utf8'); pos += n; return s; };
  const names = new Map();
  while (pos < bytes.length) {
    const id = bytes[pos++];
    const size = leb();
    const end = pos + size;
    if (id === 0 && str() === 'name') {
      while (pos < end) {
        const sub = bytes[pos++];
        const subEnd = leb() + pos;
        if (sub === 1) for (let n = leb(); n > 0; n--) names.set(leb(), str());
        pos = subEnd;
      }
    }
    pos = end;
  }
  return names;
}

const matches = [...functionNames(fs.readFileSync(file))].filter(([, n]) => n.includes(name));
if (!matches.length) {
  console.error(`no function of ${file} has '${name}' in its name (or the file has no names)`);
  process.exit(1);
}
for (const [index, fn] of matches) {
  console.log(`=== ${index}: ${fn}`);
  const child = spawnSync(process.execPath, [
    '--no-liftoff', '--no-wasm-lazy-compilation', `--print-wasm-code-function-index=${index}`,
    new URL(import.meta.url).pathname, '--instantiate', file,
  ], { encoding: 'utf8', maxBuffer: 64 << 20 });
  process.stdout.write(child.stdout);
  if (child.status !== 0) process.stderr.write(child.stderr);
}
