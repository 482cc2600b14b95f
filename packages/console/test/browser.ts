import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { expect } from 'vitest';

const CONSOLE = fileURLToPath(new URL('..', import.meta.url));
const REPO = join(CONSOLE, '..', '..');

/** Builds the console once when its build is missing (npm test builds it before the tests). */
export function ensureConsoleBuilt(): void {
  if (!existsSync(join(CONSOLE, 'dist', 'index.html'))) {
    execFileSync('npm', ['run', 'build:console'], { cwd: REPO, stdio: 'inherit' });
  }
}

const CHROMIUM = '/usr/bin/chromium';

/** Debian's Chromium (`.ci/run` installs it), headless, with a fresh profile of its own. */
export function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`${CHROMIUM} is missing: apt-get install chromium (.ci/run installs it when missing)`);
  }
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/**
 * Waits for the page's transitions and animations to end (a dialog fading in): colours read
 * mid-fade are blends, and a screenshot would catch them half-drawn.
 */
async function settled(page: Page): Promise<void> {
  await page.evaluate(async () => {
    // A transition starts a frame or two after the change that asks for it.
    await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
    await Promise.all(document.getAnimations().map((animation) => animation.finished.catch(() => undefined)));
  });
}

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/**
 * axe-core over the page as it is: no serious or critical violation. The script goes in through
 * the DevTools protocol, which the page's Content-Security-Policy does not cover (the page's own
 * policy stays on).
 */
export async function expectAccessible(page: Page, name: string): Promise<void> {
  await settled(page);
  await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const axe = (
      window as unknown as {
        axe: {
          run: () => Promise<{
            violations: Array<{
              id: string;
              impact: string;
              nodes: Array<{ target: unknown; html: string; failureSummary?: string }>;
            }>;
          }>;
        };
      }
    ).axe;
    const result = await axe.run();
    return result.violations.map((violation) => ({
      id: violation.id,
      impact: violation.impact,
      nodes: violation.nodes.slice(0, 3).map((node) => ({
        target: JSON.stringify(node.target),
        html: node.html.slice(0, 200),
        why: node.failureSummary,
      })),
    }));
  });
  const serious = violations.filter(
    (violation) => violation.impact === 'serious' || violation.impact === 'critical',
  );
  expect(serious, `${name}: accessibility`).toEqual([]);
}

/**
 * Screenshots for the README: into docs/console/ when GW_CONSOLE_SCREENSHOTS=1 (then committed),
 * else into a scratch folder, so a test run leaves the repository as it was.
 */
const shots =
  process.env.GW_CONSOLE_SCREENSHOTS === '1'
    ? join(REPO, 'docs', 'console')
    : join(tmpdir(), 'gw-console-shots');
mkdirSync(shots, { recursive: true });

export async function screenshot(page: Page, name: string): Promise<void> {
  await settled(page);
  await page.screenshot({ path: join(shots, `${name}.png`), fullPage: true });
}

/**
 * Waits until an element of the role carries an accessible name matching `name`; on a timeout
 * the error lists the names that were there, so a failure says what the page showed.
 */
export async function waitForNamed(page: Page, role: 'img' | 'cell', name: RegExp): Promise<void> {
  try {
    await page.getByRole(role, { name }).first().waitFor();
  } catch (error) {
    const shown = await page
      .getByRole(role)
      .evaluateAll((nodes) => nodes.map((node) => node.getAttribute('aria-label') ?? node.textContent));
    throw new Error(`no ${role} named ${String(name)}; the page shows ${JSON.stringify(shown)}`, {
      cause: error,
    });
  }
}
