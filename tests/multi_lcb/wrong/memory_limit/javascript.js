const t = require('fs').readFileSync(0, 'utf8').split(/\s+/).filter((x) => x.length > 0);
// Keeps allocating 16M-element arrays and writing every element, until killed.
// Plain arrays live on the V8 heap, so node's --max-old-space-size (or a cgroup) stops it.
const keep = [];
for (;;) {
  const a = new Array(16 * 1024 * 1024).fill(keep.length + 0.5);
  keep.push(a);
}
