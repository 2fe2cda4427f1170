import { readdirSync } from 'node:fs';
import js from '@eslint/js';
import globals from 'globals';
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';

/**
 * The web app's layers, as bulletproof-react draws them: app → features → shared (components,
 * config, lib), never back, and a feature never imports another one: the app composes them.
 * Imports across folders go through the `@/` alias, so the rules read where an import goes from
 * its name; relative imports stay inside a folder, or climb only between a feature's own folders.
 * `web/src/testing` renders the whole app for tests and fakes the player's SDK: it may import any
 * layer, and only tests may import it.
 */
const webFeatures = readdirSync(new URL('./web/src/features', import.meta.url), {
  withFileTypes: true,
})
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name);

const noImportOfApp = {
  regex: '^@/app(/|$)',
  message: 'Only the app shell (web/src/app) imports the app shell.',
};
const noImportOfFeatures = {
  regex: '^@/features(/|$)',
  message: 'Shared code (components, config, lib) does not import features; the app composes them.',
};
const noRelativeClimb = {
  regex: '^\\.\\.(/|$)',
  message: 'Import from another folder with the @/ alias.',
};

function webLayer(files, patterns) {
  return { files, rules: { 'no-restricted-imports': ['error', { patterns }] } };
}

const webLayers = [
  webLayer(['web/src/app/**', 'web/src/testing/**'], [noRelativeClimb]),
  webLayer(
    ['web/src/{components,config,lib}/**'],
    [noImportOfApp, noImportOfFeatures, noRelativeClimb],
  ),
  ...webFeatures.map((feature) =>
    webLayer(
      [`web/src/features/${feature}/**`],
      [
        noImportOfApp,
        {
          regex: `^@/features/(?!${feature}/)`,
          message: `A feature does not import another feature (this is ${feature}); the app composes them.`,
        },
        {
          // `../api/login` from `components/` stays in the feature; `../../player` does not.
          regex: '^\\.\\./(?!(api|components|data|hooks|lib|testing|types|utils)/)',
          message: "A relative import stays inside the feature's folders; use the @/ alias.",
        },
      ],
    ),
  ),
  {
    files: ['web/src/**'],
    ignores: ['web/src/testing/**', '**/*.test.{ts,tsx}'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [{ regex: '^@/testing(/|$)', message: 'Only tests import the test helpers.' }],
        },
      ],
    },
  },
];

export default tseslint.config(
  {
    ignores: [
      '**/node_modules/**',
      '**/dist/**',
      'data/**',
      'coverage/**',
      'test-results/**',
      'playwright-report/**',
      'e2e/.artifacts/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
      'no-restricted-globals': ['error', { name: 'alert', message: 'Show errors in the UI.' }],
    },
  },
  {
    files: ['web/**/*.{ts,tsx}', 'local-stage/src/sdk/**/*.ts'],
    languageOptions: { globals: { ...globals.browser } },
  },
  {
    files: ['web/**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks },
    rules: reactHooks.configs.recommended.rules,
  },
  ...webLayers,
);
