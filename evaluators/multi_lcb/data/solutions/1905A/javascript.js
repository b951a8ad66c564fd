const data = require('fs').readFileSync(0, 'utf8');
const t = data.split(/\s+/).filter((x) => x.length > 0);
const n = parseInt(t[0], 10);
let s = 0;
for (let i = 1; i <= n; i++) s += parseInt(t[i], 10);
console.log((s / n).toFixed(10));
