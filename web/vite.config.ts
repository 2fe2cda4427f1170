import { fileURLToPath } from 'node:url';
import tailwindcss from '@tailwindcss/vite';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vitest/config';

// In development the API (which also serves /sdk/stage.js and proxies /stage) runs on 8080.
const apiOrigin = process.env.TAILCAM_DEV_API ?? 'http://127.0.0.1:8080';

export default defineConfig({
  resolve: {
    alias: { '@': fileURLToPath(new URL('./src', import.meta.url)) },
  },
  plugins: [react(), tailwindcss()],
  build: {
    target: 'es2022',
    // The server serves web/dist as it is: a map would hand every visitor the app's whole source.
    // `npm run dev` has its own maps.
    sourcemap: false,
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
  },
});
