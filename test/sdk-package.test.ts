// @cowrie/sdk as published: `npm pack` in packages/sdk, installed into a plain Node.js project outside the
// repository, type-checked there under `strict` with NodeNext resolution (a wrong field must not compile,
// so the types are real), compiled, and run against a real server. The tarball is packed from the dist/
// that test/global-setup.ts built. Engine-free: run once, in the SQLite project.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINE, startTestServer, type TestServer } from './helpers/harness.js';

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '..');
const TSC = createRequire(import.meta.url).resolve('typescript/bin/tsc');

const PROGRAM = `import { Cowrie, CowrieError, InvalidRequestError, constructEvent, generateHeaders, type PaymentIntent } from '@cowrie/sdk';

const cowrie = new Cowrie(process.env['KEY']!, { baseUrl: process.env['BASE_URL']! });
const intent: PaymentIntent = await cowrie.paymentIntents.create({ amount: '1500.00', currency: 'KES', merchant_reference: 'order_1' });
const ids: string[] = [];
for await (const pi of cowrie.paymentIntents.list({ limit: 1 })) ids.push(pi.id);
let refused = '';
try {
  await cowrie.paymentIntents.create({ amount: '-1', currency: 'KES' });
} catch (err) {
  if (err instanceof InvalidRequestError && err instanceof CowrieError) refused = err.code ?? '';
}
const payload = JSON.stringify({ id: 'evt_1', type: 'payment_intent.paid' });
const headers = generateHeaders({ payload, secret: 'cwk_whsec_test', id: 'evt_1' });
const event = constructEvent(payload, headers, 'cwk_whsec_test');
console.log(JSON.stringify({ id: intent.id, status: intent.status, listed: ids, refused, event: event.type }));
`;

/** Must not compile: if the package's types were \`any\`, the directive itself would be the error. */
const WRONG = `import { Cowrie } from '@cowrie/sdk';
const cowrie = new Cowrie('cwk_test_sk_x');
// @ts-expect-error amount is a decimal string, never a number
await cowrie.paymentIntents.create({ amount: 1500, currency: 'KES' });
`;

describe.skipIf(ENGINE !== 'sqlite')('@cowrie/sdk packed and installed in a project of its own', () => {
  let work: string;
  let project: string;
  let s: TestServer;

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'cowrie-sdk-'));
    const packed = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], {
      cwd: join(ROOT, 'packages', 'sdk'),
    });
    const [info] = JSON.parse(packed.stdout) as Array<{ filename: string; files: Array<{ path: string }> }>;
    expect(info!.files.map((f) => f.path)).toEqual(
      expect.arrayContaining(['dist/index.js', 'dist/index.d.ts', 'README.md', 'package.json']),
    );
    expect(info!.files.filter((f) => f.path.startsWith('src/'))).toEqual([]);
    project = join(work, 'shop');
    mkdirSync(project);
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'shop', private: true, type: 'module' }));
    await run('npm', ['install', '--no-audit', '--no-fund', '--offline', join(work, info!.filename)], { cwd: project });
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          outDir: 'out',
          // Node's own types, as any Node.js project has them (@types/node).
          typeRoots: [join(ROOT, 'node_modules', '@types')],
          types: ['node'],
        },
        include: ['*.ts'],
      }),
    );
    s = await startTestServer();
  }, 120_000);
  afterAll(async () => {
    await s?.stop();
    rmSync(work, { recursive: true, force: true });
  });

  it('type-checks a strict ESM project against its declarations, and refuses a wrong field', async () => {
    writeFileSync(join(project, 'pay.ts'), PROGRAM);
    writeFileSync(join(project, 'wrong.ts'), WRONG);
    await run(process.execPath, [TSC, '-p', 'tsconfig.json'], { cwd: project });
    writeFileSync(join(project, 'wrong.ts'), WRONG.replace('// @ts-expect-error amount is a decimal string, never a number\n', ''));
    const failed = await run(process.execPath, [TSC, '-p', 'tsconfig.json', '--noEmit'], { cwd: project }).catch(
      (err: { stdout: string }) => err,
    );
    expect('stdout' in failed ? failed.stdout : '').toMatch(/wrong\.ts.*error TS2322/);
    // Two runs of the compiler, each several seconds on a busy machine.
  }, 120_000);

  it('runs from the installed package against a real server', async () => {
    const out = await run(process.execPath, ['out/pay.js'], {
      cwd: project,
      env: { ...process.env, KEY: s.merchant.keys.test_secret, BASE_URL: s.url('test', '/v1') },
    });
    const result = JSON.parse(out.stdout) as { id: string; status: string; listed: string[]; refused: string; event: string };
    expect(result).toEqual({
      id: expect.stringMatching(/^pi_/),
      status: 'awaiting_payment',
      listed: [result.id],
      refused: 'parameter_invalid',
      event: 'payment_intent.paid',
    });
  });
});
