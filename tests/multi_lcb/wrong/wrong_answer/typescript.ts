declare const require: any;
declare const process: any;
export {};

const t: string[] = require('fs').readFileSync(0, 'utf8').split(/\s+/).filter((x: string) => x.length > 0);
process.stdout.write((BigInt(t[0]) - BigInt(t[1])).toString() + '\n');
