declare const require: any;
declare const process: any;
export {};

const data: string = require('fs').readFileSync(0, 'utf8');
const t: string[] = data.split(/\s+/).filter((x: string) => x.length > 0);
const n = parseInt(t[0], 10);
let best = -Infinity;
for (let i = 1; i <= n; i++) { const v = parseInt(t[i], 10); if (v > best) best = v; }
process.stdout.write(String(String(best)) + '\n');
