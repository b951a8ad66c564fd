declare const require: any;
declare const process: any;
export {};

const data: string = require('fs').readFileSync(0, 'utf8');
const lines: string[] = data.split('\n').map((x: string) => x.trim()).filter((x: string) => x.length > 0);
function str(line: string): string { const a = line.indexOf('"'); const b = line.lastIndexOf('"'); return a >= 0 && b > a ? line.substring(a + 1, b) : ''; }
const s = lines.length > 0 ? str(lines[0]) : '';
let ok = true;
for (let i = 0, j = s.length - 1; i < j; i++, j--) { if (s[i] !== s[j]) { ok = false; break; } }
process.stdout.write(String(ok ? 'true' : 'false') + '\n');
