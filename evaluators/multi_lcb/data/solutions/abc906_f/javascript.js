const data = require('fs').readFileSync(0, 'utf8');
const t = data.split(/\s+/).filter((x) => x.length > 0);
const n = parseInt(t[0], 10), W = parseInt(t[1], 10);
const dp = new Float64Array(W + 1);
let p = 2;
for (let i = 0; i < n; i++) {
  const w = parseInt(t[p++], 10), v = parseInt(t[p++], 10);
  for (let j = W; j >= w; j--) { const c = dp[j - w] + v; if (c > dp[j]) dp[j] = c; }
}
console.log(String(dp[W]));
