const data = require('fs').readFileSync(0, 'utf8');
const t = data.split(/\s+/).filter((x) => x.length > 0);
const n = parseInt(t[0], 10);
const tails = new Float64Array(n + 1);
let len = 0;
for (let i = 1; i <= n; i++) {
  const v = parseInt(t[i], 10);
  let lo = 0, hi = len;
  while (lo < hi) { const mid = (lo + hi) >> 1; if (tails[mid] < v) lo = mid + 1; else hi = mid; }
  tails[lo] = v;
  if (lo === len) len++;
}
console.log(String(len));
