const data = require('fs').readFileSync(0, 'utf8');
const t = data.split(/\s+/).filter((x) => x.length > 0);
const y = parseInt(t[0], 10);
console.log((y % 4 === 0 && y % 100 !== 0) || y % 400 === 0 ? 'Yes' : 'No');
