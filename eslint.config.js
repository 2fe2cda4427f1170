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

/**
 * The local stage's rooms (docs/decisions/0083-local-stage-rooms.md): every import points down.
 * The stage process: http → stage → sessions → media, and in media viewer → publisher →
 * {transport, sdp}; `src/codecs` imports no program, and the recorder and the thumbnail process
 * read codecs and the shared contracts, never the stage. Imports inside the stage are relative,
 * so a rule names the folder a climb lands in. Tests compose rooms freely.
 */
function stageRoom(files, folders, message) {
  return {
    files,
    ignores: ['**/*.test.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ regex: `^(\\.\\./)+(${folders.join('|')})(/|$)`, message }] },
      ],
    },
  };
}

const stageRooms = [
  {
    files: ['local-stage/src/codecs/**'],
    ignores: ['**/*.test.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^\\.\\.(/|$)',
              message:
                'src/codecs imports no program: the stage, the recorder and the thumbnail process share it.',
            },
          ],
        },
      ],
    },
  },
  stageRoom(
    ['local-stage/src/server/media/sdp/**', 'local-stage/src/server/media/transport/**'],
    ['publisher', 'viewer', 'sessions', 'stage', 'http'],
    'media/sdp and media/transport are the bottom rooms of the media server: they import no other room (decision 0083).',
  ),
  stageRoom(
    ['local-stage/src/server/media/publisher/**'],
    ['viewer', 'sessions', 'stage', 'http'],
    "media/publisher imports only the rooms below it (transport, sdp, codecs); the viewer's side imports it (decision 0083).",
  ),
  stageRoom(
    ['local-stage/src/server/media/viewer/**'],
    ['sessions', 'stage', 'http'],
    'media/ imports no room above it (sessions, stage, http): they import media (decision 0083).',
  ),
  stageRoom(
    ['local-stage/src/server/sessions/**'],
    ['stage', 'http'],
    'sessions/ imports media/, never stage/ or http/ above it (decision 0083).',
  ),
  stageRoom(
    ['local-stage/src/server/stage/**'],
    ['http'],
    'stage/ never imports http/, which imports it (decision 0083).',
  ),
  stageRoom(
    ['local-stage/src/recorder/**', 'local-stage/src/thumbnails/**', 'local-stage/src/cameras/**'],
    ['server', 'sdk'],
    'A process of its own: the recorder, the thumbnail process and the camera process read src/codecs and the shared contracts, never the stage (decision 0083).',
  ),
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
  ...stageRooms,
);
