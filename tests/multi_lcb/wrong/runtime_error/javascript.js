const t = require('fs').readFileSync(0, 'utf8').split(/\s+/).filter((x) => x.length > 0);
// Prints the correct answer, then exits with status 3.
console.log((BigInt(t[0]) + BigInt(t[1])).toString());
process.exit(3);
