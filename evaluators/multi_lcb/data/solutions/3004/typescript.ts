declare const require: any;
declare const process: any;
export {};

const data: string = require('fs').readFileSync(0, 'utf8');
const lines: string[] = data.split('\n').map((x: string) => x.trim()).filter((x: string) => x.length > 0);
function str(line: string): string { const a = line.indexOf('"'); const b = line.lastIndexOf('"'); return a >= 0 && b > a ? line.substring(a + 1, b) : ''; }
const s = lines.length > 0 ? str(lines[0]) : '';
const st: string[] = [];
const match: { [k: string]: string } = { ')': '(', ']': '[', '}': '{' };
let ok = true;
for (const ch of s) {
  if (ch === '(' || ch === '[' || ch === '{') st.push(ch);
  else if (ch === ')' || ch === ']' || ch === '}') { if (st.length === 0 || st.pop() !== match[ch]) { ok = false; break; } }
}
if (st.length !== 0) ok = false;
process.stdout.write(String(ok ? 'true' : 'false') + '\n');
