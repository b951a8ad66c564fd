declare const require: any;
declare const process: any;
export {};

const data: string = require('fs').readFileSync(0, 'utf8');
const t: string[] = data.split(/\s+/).filter((x: string) => x.length > 0);
const n = parseInt(t[0], 10);
const a = new Float64Array(n);
for (let i = 0; i < n; i++) a[i] = parseInt(t[1 + i], 10);
a.sort();
let mx = -Infinity, mn = Infinity;
for (let i = 0; i < n / 2; i++) { const s = a[i] + a[n - 1 - i]; if (s > mx) mx = s; if (s < mn) mn = s; }
process.stdout.write(String(String(mx - mn)) + '\n');
