// Node has WebAssembly as a global, but @types/node does not declare it: the DOM library does,
// and host code is checked without the DOM (src/tsconfig.json). Only what sqljs.ts calls.
declare namespace WebAssembly {
  function validate(bytes: ArrayBuffer): boolean;
}
