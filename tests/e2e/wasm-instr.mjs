// One bench cell in the job worker's wasm, for `cargo xtask profile --instr`, which runs this
// script in Node under callgrind to count the instructions V8's code of the worker executes.
//
//   node --perf-basic-prof --no-liftoff --no-wasm-lazy-compilation tests/e2e/wasm-instr.mjs WASM CELL
//
// The worker is compiled once, by the optimising tier alone and before anything runs (no
// Liftoff, no lazy compilation, so no tier-up that could happen at a different moment in two
// runs), and instantiated with stub imports: `bench_named` (crates/schedlab-web/src/bin/worker.rs)
// is the core alone and calls none. The cell runs between two `process.cpuUsage()` calls, whose
// `uv_getrusage()` callgrind dumps its counts before (`--dump-before=uv_getrusage`): the second
// part of the output is the cell's, without Node's start or the compilation. `--perf-basic-prof`
// writes /tmp/perf-PID.map, where each wasm function's code lies, for the per-function counts.
//
// CELL is a bench cell or built-in name, or a scenario file's JSON text (instr.rs reads the file).
// Prints `WASM_INSTR {"cell":...,"events":N}`; exits 1 when the cell does not run.
import { instantiateWithStubs } from './wasm-stubs.mjs';

const [file, cell] = process.argv.slice(2);
if (!file || !cell) {
  console.error('usage: node tests/e2e/wasm-instr.mjs WASM CELL');
  process.exit(2);
}
const wasm = instantiateWithStubs(file);
if (typeof wasm.bench_named !== 'function') {
  console.error(`${file} exports no bench_named: build the worker from this checkout`);
  process.exit(1);
}
// The name as wasm-bindgen passes a &str: UTF-8 in the module's memory, from its allocator.
const bytes = new TextEncoder().encode(cell);
const ptr = wasm.__wbindgen_malloc(bytes.length, 1);
new Uint8Array(wasm.memory.buffer, ptr, bytes.length).set(bytes);

process.cpuUsage(); // callgrind: part 1 ends
const events = wasm.bench_named(ptr, bytes.length);
process.cpuUsage(); // callgrind: part 2 (the cell) ends

if (events < 0) {
  console.error(`${cell}: not a scenario the worker opens, or a run failed`);
  process.exit(1);
}
console.log(`WASM_INSTR ${JSON.stringify({ cell, events })}`);
