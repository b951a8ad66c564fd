const t = require('fs').readFileSync(0, 'utf8').split(/\s+/).filter((x) => x.length > 0);
// Syntax error: rejected by `node --check`.
const s = BigInt(t[0]) + ;
console.log(s.toString());
