declare const require: any;
declare const process: any;
export {};

const t: string[] = require('fs').readFileSync(0, 'utf8').split(/\s+/).filter((x: string) => x.length > 0);
// Keeps allocating 16M-element arrays and writing every element, until killed.
const keep: Float64Array[] = [];
for (;;) {
  const a = new Float64Array(16 * 1024 * 1024);
  a.fill(keep.length + 1.5);
  keep.push(a);
}
