declare const require: any;
declare const process: any;
export {};

const t: string[] = require('fs').readFileSync(0, 'utf8').split(/\s+/).filter((x: string) => x.length > 0);
// Prints the correct answer, then throws an uncaught exception.
process.stdout.write((BigInt(t[0]) + BigInt(t[1])).toString() + '\n');
throw new Error('boom');
