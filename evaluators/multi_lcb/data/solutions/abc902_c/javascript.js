const data = require('fs').readFileSync(0, 'utf8');
const t = data.split(/\s+/).filter((x) => x.length > 0);
const n = parseInt(t[0], 10), q = parseInt(t[1], 10);
const pre = new Float64Array(n + 1);
let p = 2;
for (let i = 0; i < n; i++) pre[i + 1] = pre[i] + parseInt(t[p++], 10);
const out = new Array(q);
for (let i = 0; i < q; i++) { const l = parseInt(t[p++], 10), r = parseInt(t[p++], 10); out[i] = String(pre[r] - pre[l - 1]); }
console.log(out.join('\n'));
