// The layer rules of DESIGN §4, checked on every `npm test`.

// The core's layers, lowest first (DESIGN §4: core ← links, perception, memory, recording, world model,
// learning ← loop ← api ← session ← cli). A folder imports only its own layer's folder and lower layers;
// the middle row is ordered so that what the world model and learning read (memory, recordings) sits below them.
const LAYERS = [['core'], ['links', 'safety'], ['perception', 'memory'], ['recording', 'worldmodel'], ['learning'], ['loop'], ['api'], ['session'], ['cli']];

function layerRules() {
  return LAYERS.flatMap((folders, rank) => {
    const above = LAYERS.slice(rank + 1).flat();
    const peers = folders.length > 1 ? folders : [];
    return folders
      .filter(() => above.length > 0)
      .map((folder) => ({
        name: `layer-${folder}`,
        comment: `main/${folder}/ imports only ${['its own folder', ...peers.filter((p) => p !== folder).map((p) => `not ${p}`), 'and lower layers'].join(', ')}`,
        severity: 'error',
        from: { path: `^main/${folder}/`, pathNot: '\\.test\\.ts$' },
        to: { path: `^main/(${[...above, ...peers.filter((p) => p !== folder)].join('|')})/` },
      }));
  });
}
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'renderer-only-contract',
      comment: 'renderer/ may import from this repository only main/core/contract.ts',
      severity: 'error',
      from: { path: '^renderer/' },
      to: { path: '^(main|app|native|models|test)/', pathNot: ['^main/core/contract\\.ts$', '^test/fakes/'] },
    },
    {
      name: 'renderer-fakes-only-in-tests',
      severity: 'error',
      from: { path: '^renderer/', pathNot: '\\.test\\.ts$' },
      to: { path: '^test/' },
    },
    {
      name: 'app-only-contract',
      comment: 'app/ may import from this repository only main/core/contract.ts (tests may use test/fakes)',
      severity: 'error',
      from: { path: '^app/' },
      to: { path: '^(main|renderer|native|models|test)/', pathNot: ['^main/core/contract\\.ts$', '^test/fakes/'] },
    },
    {
      name: 'electron-only-in-app',
      comment: 'only app/ imports electron; the core must run in plain Node',
      severity: 'error',
      from: { pathNot: '^app/' },
      to: { path: '(^|/)node_modules/electron/' },
    },
    {
      name: 'core-stays-core',
      comment: 'main/ imports only itself (and native addons built from native/)',
      severity: 'error',
      from: { path: '^main/', pathNot: '\\.test\\.ts$' },
      to: { path: '^(app|renderer|test|models)/', pathNot: '^test/fakes/' },
    },
    {
      name: 'core-tests-use-only-test-helpers',
      comment: "unit tests beside main/'s code may also use test/fakes and test/support (fixtures), nothing else outside main/",
      severity: 'error',
      from: { path: '^main/.*\\.test\\.ts$' },
      to: { path: '^(app|renderer|models)/|^test/(?!fakes/|support/)' },
    },
    {
      name: 'sim-behind-the-wire',
      comment: 'main/sim/ is a robot on the far side of the wire: only the CLI and benches wire it in',
      severity: 'error',
      from: { path: '^main/', pathNot: '^main/(sim|cli|session)/' },
      to: { path: '^main/sim/' },
    },
    {
      name: 'sim-sees-only-core-and-links',
      comment: 'the simulated robot knows the shared core types and the link interface, nothing of the cockpit',
      severity: 'error',
      from: { path: '^main/sim/' },
      to: { path: '^main/', pathNot: '^main/(sim|core|links)/' },
    },
    ...layerRules(),
    {
      name: 'only-cli-imports-cli',
      comment: 'main/cli/ holds commands only: nothing else in the core imports it',
      severity: 'error',
      from: { path: '^main/', pathNot: '^main/cli/' },
      to: { path: '^main/cli/' },
    },
    {
      name: 'benches-drive-the-session',
      comment:
        'benches, the soak and the probe drive the product as `reins start` assembles it: through session/ (its factories are the ones the running core uses), the shared core types, the simulated robot and their own command line (DESIGN §4)',
      severity: 'error',
      from: { path: '^main/cli/(bench|soak|probe)/', pathNot: '\\.test\\.ts$' },
      to: { path: '^main/', pathNot: '^main/(session|core|sim|cli/(bench|soak|probe)|cli/(args|usageError)\\.ts$)' },
    },
    {
      name: 'no-circular',
      comment: 'no import cycles anywhere in the tree',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'contract-stands-alone',
      comment: 'the contract is bundled into the UI: it imports nothing from the repository',
      severity: 'error',
      from: { path: '^main/core/contract\\.ts$' },
      to: { path: '^(main|app|renderer|native|models|test)/' },
    },
    {
      name: 'models-build-only-perception-and-sim',
      comment: "models/' build script may import main/perception/ and main/sim/",
      severity: 'error',
      from: { path: '^models/' },
      to: { path: '^(main|app|renderer|test)/', pathNot: '^main/(core|perception|sim|links)/' },
    },
    {
      name: 'fakes-only-in-tests',
      comment: 'fakes live in test/fakes and only tests use them',
      severity: 'error',
      from: { pathNot: '(^test/|\\.test\\.ts$)' },
      to: { path: '^test/fakes/' },
    },
    {
      name: 'no-unresolvable',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(app|renderer)/dist/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'] },
  },
};
