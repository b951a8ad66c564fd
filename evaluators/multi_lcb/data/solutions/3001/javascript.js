const data = require('fs').readFileSync(0, 'utf8');
const lines = data.split('\n').map((x) => x.trim()).filter((x) => x.length > 0);
function str(line) { const a = line.indexOf('"'); const b = line.lastIndexOf('"'); return a >= 0 && b > a ? line.substring(a + 1, b) : ''; }
const nums = JSON.parse(lines[0]);
const k = parseInt(lines[1], 10);
const seen = new Map();
let cnt = 0;
for (const x of nums) { cnt += seen.get(k - x) || 0; seen.set(x, (seen.get(x) || 0) + 1); }
console.log(String(cnt));
