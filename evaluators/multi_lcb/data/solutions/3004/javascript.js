const data = require('fs').readFileSync(0, 'utf8');
const lines = data.split('\n').map((x) => x.trim()).filter((x) => x.length > 0);
function str(line) { const a = line.indexOf('"'); const b = line.lastIndexOf('"'); return a >= 0 && b > a ? line.substring(a + 1, b) : ''; }
const s = lines.length > 0 ? str(lines[0]) : '';
const st = [];
const match = { ')': '(', ']': '[', '}': '{' };
let ok = true;
for (const ch of s) {
  if (ch === '(' || ch === '[' || ch === '{') st.push(ch);
  else if (ch === ')' || ch === ']' || ch === '}') { if (st.length === 0 || st.pop() !== match[ch]) { ok = false; break; } }
}
if (st.length !== 0) ok = false;
console.log(ok ? 'true' : 'false');
