declare const require: any;
declare const process: any;
export {};

const t: string[] = require('fs').readFileSync(0, 'utf8').split(/\s+/).filter((x: string) => x.length > 0);
let x = 0;
while (true) {
  x = (x + 1) | 0;
}
