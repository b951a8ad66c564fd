declare const require: any;
declare const process: any;
export {};

const data: string = require('fs').readFileSync(0, 'utf8');
const t: string[] = data.split(/\s+/).filter((x: string) => x.length > 0);
const n = parseInt(t[0], 10);
const words = t.slice(1, 1 + n);
words.sort((a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0));
process.stdout.write(String(words.join('\n')) + '\n');
