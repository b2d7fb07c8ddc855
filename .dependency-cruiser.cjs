// The layers of docs/architecture.md §1 as the build checks them (`npm run lint`). dependency-
// cruiser rather than an ESLint import plugin: it resolves imports through the TypeScript config
// itself (type-only imports included), states each layer as an allow-list the table can be read
// against, and finds import cycles across the whole tree in the same pass, which ESLint's cycle
// rule does file by file and slowly. ESLint (eslint.config.mjs) keeps `vscode` out of the layers.

/** Node's built-in modules, as dependency-cruiser names them. */
const core = (...names) => ({ dependencyTypes: ['core'], path: `^(node:)?(${names.join('|')})$` });
const npm = (...names) => ({ path: `^node_modules/(${names.join('|')})/` });
const folders = (...names) => ({ path: `^(${names.map((n) => `${n}/`).join('|')})` });
const NODE = [
  'assert',
  'child_process',
  'crypto',
  'events',
  'fs',
  'os',
  'path',
  'readline',
  'stream',
  'string_decoder',
  'timers',
  'url',
  'util',
  'v8',
  'worker_threads',
  'zlib',
];

/** Pure files of src/tape (no imports) that the protocol and the webview may use too. */
const SHARED_HELPERS = { path: '^src/tape/(errorMessage|usage/usageFigures|unicodeEscape)\\.ts$' };

/** A layer: what its files may import. */
const layer = (from, ...targets) => targets.map((to) => ({ from: { path: `^${from}/` }, to }));

module.exports = {
  allowed: [
    // The pure domain: no I/O, no storage, no editor.
    ...layer('src/tape', folders('src/tape'), npm('zod'), core('crypto')),
    ...layer('src/store', folders('src/tape', 'src/store'), npm('sql.js', 'zod'), core(...NODE)),
    ...layer('src/agent', folders('src/tape', 'src/store', 'src/agent'), npm('zod', 'openai', 'ignore', 'picomatch'), core(...NODE)),
    ...layer('src/ingest', folders('src/tape', 'src/store', 'src/ingest'), npm('zod', 'fzstd'), core(...NODE)),
    // Step replay walks a recorded tape (cursor, seekable view, breakpoints): below the agent.
    ...layer('src/replay', folders('src/tape', 'src/store', 'src/replay'), npm('zod'), core(...NODE)),
    // Rebuild, verify, re-run and evaluate send rebuilt requests through the agent's turn loop and
    // model port; the agent never imports them, so no cycle.
    ...layer('src/rerun', folders('src/tape', 'src/store', 'src/agent', 'src/rerun'), npm('zod'), core(...NODE)),
    // Agent blame reads the tape, its checkpoint store (the agent's git snapshots) and the workspace
    // file; the attribution itself is an analysis of src/tape (blame/).
    ...layer('src/blame', folders('src/tape', 'src/store', 'src/agent', 'src/blame'), npm('zod'), core(...NODE)),
    // OpenTelemetry: sessions projected onto GenAI spans, written as OTLP (files, a live exporter).
    ...layer(
      'src/otel',
      folders('src/tape', 'src/store', 'src/otel'),
      npm('zod', '@opentelemetry/otlp-transformer', '@opentelemetry/resources'),
      // http and https for one file's use, otlpPost.ts: the collector the user configured, the only other network we have.
      core(...NODE, 'http', 'https'),
    ),
    ...layer('src/inspector', folders('src/tape', 'src/store', 'src/protocol', 'src/inspector'), npm('zod'), core(...NODE)),
    ...layer(
      'src/cli',
      folders('src/tape', 'src/store', 'src/agent', 'src/ingest', 'src/replay', 'src/rerun', 'src/blame', 'src/otel', 'src/cli'),
      npm('zod'),
      core(...NODE),
    ),
    // The host <-> webview messages: shared by both sides, so neither Node's modules nor the DOM's.
    // One file of the domain both sides may share: errorMessage.ts imports nothing, so it brings
    // neither Node nor the DOM along, and there is then one errorMessage for the whole tree.
    ...layer('src/protocol', folders('src/protocol'), npm('zod'), SHARED_HELPERS),
    // The glue may use every host layer and the editor's API, never the browser bundles.
    ...layer(
      'src/extension',
      folders(
        'src/tape',
        'src/store',
        'src/agent',
        'src/ingest',
        'src/replay',
        'src/rerun',
        'src/blame',
        'src/otel',
        'src/inspector',
        'src/protocol',
        'src/extension',
      ),
      npm('zod', '@vscode/debugadapter', '@vscode/debugprotocol', '@types/vscode'),
      core(...NODE),
    ),
    // The browser bundles: the protocol, the web components and the Markdown parser, nothing of Node.
    ...layer('webview', folders('src/protocol', 'webview'), npm('zod', '@vscode-elements/elements', 'markdown-it'), SHARED_HELPERS),
  ],
  allowedSeverity: 'error',
  forbidden: [
    {
      name: 'no-cycles',
      severity: 'error',
      comment: 'Import cycles (type-only ones too) tangle the layers from inside.',
      from: { path: '^(src|webview)/' },
      to: { circular: true },
    },
    {
      name: 'agent-folders-apart',
      severity: 'error',
      comment:
        "An agent folder of src/ingest (one per agent: its format, discovery and first-prompt rule) uses the shared kernel at the top of src/ingest, never another agent's folder: a change to one agent's reader cannot move another's.",
      from: { path: '^src/ingest/([^/]+)/' },
      to: { path: '^src/ingest/[^/]+/', pathNot: '^src/ingest/$1/' },
    },
    {
      name: 'tape-kernel-below-analyses',
      severity: 'error',
      comment:
        'The kernel at the top of src/tape (entries, fold, anchors, context, manifests, projections) is what every analysis reads; an analysis in a sub-folder (search, audit, evaluation, comparison, usage, blame) may use the kernel and the figures of usage/, never the other way round, so a change to an analysis cannot move the fold. Type-only imports are allowed: a kernel entry may carry an analysis result.',
      from: { path: '^src/tape/(?!(search|audit|evaluation|comparison|usage|blame)/)' },
      to: {
        path: '^src/tape/(search|audit|evaluation|comparison|usage|blame)/',
        pathNot: '^src/tape/usage/usageFigures\\.ts$',
        dependencyTypesNot: ['type-only'],
      },
    },
    {
      name: 'tape-analyses-apart',
      severity: 'error',
      comment: 'Each analysis of src/tape stands on the kernel alone (usage figures aside): one analysis cannot change what another reports.',
      from: { path: '^src/tape/(search|audit|evaluation|comparison|usage|blame)/' },
      to: { path: '^src/tape/(search|audit|evaluation|comparison|usage|blame)/', pathNot: ['^src/tape/$1/', '^src/tape/usage/'] },
    },
    {
      name: 'resolvable',
      severity: 'error',
      comment: 'An import nothing resolves: a typo, or a package missing from package.json.',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '\\.d\\.ts$' },
  },
};
