const data = require('fs').readFileSync(0, 'utf8');
const line = data.split('\n')[0].trim();
console.log(line.split(/\s+/).filter((x) => x.length > 0).reverse().join(' '));
