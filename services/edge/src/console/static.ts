import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { AppError, ErrorCode } from '@gw/kit';
import express, { Router } from 'express';

/**
 * The console's pages: scripts and styles only from the edge itself, no inline script, no
 * framing. Inline styles stay allowed because the component library sets CSS variables through
 * a <style> element; a script cannot be injected by it.
 */
export const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * Serves the built console (packages/console, `vite build`) at /console/: its assets, and
 * index.html for every other page path (not a missing asset) so that links into the app (the activation link, a
 * reload) land on it. /console/api/* is the session API, never a page.
 */
export function consolePages(dir: string | undefined): Router {
  const router = Router();
  router.use('/console', (req, res, next) => {
    res.setHeader('content-security-policy', CONSOLE_CSP);
    res.setHeader('x-content-type-options', 'nosniff');
    res.setHeader('referrer-policy', 'no-referrer');
    next();
  });
  const index = dir ? join(dir, 'index.html') : undefined;
  if (!dir || !index || !existsSync(index)) {
    router.get(/^\/console(\/.*)?$/, () => {
      throw new AppError(ErrorCode.NotFound, 'the console is not built (npm run build:console)');
    });
    return router;
  }
  router.get(/^\/console$/, (_req, res) => {
    res.redirect(301, '/console/');
  });
  router.use('/console', express.static(dir, { index: false, redirect: false, maxAge: '1h' }));
  router.get(/^\/console\/(?!api\/|assets\/).*$/, (_req, res) => {
    res.setHeader('cache-control', 'no-cache');
    res.sendFile(index);
  });
  return router;
}
