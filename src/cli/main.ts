import './heap.js';
import { runCli } from './program.js';

const code = await runCli(process.argv.slice(2), {
  out: (s) => process.stdout.write(s),
  err: (s) => process.stderr.write(s),
  env: process.env,
});
process.exitCode = code;
