import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import {
  createTestDatabase,
  MockUpstream,
  startGateway,
  waitFor,
  waitForRoute,
  type Gateway,
  type TestDatabase,
} from '@gw/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * The README's quickstart, run as written: each `<!-- quickstart:<name> -->` block is taken from
 * README.md and run (sh blocks with bash, the Node block with node from this package, where the
 * `openai` SDK is installed) against a started gateway whose upstream is a local mock. The reader's
 * variables (GW, ROOT_KEY, UPSTREAM_URL, UPSTREAM_KEY) are set from the gateway and the mock.
 * The Python block is not executed (the `openai` package for Python is not installed here); it
 * mirrors the Node block line for line.
 */
const PROXY_DIR = fileURLToPath(new URL('..', import.meta.url));
const README = readFileSync(fileURLToPath(new URL('../../../README.md', import.meta.url)), 'utf8');
const run = promisify(execFile);

function block(name: string): string {
  const found = new RegExp(`<!-- quickstart:${name} -->\\s*\`\`\`(?:sh|js)\\n([\\s\\S]*?)\`\`\``).exec(
    README,
  );
  if (!found?.[1]) {
    throw new Error(`README.md has no quickstart:${name} block`);
  }
  return found[1];
}

/** curl prints each answer without a newline: the JSON values of a block's output, in order. */
function jsonValues(out: string): unknown[] {
  const values: unknown[] = [];
  let start = 0;
  for (let end = 1; end <= out.length; end += 1) {
    if (out[end - 1] !== '}') {
      continue;
    }
    try {
      values.push(JSON.parse(out.slice(start, end)));
      start = end;
    } catch {
      // Not a whole value yet.
    }
  }
  return values;
}

describe('README quickstart', () => {
  let gw: Gateway;
  let mock: MockUpstream;
  let database: TestDatabase;
  const upstreamKey = 'sk-upstream-readme-quickstart-0001';
  const env: Record<string, string> = {};

  const sh = async (script: string) =>
    (await run('bash', ['-euo', 'pipefail', '-c', script], { env: { ...process.env, ...env } })).stdout;

  beforeAll(async () => {
    mock = await MockUpstream.start();
    database = await createTestDatabase();
    gw = await startGateway({ databaseUrl: database.url });
    Object.assign(env, {
      GW: gw.baseUrl,
      ROOT_KEY: gw.rootKey,
      UPSTREAM_URL: `${mock.url}/v1`,
      UPSTREAM_KEY: upstreamKey,
    });
  });

  afterAll(async () => {
    await (gw as Gateway | undefined)?.stop();
    await (mock as MockUpstream | undefined)?.stop();
    await (database as TestDatabase | undefined)?.drop();
  });

  it('adds the upstream key to Level 1 and maps gpt-4o models there', async () => {
    const [added, configured] = jsonValues(await sh(block('pool'))) as [
      { Key: { ID: number; Level: number } },
      { configs: Record<string, unknown> },
    ];
    expect(added.Key.Level).toBe(1);
    expect(configured.configs.LEVEL_MAPPER).toMatchObject({ 'gpt-4o*': 1 });
    // The route answer printed by the block may predate the pool reaching the proxy (an event).
    await waitForRoute(gw, 'gpt-4o-mini', 1, [added.Key.ID]);
  });

  it('creates the subaccount and exports its key', async () => {
    const key = (await sh(`${block('account')}\necho "$KEY"`)).trim();
    expect(key).toMatch(/^sk-gw-/);
    const status = await gw.request('/dashboard/status', { key });
    expect(((await status.json()) as { name: string; balance: number }).name).toBe('alice01');
    env.KEY = key;
  });

  it('calls /v1/chat/completions with curl, plain and streamed, through the upstream key', async () => {
    const before = mock.for(upstreamKey).length;
    const out = await sh(block('curl'));
    const at = out.indexOf('data: ');
    const answer = JSON.parse(out.slice(0, at)) as { choices: Array<{ message: { content: string } }> };
    const streamed = out.slice(at).split('\n');
    expect(answer.choices[0]?.message.content).toBe(`hello from ${upstreamKey}`);
    expect(streamed.filter((line) => line.startsWith('data: {')).length).toBeGreaterThan(1);
    expect(streamed).toContain('data: [DONE]');
    expect(
      mock
        .for(upstreamKey)
        .slice(before)
        .map((request) => request.body.model),
    ).toEqual(['gpt-4o-mini', 'gpt-4o-mini']);
  });

  it('calls it with the openai SDK for Node, plain and streamed', async () => {
    const before = mock.for(upstreamKey).length;
    const { stdout } = await run(process.execPath, ['--input-type=module', '--eval', block('node')], {
      cwd: PROXY_DIR,
      env: { ...process.env, ...env },
    });
    const [plain, streamed] = stdout.split('\n');
    expect(plain).toBe(`hello from ${upstreamKey}`);
    expect(streamed).toMatch(/^tok0 tok1 /);
    expect(
      mock
        .for(upstreamKey)
        .slice(before)
        .map((request) => request.body.stream ?? false),
    ).toEqual([false, true]);
  });

  it("shows the subaccount's info and bill, charged for its four calls, and root's operation log", async () => {
    type Usage = [
      { object: string; user: { name: string }; balance: { total: number } },
      { object: string; total_usage: { requests: number; cost: number } },
      { logs: Array<{ action: string }> },
    ];
    let usage: Usage | undefined;
    await waitFor(
      async () => {
        usage = jsonValues(await sh(block('usage'))) as Usage;
        // The bill is written before the debit reaches the balance: wait for both.
        return usage[1].total_usage.requests === 4 && usage[0].balance.total < 5;
      },
      'the four quickstart calls on the bill',
      15_000,
      200,
    );
    const [parsed, bill, logs] = usage as Usage;
    expect(parsed).toMatchObject({ object: 'user_info', user: { name: 'alice01' } });
    expect(bill.object).toBe('list');
    expect(bill.total_usage.cost).toBeGreaterThan(0);
    expect(parsed.balance.total).toBeLessThan(5);
    const actions = logs.logs.map((entry) => entry.action);
    expect(actions).toContain('add_user');
  });
});
