const data = require('fs').readFileSync(0, 'utf8');
const t = data.split(/\s+/).filter((x) => x.length > 0);
const n = parseInt(t[0], 10), amount = parseInt(t[1], 10);
const INF = 1 << 30;
const dp = new Int32Array(amount + 1).fill(INF);
dp[0] = 0;
for (let i = 0; i < n; i++) {
  const c = parseInt(t[2 + i], 10);
  for (let x = c; x <= amount; x++) { const v = dp[x - c] + 1; if (v < dp[x]) dp[x] = v; }
}
console.log(dp[amount] >= INF ? '-1' : String(dp[amount]));
