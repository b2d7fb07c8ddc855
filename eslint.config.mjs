// ESLint for the whole tree (`npm run lint`, part of `npm test`). The layers themselves are
// checked by dependency-cruiser (.dependency-cruiser.cjs); here, the rules about code, and the one
// about the editor's API: only src/extension (and the tests that run inside VS Code) import vscode.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const vscodeOnlyInTheGlue = {
  'no-restricted-imports': [
    'error',
    { paths: [{ name: 'vscode', message: 'Only src/extension imports vscode (docs/architecture.md §1): pass what the core needs through its ports.' }] },
  ],
};

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', 'out/', 'out-*/', '.vscode-test-env/', '.vscode-test/', 'test/fixtures/', 'bench/results/', 'media/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.{ts,mts,cts}'],
    rules: {
      ...vscodeOnlyInTheGlue,
      // Sanitising terminal and JSON text is matching control characters on purpose.
      'no-control-regex': 'off',
      // Unused code is an error; a leading underscore marks a parameter a signature needs.
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
    },
  },
  { files: ['src/extension/**', 'test/integration/**'], rules: { 'no-restricted-imports': 'off' } },
  // Tests replace Node modules' functions (fs) to inject faults: that takes the CommonJS module object.
  { files: ['test/**'], rules: { '@typescript-eslint/no-require-imports': 'off' } },
  {
    files: ['**/*.{js,mjs,cjs}'],
    rules: { '@typescript-eslint/no-require-imports': 'off' },
    languageOptions: {
      globals: {
        console: 'readonly',
        process: 'readonly',
        require: 'readonly',
        module: 'writable',
        __dirname: 'readonly',
        URL: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        Buffer: 'readonly',
      },
    },
  },
);
