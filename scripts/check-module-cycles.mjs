// Module-level cycles: dependency-cruiser finds cycles between files; this finds them between the folders
// of src/ (each module of src/modules, and src/db, src/http, src/shared, ...), counting runtime imports
// only. A cycle through two modules' files that never forms a file-level cycle is still a tangle.
import { cruise } from 'dependency-cruiser';

const FOLDER = /^src\/(modules\/[^/]+|[^/]+)\//;
const folderOf = (path) => FOLDER.exec(path)?.[0] ?? path;

const result = await cruise(['src'], {
  includeOnly: '^src/',
  tsPreCompilationDeps: true,
  tsConfig: { fileName: 'tsconfig.json' },
  enhancedResolveOptions: { extensions: ['.ts', '.tsx', '.js'] },
});
const graph = new Map();
for (const m of result.output.modules) {
  const from = folderOf(m.source);
  const edges = graph.get(from) ?? new Set();
  for (const d of m.dependencies) {
    const to = folderOf(d.resolved);
    if (to !== from && d.resolved.startsWith('src/')) edges.add(to);
  }
  graph.set(from, edges);
}

// Strongly connected components (Tarjan): any with more than one folder is a cycle.
let index = 0;
const indexes = new Map();
const low = new Map();
const stack = [];
const onStack = new Set();
const tangles = [];
function visit(v) {
  indexes.set(v, index);
  low.set(v, index++);
  stack.push(v);
  onStack.add(v);
  for (const w of graph.get(v) ?? []) {
    if (!indexes.has(w)) {
      visit(w);
      low.set(v, Math.min(low.get(v), low.get(w)));
    } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), indexes.get(w)));
  }
  if (low.get(v) === indexes.get(v)) {
    const component = [];
    let w;
    do {
      w = stack.pop();
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1) tangles.push(component.sort());
  }
}
for (const v of graph.keys()) if (!indexes.has(v)) visit(v);

if (tangles.length > 0) {
  for (const t of tangles) console.error(`module cycle: ${t.join(' <-> ')}`);
  process.exit(1);
}
console.log(`no module cycles (${graph.size} folders)`);
