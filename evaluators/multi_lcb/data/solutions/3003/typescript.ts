declare const require: any;
declare const process: any;
export {};

const data: string = require('fs').readFileSync(0, 'utf8');
const lines: string[] = data.split('\n').map((x: string) => x.trim()).filter((x: string) => x.length > 0);
function str(line: string): string { const a = line.indexOf('"'); const b = line.lastIndexOf('"'); return a >= 0 && b > a ? line.substring(a + 1, b) : ''; }
const nums: number[] = JSON.parse(lines[0]);
let best = -Infinity, cur = 0;
for (const x of nums) { cur = Math.max(x, cur + x); if (cur > best) best = cur; }
process.stdout.write(String(String(best)) + '\n');
