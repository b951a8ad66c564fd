declare const require: any;
declare const process: any;
export {};

const t: string[] = require('fs').readFileSync(0, 'utf8').split(/\s+/).filter((x: string) => x.length > 0);
// A type error (a string assigned to a number) AND a syntax error (the unclosed call below): the
// syntax error makes tsc fail even when it runs with --noCheck, which skips type errors.
const s: number = (BigInt(t[0]) + BigInt(t[1])).toString();
process.stdout.write(s + '\n';
