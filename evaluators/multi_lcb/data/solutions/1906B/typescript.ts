declare const require: any;
declare const process: any;
export {};

const data: string = require('fs').readFileSync(0, 'utf8');
const t: string[] = data.split(/\s+/).filter((x: string) => x.length > 0);
const n = parseInt(t[0], 10);
const comp = new Uint8Array(n + 1);
let cnt = 0;
for (let i = 2; i <= n; i++) {
  if (comp[i] === 0) { cnt++; for (let j = i * i; j <= n; j += i) comp[j] = 1; }
}
process.stdout.write(String(String(cnt)) + '\n');
