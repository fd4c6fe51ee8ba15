/**
 * Import rules checked by `npm run check:imports` (and CI): src/http/ is the top floor, so
 * nothing outside it imports from it; src/platform/ is the ground floor, so it imports nothing
 * above it; modules are entered through their index.ts; and no module or folder reaches itself
 * through its imports.
 * Type-only imports count: swc parses TypeScript as written, before types are erased.
 * @type {import('dependency-cruiser').IConfiguration}
 */
module.exports = {
  forbidden: [
    {
      name: 'http-is-the-top-floor',
      comment: 'Only src/http/ speaks HTTP; what it uses lives below it and never imports it back.',
      severity: 'error',
      from: { pathNot: '^src/http/' },
      to: { path: '^src/http/' },
    },
    {
      name: 'platform-is-the-ground-floor',
      comment:
        'src/platform/ is the plumbing every module stands on: it imports only itself and packages, never a domain module, the composition root or an entry point above it.',
      severity: 'error',
      from: { path: '^src/platform/' },
      to: { path: '^(src|workers|scripts)/', pathNot: '^src/platform/' },
    },
    {
      name: 'modules-enter-by-their-face',
      comment:
        'A module (a folder under src/, or under src/platform/) is entered from outside through its index.ts only, so its insides can change without its users noticing.',
      severity: 'error',
      from: { path: '^(src/platform/[^/]+|src/[^/]+)/' },
      to: { path: '^src/(platform/[^/]+|[^/]+)/', pathNot: ['^$1/', '^src/(platform/[^/]+|[^/]+)/index\\.ts$'] },
    },
    {
      name: 'entry-points-enter-by-faces',
      comment: 'Processes, scripts and the composition root use modules through their faces too.',
      severity: 'error',
      from: { path: '^(workers/|scripts/|src/[^/]+\\.ts$)' },
      to: { path: '^src/(platform/[^/]+|[^/]+)/', pathNot: '^src/(platform/[^/]+|[^/]+)/index\\.ts$' },
    },
    {
      name: 'no-cycles',
      comment: 'Modules that import each other cannot be understood, tested or moved one at a time.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'no-folder-cycles',
      comment: 'Feature folders stand on one another in one order, as their files do.',
      severity: 'error',
      scope: 'folder',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    parser: 'swc',
    tsConfig: { fileName: 'tsconfig.json' },
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|dist)/' },
  },
};
