import './heap.js';
import { runCli } from './program.js';

const argv = process.argv.slice(2);
const code = await runCli(argv, {
  out: (s) => process.stdout.write(s),
  err: (s) => process.stderr.write(s),
  env: process.env,
});
// A server that has shut down exits now, with its code, whatever handle a library may have left open.
if (argv[0] === 'serve') process.exit(code);
process.exitCode = code;
