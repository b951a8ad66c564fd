declare const require: any;
declare const process: any;
export {};

const data: string = require('fs').readFileSync(0, 'utf8');
const lines: string[] = data.split('\n').map((x: string) => x.trim()).filter((x: string) => x.length > 0);
function str(line: string): string { const a = line.indexOf('"'); const b = line.lastIndexOf('"'); return a >= 0 && b > a ? line.substring(a + 1, b) : ''; }
const nums: number[] = JSON.parse(lines[0]);
const k = parseInt(lines[1], 10);
const seen = new Map<number, number>();
let cnt = 0;
for (const x of nums) { cnt += seen.get(k - x) || 0; seen.set(x, (seen.get(x) || 0) + 1); }
process.stdout.write(String(String(cnt)) + '\n');
