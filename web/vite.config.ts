import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isolationProjects } from '../scripts/vitest-isolation';
import { precompress } from './scripts/precompress';
import tailwindcss from '@tailwindcss/vite';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vitest/config';

// In development the API (which also serves /sdk/stage.js and proxies /stage) runs on 8080.
const apiOrigin = process.env.TAILCAM_DEV_API ?? 'http://127.0.0.1:8080';

// React Router's package maps every import to its development build, whose warnings (and their
// text) would ship to visitors (remix-run/react-router#14102). The production build takes the
// package's own production build, the same API without them.
const reactRouterProductionBuild = join(
  dirname(createRequire(import.meta.url).resolve('react-router/package.json')),
  'dist/production/index.mjs',
);

export default defineConfig(({ command }) => ({
  resolve: {
    alias: [
      { find: '@', replacement: fileURLToPath(new URL('./src', import.meta.url)) },
      ...(command === 'build'
        ? [{ find: /^react-router$/, replacement: reactRouterProductionBuild }]
        : []),
    ],
  },
  plugins: [react(), tailwindcss(), precompress()],
  build: {
    target: 'es2022',
    // The server serves web/dist as it is: a map would hand every visitor the app's whole source.
    // `npm run dev` has its own maps.
    sourcemap: false,
    // index.html preloads nothing, and a browser without modulepreload (Safari before 17) still
    // loads a lazy page's chunks, when it imports them: the polyfill would only add weight.
    modulePreload: { polyfill: false },
  },
  server: {
    proxy: {
      '/api': apiOrigin,
      '/sdk': apiOrigin,
      '/stage': { target: apiOrigin, ws: true },
    },
  },
  test: {
    environment: 'jsdom',
    setupFiles: ['./vitest.setup.ts'],
    restoreMocks: true,
    unstubGlobals: true,
    // One process and one jsdom page for the files that mock no module; each test still renders
    // afresh, and vitest.setup.ts unmounts it and clears the storage after each. Read only when
    // vitest runs (not on a build).
    projects: process.env.VITEST
      ? isolationProjects({
          srcDir: fileURLToPath(new URL('./src', import.meta.url)),
          include: 'src/**/*.test.{ts,tsx}',
          testFile: /\.test\.tsx?$/,
          sharedName: 'shared-page',
        })
      : undefined,
  },
}));
