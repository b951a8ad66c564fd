const data = require('fs').readFileSync(0, 'utf8');
const t = data.split(/\s+/).filter((x) => x.length > 0);
const n = parseInt(t[0], 10);
const comp = new Uint8Array(n + 1);
let cnt = 0;
for (let i = 2; i <= n; i++) {
  if (comp[i] === 0) { cnt++; for (let j = i * i; j <= n; j += i) comp[j] = 1; }
}
console.log(String(cnt));
