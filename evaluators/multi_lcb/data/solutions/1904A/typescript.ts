declare const require: any;
declare const process: any;
export {};

const data: string = require('fs').readFileSync(0, 'utf8');
const t: string[] = data.split(/\s+/).filter((x: string) => x.length > 0);
let a = BigInt(t[0]), b = BigInt(t[1]);
let x = a, y = b;
while (y !== 0n) { const r = x % y; x = y; y = r; }
process.stdout.write(String(x.toString() + ' ' + (a / x * b).toString()) + '\n');
