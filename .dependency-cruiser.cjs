// Architecture rules of src/, checked by `npm run lint` (dependency-cruiser), type imports counted too.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'No import cycles: dependencies point one way.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'module-through-index',
      severity: 'error',
      comment: 'A module is used by other modules only through its index.ts.',
      from: { path: '^src/modules/([^/]+)/' },
      to: { path: '^src/modules/[^/]+/', pathNot: ['^src/modules/$1/', '^src/modules/[^/]+/index\\.ts$'] },
    },
    {
      name: 'outside-through-index',
      severity: 'error',
      comment:
        'Code outside the modules uses a module only through its index.ts; the app (src/app.ts) registers each ' +
        "module's HTTP routes from its *.routes.ts, which no index exports (so no import of a module's domain " +
        'API ever reaches HTTP code).',
      from: { path: '^src/', pathNot: '^src/(modules/|app\\.ts$)' },
      to: { path: '^src/modules/[^/]+/', pathNot: '^src/modules/[^/]+/index\\.ts$' },
    },
    {
      name: 'app-through-index-or-routes',
      severity: 'error',
      comment: 'The app imports a module through its index.ts, or the routes it registers.',
      from: { path: '^src/app\\.ts$' },
      to: { path: '^src/modules/[^/]+/', pathNot: ['^src/modules/[^/]+/index\\.ts$', '\\.routes\\.ts$'] },
    },
    {
      name: 'index-exports-no-routes',
      severity: 'error',
      comment: "A module's index.ts exports its domain API, never its HTTP routes.",
      from: { path: '^src/modules/[^/]+/index\\.ts$' },
      to: { path: '\\.routes\\.ts$' },
    },
    {
      name: 'shared-knows-nothing',
      severity: 'error',
      comment: 'src/shared knows neither the database, nor HTTP, nor any module.',
      from: { path: '^src/shared/' },
      to: { path: '^src/(db|http|modules|jobs|cli)/|^src/[^/]+\\.ts$' },
    },
    {
      name: 'db-knows-no-module',
      severity: 'error',
      comment: 'src/db knows no module, and no HTTP.',
      from: { path: '^src/db/' },
      to: { path: '^src/(http|modules|jobs|cli)/|^src/[^/]+\\.ts$' },
    },
    {
      name: 'domain-not-http',
      severity: 'error',
      comment: 'Domain code (services, repos, views) never imports HTTP code; only routes do.',
      from: { path: '^src/modules/', pathNot: '(\\.routes\\.ts|/index\\.ts)$' },
      to: { path: '^src/http/' },
    },
    {
      name: 'modules-below-the-root',
      severity: 'error',
      comment: 'Modules never reach up to the jobs, the command line or the composition root.',
      from: { path: '^src/modules/' },
      to: { path: '^src/(jobs|cli)/|^src/(app|main|services|server|deps)\\.ts$' },
    },
    {
      name: 'no-peers-in-src',
      severity: 'error',
      comment: 'The local fakes of providers (peers/) are for tests and npm scripts; nothing that ships imports them.',
      from: { path: '^src/' },
      to: { path: '^peers/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    includeOnly: '^(src|peers)/',
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.tsx', '.js'] },
  },
};
