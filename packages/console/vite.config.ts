import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// Served by the edge at /console/ (services/edge/src/console/static.ts); `npm run dev` proxies the
// API to a gateway on :8080.
export default defineConfig({
  base: '/console/',
  plugins: [react()],
  build: { outDir: 'dist', emptyOutDir: true, chunkSizeWarningLimit: 2000 },
  server: {
    proxy: Object.fromEntries(
      ['/dashboard', '/x-', '/console/api', '/openapi.json'].map((path) => [path, 'http://127.0.0.1:8080']),
    ),
  },
});
