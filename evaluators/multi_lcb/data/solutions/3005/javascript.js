const data = require('fs').readFileSync(0, 'utf8');
const lines = data.split('\n').filter((x) => x.trim().length > 0);
function str(line) { const a = line.indexOf('"'); const b = line.lastIndexOf('"'); return a >= 0 && b > a ? line.substring(a + 1, b) : ''; }
const a = str(lines[0]), b = str(lines[1]);
const m = b.length;
let prev = new Int32Array(m + 1), cur = new Int32Array(m + 1);
for (let j = 0; j <= m; j++) prev[j] = j;
for (let i = 1; i <= a.length; i++) {
  cur[0] = i;
  for (let j = 1; j <= m; j++) {
    let best = prev[j - 1] + (a.charCodeAt(i - 1) === b.charCodeAt(j - 1) ? 0 : 1);
    if (prev[j] + 1 < best) best = prev[j] + 1;
    if (cur[j - 1] + 1 < best) best = cur[j - 1] + 1;
    cur[j] = best;
  }
  const tmp = prev; prev = cur; cur = tmp;
}
console.log(String(prev[m]));
