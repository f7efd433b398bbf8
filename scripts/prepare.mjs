// `npm install` in a checkout builds dist/ (and packages/sdk/dist/, the SDK workspace) so that `npx cowrie`
// and `npm start` run compiled code and `@cowrie/sdk` imports by name. A production install of a built
// package (`npm ci --omit=dev`) has no TypeScript compiler and needs no build: dist/ is already there, so
// this step says so and does nothing.
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
let tsc;
try {
  tsc = require.resolve('typescript/bin/tsc');
} catch {
  console.log('cowrie: TypeScript is not installed (a production install); using the dist/ that ships with the package.');
  process.exit(0);
}
// From empty output folders (npm install, npm run build): a file whose source was moved or deleted must not
// stay in dist/ (and so in the package). `--incremental` (npm start) rebuilds only what changed. The SDK
// workspace first: the server's `cowrie listen` and `cowrie trigger` import it.
if (!process.argv.includes('--incremental')) {
  rmSync('packages/sdk/dist', { recursive: true, force: true });
  rmSync('dist', { recursive: true, force: true });
}
execFileSync(process.execPath, [tsc, '-p', 'packages/sdk/tsconfig.json'], { stdio: 'inherit' });
execFileSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { stdio: 'inherit' });
