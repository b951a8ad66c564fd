declare const require: any;
declare const process: any;
export {};

const t: string[] = require('fs').readFileSync(0, 'utf8').split(/\s+/).filter((x: string) => x.length > 0);
// Type error: a string assigned to a number, rejected by tsc.
const s: number = (BigInt(t[0]) + BigInt(t[1])).toString();
process.stdout.write(s + '\n');
