const data = require('fs').readFileSync(0, 'utf8');
const t = data.split(/\s+/).filter((x) => x.length > 0);
const n = parseInt(t[0], 10);
const M = 1000000007;
let a = 0, b = 1;
for (let i = 0; i < n; i++) { const c = (a + b) % M; a = b; b = c; }
console.log(String(a));
