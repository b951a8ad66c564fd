const data = require('fs').readFileSync(0, 'utf8');
const t = data.split(/\s+/).filter((x) => x.length > 0);
const h = parseInt(t[0], 10), w = parseInt(t[1], 10);
const g = [];
for (let i = 0; i < h; i++) g.push(t[2 + i]);
if (g[0][0] === '#' || g[h - 1][w - 1] === '#') { console.log('-1'); } else {
  const dist = new Int32Array(h * w).fill(-1);
  const q = new Int32Array(h * w);
  let qh = 0, qt = 0;
  dist[0] = 0; q[qt++] = 0;
  const dr = [1, -1, 0, 0], dc = [0, 0, 1, -1];
  while (qh < qt) {
    const cur = q[qh++];
    const r = (cur / w) | 0, c = cur - r * w;
    for (let d = 0; d < 4; d++) {
      const nr = r + dr[d], nc = c + dc[d];
      if (nr < 0 || nr >= h || nc < 0 || nc >= w) continue;
      const id = nr * w + nc;
      if (dist[id] !== -1 || g[nr][nc] === '#') continue;
      dist[id] = dist[cur] + 1;
      q[qt++] = id;
    }
  }
  console.log(String(dist[h * w - 1]));
}
