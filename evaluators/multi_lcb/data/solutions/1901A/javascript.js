const data = require('fs').readFileSync(0, 'utf8');
const t = data.split(/\s+/).filter((x) => x.length > 0);
const n = parseInt(t[0], 10);
let best = -Infinity;
for (let i = 1; i <= n; i++) { const v = parseInt(t[i], 10); if (v > best) best = v; }
console.log(String(best));
