declare const require: any;
declare const process: any;
export {};

const t: string[] = require('fs').readFileSync(0, 'utf8').split(/\s+/).filter((x: string) => x.length > 0);
// Keeps allocating 16M-element arrays and writing every element, until killed.
// Plain arrays live on the V8 heap, so node's --max-old-space-size (or a cgroup) stops it.
const keep: number[][] = [];
for (;;) {
  const a: number[] = new Array(16 * 1024 * 1024).fill(keep.length + 0.5);
  keep.push(a);
}
