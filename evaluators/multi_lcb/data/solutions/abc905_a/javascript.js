const data = require('fs').readFileSync(0, 'utf8');
const t = data.split(/\s+/).filter((x) => x.length > 0);
const n = parseInt(t[0], 10);
const words = t.slice(1, 1 + n);
words.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
console.log(words.join('\n'));
