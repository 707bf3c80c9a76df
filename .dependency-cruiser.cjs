/**
 * Layering of the project (docs/architecture.md "Layers"): ui → worker → core and cli → core, never back; no
 * import cycles between modules, type-only imports included (a cycle of types is still a cycle to untangle).
 * Checked by `npm test` (test/layering.test.ts, which also forbids cycles between the folders of src/core).
 */
module.exports = {
  forbidden: [
    {
      name: 'core-is-pure',
      severity: 'error',
      comment: 'src/core must not import the worker, the page or the CLI',
      from: { path: '^src/core/' },
      to: { path: '^(src/worker|src/ui|cli)/' },
    },
    {
      name: 'worker-below-ui',
      severity: 'error',
      comment: 'the worker must not import the page or the CLI',
      from: { path: '^src/worker/' },
      to: { path: '^(src/ui|cli)/' },
    },
    {
      name: 'ui-via-worker-api',
      severity: 'error',
      comment: 'the page must not import the CLI',
      from: { path: '^src/ui/' },
      to: { path: '^cli/' },
    },
    {
      name: 'cli-not-browser',
      severity: 'error',
      comment: 'the CLI must not import the page or the worker',
      from: { path: '^cli/' },
      to: { path: '^(src/ui|src/worker)/' },
    },
    { name: 'no-circular', severity: 'error', comment: 'no import cycles', from: {}, to: { circular: true } },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^node_modules|\\.d\\.ts$)' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js', '.svelte', '.mjs'] },
  },
};
