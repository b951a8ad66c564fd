const data = require('fs').readFileSync(0, 'utf8');
const lines = data.split('\n').map((x) => x.trim()).filter((x) => x.length > 0);
function str(line) { const a = line.indexOf('"'); const b = line.lastIndexOf('"'); return a >= 0 && b > a ? line.substring(a + 1, b) : ''; }
const nums = JSON.parse(lines[0]);
let best = -Infinity, cur = 0;
for (const x of nums) { cur = Math.max(x, cur + x); if (cur > best) best = cur; }
console.log(String(best));
