declare const require: any;
declare const process: any;
export {};

const data: string = require('fs').readFileSync(0, 'utf8');
const t: string[] = data.split(/\s+/).filter((x: string) => x.length > 0);
const y = parseInt(t[0], 10);
process.stdout.write(String((y % 4 === 0 && y % 100 !== 0) || y % 400 === 0 ? 'Yes' : 'No') + '\n');
