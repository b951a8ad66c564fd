declare const require: any;
declare const process: any;
export {};

const data: string = require('fs').readFileSync(0, 'utf8');
const t: string[] = data.split(/\s+/).filter((x: string) => x.length > 0);
process.stdout.write(String((BigInt(t[0]) + BigInt(t[1])).toString()) + '\n');
