declare const require: any;
declare const process: any;
export {};

const data: string = require('fs').readFileSync(0, 'utf8');
const line = data.split('\n')[0].trim();
process.stdout.write(String(line.split(/\s+/).filter((x: string) => x.length > 0).reverse().join(' ')) + '\n');
