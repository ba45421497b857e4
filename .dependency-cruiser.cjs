// The layer rules of DESIGN §4, checked on every `npm test`.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'renderer-only-contract',
      comment: 'renderer/ may import from this repository only main/api/contract.ts',
      severity: 'error',
      from: { path: '^renderer/' },
      to: { path: '^(main|app|native|models|test)/', pathNot: ['^main/api/contract\\.ts$', '^test/fakes/'] },
    },
    {
      name: 'renderer-fakes-only-in-tests',
      severity: 'error',
      from: { path: '^renderer/', pathNot: '\\.test\\.ts$' },
      to: { path: '^test/' },
    },
    {
      name: 'app-only-contract',
      comment: 'app/ may import from this repository only main/api/contract.ts (tests may use test/fakes)',
      severity: 'error',
      from: { path: '^app/' },
      to: { path: '^(main|renderer|native|models|test)/', pathNot: ['^main/api/contract\\.ts$', '^test/fakes/'] },
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
      from: { path: '^main/' },
      to: { path: '^(app|renderer|test|models)/', pathNot: '^test/fakes/' },
    },
    {
      name: 'sim-behind-the-wire',
      comment: 'main/sim/ is a robot on the far side of the wire: only the CLI and benches wire it in',
      severity: 'error',
      from: { path: '^main/', pathNot: '^main/(sim|cli)/' },
      to: { path: '^main/sim/' },
    },
    {
      name: 'sim-sees-only-messages',
      comment: 'the simulated robot knows the link interface and message types, nothing of the cockpit',
      severity: 'error',
      from: { path: '^main/sim/' },
      to: { path: '^main/', pathNot: '^main/(sim|links)/' },
    },
    {
      name: 'contract-stands-alone',
      comment: 'the contract is bundled into the UI: it imports nothing from the repository',
      severity: 'error',
      from: { path: '^main/api/contract\\.ts$' },
      to: { path: '^(main|app|renderer|native|models|test)/' },
    },
    {
      name: 'models-build-only-perception-and-sim',
      comment: "models/' build script may import main/perception/ and main/sim/",
      severity: 'error',
      from: { path: '^models/' },
      to: { path: '^(main|app|renderer|test)/', pathNot: '^main/(perception|sim|links)/' },
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
