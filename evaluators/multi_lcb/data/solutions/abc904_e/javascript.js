const data = require('fs').readFileSync(0, 'utf8');
const t = data.split(/\s+/).filter((x) => x.length > 0);
const n = parseInt(t[0], 10), m = parseInt(t[1], 10);
const eu = new Int32Array(m), ev = new Int32Array(m), ew = new Float64Array(m);
const deg = new Int32Array(n + 2);
let p = 2;
for (let i = 0; i < m; i++) {
  eu[i] = parseInt(t[p++], 10); ev[i] = parseInt(t[p++], 10); ew[i] = parseInt(t[p++], 10);
  deg[eu[i]]++; deg[ev[i]]++;
}
const start = new Int32Array(n + 2);
for (let i = 1; i <= n + 1; i++) start[i] = start[i - 1] + deg[i - 1];
const pos = start.slice();
const to = new Int32Array(2 * m), wt = new Float64Array(2 * m);
for (let i = 0; i < m; i++) {
  to[pos[eu[i]]] = ev[i]; wt[pos[eu[i]]++] = ew[i];
  to[pos[ev[i]]] = eu[i]; wt[pos[ev[i]]++] = ew[i];
}
const dist = new Float64Array(n + 1).fill(Infinity);
const hd = new Float64Array(2 * m + 2), hv = new Int32Array(2 * m + 2);
let hs = 0;
function push(d, v) {
  let i = hs++;
  while (i > 0) { const par = (i - 1) >> 1; if (hd[par] <= d) break; hd[i] = hd[par]; hv[i] = hv[par]; i = par; }
  hd[i] = d; hv[i] = v;
}
function pop() {
  const d = hd[--hs], v = hv[hs];
  let i = 0;
  for (;;) {
    let c = 2 * i + 1;
    if (c >= hs) break;
    if (c + 1 < hs && hd[c + 1] < hd[c]) c++;
    if (hd[c] >= d) break;
    hd[i] = hd[c]; hv[i] = hv[c]; i = c;
  }
  hd[i] = d; hv[i] = v;
}
dist[1] = 0; push(0, 1);
while (hs > 0) {
  const d = hd[0], u = hv[0];
  pop();
  if (d > dist[u]) continue;
  if (u === n) break;
  for (let e = start[u]; e < start[u + 1]; e++) {
    const nd = d + wt[e], v = to[e];
    if (nd < dist[v]) { dist[v] = nd; push(nd, v); }
  }
}
console.log(dist[n] === Infinity ? '-1' : String(dist[n]));
