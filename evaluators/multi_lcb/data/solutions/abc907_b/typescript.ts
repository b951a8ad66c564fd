declare const require: any;
declare const process: any;
export {};

const data: string = require('fs').readFileSync(0, 'utf8');
const t: string[] = data.split(/\s+/).filter((x: string) => x.length > 0);
const n = parseInt(t[0], 10);
const set = new Set<string>();
for (let i = 1; i <= n; i++) set.add(BigInt(t[i]).toString());
process.stdout.write(String(String(set.size)) + '\n');
