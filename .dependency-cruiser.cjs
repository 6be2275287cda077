// The layer rules (the README's Layout section lists the layers), checked in CI by `npm run layers`.
// Paths are relative to where the cruise starts (the repo root; the test points the same rules at a fixture tree).
// Type-only imports and dynamic import() count: a plugin-visible type coming from the journal is a layer breach too.
const { join } = require('node:path')

// A package from node_modules, wherever the tree sits (the fixture resolves to ../../../node_modules).
const npm = '(^|/)node_modules/'
const zodOrViem = '(^|/)node_modules/(zod|viem)/'
// Node builtins (node:crypto, node:path) are allowed wherever packages are: matched by type, not by path.
const builtin = ['core']

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'domain-is-pure',
      severity: 'error',
      comment:
        'The domain is the shared vocabulary (intents, order statuses, view types, field schemas): pure, so every layer may import it. ' +
        'It may import only itself, src/protocol, src/errors, src/time, zod, viem and node builtins. Move what it needs down into the domain.',
      from: { path: '^src/domain/' },
      to: { pathNot: ['^src/(domain|protocol|errors|time)/', zodOrViem], dependencyTypesNot: builtin },
    },
    {
      name: 'strategies-use-public-entry',
      severity: 'error',
      comment:
        'Built-in strategies use only what plugin authors get: src/index.ts, src/domain, their own strategies/ files, zod, viem and node builtins. ' +
        'If a strategy needs an internal import, the public entry is missing something: export it from src/index.ts (or move it into the domain).',
      from: { path: '^strategies/' },
      to: { pathNot: ['^src/index\\.ts$', '^src/domain/', '^strategies/', zodOrViem], dependencyTypesNot: builtin },
    },
    {
      name: 'protocol-imports-nothing-of-the-bot',
      severity: 'error',
      comment:
        'The protocol (EIP-712 types, hashes, encodings) is shared by the bot, the maker and the sandbox, so it may import only itself, src/errors and packages. ' +
        'Pass what it needs in as arguments instead.',
      from: { path: '^src/protocol/' },
      to: { pathNot: ['^src/(protocol|errors)/', npm], dependencyTypesNot: builtin },
    },
    {
      name: 'bot-never-imports-sandbox',
      severity: 'error',
      comment:
        'The sandbox is a stand-in for the real service: the bot (and the backtest, the maker, the public entry and strategies) must work without it. ' +
        'Only the CLI may start it; talk to it over HTTP like to the real service.',
      from: { path: '^(src|strategies)/', pathNot: '^src/(sandbox|cli)/' },
      to: { path: '^src/sandbox/' },
    },
    {
      name: 'sandbox-never-imports-bot',
      severity: 'error',
      comment:
        'The sandbox emulates the service, so it must not share code paths with the bot it tests: it may import only itself, ' +
        'src/protocol, src/domain, src/errors, src/log, src/time and packages. Move shared pieces down into the domain or the protocol.',
      from: { path: '^src/sandbox/' },
      to: { pathNot: ['^src/(sandbox|protocol|domain|errors|log|time)/', npm], dependencyTypesNot: builtin },
    },
    {
      name: 'journal-never-imports-exec',
      severity: 'error',
      comment:
        'The journal records what the executor did; the executor depends on the journal, never the reverse. ' +
        'Types both need (intents, order statuses) belong in src/domain.',
      from: { path: '^src/journal/' },
      to: { path: '^src/exec/' },
    },
    {
      name: 'console-ui-is-a-browser-app',
      severity: 'error',
      comment:
        'The web console runs in a browser and talks to the bot over HTTP only: it may import itself, the answer schemas of the ' +
        'control API (src/runtime/console/*-answer(s).ts, console-event.ts), src/domain, zod and uplot. Nothing imports it: the build bundles it.',
      from: { path: '^src/console-ui/' },
      to: {
        pathNot: [
          '^src/console-ui/',
          '^src/runtime/console/[a-z-]+-answers?\\.ts$',
          '^src/runtime/console/console-event\\.ts$',
          '^src/domain/',
          '(^|/)node_modules/(zod|uplot)/',
        ],
      },
    },
    {
      name: 'nothing-imports-console-ui',
      severity: 'error',
      comment:
        'src/console-ui/ is browser code, bundled on its own into dist/console-ui/ and served as files: no server module imports it.',
      from: { pathNot: '^src/console-ui/' },
      to: { path: '^src/console-ui/' },
    },
    {
      name: 'nothing-imports-cli',
      severity: 'error',
      comment:
        'The CLI is the outermost layer: one file per command, imported only by other commands and bin/. ' +
        'Move what another layer needs out of src/cli (into the runtime, the domain or the layer that owns it).',
      from: { pathNot: '^(src/cli|bin)/' },
      to: { path: '^src/cli/' },
    },
    {
      name: 'no-cycles',
      severity: 'error',
      comment:
        'This import is part of an import cycle (the cycle is listed): modules in a cycle cannot be understood, tested or loaded one at a time. ' +
        'Break it by moving the shared piece into a module both can import.',
      from: { path: '^(src|strategies)/' },
      to: { circular: true },
    },
    {
      name: 'imports-resolve',
      severity: 'error',
      comment:
        'dependency-cruiser cannot resolve this import, so no layer rule can check it. ' +
        'Fix the specifier (relative imports end in .js and point at a .ts file) or the package.',
      from: { path: '^(src|strategies)/' },
      to: { couldNotResolve: true },
    },
  ],
  options: {
    // Packages are checked as a target (domain may use zod and viem only) but never cruised into.
    doNotFollow: { path: npm },
    // Anchored: an unanchored 'dist/' would also drop every import of a package that ships from dist/ (rxjs).
    exclude: { path: ['^dist/', '^test/fixtures/'] },
    moduleSystems: ['es6', 'cjs'],
    // `import type` and `import { type X }` count, as do import() types: they are what drifts first.
    tsPreCompilationDeps: true,
    // Absolute, so the same rules work when the cruise starts in the test fixture.
    tsConfig: { fileName: join(__dirname, 'tsconfig.json') },
    // NodeNext `.js` specifiers resolve to the `.ts` file beside them; fewer extensions to try keeps the run fast.
    // Packages resolve through their `exports` map as Node does for ESM (tsx/esm/api has no file at that path).
    enhancedResolveOptions: {
      extensions: ['.ts', '.js', '.mjs', '.cjs', '.d.ts', '.json'],
      exportsFields: ['exports'],
      conditionNames: ['import', 'node', 'default'],
    },
    skipAnalysisNotInRules: true,
  },
}
