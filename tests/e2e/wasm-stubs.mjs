// The job worker's wasm instantiated outside the page, in Node, with a stub for every import (each
// throws if called): for wasm-code.mjs (compile only) and wasm-instr.mjs (a bench cell, which is
// the core alone and calls no import). Kept apart from lib.mjs, which loads playwright.
import fs from 'node:fs';

/** The module at `file`, instantiated; returns its exports. */
export function instantiateWithStubs(file) {
  const module = new WebAssembly.Module(fs.readFileSync(file));
  const imports = {};
  for (const imp of WebAssembly.Module.imports(module)) {
    imports[imp.module] ??= {};
    if (imp.kind === 'function') {
      imports[imp.module][imp.name] = () => { throw new Error(`the wasm called the import ${imp.name}`); };
    }
  }
  return new WebAssembly.Instance(module, imports).exports;
}
