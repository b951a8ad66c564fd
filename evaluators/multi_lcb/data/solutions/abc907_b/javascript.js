const data = require('fs').readFileSync(0, 'utf8');
const t = data.split(/\s+/).filter((x) => x.length > 0);
const n = parseInt(t[0], 10);
const set = new Set();
for (let i = 1; i <= n; i++) set.add(BigInt(t[i]).toString());
console.log(String(set.size));
