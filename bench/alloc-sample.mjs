// Where a server's allocations come from, garbage included: `node --import ./bench/alloc-sample.mjs …` runs
// V8's sampling heap profiler with the objects collected by minor and major collections kept, and on
// SIGTERM or SIGINT prints the 25 functions (ALLOC_TOP) that allocated most (bytes, share) to stderr, then exits.
// A diagnosis aid for bench/alloc.ts's figures, not run by npm run bench.
import { Session } from 'node:inspector/promises';
import process from 'node:process';

const session = new Session();
session.connect();
await session.post('HeapProfiler.enable');
await session.post('HeapProfiler.startSampling', {
  samplingInterval: 4096,
  includeObjectsCollectedByMajorGC: true,
  includeObjectsCollectedByMinorGC: true,
});

async function report() {
  const { profile } = await session.post('HeapProfiler.stopSampling');
  const bySite = new Map();
  let total = 0;
  // ALLOC_BY=cowrie charges each allocation to the innermost frame of Cowrie's own code (dist/) on its stack,
  // so that a library's allocations count against the call of ours that asked for them.
  const byOwn = process.env.ALLOC_BY === 'cowrie';
  const OWN = `${process.cwd()}/dist/`;
  const walk = (node, own) => {
    const f = node.callFrame;
    const site = `${f.functionName || '(anonymous)'} ${f.url.replace(/^.*\/(node_modules|dist)\//, '$1/')}:${f.lineNumber + 1}`;
    const mine = byOwn && f.url.includes(OWN) ? site : own;
    const key = byOwn ? (mine ?? '(outside Cowrie)') : site;
    bySite.set(key, (bySite.get(key) ?? 0) + node.selfSize);
    total += node.selfSize;
    for (const c of node.children) walk(c, mine);
  };
  walk(profile.head, undefined);
  const top = [...bySite].sort((a, b) => b[1] - a[1]).slice(0, Number(process.env.ALLOC_TOP ?? 25));
  process.stderr.write(`allocation sites (sampled), ${(total / 1048576).toFixed(1)} MB in all:\n`);
  for (const [site, bytes] of top) process.stderr.write(`${((bytes / total) * 100).toFixed(1).padStart(5)} %  ${site}\n`);
}

for (const signal of ['SIGTERM', 'SIGINT']) {
  process.once(signal, () => {
    void report().finally(() => process.exit(0));
  });
}
