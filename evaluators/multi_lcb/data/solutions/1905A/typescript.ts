declare const require: any;
declare const process: any;
export {};

const data: string = require('fs').readFileSync(0, 'utf8');
const t: string[] = data.split(/\s+/).filter((x: string) => x.length > 0);
const n = parseInt(t[0], 10);
let s = 0;
for (let i = 1; i <= n; i++) s += parseInt(t[i], 10);
process.stdout.write(String((s / n).toFixed(10)) + '\n');
