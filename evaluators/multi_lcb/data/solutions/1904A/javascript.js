const data = require('fs').readFileSync(0, 'utf8');
const t = data.split(/\s+/).filter((x) => x.length > 0);
let a = BigInt(t[0]), b = BigInt(t[1]);
let x = a, y = b;
while (y !== 0n) { const r = x % y; x = y; y = r; }
console.log(x.toString() + ' ' + (a / x * b).toString());
