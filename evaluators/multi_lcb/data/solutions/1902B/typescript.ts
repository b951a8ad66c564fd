declare const require: any;
declare const process: any;
export {};

const data: string = require('fs').readFileSync(0, 'utf8');
const t: string[] = data.split(/\s+/).filter((x: string) => x.length > 0);
const n = parseInt(t[0], 10);
const M = 1000000007;
let a = 0, b = 1;
for (let i = 0; i < n; i++) { const c = (a + b) % M; a = b; b = c; }
process.stdout.write(String(String(a)) + '\n');
