const t = require('fs').readFileSync(0, 'utf8').split(/\s+/).filter((x) => x.length > 0);
// Blocking writes (fs.writeSync), so output really streams out instead of queueing in memory.
const fs = require('fs');
const chunk = (BigInt(t[0]) + BigInt(t[1])).toString().concat('\n').repeat(65536);
for (;;) {
  try {
    fs.writeSync(1, chunk);
  } catch (e) {
    if (e.code !== 'EAGAIN') throw e;
  }
}
