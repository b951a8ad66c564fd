const t = require('fs').readFileSync(0, 'utf8').split(/\s+/).filter((x) => x.length > 0);
let x = 0;
while (true) {
  x = (x + 1) | 0;
}
